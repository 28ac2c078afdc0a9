//! The summary: every row with the verdict it must have, the verdict of the whole run, and the
//! counts.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::engine::atom::mma::{mma_atom, mma_atom_names};
use crate::gpu::plan::corrections;
use crate::gpu::plan::mma_sync::mma_cases;
use crate::gpu::results::Row;

/// The printed summary table.
pub fn summary_table(rows: &[Row]) -> String {
    let findings = finding_atoms();
    let mut s = format!(
        "{:<8} {:<60} {:<13} {:<10} {:<7} {:<9} {}\n",
        "run", "atom", "check", "max error", "verdict", "expected", "detail"
    );
    for r in rows {
        let err = r.max_err.map(|e| format!("{e:.2e}")).unwrap_or_else(|| "-".into());
        let want = expected(r, &findings);
        let mark = if r.verdict == "SKIP" || want == "-" || r.verdict == want {
            want.to_string()
        } else {
            format!("{want} !!")
        };
        let _ = writeln!(
            s,
            "{:<8} {:<60} {:<13} {:<10} {:<7} {:<9} {}",
            r.run, r.atom, r.check, err, r.verdict, mark, r.detail
        );
    }
    s
}

/// CuTe atoms whose own tables are known to be wrong (a layout fault the engine finds, or a
/// known disagreement in the corrections data): on hardware their checks must FAIL.
pub fn finding_atoms() -> Vec<String> {
    let Ok(fixes) = corrections() else { return vec![] };
    let mut out: Vec<String> = Vec::new();
    for name in mma_atom_names().into_iter().filter(|n| !n.starts_with("SM90_64x") && !n.starts_with("Universal")) {
        if let Ok(atom) = mma_atom(&name) {
            if let Ok(cases) = mma_cases(&atom, 0, &fixes) {
                out.extend(cases.iter().filter(|c| c.finding).map(|c| c.name.clone()));
            }
        }
    }
    out.extend(fixes.iter().filter(|f| f.operand == '-').map(|f| f.atom.clone()));
    // Copy atoms with a corrected Src/Dst: CuTe's own layouts must fail on hardware.
    out.extend(
        fixes
            .iter()
            .filter(|f| f.operand == 'S' || f.operand == 'D')
            .map(|f| format!("Copy_Atom<{},uint16_t>", f.atom)),
    );
    out.sort();
    out.dedup();
    out
}

/// What a row must show: "FAIL" for the corrupted tables' check 1 and for CuTe's own tables of
/// an atom with a finding, "-" where either is acceptable (ownership with wrong A/B tables, whose
/// inputs then land in the wrong places), "PASS" otherwise. SKIP rows are always acceptable.
pub fn expected(row: &Row, findings: &[String]) -> &'static str {
    let finding = findings.iter().any(|f| f == &row.atom);
    match (row.run.as_str(), row.check.as_str()) {
        ("corrupt", "table") => "FAIL",
        (_, "ownership") if finding => "-",
        ("corrupt", "ownership") => "-",
        _ if finding => "FAIL",
        _ => "PASS",
    }
}

/// Whether every row shows what it must.
pub fn verdict(rows: &[Row]) -> bool {
    let findings = finding_atoms();
    rows.iter().all(|r| {
        let want = expected(r, &findings);
        r.verdict == "SKIP" || want == "-" || r.verdict == want
    })
}

/// Verdict counts per run and check, for the summary.
pub fn counts(rows: &[Row]) -> BTreeMap<(String, String, String), usize> {
    let mut m = BTreeMap::new();
    for r in rows {
        *m.entry((r.run.clone(), r.check.clone(), r.verdict.clone())).or_insert(0) += 1;
    }
    m
}

/// `summary.json`: the run's device and seeds (`info`, from [`read_results`](crate::gpu::read_results)),
/// whether every row shows what it must, and every row with its verdict and the verdict it must
/// have.
pub fn summary_json(rows: &[Row], info: &serde_json::Value) -> serde_json::Value {
    let findings = finding_atoms();
    serde_json::json!({
        "run": info,
        "all_pass": verdict(rows),
        "rows": rows.iter().map(|r| serde_json::json!({
            "run": r.run, "atom": r.atom, "check": r.check, "max_err": r.max_err,
            "verdict": r.verdict, "expected": expected(r, &findings), "detail": r.detail })).collect::<Vec<_>>(),
    })
}
