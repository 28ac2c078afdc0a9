//! The GPU check's Rust side, without a GPU: the (lane, value) tables made from CuTe's layouts,
//! their agreement with the chapter and with the recorded CuTe probe, the corrupted tables, the
//! host-side C++ (built with g++), and the recorded hardware runs in fixtures/gpu/.

#[allow(dead_code)]
#[path = "../xtask/src/gpu.rs"]
mod gpu;

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spec(name: &str) -> &'static gpu::AtomSpec {
    gpu::ATOMS.iter().find(|a| a.name == name).expect("atom in the list")
}

fn tables(name: &str) -> Vec<gpu::AtomTables> {
    gpu::atom_tables(spec(name)).expect("tables")
}

/// Column-major index -> (row, col) in a tile with `rows` rows.
fn rc(idx: i64, rows: i64) -> (i64, i64) {
    (idx % rows, idx / rows)
}

#[test]
fn f16_tables_match_the_chapter() {
    let t = &tables("SM80_16x8x16_F32F16F16F32_TN")[0];
    assert!(t.note.is_empty());
    // The chapter's printed output (layout_mma.py): A's 8 values of lanes 0, 1 and 4 as (row, col).
    let want: [(usize, [(i64, i64); 8]); 3] = [
        (0, [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]),
        (1, [(0, 2), (0, 3), (8, 2), (8, 3), (0, 10), (0, 11), (8, 10), (8, 11)]),
        (4, [(1, 0), (1, 1), (9, 0), (9, 1), (1, 8), (1, 9), (9, 8), (9, 9)]),
    ];
    for (lane, vals) in want {
        let got: Vec<(i64, i64)> = (0..8).map(|v| rc(t.a[lane * 8 + v], 16)).collect();
        assert_eq!(got, vals, "lane {lane}");
    }
    // The chapter's formulas from the PTX table, for every lane and value (g = lane/4, t = lane%4).
    for lane in 0..32i64 {
        let (g, tt) = (lane / 4, lane % 4);
        for i in 0..8i64 {
            assert_eq!(rc(t.a[(lane * 8 + i) as usize], 16), (g + 8 * (i / 2 % 2), 2 * tt + i % 2 + 8 * (i / 4)));
        }
        for i in 0..4i64 {
            let idx = t.b[(lane * 4 + i) as usize]; // B is NxK: idx = n + 8k
            assert_eq!((idx / 8, idx % 8), (2 * tt + i % 2 + 8 * (i / 2), g), "B lane {lane} value {i}");
            assert_eq!(rc(t.c[(lane * 4 + i) as usize], 16), (g + 8 * (i / 2), 2 * tt + i % 2), "C lane {lane} value {i}");
        }
    }
    // The chapter's owner table, rows 0-3.
    let own = gpu::predicted_owners(&t.c, 16, 8);
    let rows: Vec<Vec<i64>> = (0..4).map(|r| (0..8).map(|c| own[(r + 16 * c) as usize] / 100).collect()).collect();
    assert_eq!(
        rows,
        vec![
            vec![0, 0, 1, 1, 2, 2, 3, 3],
            vec![4, 4, 5, 5, 6, 6, 7, 7],
            vec![8, 8, 9, 9, 10, 10, 11, 11],
            vec![12, 12, 13, 13, 14, 14, 15, 15]
        ]
    );
}

#[test]
fn atom_layouts_are_the_ones_cute_prints() {
    // fixtures/gpu/cute_traits_probe.txt is the output of cpp/gpu/probe_traits.cpp compiled
    // against the real CuTe 4.2 headers.
    let probe = std::fs::read_to_string(root().join("fixtures/gpu/cute_traits_probe.txt")).unwrap();
    let mut blocks = std::collections::HashMap::new();
    let mut cur = String::new();
    for line in probe.lines() {
        if let Some(rest) = line.strip_prefix("  ") {
            let (k, v) = rest.split_once(' ').unwrap();
            blocks.insert((cur.clone(), k.to_string()), v.to_string());
        } else {
            cur = line.to_string();
        }
    }
    for a in gpu::ATOMS {
        let get = |k: &str| blocks.get(&(a.name.to_string(), k.to_string())).unwrap_or_else(|| panic!("{} {k} in probe", a.name));
        assert_eq!(get("A"), a.a, "{} A", a.name);
        assert_eq!(get("B"), a.b, "{} B", a.name);
        assert_eq!(get("C"), a.c, "{} C", a.name);
        assert_eq!(get("MNK"), &format!("(_{},_{},_{})", a.m, a.n, a.k), "{} MNK", a.name);
    }
}

