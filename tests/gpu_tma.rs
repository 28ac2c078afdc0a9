//! The recorded H200 TMA run (`cargo xtask gpu-tma`, fixtures/gpu/h200-tma/) shows what it must:
//! at least 500 random TMA copies built by CuTe 4.2's own `make_tma_copy` (loads and stores;
//! elements of 1, 2, 4 and 8 bytes; global layouts of rank 1 to 4 with padded strides, static and
//! dynamic; plain and GMMA-swizzled shared memory; strided tilers; partial tiles), every element
//! of every copy where the engine's layouts say it lands, and the corrupted twin (descriptor
//! stride or address perturbed on the device) failing on every case but those whose perturbation
//! cannot enter an address. The cases are re-made from the seed, so the recording is what the
//! generator makes now, and the comparison is the engine's of today. CI has no GPU: this re-checks
//! the recording.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cutecheck::gpu::tma::{self, Smem, TmaCase};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/h200-tma")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cases() -> Vec<TmaCase> {
    let plan = read("cases.txt");
    let (seed, n) = tma::plan_seed(&plan).unwrap();
    let cases = tma::random_cases(seed, n).unwrap();
    assert_eq!(tma::cases_file(seed, &cases), plan, "cases.txt is not what seed {seed} draws now");
    cases
}

fn observed(name: &str) -> BTreeMap<usize, tma::Observed> {
    tma::read_results(&read(name)).unwrap()
}

#[test]
fn the_recorded_run_moves_every_element_where_the_engine_says() {
    let cases = cases();
    let v = tma::compare(&cases, &observed("results.txt"), false).unwrap();
    let ran = v.iter().filter(|x| x.ran).count();
    assert!(ran >= 500, "only {ran} copies ran");
    let bad: Vec<_> = v.iter().filter(|x| !x.pass()).collect();
    assert!(bad.is_empty(), "{} cases differ from the engine: {:?}", bad.len(), &bad[..bad.len().min(5)]);
    let elements: usize = v.iter().map(|x| x.total).sum();
    assert!(elements > 1_000_000, "{elements} elements checked");
}

#[test]
fn the_run_covers_every_kind_of_copy() {
    let cases = cases();
    let t = tma::tally(&cases);
    let at_least = |k: &str, n: usize| assert!(t.get(k).copied().unwrap_or(0) >= n, "{k}: {t:?}");
    at_least("load", 400);
    at_least("store", 100);
    for e in ["elem 1B", "elem 2B", "elem 4B", "elem 8B"] {
        at_least(e, 80);
    }
    for r in ["rank 1", "rank 2", "rank 3", "rank 4"] {
        at_least(r, 20);
    }
    at_least("smem plain", 200);
    for m in ["K", "MN"] {
        for k in ["INTER", "SW32", "SW64", "SW128"] {
            at_least(&format!("smem {m} {k}"), 10);
        }
    }
    at_least("partial tile", 200);
    at_least("strided tiler", 40);
    at_least("static G", 100);
    assert!(cases.iter().filter(|c| c.store && matches!(c.smem, Smem::Gmma { .. })).count() >= 30);
}

#[test]
fn the_corrupted_twin_fails_but_where_the_perturbation_cannot_reach_an_address() {
    let cases = cases();
    let cv = tma::compare(&cases, &observed("results_corrupt.txt"), true).unwrap();
    assert_eq!(cv.len(), cases.len());
    assert!(cv.iter().all(|x| x.ran), "every twin case ran");
    let passed: Vec<_> = cv.iter().filter(|x| x.pass()).collect();
    for x in &passed {
        assert!(x.explained.is_some(), "corrupted case {} passes unexplained: {}", x.id, cases[x.id].line());
    }
    assert!(passed.len() * 50 <= cases.len(), "{} of {} corrupted cases pass", passed.len(), cases.len());
    assert!(tma::run_is_sound(&cases, &tma::compare(&cases, &observed("results.txt"), false).unwrap(), Some(&cv)));
}

