//! The GPU check's Rust side, without a GPU: the plan covers every atom the engine knows (checked,
//! or skipped with a reason), the (thread, value) tables made from the engine agree with the
//! chapter and the PTX ISA's fragment layouts, the GMMA shared-memory offsets follow the hardware's
//! swizzle, the corrupted tables differ where they must, the host-side C++ (built with g++) reads
//! every table, and the recorded hardware run in fixtures/gpu/h200/ shows what it must.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use cutecheck::engine::atom::mma::mma_atom_names;
use cutecheck::gpu;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The plan, made once per test binary (building every GMMA case's smem tables takes a while).
fn plan() -> &'static [gpu::Plan] {
    static PLAN: std::sync::OnceLock<Vec<gpu::Plan>> = std::sync::OnceLock::new();
    PLAN.get_or_init(|| gpu::plan().expect("plan"))
}

/// The work folder as `cargo xtask gpu --prepare DIR` writes it: the plan's generated files, and
/// the fixed GPU sources (`cpp/gpu`) copied into `src/`.
fn prepare(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for (path, text) in gpu::work_files(plan()).unwrap() {
        std::fs::write(dir.join(path), text).unwrap();
    }
    for entry in std::fs::read_dir(root().join("cpp/gpu")).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join("src").join(p.file_name().unwrap())).unwrap();
        }
    }
}

fn mma_case(name: &str) -> gpu::MmaCase {
    gpu::mma_of(plan()).into_iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} in the plan"))
}

fn plan_atom(p: &gpu::Plan) -> String {
    match p {
        gpu::Plan::Mma(c) => c[0].op.clone(),
        gpu::Plan::Gmma(c) => c.name.clone(),
        gpu::Plan::Copy(c) => format!("Copy_Atom<{},{}>", c.op, c.val_type),
        gpu::Plan::Sparse(c) => c.name.clone(),
        gpu::Plan::Skip { atom, .. } => atom.clone(),
    }
}

/// Column-major index -> (row, col) in a tile with `rows` rows.
fn rc(idx: i64, rows: i64) -> (i64, i64) {
    (idx % rows, idx / rows)
}

#[test]
fn every_engine_atom_is_checked_or_skipped_with_a_reason() {
    let p = plan();
    let names: Vec<String> = p.iter().map(plan_atom).collect();
    let unique: BTreeSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "an atom appears twice in the plan");
    // The sparse GMMA atoms too (their run is `cargo xtask gpu-sparse`, tests/gpu_sparse.rs).
    for n in mma_atom_names() {
        assert!(unique.contains(&n), "{n} is neither checked nor skipped");
    }
    let mut mma = 0;
    let mut gmma_families = BTreeSet::new();
    let mut gmma = 0;
    for x in p {
        match x {
            gpu::Plan::Mma(_) => mma += 1,
            gpu::Plan::Gmma(c) => {
                gmma += 1;
                gmma_families.insert(c.name.replace(&format!("64x{}x", c.n), "64xNx"));
            }
            gpu::Plan::Skip { atom, reason } => {
                assert!(reason.len() > 20, "{atom}: skip reason '{reason}'");
                // Only these warp-level atoms are skipped: the rest must run.
                if !atom.starts_with("SM90_64x")
                    && !atom.starts_with("SM90::GMMA::SPARSE::")
                    && !gpu::is_blackwell_fixed(atom)
                {
                    assert!(
                        atom.starts_with("UniversalFMA") || atom.contains("C64") || atom == "SM61_DP2A",
                        "{atom} skipped: {reason}"
                    );
                }
            }
            gpu::Plan::Copy(_) | gpu::Plan::Sparse(_) => {}
        }
    }
    assert!(mma >= 85, "{mma} mma.sync atoms checked");
    assert!(gmma >= 48, "{gmma} GMMA atoms checked");
    // Every GMMA family (types x SS/RS x majors) runs at several N.
    assert_eq!(gmma_families.len() * gpu::GMMA_RUN_N.len(), gmma);
    assert!(gmma_families.len() >= 50, "{} families", gmma_families.len());
    // ldmatrix x1/x2/x4 (and .trans), stmatrix, movmatrix and cp.async.
    for op in [
        "SM75_U32x1_LDSM_N",
        "SM75_U32x2_LDSM_N",
        "SM75_U32x4_LDSM_N",
        "SM75_U16x2_LDSM_T",
        "SM75_U16x4_LDSM_T",
        "SM75_U16x8_LDSM_T",
        "SM90_U32x1_STSM_N",
        "SM90_U32x4_STSM_N",
        "SM90_U16x8_STSM_T",
        "SM75_U32x1_MOVM_T",
    ] {
        assert!(unique.contains(&format!("Copy_Atom<{op},uint16_t>")), "{op}");
    }
    assert!(unique.iter().filter(|n| n.contains("CP_ASYNC")).count() >= 8);
}

