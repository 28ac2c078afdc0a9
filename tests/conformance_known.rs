//! fixtures/known-discrepancies.toml stays honest: every entry parses, names a real class and a
//! signature triage can produce; against real CuTe (cutecheck_cute, see tests/fixed_suites.rs)
//! every entry for CUTLASS 4.2 still reproduces with its class and signature, and the
//! disagreements of a small seeded fuzz run are all triaged and covered by the list.

use cutecheck::case::{Case, Origin};
use cutecheck::judge::{Judge, Status};
use cutecheck::known::{predicate, KnownDiscrepancies};
use cutecheck::run::{Plan, Planned};

fn known() -> KnownDiscrepancies {
    KnownDiscrepancies::load_default().expect("known discrepancies")
}

const CLASSES: &[&str] = &["same-function", "different-function", "one-rejects", "cute-crashed"];

#[test]
fn entries_are_well_formed() {
    let k = known();
    assert!(!k.entries.is_empty());
    let fuzz_ops: std::collections::BTreeSet<&str> =
        cutecheck::fuzz::cases(1, 2000, (0, 1)).into_iter().map(|(_, c)| c.op).collect();
    for d in &k.entries {
        assert!(CLASSES.contains(&d.class.as_str()), "{}: class {}", d.expr, d.class);
        assert!(!d.explanation.trim().is_empty(), "{}: no explanation", d.expr);
        if let Some(f) = &d.family {
            assert!(
                f.signature.starts_with(&d.class),
                "{}: signature {} is not of class {}",
                d.expr,
                f.signature,
                d.class
            );
            let p = predicate(&f.predicate).unwrap_or_else(|| panic!("{}: unknown predicate {}", d.expr, f.predicate));
            assert!(
                p(&Case::parse(&d.expr, "known").unwrap()),
                "{}: its own family predicate {} does not hold",
                d.expr,
                f.predicate
            );
            for op in &f.ops {
                assert!(fuzz_ops.contains(op.as_str()), "{}: family op {op} is never generated", d.expr);
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn entries_reproduce_and_a_seeded_run_is_covered() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    let version = option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0");
    let oracle = Oracle::new(OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() })
        .expect("real CuTe");
    let k = known();
    let judge = Judge::new(&k, version);
    // The entries' reproducers and a small seeded random run, asked and judged by the run loop.
    let planned = |case: Case, origin: Origin| Planned { group: "known".into(), case, origin, random: None };
    let entries: Vec<Planned> = k
        .for_version(version)
        .map(|d| planned(Case::parse(&d.expr, "fixtures/known-discrepancies.toml").unwrap(), Origin::Known))
        .collect();
    let run = |cases: Vec<Planned>| {
        let plan = Plan { cases, trees: Vec::new(), seconds: 0.0 };
        cutecheck::run::run_planned(&judge, plan, &[&oracle], false, |_, _| Ok(())).expect("the run")
    };
    let r = run(entries);
    let cute = r.asked.cpp().unwrap();
    for ((p, o), j) in r.plan.cases.iter().zip(cute).zip(&r.judged.cases) {
        let (c, j) = (&p.case, j.engine_cpp.as_ref().unwrap());
        assert!(matches!(j.status, Status::Explained(_)), "{}: {} ({o:?})", c.text, j.summary());
        let d = k.lookup(&c.expr, version).unwrap();
        if let (Some(f), Some(t)) = (&d.family, &j.triage) {
            assert_eq!(t.signature(cutecheck::judge::ENGINE_CUTE), f.signature, "{}", c.text);
        }
    }
    let cases: Vec<Planned> = cutecheck::fuzz::cases(9, 60, (0, 1))
        .into_iter()
        .map(|(i, c)| {
            let case = Case::parse(&c.expr, format!("random #{i} (seed 9)")).unwrap();
            planned(case, Origin::Random { admissible: c.admissible })
        })
        .collect();
    let r = run(cases);
    let mut uncovered = Vec::new();
    for (p, j) in r.plan.cases.iter().zip(&r.judged.cases) {
        let j = j.engine_cpp.as_ref().unwrap();
        if j.fails() {
            uncovered.push(format!("{} ({}): {}", p.case.text, p.case.location, j.summary()));
        }
    }
    assert!(uncovered.is_empty(), "disagreements not in fixtures/known-discrepancies.toml:\n{}", uncovered.join("\n"));
}
