//! The report of `cargo xtask release-diff`: every case whose CuTe output changed between two
//! releases, with the judge's word on the engine against each side. Reads the two runs' answers
//! and verdicts, computes none.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::case::Outcome;
use crate::run::Run;

#[derive(Serialize)]
pub struct Change {
    pub group: String,
    /// The case's operation and atom family ([`op_and_family`]); the report groups by it.
    pub operation: String,
    pub location: String,
    pub expr: String,
    pub kind: String,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub engine: Vec<String>,
    /// The engine against the old / new output: `agree`, or the triage class and signature.
    pub engine_vs_from: String,
    pub engine_vs_to: String,
    /// What the change is blamed on (`judge::release_blame`): a release switch, an atom's first
    /// release, or not modelled.
    pub blame: String,
}

#[derive(Serialize)]
pub struct Report {
    pub from: String,
    pub to: String,
    /// The releases the engine modelled for each side.
    pub model_from: String,
    pub model_to: String,
    pub seed: u64,
    pub cases: usize,
    pub changed: usize,
    pub by_kind: BTreeMap<String, usize>,
    /// The changes grouped by operation and atom family (`op [FAMILY]`, see [`op_and_family`]).
    pub by_operation: BTreeMap<String, usize>,
    /// The changes by blame (`judge::release_blame`).
    pub by_blame: BTreeMap<String, usize>,
    /// How many changes the engine agrees with on each side.
    pub engine_agrees_with_from: usize,
    pub engine_agrees_with_to: usize,
    pub changes: Vec<Change>,
}

/// What kind of answer an outcome is, a refusal split by how CuTe refused.
pub fn kind_of(o: &Outcome) -> &'static str {
    // A refusal is split by how CuTe refused: a static_assert or another compile error.
    match o {
        Outcome::Printed(_) => "printed",
        Outcome::Rejected(s) if s.starts_with("compile error") => "compile-error",
        Outcome::Rejected(_) => "static_assert",
        Outcome::Crashed(_) => "crashed",
        Outcome::Unsupported(_) => "unsupported",
        Outcome::Error(_) => "oracle-error",
        Outcome::Overflow(_) => "overflow",
    }
}

/// A case's operation (its outermost call, from the enum) and, when it names an atom, the atom's
/// family: the atom's base name with its M x N x K cut (`SM80_16x8x32_S32S4S4S32_TN` ->
/// `SM80_S32S4S4S32_TN`; `SM100_MMA_F16BF16_SS<...>` -> `SM100_MMA_F16BF16_SS`).
pub fn op_and_family(case: &crate::case::Case) -> String {
    // Not an operation: an evaluation or slice `L(c)` (a call of a value), else a literal or form.
    let op = match (case.operation(), &case.expr) {
        (Some(o), _) => o.name(),
        (None, crate::expr::parse::Expr::Apply { .. }) => "L(c) (evaluation or slice)",
        (None, _) => "literal or form",
    };
    let atom = case
        .text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| w.len() > 3 && w.starts_with("SM") && w.as_bytes()[2].is_ascii_digit());
    let family = atom.map(|a| {
        a.split('_')
            .filter(|p| !(p.contains('x') && p.split('x').all(|d| d.parse::<u32>().is_ok())))
            .collect::<Vec<_>>()
            .join("_")
    });
    match family {
        Some(f) => format!("{op} [{f}]"),
        None => op.to_string(),
    }
}

