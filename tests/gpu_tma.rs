//! The recorded H200 TMA run (`cargo xtask gpu-tma`, fixtures/gpu/h200-tma/) shows what it must:
//! at least 500 random TMA copies built by CuTe 4.2's own `make_tma_copy` (loads and stores;
//! elements of 1, 2, 4 and 8 bytes; global layouts of rank 1 to 4 with padded strides, static and
//! dynamic; plain and GMMA-swizzled shared memory; strided tilers; partial tiles), every element
//! of every copy where the engine's layouts say it lands, and the corrupted twin failing on every
//! case but those whose perturbation provably moves nothing: in `h200-tma/` the twin perturbs each
//! descriptor one of four ways (a byte stride or the address, the box reshaped to the same bytes,
//! the swizzle mode, an element stride over a doubled box), in `h200-tma-seed1/` always the stride
//! of TMA dimension 1. The cases are re-made from the seed, so the recording is what the
//! generator makes now, and the comparison is the engine's of today. CI has no GPU: this re-checks
//! the recording.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cutecheck::gpu::tma::{self, Smem, TmaCase};

const MAIN: &str = "h200-tma";
const FIRST: &str = "h200-tma-seed1";

fn read(run: &str, name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu").join(run).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn cases(run: &str) -> Vec<TmaCase> {
    let plan = read(run, "cases.txt");
    let (seed, n) = tma::plan_seed(&plan).unwrap();
    let cases = tma::random_cases(seed, n).unwrap();
    assert_eq!(tma::cases_file(seed, &cases), plan, "{run}: cases.txt is not what seed {seed} draws now");
    cases
}

fn observed(run: &str, name: &str) -> BTreeMap<usize, tma::Observed> {
    tma::read_results(&read(run, name)).unwrap()
}

type Run = (Vec<TmaCase>, Vec<tma::Verdict>, Vec<tma::Verdict>);

/// Each recorded run's cases and verdicts (run and twin), computed once for all tests.
fn verdicts(run: &str) -> Run {
    static MAIN_RUN: OnceLock<Run> = OnceLock::new();
    static FIRST_RUN: OnceLock<Run> = OnceLock::new();
    let cell = if run == MAIN { &MAIN_RUN } else { &FIRST_RUN };
    cell.get_or_init(|| {
        let cases = cases(run);
        let v = tma::compare(&cases, &observed(run, "results.txt"), false).unwrap();
        let cv = tma::compare(&cases, &observed(run, "results_corrupt.txt"), true).unwrap();
        (cases, v, cv)
    })
    .clone()
}

#[test]
fn the_recorded_run_moves_every_element_where_the_engine_says_or_a_finding_explains() {
    for (run, at_least) in [(MAIN, 500), (FIRST, 490)] {
        let (cases, v, _) = verdicts(run);
        let exact = v.iter().filter(|x| x.pass()).count();
        assert!(exact >= at_least, "{run}: only {exact} copies moved every element where the engine says");
        let bad: Vec<_> = v.iter().filter(|x| !x.pass() && !x.explained_by_findings()).collect();
        assert!(bad.is_empty(), "{run}: {} cases differ unexplained: {:?}", bad.len(), &bad[..bad.len().min(3)]);
        // The exact cases hold every kind of copy, not only the easy ones.
        let kinds = tma::tally(&v.iter().filter(|x| x.pass()).map(|x| cases[x.id].clone()).collect::<Vec<_>>());
        for k in [
            "store",
            "load",
            "elem 1B",
            "elem 8B",
            "rank 4",
            "smem K SW128",
            "smem MN SW32",
            "partial tile",
            "strided tiler",
            "static G",
        ] {
            assert!(kinds.get(k).copied().unwrap_or(0) >= 5, "{run}: {k}: {kinds:?}");
        }
    }
}

#[test]
fn every_finding_is_seen_and_predicted_by_its_rule() {
    // A finding's rule that predicts an error the device did not show, or misses one it showed,
    // makes the case unexplained (the test above); here each rule must also have been exercised.
    for f in tma::Finding::ALL {
        let mut seen = 0;
        for run in [MAIN, FIRST] {
            let (_, v, _) = verdicts(run);
            seen += v.iter().filter(|x| x.findings.contains_key(&f)).count();
        }
        assert!(seen > 0, "finding {} never seen", f.name());
    }
    // The store granule: only stores, only past dimension 0, never 16 bytes or more.
    let (cases, v, _) = verdicts(MAIN);
    for x in v.iter().filter(|x| x.findings.contains_key(&tma::Finding::StoreGranule16)) {
        assert!(cases[x.id].store, "case {}", x.id);
    }
}