#[test]
fn f16_tables_match_the_chapter() {
    let t = mma_case("SM80_16x8x16_F32F16F16F32_TN");
    assert!(t.note.is_empty());
    assert_eq!(t.ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
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
            assert_eq!(
                rc(t.c[(lane * 4 + i) as usize], 16),
                (g + 8 * (i / 2), 2 * tt + i % 2),
                "C lane {lane} value {i}"
            );
        }
    }
    let own = gpu::predicted_owners(&t.c, 16, 8, 32);
    let rows: Vec<Vec<i64>> = (0..4).map(|r| (0..8).map(|c| own[(r + 16 * c) as usize] / 100).collect()).collect();
    assert_eq!(rows[0], vec![0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(rows[3], vec![12, 12, 13, 13, 14, 14, 15, 15]);
}

#[test]
fn instructions_are_spelled_from_the_names() {
    let p = |n: &str| mma_case(n).ptx;
    assert_eq!(p("SM70_8x8x4_F32F16F16F32_NT"), "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32");
    assert_eq!(p("SM80_16x8x32_S32U8S8S32_TN_SATURATE"), "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32");
    assert_eq!(p("SM89_16x8x32_F16E4M3E5M2F16_TN"), "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16");
    assert_eq!(p("SM80_8x8x128_S32U1U1S32_TN_XORPOPC"), "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc");
    assert_eq!(p("SM61_DP4A"), "dp4a.s32.s32");
    let q = mma_case("SM70_8x8x4_F16F16F16F16_TN");
    assert_eq!((q.threads, q.groups, q.gstride), (8, 4, 4));
    assert_eq!(q.lanes, vec![0, 1, 2, 3, 16, 17, 18, 19]);
    let g = gpu::gmma_of(plan());
    let f = g.iter().find(|c| c.name == "SM90_64x64x16_F32F16F16_SS<GMMA::Major::MN,GMMA::Major::K>").unwrap();
    assert_eq!(f.ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16");
    assert_eq!(f.imms, ", 1, 1, 1, 0");
    let i = g.iter().find(|c| c.name == "SM90_64x8x32_S32U8S8_RS_TN_SATURATE").unwrap();
    assert_eq!(i.ptx, "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8.satfinite");
    assert_eq!(i.imms, "");
}

#[test]
fn gmma_c_table_is_the_ptx_fragment_layout() {
    // PTX ISA, wgmma .m64nNk16 D fragment: warp w of the warpgroup, lane l (g = l/4, t = l%4)
    // holds rows 16w + g and 16w + g + 8, columns 8j + 2t + {0,1}; value order per 8 columns
    // (row g col 2t, 2t+1; row g+8 col 2t, 2t+1).
    for c in gpu::gmma_of(plan()).iter().filter(|c| c.name.contains("F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>")) {
        let nc = c.n_c() as usize;
        for thr in 0..128usize {
            let (w, l) = (thr / 32, thr % 32);
            let (g, t) = ((l / 4) as i64, (l % 4) as i64);
            for v in 0..nc {
                let j = (v / 4) as i64;
                let want = (16 * w as i64 + g + 8 * ((v / 2) % 2) as i64, 8 * j + 2 * t + (v % 2) as i64);
                assert_eq!(rc(c.c[thr * nc + v], 64), want, "{} thread {thr} value {v}", c.name);
            }
        }
    }
}

#[test]
fn gmma_smem_offsets_follow_the_hardware_swizzle() {
    // PTX ISA: the 128B swizzle XORs the 16-byte chunk index (address bits 4-6) with the row
    // within the 1024-byte block (bits 7-9). K-major SW128 f16: row r, k = 8c holds chunk c ^ (r % 8).
    let op = gpu::smem_operand(64, 64, 16, "half_t", 16, true, 3).unwrap();
    assert_eq!(op.atom_value, "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
    for r in 0..64i64 {
        for c in 0..8i64 {
            let off = op.offsets[(r + 64 * (8 * c)) as usize];
            assert_eq!(off / 1024, r / 8, "row {r}: 8-row block");
            assert_eq!((off % 1024) / 128, r % 8, "row {r}: 128-byte row");
            assert_eq!((off % 128) / 16, c ^ (r % 8), "row {r} chunk {c}");
        }
    }
    // The descriptor: 128B swizzle (mode 1 in bits 62-63), SBO = 1024 bytes (8 rows), start of
    // K-block j = 32 j bytes.
    for (j, d) in op.desc.iter().enumerate() {
        assert_eq!(d >> 62, 1);
        assert_eq!((d >> 32) & 0x3fff, 1024 >> 4);
        assert_eq!(d & 0x3fff, (32 * j as u64) >> 4);
    }
    // Every smem operand of the plan is a bijection onto its bytes (checked when it is built).
    assert!(gpu::gmma_of(plan()).iter().all(|c| c.b.bytes > 0));
}

#[test]
fn only_the_known_cute_faults_are_found() {
    let mut findings = Vec::new();
    for c in gpu::mma_of(plan()) {
        let (m, n, k) = (c.m, c.n, c.k);
        for (op, v, r, cc) in [('A', &c.a, m, k), ('B', &c.b, n, k), ('C', &c.c, m, n)] {
            let mut seen = vec![false; (r * cc) as usize];
            v.iter().for_each(|&i| seen[i as usize] = true);
            if !(v.len() as i64 == r * cc && seen.iter().all(|&s| s)) {
                findings.push(format!("{} {op}", c.name));
            }
        }
    }
    let s4: Vec<String> = ["S4S4", "S4U4", "U4S4", "U4U4"]
        .iter()
        .flat_map(|t| ["", "_SATURATE"].map(|s| format!("SM80_16x8x32_S32{t}S32_TN{s} B")))
        .collect();
    assert_eq!(findings.iter().cloned().collect::<BTreeSet<_>>(), s4.iter().cloned().collect::<BTreeSet<_>>());
    let f = gpu::finding_atoms();
    assert!(f.contains(&"SM80_16x8x32_S32S4S4S32_TN".to_string()), "{f:?}");
    assert_eq!(f.len(), 9, "{f:?}");
    assert!(f.contains(&"Copy_Atom<SM75_U32x1_MOVM_T,uint16_t>".to_string()), "{f:?}");
    // The b1 16x8x128 atoms: CuTe's A cannot be evaluated, so only the corrected table runs.
    let names: Vec<String> = gpu::mma_of(plan()).iter().map(|c| c.name.clone()).collect();
    assert!(names.contains(&"SM80_16x8x128_S32U1U1S32_TN_ANDPOPC(corrected)".to_string()));
    assert!(!names.contains(&"SM80_16x8x128_S32U1U1S32_TN_ANDPOPC".to_string()));
    let err = gpu::tv_table("((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))", 16, 128, 32).unwrap_err();
    assert!(format!("{err:#}").contains("congruent"), "{err:#}");
}

#[test]
fn corrupt_swaps_exactly_two_a_entries() {
    for name in
        ["SM80_16x8x16_F32F16F16F32_TN", "SM80_8x8x4_F64F64F64F64_TN", "SM70_8x8x4_F32F16F16F32_TN", "SM61_DP4A"]
    {
        let good = mma_case(name);
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
    prepare(dir.path());
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
    for f in ["tables.txt", "tables_corrupt.txt"] {
        let run = Command::new(&exe).arg(dir.path().join(f)).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{f}: {text}");
        assert!(text.contains("host_test: 0 failures"), "{text}");
    }
    for f in [
        "gmma_tables.txt",
        "copy_tables.txt",
        "plan.json",
        "src/gen_mma_ops.cuh",
        "src/gmma_part0.cu",
        "src/cute_part0.cu",
    ] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
}

#[test]
fn no_gpu_is_reported_not_passed() {
    let empty = tempfile::tempdir().unwrap();
    let why = gpu::gpu_missing(Some(empty.path().as_os_str())).expect("no nvcc in an empty PATH");
    assert!(why.contains("nvcc"), "{why}");
    assert_eq!(gpu::NO_GPU, 3);
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
    prepare(dir.path());
    // Every atom check 2 runs, one grid each, through the same body the CUDA program uses.
    let mut src = String::from("#include \"cute_path.hpp\"\n#include \"gen_fixed_traits.hpp\"\n");
    for c in gpu::mma_of(plan()) {
        if let Ok([ta, tb, tc]) = &c.cute {
            let op =
                if c.name.ends_with("(corrected)") { format!("{}_FIXED", c.op) } else { format!("cute::{}", c.op) };
            src.push_str(&format!(
                "template void cute_path_body<{op}, {ta}, {tb}, {tc}, 1, 1>(int, void*, void*, void*, void*);\n"
            ));
        }
    }
    src.push_str("int main() {}\n");
    std::fs::write(dir.path().join("tc.cpp"), src).unwrap();
    let mut cmd = Command::new("g++");
    cmd.args(["-std=c++17", "-fsyntax-only", "-I"]).arg(dir.path().join("src")).arg("-I").arg(&inc);
    for d in &cuda {
        cmd.arg("-I").arg(d);
    }
    let out = cmd.arg(dir.path().join("tc.cpp")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The recorded H200 run (fixtures/gpu/h200/: the xtask binary's `gpu --all`, `gpu --corrupt`
/// and `gpu` without nvcc on the device machine): every row shows what it must, every atom of the
/// plan has its rows, the device is named, and the corrupted tables failed.
#[test]
fn recorded_h200_run_shows_what_it_must() {
    let dir = root().join("fixtures/gpu/h200");
    let (rows, info) = gpu::read_results(&dir).unwrap();
    assert!(gpu::verdict(&rows), "{}", gpu::summary_table(&rows));
    assert_eq!(info["device"], "NVIDIA H200");
    assert_eq!(info["compute_capability"], 90);
    assert!(info["run_gpu"].as_str().unwrap().contains("580."), "driver recorded: {info}");
    let log = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert!(log("xtask_all.log").contains("xtask gpu --all: exit 0"));
    assert!(log("xtask_corrupt.log").contains("xtask gpu --corrupt: exit 0"));
    assert!(log("xtask_nogpu.log").contains("no GPU: nvcc is not on PATH"));
    assert!(log("xtask_nogpu.log").contains("exit 3"));
    // The wgmma kernels really are GMMA instructions in SASS.
    let sass = log("sass_counts.txt");
    for i in ["HGMMA", "IGMMA", "QGMMA"] {
        assert!(sass.lines().next().unwrap().contains(i), "{sass}");
    }
    let count = |run: &str, check: &str, verdict: &str| {
        rows.iter().filter(|r| r.run == run && r.check == check && r.verdict == verdict).count()
    };
    let p = plan();
    let mma = gpu::mma_of(p);
    let sound = mma.iter().filter(|c| !c.finding).count();
    assert_eq!(count("tables", "table", "PASS"), sound);
    assert_eq!(count("tables", "table", "FAIL"), mma.len() - sound);
    assert_eq!(count("tables", "ownership", "PASS"), sound);
    let gmma = gpu::gmma_of(p).len();
    assert!(gmma >= 48);
    assert_eq!(count("gmma", "table", "PASS"), gmma);
    assert_eq!(count("gmma", "ownership", "PASS"), gmma);
    assert_eq!(count("cute_gmma", "cute-gmma", "PASS"), gmma);
    assert_eq!(
        count("copy", "registers", "FAIL") + count("copy", "smem", "FAIL") + count("copy", "cp.async", "FAIL"),
        1
    );
    assert_eq!(count("corrupt", "table", "PASS"), 0);
    assert_eq!(count("corrupt", "table", "FAIL"), sound);
    // Every atom of the plan has rows in the summary (checked, or a SKIP with its reason); the
    // sparse GMMA atoms have theirs in fixtures/gpu/h200-sparse/ (tests/gpu_sparse.rs).
    let atoms: BTreeSet<String> = rows.iter().map(|r| r.atom.replace("(corrected)", "")).collect();
    for x in p
        .iter()
        .filter(|x| !plan_atom(x).starts_with("SM90::GMMA::SPARSE::") && !gpu::is_blackwell_fixed(&plan_atom(x)))
    {
        let name = plan_atom(x).replace("(corrected)", "");
        assert!(atoms.contains(&name), "{name} has no row in the recorded run");
    }
    let (crows, _) = gpu::read_results(&dir.join("corrupt")).unwrap();
    assert!(gpu::verdict(&crows));
    assert_eq!(crows.iter().filter(|r| r.check == "table" && r.verdict == "FAIL").count(), sound);
    // The ownership table the hardware gave equals the engine's prediction.
    let tables_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results_tables.json")).unwrap()).unwrap();
    let own = tables_json["ownership"].as_array().unwrap();
    let f16 = own.iter().find(|o| o["atom"] == "SM80_16x8x16_F32F16F16F32_TN").unwrap();
    let t = mma_case("SM80_16x8x16_F32F16F16F32_TN");
    let seen: Vec<i64> = f16["owner_col_major"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
    assert_eq!(seen, gpu::predicted_owners(&t.c, 16, 8, 32));
}

/// The tables the recorded H200 run used are, entry for entry, the ones `cargo xtask gpu` makes
/// now from the engine (the 12 MB GMMA tables by their sha256).
#[test]
fn recorded_run_used_the_engine_tables() {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let rec = root().join("fixtures/gpu/h200");
    // The recorded run predates the sparse GMMA atoms' own run (fixtures/gpu/h200-sparse/,
    // tests/gpu_sparse.rs): its plan.json is the plan without them.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).unwrap()).unwrap();
    let dense: Vec<&serde_json::Value> = plan
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            let a = p["atom"].as_str().unwrap();
            // Nor the SM100 FFMA2 atoms added after it (skipped on the H200: gpu::is_blackwell_fixed).
            !a.starts_with("SM90::GMMA::SPARSE::") && !gpu::is_blackwell_fixed(a)
        })
        .collect();
    assert!(dense.len() < plan.as_array().unwrap().len(), "the plan lists the sparse GMMA atoms");
    std::fs::write(dir.path().join("plan.json"), serde_json::to_string_pretty(&dense).unwrap() + "\n").unwrap();
    for f in ["tables.txt", "tables_corrupt.txt", "copy_tables.txt", "plan.json"] {
        let now = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert!(now.len() > 1000, "{f}");
        assert!(
            std::fs::read_to_string(rec.join(f)).unwrap() == now,
            "fixtures/gpu/h200/{f} differs from what `cargo xtask gpu --prepare` makes now: the engine's atoms changed, so \
             the recorded run no longer proves them; re-record it on a GPU (fixtures/gpu/README.md, 'Running it')"
        );
    }
    let gmma = std::fs::read(dir.path().join("gmma_tables.txt")).unwrap();
    let hex: String = Sha256::digest(&gmma).iter().map(|b| format!("{b:02x}")).collect();
    let recorded = std::fs::read_to_string(rec.join("gmma_tables.sha256")).unwrap();
    assert_eq!(
        recorded.split_whitespace().next().unwrap(),
        hex,
        "gmma_tables.txt differs from the recorded run's: re-record it on a GPU (fixtures/gpu/README.md, 'Running it')"
    );
}

/// sha256 of every generated CUDA/C++ file of the work folder (`src/`, in the order
/// `gpu::work_files` gives them), as the generators wrote them before the check moved from
/// xtask/src/gpu.rs into the library (harness/gpu/). The tables and plan.json are compared with the
/// recorded H200 run above; this pins the code generated from them.
const GENERATED_SOURCES: &str = "\
5d4ce59ca347ddad4d386552129d4b05489069fa4d74ec6657ac57229853cf3a  src/gen_mma_ops.cuh
87d92411f67fdae5065aeceaef11d058c0c5a7609023a6fe1e197bce28887092  src/gen_fixed_traits.hpp
00b98148678cb3cd4f06c42df833f31de0517f12c344f04056991f0a5a9acf88  src/gen_cute_parts.hpp
82bb9655809da2a0d3c758a924b206ef4ecdbc7142cce9b500ad1569864f94c1  src/cute_part0.cu
d4cf251299489172c55203054e680af146148ff01532a6043a22d608c9e96e02  src/cute_part1.cu
825da20473be4c17cf49a89bb827f4a6042429e309476d75133c89053b767442  src/cute_part2.cu
9f81b247eef448b1956a3e41e2054370fa55faab7474f168c334601bcad25850  src/cute_part3.cu
84508eee52a02d30b756317ac7854d34978278c0a13b98b733d7ac3024963ec1  src/cute_part4.cu
71c69afdf579b51ac279b39872127bc1a5efbacf0c323e3777ac49d418281c1f  src/cute_part5.cu
fb4cea233c44f36bde9f26b573170c66e50f0f2a50bce87d24026642fa1f1f65  src/cute_part6.cu
005667f4d25ed32fc0b5dfe662f001a0d68cca98b10db77e8e06ce55a953aa69  src/cute_part7.cu
ee8b57660d9c85ec78b87825e0f9176c441ffc7a28617ca8928e1b8e506b1999  src/cute_part8.cu
c7cea8d45331c39d5b958be8e813ac8b4f7a656e9a0cdf5045c400ea896be491  src/cute_part9.cu
81aa4f65b492beb9773d1b4c23111f1dd68bda47bee77337b2202c5d37f8b79a  src/cute_part10.cu
b95d118b3b21ffb3d4bc9057eb05b50f843f91ccc978d17409d08f52dcf83add  src/cute_part11.cu
31bd3ccc12ee18d5e052b39520fe33efbfd8cb3fcc49bd9247f298c0a1501937  src/gmma_part0.cu
c367c84935dd983aacb525d42262905b7196aff27d4bd04dc06f36f4e622d11e  src/gmma_part1.cu
340cb81373a632ef30b16532c1ad4fe0edf4fe08d5558de340033d2cb9c99bd2  src/gmma_part2.cu
a435a5d0511001084af8a105436f8bb737764e83132f12a45d1d887dacdf077f  src/gmma_part3.cu
92a00eed6ffd8cf0607af2fe62efca2fe90509766923e84ace6a7d08aa977668  src/gmma_part4.cu
6154d78ac430b24aab11f7c04ea24c5c3f500d07ec1335e7fb66ac7f754e89b3  src/gmma_part5.cu
747fbdd1e5446891c3c752a36e8423ca1a6c5b7f96ee1ed2a76840f2e4c5cfc1  src/gmma_part6.cu
10dc5b2366cfb25f51916406e546f040db53dfe770719e9dc0015e14be28e36b  src/gmma_part7.cu
b76befe155bd324bb71a5db022446ae87ddbb9921f00bc8d15865573116382f8  src/gen_gmma_parts.hpp
9e9b575851dbd481729221a914067354d239b9c78f5898acf13883909ee02c47  src/gen_cute_gmma_parts.hpp
e5ff88292b0cca46bdb4a450f49919a2df94f8a1c5271c220375a94f1b78f3ca  src/cute_gmma_part0.cu
b1334e988830ac9d520e5456915cf024fc1ac39e034fb0a004a91bb302490f16  src/cute_gmma_part1.cu
43338bf211c63ff2bbc9bf509f42436b5896bdebc3f2a5bd45840e77a12f3afe  src/cute_gmma_part2.cu
1b9d7d660d6026707d377740119a46179ca8cd55c173c2571dbc1e2aa18a63b7  src/cute_gmma_part3.cu
f1d0869ef162803595f195beb86df6be77a35eeac77966b5d56825e6a91b68e2  src/cute_gmma_part4.cu
7636b44d1a3db67060b42a2609775014b6398cb2d39584c547ff31fb19a25907  src/cute_gmma_part5.cu
c9be265144613f58d4cd13a034d597ace15c6f6bdfd8b44575f75f30ca52f15a  src/cute_gmma_part6.cu
38a64130b0b17299a00eb320aedf109eefa298c321962d9afcf490fc08a456d6  src/cute_gmma_part7.cu
e081d169620ebae74a90c9d39e77ab0fe41464a7eb4fb1692a236827127ff3ac  src/cute_gmma_part8.cu
5bc94384b1dada963027b7e7210a62bc9a7baabe824b013b2e15e71ac8aa1751  src/cute_gmma_part9.cu
c1b067217606609d194dcb7d90cbdcdeb9522eebb190ab260ca888541e2ab307  src/cute_gmma_part10.cu
964383319314acfdec6f1ce5368b716b6e5391ed70585be652f495b68109dca6  src/cute_gmma_part11.cu
ba21c326d6c7419d2e82ab38bc69a36535c637d737a58b0e78741dd4ad48e1b0  src/cute_gmma_part12.cu
17f66b2d0d1bde1398cd011ba0aa6b7d390815980e8bdfd2be1cd978626d4992  src/cute_gmma_part13.cu
8b37090028c95cd0c579bdcff1f171070e01e29209890953656bd03ca9f45492  src/cute_gmma_part14.cu
402479a3179a8cb9e56ecd4938640d5f3e739aff39bfd5bdd41f7c61dcb440ce  src/cute_gmma_part15.cu
7805f91f0ca629e395bd990ec4ea138879c23ac84ccf87c3fca6d16f0510443f  src/cute_gmma_part16.cu
a3370c76491c6e19d1237008b48c842221d0698ef2d2914aa0c81d13cb5f483c  src/cute_gmma_part17.cu
80230181728903d77d19f613cadc1d7492d356cba096eec06d647783b3a9c7d7  src/cute_gmma_part18.cu
9243c3a6129181ab1eb993ebbdcd1a91b0a9ad4334e47d677aff14a2f441f2f0  src/cute_gmma_part19.cu
bec90da17e052d87f081fd5a2c7fd3a77c3b77e14b51530dcb84b5316842d3b5  src/cute_gmma_part20.cu
c86a6acea6e31284d3e7ad8686bb61a5da07fd7138a079c5f9d70b88a2659a89  src/cute_gmma_part21.cu
d535fb5ecb3cc10d3fe54ca6eda0f2c551c4bb23b3bdc7a4828153770bb09612  src/cute_gmma_part22.cu
97889d06d0f6a667bd1a8e4aa5d5f28c5b811d02f6f891debae835edaa40a7a5  src/cute_gmma_part23.cu
1b76045a93b178fe81a0d168511bade3a7d3c42c20cbeade7139fb1187f742b1  src/cute_gmma_part24.cu
36fbf6d42d62095c41775bde746b5fbee791680337f475cf7df35a2189a5c5d6  src/cute_gmma_part25.cu
9e71df0cdc7d303111988632079464009e65574d1bdfac20d599ca56076ab5ca  src/cute_gmma_part26.cu
c62857a65ff823fc72846064d49c45a5946fd0db0379d091e0d6baad3f97d8a5  src/cute_gmma_part27.cu
cbac3f7cb39738db82d0ad2757ef3ec59e0874094a833be2d3e3cae4f6d43341  src/cute_gmma_part28.cu
45fcf477dce6576ebbb3037799baa52dd9e6eb78fcd4af3676cbc19e92b56fec  src/cute_gmma_part29.cu
f6bde3aaf35e6c28cb8a000207795dc3834f533c76ed328e23764155629a7463  src/cute_gmma_part30.cu
475696b2cd3e4e52ee81d08c320309dc1c1ff7c9aaddf32ab77cfcf4a276efe9  src/cute_gmma_part31.cu
";

#[test]
fn generated_sources_are_unchanged() {
    use sha2::{Digest, Sha256};
    let mut now = String::new();
    for (path, text) in gpu::work_files(plan()).unwrap().iter().filter(|(p, _)| p.starts_with("src/")) {
        let hex: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        now.push_str(&format!("{hex}  {path}\n"));
    }
    assert!(
        now == GENERATED_SOURCES,
        "the generated CUDA/C++ differs from what the generators wrote before; if the change is meant (a new atom, \
         a generator's fix), check it on a GPU (fixtures/gpu/README.md, 'Running it') and replace GENERATED_SOURCES \
         with:\n{now}"
    );
}