/// The cases whose CuTe output changed between two runs of the same cases (`old` on the older
/// release, `new` on the newer, each judged with the engine modelling its release), with the
/// judge's word on the engine against each side and the change's blame.
pub fn build(old: &Side, new: &Side, seed: u64) -> Report {
    let (old_cpp, new_cpp) = (old.run.asked.cpp().unwrap_or_default(), new.run.asked.cpp().unwrap_or_default());
    let (from_name, to_name) = (old.version.to_string(), new.version.to_string());
    let (old_model, new_model) = (old.model, new.model);
    let (model_from, model_to) = (old.model.to_string(), new.model.to_string());
    let (old, new) = (old.run, new.run);
    let mut changes = Vec::new();
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_operation: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_blame: BTreeMap<String, usize> = BTreeMap::new();
    let (mut with_from, mut with_to) = (0, 0);
    for (k, (p, (o, n))) in new.plan.cases.iter().zip(old_cpp.iter().zip(&new_cpp)).enumerate() {
        if o.lines() == n.lines() || o.is_error() || n.is_error() {
            continue;
        }
        let kind = format!("{} -> {}", kind_of(o), kind_of(n));
        *by_kind.entry(kind.clone()).or_default() += 1;
        let operation = op_and_family(&p.case);
        *by_operation.entry(operation.clone()).or_default() += 1;
        let summary = |r: &Run| r.judged.cases[k].engine_cpp.as_ref().map(|j| j.summary());
        let (vf, vt) = (summary(old).unwrap_or_default(), summary(new).unwrap_or_default());
        with_from += usize::from(vf.starts_with("agree"));
        with_to += usize::from(vt.starts_with("agree"));
        let blame = crate::judge::release_blame(&p.case, false, (old_model, new_model), o, n);
        *by_blame.entry(blame.clone()).or_default() += 1;
        changes.push(Change {
            group: p.group.clone(),
            operation,
            location: p.case.location.clone(),
            expr: p.case.text.clone(),
            kind,
            from: o.lines(),
            to: n.lines(),
            engine: new.asked.engines[k].outcome.lines(),
            engine_vs_from: vf,
            engine_vs_to: vt,
            blame,
        });
    }
    Report {
        from: from_name,
        to: to_name,
        model_from,
        model_to,
        seed,
        cases: new.plan.cases.len(),
        changed: changes.len(),
        by_kind,
        by_operation,
        by_blame,
        engine_agrees_with_from: with_from,
        engine_agrees_with_to: with_to,
        changes,
    }
}

/// One side of a release diff: the CUTLASS version's name and its run.
pub struct Side<'r> {
    pub version: &'r str,
    /// The release the engine modelled for this side.
    pub model: crate::engine::release::Release,
    pub run: &'r Run,
}

/// The markdown report.
pub fn markdown(report: &Report, no_fixed: bool) -> String {
    let (seed, with_from, with_to) = (report.seed, report.engine_agrees_with_from, report.engine_agrees_with_to);
    let mut md = format!(
        "# CuTe release diff {} -> {}\n\n{} cases (fixed suites{} + random, seed {seed}); {} changed output.\nThe engine (modelling CUTLASS {} for the old side, {} for the new) agrees with the old output on {with_from} and with the new on {with_to} of them.\n\n| change | cases |\n|---|---|\n",
        report.from,
        report.to,
        report.cases,
        if no_fixed { " skipped" } else { "" },
        report.changed,
        report.model_from,
        report.model_to
    );
    for (k, n) in &report.by_kind {
        md.push_str(&format!("| {k} | {n} |\n"));
    }
    md.push_str("\n| operation [atom family] | cases |\n|---|---|\n");
    for (k, n) in &report.by_operation {
        md.push_str(&format!("| {k} | {n} |\n"));
    }
    md.push_str("\n| blame | cases |\n|---|---|\n");
    for (k, n) in &report.by_blame {
        md.push_str(&format!("| {k} | {n} |\n"));
    }
    md.push_str("\n## Changed cases, by operation and atom family\n");
    let mut groups: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for c in &report.changes {
        groups.entry(c.operation.as_str()).or_default().push(c);
    }
    for (g, changes) in groups {
        md.push_str(&format!("\n### {g} ({})\n\n", changes.len()));
        for c in changes {
            md.push_str(&format!(
                "- `{}` ({}; {})\n  - {}: `{}`\n  - {}: `{}`\n  - engine: `{}` (vs old: {}; vs new: {})\n  - blame: {}\n",
                c.expr,
                c.location,
                c.kind,
                report.from,
                c.from.join(" | "),
                report.to,
                c.to.join(" | "),
                c.engine.join(" | "),
                c.engine_vs_from,
                c.engine_vs_to,
                c.blame
            ));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::op_and_family;
    use crate::case::Case;

    fn of(text: &str) -> String {
        op_and_family(&Case::parse(text, "test").unwrap())
    }

    #[test]
    fn changes_group_by_operation_and_atom_family() {
        assert_eq!(of("mma_layout_b(SM80_16x8x32_S32S4S4S32_TN)"), "mma_layout_b [SM80_S32S4S4S32_TN]");
        assert_eq!(
            of("mma_atom(SM100_MMA_F16BF16_SS<half_t,half_t,float,128,8,UMMA::Major::K,UMMA::Major::K>)"),
            "mma_atom [SM100_MMA_F16BF16_SS]"
        );
        assert_eq!(of("tiled_divide(make_layout((4,2)),(_))"), "tiled_divide");
        assert_eq!(of("upcast<4>((_4,_8):(_3,_8))"), "upcast");
        assert_eq!(of("make_layout((_4,_8))(_,2)"), "L(c) (evaluation or slice)");
    }
}