#[test]
fn the_run_covers_every_kind_of_copy() {
    let cases = verdicts(MAIN).0;
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

/// Twin cases of `h200-tma/` that pass and that no rule explains: case 482 (a swizzle change on a
/// tile of four boxes under a strided tiler, whose shared bases CuTe orders: not simulated).
const UNEXPLAINED_TWIN_PASSES: [usize; 1] = [482];

#[test]
fn the_corrupted_twin_fails_but_where_the_perturbation_cannot_reach_an_address() {
    for run in [MAIN, FIRST] {
        let (cases, v, cv) = verdicts(run);
        assert_eq!(cv.len(), cases.len());
        let exact: Vec<usize> = v.iter().filter(|x| x.pass()).map(|x| x.id).collect();
        let passed: Vec<usize> = exact.iter().copied().filter(|&i| cv[i].pass()).collect();
        let known: &[usize] = if run == MAIN { &UNEXPLAINED_TWIN_PASSES } else { &[] };
        for &i in &passed {
            assert!(
                cv[i].explained.is_some() || known.contains(&i),
                "{run}: corrupted case {i} passes unexplained: {}",
                cases[i].line()
            );
        }
        for &i in known {
            assert!(cv[i].pass() && cv[i].explained.is_none(), "{run}: case {i} is no longer an unexplained pass");
        }
        assert!(
            passed.len() * 100 <= exact.len() * 6,
            "{run}: {} of {} corrupted cases pass",
            passed.len(),
            exact.len()
        );
        // No twin case passes that the run did not move exactly.
        assert!(cv.iter().filter(|x| x.pass()).all(|x| v[x.id].pass()), "{run}");
        if known.is_empty() {
            assert!(tma::run_is_sound(&cases, &v, Some(&cv)), "{run}");
        }
    }
}

#[test]
fn the_twin_varies_its_perturbation_and_each_kind_fails() {
    let (cases, v, cv) = verdicts(MAIN);
    let twin = observed(MAIN, "results_corrupt.txt");
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for x in v.iter().filter(|x| x.pass()) {
        let t = twin[&x.id].twin.as_deref().unwrap_or_else(|| panic!("case {}: no twin line", x.id));
        let (kind, _) = tma::twin_kind(Some(t));
        let e = kinds.entry(kind).or_default();
        e.0 += 1;
        e.1 += usize::from(!cv[x.id].pass());
    }
    for k in ["stride", "address", "box", "swizzle", "estride"] {
        let (n, failed) = kinds.get(k).copied().unwrap_or_default();
        assert!(n >= 40, "twin kind {k}: only {n} exact cases: {kinds:?}");
        assert!(failed * 100 >= n * 90, "twin kind {k}: {failed} of {n} fail");
    }
    // The twin's CuTe arguments are the run's; only the perturbed fields differ.
    let ran = observed(MAIN, "results.txt");
    for c in &cases {
        let (Some(a), Some(t)) = (ran[&c.id].args.as_deref(), twin[&c.id].twin.as_deref()) else { continue };
        let (kind, _) = tma::twin_kind(Some(t));
        let same = |k: &str| field(a, k) == field(t, k);
        match kind.as_str() {
            "stride" => assert!(!same("strides=") && same("box=") && same("estr="), "case {}: {t}", c.id),
            "address" => assert!(same("strides=") && same("box="), "case {}: {t}", c.id),
            "box" => assert!(
                !same("box=") && field(a, "box=").iter().product::<u64>() == field(t, "box=").iter().product::<u64>(),
                "case {}: {t}",
                c.id
            ),
            "swizzle" => assert!(!same("swizzle=") && same("box="), "case {}: {t}", c.id),
            "estride" => assert!(!same("estr=") && !same("box="), "case {}: {t}", c.id),
            other => panic!("case {}: kind {other}", c.id),
        }
    }
}

#[test]
fn the_twin_simulation_agrees_with_the_device_both_ways() {
    // Where gpu::tma::simulate_twin models a box, swizzle or element-stride twin and the twin ran
    // (a descriptor the device refuses, or an instruction that faults, fails outside the model),
    // the H200 agrees with it: the twin passes exactly when the simulation says it moves the same.
    let (cases, v, cv) = verdicts(MAIN);
    let ran = observed(MAIN, "results.txt");
    let twin = observed(MAIN, "results_corrupt.txt");
    let (mut same, mut differ) = (0, 0);
    for x in v.iter().filter(|x| x.pass()) {
        let (Some(a), Some(t)) = (ran[&x.id].args.as_deref(), twin[&x.id].twin.as_deref()) else { continue };
        if !matches!(tma::twin_kind(Some(t)).0.as_str(), "box" | "swizzle" | "estride") {
            continue;
        }
        let Some((s, why)) = tma::simulate_twin(&cases[x.id], a, t) else { continue };
        if cv[x.id].status != "ok" {
            continue;
        }
        assert_eq!(
            cv[x.id].pass(),
            s,
            "case {}: the simulation says {s} ({why}), the device {}",
            x.id,
            cv[x.id].pass()
        );
        if s {
            same += 1;
        } else {
            differ += 1;
        }
    }
    assert!(same >= 10 && differ >= 200, "simulated: {same} the same, {differ} differ");
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
    for run in [MAIN, FIRST] {
        let cases = verdicts(run).0;
        let ran = observed(run, "results.txt");
        let twin = observed(run, "results_corrupt.txt");
        let mut with_args = 0;
        for c in &cases {
            let refused = tma::expected_error(c, None) == Some(tma::Finding::SwizzleBoxRefused);
            let Some(a) = ran[&c.id].args.as_deref() else {
                // Only the cases whose descriptor cuTensorMapEncodeTiled refuses stop before it.
                assert!(refused, "{run}: case {} has no args", c.id);
                continue;
            };
            assert!(!refused, "{run}: case {}", c.id);
            with_args += 1;
            assert_eq!(Some(a), twin[&c.id].args.as_deref(), "{run}: case {}: the twin's CuTe arguments differ", c.id);
            assert!(a.ends_with("result=0"), "{run}: case {}: {a}", c.id);
            assert_eq!(field(a, "dtype="), [dtype(c.type_name()) as u64], "case {}: {a}", c.id);
            let rank = field(a, "rank=")[0] as usize;
            assert!((1..=5).contains(&rank) && rank <= c.gshape.len(), "case {}: {a}", c.id);
            let (dims, strides, boxes, estr) =
                (field(a, "dims="), field(a, "strides="), field(a, "box="), field(a, "estr="));
            assert_eq!(
                (dims.len(), strides.len(), boxes.len(), estr.len()),
                (rank, rank - 1, rank, rank),
                "case {}",
                c.id
            );
            assert!(strides.iter().all(|s| s % 16 == 0), "case {}: {a}", c.id);
            assert!(
                boxes.iter().all(|&b| (1..=256).contains(&b)) && estr.iter().all(|&e| e == 1),
                "case {}: {a}",
                c.id
            );
            assert_eq!(field(a, "addr="), [0], "case {}", c.id);
            let swizzle = field(a, "swizzle=")[0];
            let want = match &c.smem {
                Smem::Plain { .. } => 0,
                Smem::Gmma { kind, .. } => {
                    ["INTER", "SW32", "SW64", "SW128"].iter().position(|k| k == kind).unwrap() as u64
                }
            };
            assert_eq!(swizzle, want, "case {}: {a}", c.id);
            // The inner box is a whole number of 16 bytes, within the swizzle span when swizzled.
            assert_eq!(boxes[0] * c.elem() as u64 % 16, 0, "case {}: {a}", c.id);
            if swizzle > 0 {
                assert!(boxes[0] * c.elem() as u64 <= 16 << swizzle, "case {}: {a}", c.id);
            }
            // The descriptor's global extents hold every element of G.
            let elems: u64 = c.gshape.iter().map(|&x| x as u64).product();
            assert!(dims.iter().product::<u64>() >= elems, "case {}: {a}", c.id);
        }
        assert!(with_args >= cases.len() - 5, "{run}");
    }
}

#[test]
fn the_summary_is_what_the_report_writes_now() {
    for run in [MAIN, FIRST] {
        let (cases, v, cv) = verdicts(run);
        assert_eq!(read(run, "summary.txt"), tma::summary(&cases, &v, Some(&cv)), "{run}");
    }
}

/// The engine's TMA model (`engine::tma`, `tma_desc_args(make_tma_copy(...))`) gives, for every
/// case of both recorded runs, exactly the `cuTensorMapEncodeTiled` arguments CuTe 4.2 passed on
/// the H200; for the cases whose descriptor the driver refused (finding 5), a box wider than the
/// swizzle span.
#[test]
fn the_engine_descriptor_equals_what_cute_passed_on_the_h200() {
    for run in [MAIN, FIRST] {
        let cases = verdicts(run).0;
        let ran = observed(run, "results.txt");
        let mut equal = 0;
        for c in &cases {
            let engine = tma::engine_args(c).unwrap_or_else(|e| panic!("{run}: case {}: {e}", c.id));
            match ran[&c.id].args.as_deref() {
                Some(a) => {
                    assert_eq!(engine, a, "{run}: case {}: {}", c.id, c.line());
                    equal += 1;
                }
                None => {
                    let (boxes, sw) = (field(&engine, "box="), field(&engine, "swizzle=")[0]);
                    assert!(sw > 0 && boxes[0] * c.elem() as u64 > 16 << sw, "{run}: case {}: {engine}", c.id);
                }
            }
        }
        assert!(equal >= cases.len() - 5, "{run}: {equal}");
    }
}

/// CuTe's host side alone (`tma_run.sh host`: g++, CuTe 4.2's headers, the driver call recorded
/// and not made, no GPU) computed for seed 1 the same descriptor arguments as the H200 run, case by
/// case; the two cases the driver refused on the device (finding 5) are there too, and equal the
/// engine's.
#[test]
fn the_host_only_build_records_the_same_descriptors_without_a_gpu() {
    let cases = verdicts(FIRST).0;
    let host = observed(FIRST, "host_args.txt");
    let ran = observed(FIRST, "results.txt");
    let mut refused = 0;
    for c in &cases {
        let h = host[&c.id].args.as_deref().unwrap_or_else(|| panic!("case {} not in host_args.txt", c.id));
        match ran[&c.id].args.as_deref() {
            Some(a) => assert_eq!(h, a, "case {}", c.id),
            None => {
                refused += 1;
                assert_eq!(h, tma::engine_args(c).unwrap(), "case {}", c.id);
            }
        }
    }
    assert_eq!(refused, 2);
}
