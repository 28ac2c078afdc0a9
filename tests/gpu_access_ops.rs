//! The second and third recorded H200 runs of the memory access check (fixtures/gpu/h200-access-ops,
//! `cargo xtask gpu --access --ops`, and fixtures/gpu/h200-access-quads, `--quads`) show what
//! they must: every figure the engine predicts equals ncu's counters, for ld.shared loads whose
//! half warps differ, st.shared, ldmatrix and stmatrix (x1/x2/x4, .trans), cp.async's global
//! side, and the users' cases from CUTLASS's tracker; the cases are what the generators make from
//! the seeds. CI has no GPU: this checks the recordings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cutecheck::engine::warp_access::{self, Cost, Space};
use cutecheck::gpu::access;

fn dir(run: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu").join(run)
}

fn read(run: &str, name: &str) -> String {
    std::fs::read_to_string(dir(run).join(name)).unwrap_or_else(|e| panic!("{run}/{name}: {e}"))
}

fn rows(run: &str) -> Vec<access::Compared> {
    let cases = access::read_expressions(&read(run, "expressions.txt")).unwrap();
    let launches = access::read_counters_file(&read(run, "counters.tsv")).unwrap();
    access::compare(&cases, &launches).unwrap()
}

fn seed_and_n(run: &str) -> (u64, usize) {
    let text = read(run, "expressions.txt");
    let head = text.lines().next().unwrap();
    let seed = head.split_whitespace().nth(2).unwrap().trim_end_matches(',').parse().unwrap();
    let n = head.rsplit("--cases ").next().unwrap().trim_end_matches(')').parse().unwrap();
    (seed, n)
}

fn all_agree(rows: &[access::Compared]) {
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| r.checked && !r.agrees)
        .map(|r| format!("{} {}: engine {} | ncu {}", r.case.id, r.case.expr, r.predicted, access::measured_text(r)))
        .collect();
    assert!(bad.is_empty(), "{} cases differ:\n{}", bad.len(), bad[..bad.len().min(10)].join("\n"));
}

#[test]
fn the_second_run_agrees_with_ncu_on_every_instruction() {
    let rows = rows("h200-access-ops");
    assert_eq!(rows.len(), 1405);
    all_agree(&rows);
    // What was checked, by instruction.
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.checked) {
        *by.entry(r.case.space.name()).or_default() += 1;
    }
    for name in warp_access::Space::names().filter(|n| *n != "global" && *n != "cp_async_cg") {
        assert!(by.get(name).copied().unwrap_or(0) >= 20, "{name}: {by:?}");
    }
    let widths: BTreeSet<(&str, i64)> =
        rows.iter().filter(|r| r.checked).map(|r| (r.case.space.name(), r.case.vector)).collect();
    for v in [1, 2, 4, 8, 16] {
        assert!(widths.contains(&("st_shared", v)), "st.shared of {v} bytes");
    }
    for v in [4, 8, 16] {
        assert!(widths.contains(&("cp_async", v)), "cp.async of {v} bytes");
    }
    // cp.async.cg bypasses L1: ncu's l1tex counters see none of its sectors (all 66 read 0).
    let cg: Vec<_> = rows.iter().filter(|r| !r.checked).collect();
    assert_eq!(cg.len(), 66);
    assert!(cg.iter().all(|r| matches!(r.case.space, Space::CpAsync { cg: true })));
    assert!(cg.iter().all(|r| access::measured_text(r) == "(no counter of this instruction)"));
}

/// The warp-wide phase rule of the first run's amendment, tested: loads whose half warps differ
/// (one pairs up, the other does not), where the half-warp rule it replaced predicts otherwise.
#[test]
fn the_warp_decides_the_merged_phases_not_each_half_warp() {
    let rows = rows("h200-access-ops");
    let mut telling = 0;
    for r in rows.iter().filter(|r| r.case.space == Space::Shared) {
        let Cost::Shared(s) = r.predicted else { panic!() };
        let half = access::half_warp_rule(&r.case.offsets, r.case.vector);
        if half != (s.wavefronts, s.conflicts) {
            telling += 1;
            assert!(r.agrees, "{}", r.case.expr);
            assert_ne!(half, (r.measured.wavefronts, r.measured.conflicts), "{}", r.case.expr);
        }
    }
    assert!(telling >= 200, "{telling} loads tell the warp rule from the half-warp rule");
}

