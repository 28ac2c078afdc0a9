//! The recorded H200 run of the memory access check (`cargo xtask gpu --access`,
//! fixtures/gpu/h200-access/) shows what it must: at least 2,000 random cases (and the chapter's)
//! over both spaces, every vector width, element sizes 1 to 16 bytes, every family of data layout
//! (plain tiles, bit-structured layouts, swizzled tiles, GMMA smem atoms) and broadcast thread
//! layouts; every launch the kernel its case names; and every figure of the engine equal to ncu's
//! counters. The cases are re-made from the seed, so the recording is what the generator makes now.
//! CI has no GPU: this checks the recording.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cutecheck::engine::warp_access::{Cost, Space};
use cutecheck::gpu::access;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/h200-access")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run() -> Vec<access::Compared> {
    let cases = access::read_expressions(&read("expressions.txt")).unwrap();
    let launches = access::read_counters_file(&read("counters.tsv")).unwrap();
    access::compare(&cases, &launches).unwrap()
}

/// The listed differences (differences.txt): case id -> (engine, ncu) as printed.
fn listed() -> std::collections::BTreeMap<usize, (String, String)> {
    read("differences.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "differences.txt: {l}");
            (f[0].parse().unwrap(), (f[1].to_string(), f[2].to_string()))
        })
        .collect()
}

#[test]
fn every_prediction_equals_the_counters_but_the_listed_findings() {
    let rows = run();
    let listed = listed();
    let mut unlisted = Vec::new();
    for r in &rows {
        let m = r.measured;
        let ncu = match r.predicted {
            Cost::Global(_) => format!("sectors={} requests={}", m.sectors, m.requests),
            Cost::Shared(_) => format!("wavefronts={} conflicts={}", m.wavefronts, m.conflicts),
        };
        match (r.agrees, listed.get(&r.case.id)) {
            (true, None) => {}
            (true, Some(_)) => unlisted.push(format!("listed case {} agrees now (stale): {}", r.case.id, r.case.expr)),
            (false, Some((e, n))) => {
                assert_eq!(
                    (e.as_str(), n.as_str()),
                    (r.predicted.to_string().as_str(), ncu.as_str()),
                    "case {}",
                    r.case.id
                )
            }
            (false, None) => {
                unlisted.push(format!("{} {}: engine {} | ncu {ncu}", r.case.id, r.case.expr, r.predicted))
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "{} cases differ unlisted, e.g.\n{}",
        unlisted.len(),
        unlisted[..unlisted.len().min(10)].join("\n")
    );
    let agree = rows.iter().filter(|r| r.agrees).count();
    assert!(agree + listed.len() == rows.len(), "{agree} of {} agree", rows.len());
}

#[test]
fn the_run_covers_what_the_issue_asks() {
    let rows = run();
    let random = rows.iter().filter(|r| r.case.id >= access::CHAPTER.len() * 2).count();
    assert!(random >= 2000, "{random} random cases");
    let mut widths = BTreeSet::new();
    let mut elems = BTreeSet::new();
    let mut families = BTreeSet::new();
    let (mut broadcast, mut swizzled, mut merged, mut conflicted) = (0, 0, 0, 0);
    for r in &rows {
        let c = &r.case;
        widths.insert((c.space == Space::Shared, c.vector));
        elems.insert(c.elem);
        families.insert(c.family);
        broadcast += (c.offsets.iter().collect::<BTreeSet<_>>().len() < 32) as usize;
        swizzled += c.expr.contains("Swizzle") as usize;
        if let Cost::Shared(s) = r.predicted {
            conflicted += (s.conflicts > 0) as usize;
            let ph = cutecheck::engine::warp_access::phases(&c.offsets, c.vector).len();
            merged += (c.vector >= 8 && ph < 32 / (128 / c.vector as usize)) as usize;
        }
    }
    assert_eq!(widths.len(), 10, "both spaces x 1, 2, 4, 8, 16 bytes: {widths:?}");
    assert_eq!(elems, BTreeSet::from([1, 2, 4, 8, 16]));
    assert_eq!(families, BTreeSet::from(["bits", "chapter", "gmma", "swizzle", "tile"]));
    assert!(broadcast >= 200 && swizzled >= 200 && conflicted >= 200, "{broadcast} {swizzled} {conflicted}");
    assert!(merged >= 50, "{merged} shared 8/16-byte loads served in merged 256-byte phases");
}

#[test]
fn the_cases_are_what_the_generator_makes_from_the_seed() {
    let text = read("expressions.txt");
    let head = text.lines().next().unwrap();
    let seed: u64 = head.split_whitespace().nth(2).unwrap().trim_end_matches(',').parse().unwrap();
    let n: usize = head.rsplit("--cases ").next().unwrap().trim_end_matches(')').parse().unwrap();
    let made = access::random_cases(seed, n).unwrap();
    let recorded = access::read_expressions(&text).unwrap();
    assert_eq!(made, recorded, "regenerated from seed {seed}");
    assert_eq!(access::cases_file(&made), read("cases.txt"), "what the device was sent");
}

#[test]
fn the_chapter_figures_are_in_the_run() {
    let rows = run();
    // The chapter's three global cases lead the run; ncu's sectors are the chapter's figures.
    let sectors: Vec<i64> =
        rows.iter().filter(|r| r.case.space == Space::Global).take(3).map(|r| r.measured.sectors).collect();
    let chapter =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/access/chapter.txt")).unwrap();
    let want: Vec<i64> = chapter
        .lines()
        .filter(|l| l.starts_with("warp_access(global"))
        .map(|l| {
            l.split('\t')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .trim_start_matches("sectors=")
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(sectors, want);
}

#[test]
fn a_wrong_model_fails_the_comparison() {
    let rows = run();
    let cases: Vec<_> = rows.iter().map(|r| r.case.clone()).collect();
    let mut launches = access::read_counters_file(&read("counters.tsv")).unwrap();
    launches[7].counters.wavefronts += 1;
    launches[7].counters.sectors += 1;
    let again = access::compare(&cases, &launches).unwrap();
    assert!(!again[7].agrees, "a changed counter is a disagreement");
    launches.pop();
    assert!(access::compare(&cases, &launches).is_err(), "a missing launch is an error");
}

#[test]
fn the_pilot_the_shared_rule_was_fitted_on_agrees() {
    // fixtures/gpu/h200-access-pilot: the first 606 cases (seed 1, an earlier generator): the
    // naive 128-byte-phase model missed 67 of its 201 shared 8/16-byte loads; the merged-phase
    // rule was read from it, and the run above (fresh seed, 2806 cases) tested the rule (one
    // amendment since: differences.txt).
    let pilot = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gpu/h200-access-pilot");
    let cases = access::read_expressions(&std::fs::read_to_string(pilot.join("expressions.txt")).unwrap()).unwrap();
    let launches = access::read_counters_file(&std::fs::read_to_string(pilot.join("counters.tsv")).unwrap()).unwrap();
    let rows = access::compare(&cases, &launches).unwrap();
    assert_eq!(rows.len(), 606);
    assert!(rows.iter().all(|r| r.agrees), "{:?}", rows.iter().find(|r| !r.agrees).map(|r| &r.case.expr));
}
