//! fixtures/known-discrepancies.toml stays honest: every entry parses, names a real class and a
//! signature triage can produce; against real CuTe (cutecheck_cute, see tests/fixed_suites.rs)
//! every entry for CUTLASS 4.2 still reproduces with its class and signature, and the
//! disagreements of a small seeded fuzz run are all triaged and covered by the list.

use cutecheck::known::KnownDiscrepancies;
use cutecheck::triage::triage_case;

fn known() -> KnownDiscrepancies {
    KnownDiscrepancies::load(&cutecheck::oracle::repo_root().join("fixtures/known-discrepancies.toml")).expect("known discrepancies")
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
            assert!(f.signature.starts_with(&d.class), "{}: signature {} is not of class {}", d.expr, f.signature, d.class);
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
    let entries: Vec<_> = k.for_version(version).collect();
    let exprs: Vec<String> = entries.iter().map(|d| d.expr.clone()).collect();
    for (d, o) in entries.iter().zip(oracle.run(&exprs)) {
        let v = triage_case(&d.expr, &o).unwrap_or_else(|| panic!("{}: no CuTe result: {o:?}", d.expr));
        assert_eq!(v.class(), d.class, "{}: {v}", d.expr);
        if let Some(f) = &d.family {
            assert_eq!(v.signature(), f.signature, "{}", d.expr);
        }
    }
    let cases = cutecheck::fuzz::cases(9, 60, (0, 1));
    let exprs: Vec<String> = cases.iter().map(|(_, c)| c.expr.clone()).collect();
    let mut uncovered = Vec::new();
    for ((_, c), o) in cases.iter().zip(oracle.run(&exprs)) {
        let engine = cutecheck::cli::engine_lines(&c.expr);
        if cutecheck::suite::compare(&o.lines(), &engine) != cutecheck::suite::Verdict::Differ {
            continue;
        }
        let v = triage_case(&c.expr, &o).unwrap_or_else(|| panic!("{}: untriaged", c.expr));
        if k.lookup(&c.expr, version).or(k.lookup_family(c.op, &v.signature(), version)).is_none() {
            uncovered.push(format!("{} ({}): {v}", c.expr, v.signature()));
        }
    }
    assert!(uncovered.is_empty(), "disagreements not in fixtures/known-discrepancies.toml:\n{}", uncovered.join("\n"));
}