#[test]
fn only_the_two_known_cute_faults_are_found() {
    let mut findings = Vec::new();
    for a in gpu::ATOMS {
        let ts = gpu::atom_tables(a).unwrap();
        for t in &ts {
            // Every table that is used is a bijection onto its tile, except CuTe's own faulty one.
            for (op, v, r, c) in [('A', &t.a, a.m, a.k), ('B', &t.b, a.n, a.k), ('C', &t.c, a.m, a.n)] {
                let mut seen = vec![false; (r * c) as usize];
                v.iter().for_each(|&i| seen[i as usize] = true);
                let bij = v.len() as i64 == r * c && seen.iter().all(|&s| s);
                if !bij {
                    findings.push(format!("{} {op}", t.spec.name));
                }
            }
        }
        if ts.iter().all(|t| t.spec.name.ends_with("(corrected)")) {
            findings.push(format!("{} unevaluable", a.name));
        }
    }
    assert_eq!(
        findings,
        vec![
            "SM80_16x8x32_S32S4S4S32_TN B",
            "SM80_16x8x128_S32U1U1S32_TN_ANDPOPC unevaluable",
            "SM80_16x8x128_S32U1U1S32_TN_XORPOPC unevaluable",
        ]
    );
    assert_eq!(gpu::finding_atoms(), vec!["SM80_16x8x32_S32S4S4S32_TN"]);
    // The engine rejects the b1 A layout exactly as CuTe's crd2idx does (non-congruent stride).
    let err = gpu::tv_table(spec("SM80_16x8x128_S32U1U1S32_TN_ANDPOPC").a, 16, 128).unwrap_err();
    assert!(format!("{err:#}").contains("congruent"), "{err:#}");
}

#[test]
fn corrupt_swaps_exactly_two_a_entries() {
    for name in ["SM80_16x8x16_F32F16F16F32_TN", "SM80_8x8x4_F64F64F64F64_TN"] {
        let good = tables(name).remove(0);
        let mut bad = good.clone();
        gpu::corrupt(&mut bad);
        let diff: Vec<usize> = (0..good.a.len()).filter(|&i| good.a[i] != bad.a[i]).collect();
        assert_eq!(diff.len(), 2, "{name}");
        assert_eq!(good.a[diff[0]], bad.a[diff[1]]);
        assert_eq!((good.b.clone(), good.c.clone()), (bad.b.clone(), bad.c.clone()));
        assert!(bad.note.contains("CORRUPTED"));
    }
}