/// CUtensorMapDataType of each element type (cuda.h), as CuTe's `to_CUtensorMapDataType` maps them.
fn dtype(ty: &str) -> u32 {
    match ty {
        "uint8_t" | "int8_t" | "cute::float_e4m3_t" | "cute::float_e5m2_t" => 0,
        "uint16_t" => 1,
        "uint32_t" => 2,
        "int32_t" => 3,
        "uint64_t" => 4,
        "int64_t" => 5,
        "cute::half_t" => 6,
        "float" => 7,
        "double" => 8,
        "cute::bfloat16_t" => 9,
        other => panic!("no dtype for {other}"),
    }
}

fn field(args: &str, key: &str) -> Vec<u64> {
    let v = args.split_whitespace().find_map(|w| w.strip_prefix(key)).unwrap_or_else(|| panic!("{key} in {args}"));
    v.split(',').filter(|x| !x.is_empty()).map(|x| x.parse().unwrap()).collect()
}

#[test]
fn every_case_recorded_the_descriptor_cute_encoded() {
    let cases = cases();
    let run = observed("results.txt");
    let twin = observed("results_corrupt.txt");
    let host = observed("host_args.txt");
    for c in &cases {
        let a = run[&c.id].args.as_deref().unwrap_or_else(|| panic!("case {} has no args", c.id));
        assert_eq!(Some(a), twin[&c.id].args.as_deref(), "case {}: the twin's CuTe arguments differ", c.id);
        // The host-only build (g++, no GPU) computed the same arguments but the result code.
        let h = host[&c.id].args.as_deref().unwrap_or_else(|| panic!("case {} not in host_args.txt", c.id));
        assert_eq!(a.replace(" result=0", ""), h.replace(" result=0", ""), "case {}", c.id);
        assert!(a.ends_with("result=0"), "case {}: {a}", c.id);
        assert_eq!(field(a, "dtype="), [dtype(c.type_name()) as u64], "case {}: {a}", c.id);
        let rank = field(a, "rank=")[0] as usize;
        assert!((1..=5).contains(&rank), "case {}: {a}", c.id);
        let (dims, strides, boxes, estr) =
            (field(a, "dims="), field(a, "strides="), field(a, "box="), field(a, "estr="));
        assert_eq!((dims.len(), strides.len(), boxes.len(), estr.len()), (rank, rank - 1, rank, rank), "case {}", c.id);
        assert!(strides.iter().all(|s| s % 16 == 0), "case {}: {a}", c.id);
        assert!(boxes.iter().all(|&b| (1..=256).contains(&b)) && estr.iter().all(|&e| e == 1), "case {}: {a}", c.id);
        assert_eq!(field(a, "addr="), [0], "case {}", c.id);
        let swizzle = field(a, "swizzle=")[0];
        let want = match &c.smem {
            Smem::Plain { .. } => 0,
            Smem::Gmma { kind, .. } => {
                ["INTER", "SW32", "SW64", "SW128"].iter().position(|k| k == kind).unwrap() as u64
            }
        };
        assert_eq!(swizzle, want, "case {}: {a}", c.id);
        // The box is a whole number of 16-byte rows and fits in the tile.
        assert_eq!(boxes[0] * c.elem() as u64 % 16, 0, "case {}: {a}", c.id);
        let tile: i64 = c.tiler.iter().map(|t| t.0).product();
        assert_eq!(tile as u64 % boxes.iter().product::<u64>(), 0, "case {}: {a}", c.id);
    }
}

#[test]
fn the_summary_is_what_the_report_writes_now() {
    let cases = cases();
    let v = tma::compare(&cases, &observed("results.txt"), false).unwrap();
    let cv = tma::compare(&cases, &observed("results_corrupt.txt"), true).unwrap();
    assert_eq!(read("summary.txt"), tma::summary(&cases, &v, Some(&cv)));
}