/// The users' cases (access::USERS) with the figures ncu gave on the H200.
#[test]
fn the_users_cases_have_ncus_figures() {
    let rows = rows("h200-access-ops");
    let want = [
        (access::USERS[0], "wavefronts=4 conflicts=0"), // #3172: Swizzle<3,3,4> + LDSM_T: conflict-free
        (access::USERS[1], "wavefronts=32 conflicts=28"), // #3172 without the swizzle: 8-way per matrix
        (access::USERS[2], "wavefronts=32 conflicts=31"), // #1882: 32-way store conflict per warp
        (access::USERS[3], "wavefronts=1 conflicts=0"), // #1882 with a row-major tile
        (access::USERS[4], "wavefronts=4 conflicts=0"), // ... and 16-byte stores
    ];
    for (i, (expr, figures)) in want.iter().enumerate() {
        let r = &rows[i];
        assert_eq!(r.case.family, "users");
        assert_eq!(&r.case.expr, expr);
        assert_eq!(access::measured_text(r), *figures, "ncu, {expr}");
        assert_eq!(r.predicted.to_string(), *figures, "engine, {expr}");
    }
}

#[test]
fn the_third_run_confirms_pairs_in_quads_and_unmerged_stores() {
    let rows = rows("h200-access-quads");
    assert_eq!(rows.len(), 400);
    all_agree(&rows);
    // Loads where "at most 2 addresses per quad" (the rule before the second run) and "every quad
    // in pairs" (now) differ; stores a load's rule would have merged.
    let (mut loads, mut stores) = (0, 0);
    for r in &rows {
        let o = &r.case.offsets;
        let old = warp_access::quads_pair_up(o) != warp_access::quads_in_pairs(o);
        if r.case.space == Space::Shared && old {
            loads += 1;
        }
        if r.case.space == Space::StShared && warp_access::quads_in_pairs(o) {
            let as_load = warp_access::shared(o, r.case.vector).unwrap();
            if Cost::Shared(as_load) != r.predicted {
                stores += 1;
            }
        }
    }
    assert!(loads >= 100 && stores >= 40, "{loads} loads, {stores} stores");
}

#[test]
fn the_cases_are_what_the_generators_make_from_the_seeds() {
    for (run, quads) in [("h200-access-ops", false), ("h200-access-quads", true)] {
        let (seed, n) = seed_and_n(run);
        let made = if quads { access::random_quad_cases(seed, n) } else { access::random_op_cases(seed, n) }.unwrap();
        let recorded = access::read_expressions(&read(run, "expressions.txt")).unwrap();
        assert_eq!(made, recorded, "{run}: regenerated from seed {seed}");
        assert_eq!(access::cases_file(&made), read(run, "cases.txt"), "{run}: what the device was sent");
    }
}

#[test]
fn a_wrong_model_fails_the_comparison() {
    // One counter off by one in each instruction's first case must fail that case.
    let cases = access::read_expressions(&read("h200-access-ops", "expressions.txt")).unwrap();
    let mut launches = access::read_counters_file(&read("h200-access-ops", "counters.tsv")).unwrap();
    let mut seen = BTreeSet::new();
    let mut hit = Vec::new();
    for (c, l) in cases.iter().zip(launches.iter_mut()) {
        if matches!(c.space, Space::CpAsync { cg: true }) || !seen.insert(c.space.name()) {
            continue;
        }
        let key = l
            .all
            .keys()
            .find(|k| {
                if matches!(c.space, Space::CpAsync { .. }) {
                    k.contains("t_sectors")
                } else {
                    k.contains("bank_conflicts_pipe_lsu_mem_shared_op_")
                }
            })
            .unwrap()
            .clone();
        *l.all.get_mut(&key).unwrap() += 1;
        *l = access::Launch::from_all(l.kernel.clone(), l.all.clone());
        hit.push(c.id);
    }
    let rows = access::compare(&cases, &launches).unwrap();
    for id in hit {
        assert!(!rows[id].agrees, "case {id} still agrees with a counter changed");
    }
}