#[test]
fn host_side_cpp_reads_the_tables_and_its_inputs_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    gpu::prepare(dir.path(), &root().join("cpp/gpu")).unwrap();
    let exe = dir.path().join("host_test");
    let out = Command::new("g++")
        .args(["-std=c++17", "-O1", "-Wall", "-Werror", "-I"])
        .arg(root().join("cpp/gpu"))
        .arg(root().join("cpp/gpu/host_test.cpp"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("g++ must be installed to build cpp/gpu/host_test.cpp");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in ["tables.txt", "tables_xor.txt", "tables_corrupt.txt"] {
        let run = Command::new(&exe).arg(dir.path().join(f)).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{f}: {text}");
        assert!(text.contains("host_test: 0 failures"), "{text}");
    }
}

#[test]
fn no_gpu_is_reported_not_passed() {
    let empty = tempfile::tempdir().unwrap();
    let why = gpu::gpu_missing(Some(empty.path().as_os_str())).expect("no nvcc in an empty PATH");
    assert!(why.contains("nvcc"), "{why}");
    assert_eq!(gpu::NO_GPU, 3);
}

/// The recorded H200 run (fixtures/gpu/h200/: the xtask binary's `gpu --all` and `gpu --corrupt`
/// on the device machine): every row shows what it must, the device is named, and the corrupted
/// tables failed.
#[test]
fn recorded_h200_run_shows_what_it_must() {
    let dir = root().join("fixtures/gpu/h200");
    let (rows, info) = gpu::read_results(&dir).unwrap();
    assert!(gpu::verdict(&rows), "{}", gpu::summary_table(&rows));
    assert_eq!(info["device"], "NVIDIA H200");
    assert_eq!(info["compute_capability"], 90);
    assert!(info["run_gpu"].as_str().unwrap().contains("580."), "driver recorded: {info}");
    // The run was `xtask gpu --all`; it and the separate `--corrupt` run exited 0, and without
    // nvcc the xtask said so and exited 3.
    let log = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert!(log("xtask_all.log").contains("xtask gpu --all: exit 0"));
    assert!(log("xtask_corrupt.log").contains("xtask gpu --corrupt: exit 0"));
    assert!(log("xtask_nogpu.log").contains("no GPU: nvcc is not on PATH"));
    assert!(log("xtask_nogpu.log").contains("exit 3"));
    let (crows, _) = gpu::read_results(&dir.join("corrupt")).unwrap();
    assert!(gpu::verdict(&crows));
    assert_eq!(crows.iter().filter(|r| r.check == "table" && r.verdict == "FAIL").count(), 12);
    assert!(crows.iter().all(|r| r.run == "corrupt"));
    let count = |run: &str, check: &str, verdict: &str| {
        rows.iter().filter(|r| r.run == run && r.check == check && r.verdict == verdict).count()
    };
    // Check 1 passes for every atom whose CuTe tables are sound (and for the corrected ones).
    assert_eq!(count("tables", "table", "PASS"), 11);
    assert_eq!(count("tables", "table", "FAIL"), 1);
    assert_eq!(count("xor", "table", "PASS"), 3);
    assert_eq!(count("cute", "cute-1warp", "PASS") + count("cute", "cute-2x2", "PASS"), 22);
    assert_eq!(count("cute", "cute-1warp", "FAIL") + count("cute", "cute-2x2", "FAIL"), 2);
    assert_eq!(count("corrupt", "table", "PASS"), 0);
    assert_eq!(count("corrupt", "table", "FAIL"), 12);
    // The ownership tables the hardware gave equal the engine's prediction.
    let tables_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results_tables.json")).unwrap()).unwrap();
    let own = tables_json["ownership"].as_array().unwrap();
    let f16 = own.iter().find(|o| o["atom"] == "SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let t = &tables("SM80_16x8x16_F32F16F16F32_TN")[0];
    let predicted = gpu::predicted_owners(&t.c, 16, 8);
    let seen: Vec<i64> = f16["owner_col_major"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
    assert_eq!(seen, predicted);
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE); g++ type-checks check 2's CuTe code"
)]
fn cute_path_type_checks_with_gpp() {
    use cutecheck::oracle::provision::{Provisioner, DEFAULT_CUTLASS};
    let prov = Provisioner::new().unwrap();
    let inc = prov.cutlass(option_env!("CUTECHECK_CUTE").unwrap_or(DEFAULT_CUTLASS)).unwrap().include_dir;
    let cuda = prov.cuda().unwrap().include_dirs;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("tc.cpp");
    std::fs::write(
        &src,
        "#include \"cute_path.hpp\"\n#include \"fixed_traits.hpp\"\nnamespace cute { using ::SM80_16x8x32_S32S4S4S32_TN_FIXED; using ::SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED; }\n#define INST(OP, TA, TB, TC) \\\n  template void cute_path_body<cute::OP, TA, TB, TC, 1, 1>(int, void*, void*, void*, void*); \\\n  template void cute_path_body<cute::OP, TA, TB, TC, 2, 2>(int, void*, void*, void*, void*);\nCUTE_PATH_ATOMS(INST)\nCUTE_PATH_XOR_ATOMS(INST)\nINST(SM80_16x8x32_S32S4S4S32_TN_FIXED, cute::int4b_t, cute::int4b_t, int32_t)\nINST(SM80_16x8x128_S32U1U1S32_TN_ANDPOPC_FIXED, cute::uint1b_t, cute::uint1b_t, int32_t)\nint main() {}\n",
    )
    .unwrap();
    let mut cmd = Command::new("g++");
    cmd.args(["-std=c++17", "-fsyntax-only", "-I"]).arg(root().join("cpp/gpu")).arg("-I").arg(&inc);
    for d in &cuda {
        cmd.arg("-I").arg(d);
    }
    let out = cmd.arg(&src).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The tables the recorded H200 run used are, entry for entry, the ones `cargo xtask gpu` makes
/// now from the engine's atom table.
#[test]
fn recorded_run_used_the_engine_atom_tables() {
    let dir = tempfile::tempdir().unwrap();
    gpu::prepare(dir.path(), &root().join("cpp/gpu")).unwrap();
    for f in ["tables.txt", "tables_xor.txt", "tables_corrupt.txt"] {
        let data = |p: &Path| -> Vec<String> {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .filter(|l| ["atom ", "layout ", "A ", "B ", "C "].iter().any(|k| l.starts_with(k)))
                .map(str::to_string)
                .collect()
        };
        let now = data(&dir.path().join(f));
        assert!(now.len() > 10, "{f}");
        assert_eq!(data(&root().join("fixtures/gpu/h200").join(f)), now, "{f}");
    }
}
