//! The conformance report (`cargo xtask conformance`): a row per group (fixed suite, random,
//! known, dynamic), every disagreement with its triage class, signature and known entry, the
//! tables printed and `report.md`. Reads the run's verdicts and computes none: the run
//! (crate::run) has judged every case.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use crate::case::Outcome;
use crate::fuzz::{self, CaseTree};
use crate::judge::Verdict as Triage;
use crate::judge::{Judge, Status};
use crate::run::dynamic::DynamicRun;
use crate::run::judge::signature_of;
use crate::run::{Plan, Run};

#[derive(Serialize, Clone)]
pub struct CaseReport {
    pub group: String,
    pub location: String,
    pub op: Option<String>,
    /// Random cases: whether the operands were built to satisfy the operation's preconditions.
    pub admissible: Option<bool>,
    pub expr: String,
    pub cute: Vec<String>,
    pub engine: Vec<String>,
    /// One line: `agree`, or `DISAGREE class N (...) blame: ...`.
    pub verdict: String,
    /// The judge's final word (agree, both_refuse, unchecked, oracle_error, explained, new, stale).
    pub status: Status,
    /// For disagreements: the triage verdict with the definition check.
    pub triage: Option<Triage>,
    pub signature: Option<String>,
    pub explained: Option<String>,
    /// The shrunk case and its CuTe / engine outputs (random disagreements only).
    pub shrunk: Option<Shrunk>,
    /// pycute's answer (--pycute) and whether it agrees, as a function, with CuTe / the engine.
    pub pycute: Option<super::pycute::Opinion>,
    /// Random cases: what part of CuTe's input space the case exercises (cutecheck::fuzz::features).
    pub features: Vec<String>,
    /// The command that reproduces a disagreeing or failing case (`cargo xtask repro '...'`), and
    /// the shrunk case's.
    pub reproduce: Option<String>,
    pub reproduce_shrunk: Option<String>,
    /// The picture of a NEW or CHANGED IN RELEASE case whose outputs are both layouts: engine and
    /// CuTe side by side, differing cells marked (`<state>/disagreements/new-N.svg`, written by
    /// [`super::picture::write_pictures`]).
    pub picture: Option<String>,
}

pub use crate::run::shrink::Shrunk;

use crate::run::judge::GroupRow as Row;

#[derive(Serialize)]
pub struct Report {
    pub oracle: String,
    pub version: String,
    pub seed: u64,
    pub shard: String,
    pub random_cases: usize,
    pub seconds: f64,
    pub cases_per_minute: f64,
    pub rows: BTreeMap<String, Row>,
    pub total: Row,
    /// Disagreements per triage class (explained ones included).
    pub classes: BTreeMap<String, usize>,
    /// Disagreements per triage signature (class plus blame / rejecter / correctness).
    pub signatures: BTreeMap<String, usize>,
    /// pycute as a third oracle (`--pycute`).
    pub pycute: Option<super::pycute::Summary>,
    /// Dynamic cases explained by a known discrepancy beyond the first [`DYNAMIC_EXPLAINED_KEPT`] of
    /// their operation and entry: counted here, left out of `cases`.
    pub dynamic_explained_omitted: Vec<Omitted>,
    /// The engine's refusals for overflow against what CuTe did on the same cases (issue 30: UBSan
    /// agrees with the engine on every overflow refusal).
    pub overflow_refusals: OverflowRefusals,
    pub cases: Vec<CaseReport>,
    /// PASS/FAIL, counts per status, time (set by the command from the run's verdict).
    pub summary: Option<super::ci::Summary>,
}

/// The cases the engine refused for 32-bit overflow (`engine::Error::Overflow`), by what CuTe
/// did: its own computation overflowed too (UBSan stopped it, or the compiler's overflow
/// diagnostic: `Outcome::Overflow`), it refused before any arithmetic (a compile error, a
/// static_assert, a crash), it printed a result (UBSan saw no overflow: the engine refused what
/// CuTe computes; each such case is named), or the oracle did not answer.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct OverflowRefusals {
    pub engine: usize,
    pub cute_overflows: usize,
    pub cute_refuses_first: usize,
    pub cute_answers: Vec<String>,
    pub unanswered: usize,
}

impl OverflowRefusals {
    /// Count one case: the engine's refusal (if any) and CuTe's outcome.
    pub fn count(&mut self, refusal: Option<&crate::engine::Error>, cute: &Outcome, expr: &str) {
        if !matches!(refusal, Some(crate::engine::Error::Overflow { .. })) {
            return;
        }
        self.engine += 1;
        match cute {
            Outcome::Overflow(_) => self.cute_overflows += 1,
            Outcome::Rejected(_) | Outcome::Crashed(_) => self.cute_refuses_first += 1,
            Outcome::Printed(_) => self.cute_answers.push(expr.to_string()),
            Outcome::Unsupported(_) | Outcome::Error(_) => self.unanswered += 1,
        }
    }

    /// The report's line (and one line per case CuTe answered), empty when the engine refused
    /// nothing for overflow.
    pub fn line(&self) -> String {
        if self.engine == 0 {
            return String::new();
        }
        let mut s = format!(
            "engine overflow refusals {}: CuTe overflows too (UBSan or the compiler) {}, CuTe refuses first {}, CuTe answers {}, oracle unanswered {}\n",
            self.engine,
            self.cute_overflows,
            self.cute_refuses_first,
            self.cute_answers.len(),
            self.unanswered
        );
        for e in &self.cute_answers {
            s.push_str(&format!("  the engine refuses for overflow, CuTe answers (no UBSan report): {e}\n"));
        }
        s
    }
}

/// Explained dynamic cases of one operation, triage class and signature, and known discrepancy
/// that the report counts without listing them.
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Omitted {
    pub op: String,
    pub class: String,
    pub signature: String,
    pub explained: String,
    pub cases: usize,
}

/// Which explained dynamic cases the report lists: the first [`DYNAMIC_EXPLAINED_KEPT`] of each
/// operation and known entry; the others are counted by operation, class, signature and entry.
#[derive(Default)]
struct Omissions {
    listed: BTreeMap<(String, String), usize>,
    omitted: BTreeMap<(String, String, String, String), usize>,
}

impl Omissions {
    /// Whether to list this explained dynamic case (else it is counted).
    fn list(&mut self, op: &str, class: &str, signature: &str, explained: &str) -> bool {
        let n = self.listed.entry((op.to_string(), explained.to_string())).or_default();
        if *n < DYNAMIC_EXPLAINED_KEPT {
            *n += 1;
            return true;
        }
        *self.omitted.entry((op.into(), class.into(), signature.into(), explained.into())).or_default() += 1;
        false
    }

    fn omitted(self) -> Vec<Omitted> {
        self.omitted
            .into_iter()
            .map(|((op, class, signature, explained), cases)| Omitted { op, class, signature, explained, cases })
            .collect()
    }
}

/// How many dynamic cases of each (operation, known discrepancy) the report lists in full; a
/// million dynamic cases hold about 130,000 explained ones (213 MB of report.json in full). New,
/// stale and unchecked cases and oracle errors are always listed.
pub const DYNAMIC_EXPLAINED_KEPT: usize = 20;

/// What a report says of its run besides the run itself.
pub struct About {
    /// The oracle's description.
    pub oracle: String,
    pub seed: u64,
    pub shard: (usize, usize),
    pub random_cases: usize,
    /// pycute was asked (its summary is reported).
    pub pycute: bool,
    /// When the command started (the report's run time).
    pub start: Instant,
}

/// The report of a conformance run: one row per group, every disagreement with its class,
/// signature and known entry, random new disagreements shrunk by `shrink` (`None`: not shrunk).
pub fn build(
    run: Run,
    judge: &Judge<'_>,
    about: About,
    dynamic: Option<&DynamicRun>,
    mut shrink: impl FnMut(CaseTree, &Triage) -> Option<Shrunk>,
) -> Report {
    let start = about.start;
    let oracle_time = run.asked.reference().map_or(0.0, |p| p.seconds);
    let Run { plan: Plan { cases, mut trees, .. }, asked, judged } = run;
    let opinions = super::pycute::opinions(&asked, &judged.cases);
    let outcomes: Vec<Outcome> =
        asked.reference().expect("C++ answers").replies.iter().map(|r| r.outcome.clone()).collect();
    let rows = judged.groups;
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut signatures: BTreeMap<String, usize> = BTreeMap::new();
    let mut reports = Vec::new();
    let mut omissions = Omissions::default();
    let mut overflow_refusals = OverflowRefusals::default();
    for (((p, outcome), (engine, opinion)), judged) in
        cases.into_iter().zip(outcomes).zip(asked.engines.into_iter().zip(opinions)).zip(judged.cases)
    {
        let j = judged.engine_cpp.expect("an engine~cpp judgement for every case");
        overflow_refusals.count(engine.refusal.as_ref(), &outcome, &p.case.text);
        let sig = j.triage.as_ref().map(signature_of);
        let mut explained = None;
        let mut shrunk = None;
        match &j.status {
            Status::Stale(why) => explained = Some(why.clone()),
            Status::Explained(_) | Status::New | Status::KnownEarlier(_) | Status::ChangedInRelease(_) => {
                let class = j.triage.as_ref().map_or("untriaged".to_string(), class_label);
                *classes.entry(class).or_default() += 1;
                *signatures.entry(sig.clone().unwrap_or_default()).or_default() += 1;
                match &j.status {
                    Status::Explained(by) => {
                        let class =
                            judge.known.lookup(&p.case.expr, &judge.version).map_or("family", |d| d.class.as_str());
                        explained = Some(format!("{class}: {by}"));
                    }
                    Status::KnownEarlier(since) => explained = Some(format!("known since {since}, still present")),
                    _ => {}
                }
                if let (Some(i), Status::New, Some(t)) = (p.random, &j.status, &j.triage) {
                    if let Some(tree) = trees.get_mut(i).and_then(Option::take) {
                        shrunk = shrink(tree, t);
                    }
                }
            }
            // Agreements, refusals, unchecked cases, oracle errors: counted by the judge.
            _ => {}
        }
        if let (Status::Explained(_), true, Some(e)) = (&j.status, p.group == "dynamic", &explained) {
            let class = j.triage.as_ref().map_or("untriaged".to_string(), class_label);
            if !omissions.list(p.case.op().unwrap_or("-"), &class, sig.as_deref().unwrap_or(""), e) {
                continue;
            }
        }
        let admissible = p.admissible();
        let features = if p.random.is_some() { fuzz::features(&p.case.text) } else { Vec::new() };
        let listed = j.fails() || j.triage.is_some();
        reports.push(CaseReport {
            reproduce: listed.then(|| super::ci::reproducer(&p.case.text)),
            reproduce_shrunk: shrunk.as_ref().map(|s: &Shrunk| super::ci::reproducer(&s.expr)),
            features,
            group: p.group,
            location: p.case.location.clone(),
            op: p.case.op().map(String::from),
            admissible,
            cute: outcome.lines(),
            engine: engine.outcome.lines(),
            expr: p.case.text,
            verdict: j.summary(),
            status: j.status.clone(),
            triage: j.triage,
            signature: sig,
            explained,
            shrunk,
            pycute: opinion,
            picture: None,
        });
    }
    let elapsed = start.elapsed().as_secs_f64();
    let total = Row::total(rows.values());
    let report = Report {
        oracle: about.oracle,
        version: judge.version.clone(),
        seed: about.seed,
        shard: format!("{}/{}", about.shard.0, about.shard.1),
        random_cases: about.random_cases,
        seconds: elapsed,
        // The dynamic cases' time is their whole verification (drawn, answered, compared).
        cases_per_minute: total.cases as f64 * 60.0 / (oracle_time + dynamic.map_or(0.0, |d| d.seconds)).max(1e-3),
        rows,
        total: total.clone(),
        classes,
        signatures,
        pycute: about.pycute.then(|| {
            super::pycute::Summary::of(reports.iter().filter_map(|c| Some((c.expr.as_str(), c.pycute.as_ref()?))))
        }),
        dynamic_explained_omitted: omissions.omitted(),
        overflow_refusals,
        cases: reports,
        summary: None,
    };
    report
}

/// The tables of a report, as printed: groups, classes, features, pycute, and on a release the
/// engine does not model, the release news first.
pub fn tables(report: &Report, judge: &Judge<'_>) -> String {
    let mut tables = format!(
        "{}{}{}\n{}\n{}",
        table(report),
        overflow_rows(report),
        report.overflow_refusals.line(),
        class_table(report),
        feature_table(&report.cases)
    );
    if let Some(p) = &report.pycute {
        tables.push_str(&p.table());
    }
    let omitted: usize = report.dynamic_explained_omitted.iter().map(|o| o.cases).sum();
    if omitted > 0 {
        tables.push_str(&format!(
            "{omitted} more dynamic cases explained by known discrepancies are counted above but not listed (the first {DYNAMIC_EXPLAINED_KEPT} of each operation and entry are)\n"
        ));
    }
    if judge.carried.is_some() {
        tables = format!("{}\n{tables}", release_news(report, judge));
    }
    tables
}

/// "1 same-function" style label of a triage verdict.
pub fn class_label(t: &Triage) -> String {
    if t.agrees() {
        "3 both-reject (different reasons)".into()
    } else {
        format!("{} {}", t.number(), t.class())
    }
}

/// Whether a reported case is a disagreement (explained or not).
pub fn is_disagreement(c: &CaseReport) -> bool {
    matches!(c.status, Status::New | Status::Explained(_) | Status::KnownEarlier(_) | Status::ChangedInRelease(_))
}

/// The group of a case in the release news: its operation, and for atom cases the atom's
/// architecture family (`mma_layout_a SM80`).
fn news_group(c: &CaseReport) -> String {
    let op = c.op.clone().unwrap_or_else(|| "(literal)".into());
    let inner = c.expr.split_once('(').map_or("", |(_, rest)| rest);
    match inner.split(|ch: char| !ch.is_ascii_alphanumeric()).next() {
        Some(a) if a.starts_with("SM") && a.len() > 2 => format!("{op} {a}"),
        _ => op,
    }
}

/// On a release the engine does not model: what changed in CuTe's behaviour against the nearest
/// older model, grouped by operation and atom family.
fn release_news(r: &Report, judge: &Judge<'_>) -> String {
    let model = judge.carried.clone().unwrap_or_default();
    let mut groups: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for c in &r.cases {
        let g = groups.entry(news_group(c)).or_default();
        match c.status {
            Status::New | Status::ChangedInRelease(_) => g.0 += 1,
            Status::KnownEarlier(_) => g.1 += 1,
            Status::FixedHere(_) => g.2 += 1,
            _ => {}
        }
    }
    groups.retain(|_, v| *v != (0, 0, 0));
    let mut s = format!(
        "CUTLASS {} is not modelled; against the engine's nearest older model ({model}):\n{:<48} {:>6} {:>14} {:>10}\n",
        r.version, "what changed (operation [atom family])", "NEW", "still present", "fixed?"
    );
    if groups.is_empty() {
        s.push_str("(nothing: CuTe behaves as the model on every case)\n");
    }
    for (g, (n, k, f)) in &groups {
        s.push_str(&format!("{g:<48} {n:>6} {k:>14} {f:>10}\n"));
    }
    for c in r.cases.iter().filter(|c| matches!(c.status, Status::FixedHere(_))) {
        s.push_str(&format!("fixed in this release? {} (known since {model})\n", c.expr));
    }
    // Each new behaviour once (a fixed-suite case and the known list's reproducer of one
    // expression are one change), with both outputs and the triage's blame.
    let mut seen = std::collections::BTreeSet::new();
    let news: Vec<&CaseReport> = r
        .cases
        .iter()
        .filter(|c| matches!(c.status, Status::New | Status::ChangedInRelease(_)) && seen.insert(c.expr.clone()))
        .collect();
    const SHOWN: usize = 20;
    for c in news.iter().take(SHOWN) {
        let was_known =
            crate::case::Case::parse(&c.expr, "news").ok().and_then(|k| judge.known.lookup(&k.expr, &model)).is_some();
        let head = if c.status == Status::New { "NEW" } else { "CHANGED IN RELEASE" };
        s.push_str(&format!("{head} {} [{}] {}\n", news_group(c), c.signature.as_deref().unwrap_or("-"), c.expr));
        s.push_str(&format!("    CuTe:   {}\n    engine: {}\n", c.cute.join(" | "), short(&c.engine.join(" | "))));
        if was_known {
            s.push_str(&format!(
                "    listed as a CuTe defect of {model}; CuTe's result now meets the definition: fixed in this release? (the engine's {model} model refuses it)\n"
            ));
        }
    }
    if news.len() > SHOWN {
        s.push_str(&format!("... and {} more new (report.md lists every case)\n", news.len() - SHOWN));
    }
    s
}

/// At most 200 characters of an output line, for the release news.
fn short(t: &str) -> String {
    match t.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &t[..i]),
        None => t.to_string(),
    }
}

fn table(r: &Report) -> String {
    let mut s = format!(
        "{:<20} {:>6} {:>6} {:>8} {:>9} {:>9} {:>7} {:>8}\n",
        "suite", "cases", "agree", "refuse", "unchecked", "explained", "errors", "DISAGREE"
    );
    let mut line = |name: &str, x: &Row| {
        s.push_str(&format!(
            "{:<20} {:>6} {:>6} {:>8} {:>9} {:>9} {:>7} {:>8}\n",
            name, x.cases, x.agree, x.both_refuse, x.unchecked, x.explained, x.oracle_errors, x.disagree
        ));
    };
    for (k, v) in &r.rows {
        line(k, v);
    }
    line("total", &r.total);
    s
}

/// The overflow class's rows: CuTe's own computation overflowed (UBSan or the compiler said so),
/// neither side blamed, never NEW; split by whether the engine refused for overflow too.
fn overflow_rows(r: &Report) -> String {
    let (mut too, mut answers) = (0, 0);
    for c in &r.cases {
        if let Status::CuteOverflows(d) = &c.status {
            if d.ends_with("the engine refuses for overflow too") {
                too += 1;
            } else {
                answers += 1;
            }
        }
    }
    if too + answers == 0 {
        return String::new();
    }
    format!(
        "{:<20} {:>6}   (neither side blamed: the engine refuses for overflow too {too}, the engine answers {answers})\n",
        "CuTe overflows",
        too + answers
    )
}

fn class_table(r: &Report) -> String {
    let mut s = format!(
        "{:<72} {:>6} {:>9} {:>6}\n",
        "disagreements by triage class [signature] op", "cases", "explained", "NEW"
    );
    let mut per: BTreeMap<(String, String, String), (usize, usize)> = BTreeMap::new();
    for c in r.cases.iter().filter(|c| is_disagreement(c)) {
        let class = c.triage.as_ref().map_or("untriaged".to_string(), class_label);
        let op = c.op.clone().unwrap_or_else(|| "-".into());
        let e = per.entry((class, c.signature.clone().unwrap_or_default(), op)).or_default();
        e.0 += 1;
        if matches!(c.status, Status::Explained(_) | Status::KnownEarlier(_)) {
            e.1 += 1;
        }
    }
    for o in &r.dynamic_explained_omitted {
        let e = per.entry((o.class.clone(), o.signature.clone(), o.op.clone())).or_default();
        e.0 += o.cases;
        e.1 += o.cases;
    }
    if per.is_empty() {
        s.push_str("(none)\n");
    }
    let mut classes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for ((class, sig, op), (n, ex)) in &per {
        s.push_str(&format!("{:<72} {:>6} {:>9} {:>6}\n", format!("{class} [{sig}] {op}"), n, ex, n - ex));
        let c = classes.entry(class.as_str()).or_default();
        c.0 += n;
        c.1 += ex;
    }
    for (class, (n, ex)) in &classes {
        s.push_str(&format!("{:<72} {:>6} {:>9} {:>6}\n", format!("total class {class}"), n, ex, n - ex));
    }
    let random: Vec<&CaseReport> = r.cases.iter().filter(|c| c.group == "random").collect();
    let adm = random.iter().filter(|c| c.admissible == Some(true)).count();
    let adm_dis = random.iter().filter(|c| c.admissible == Some(true) && is_disagreement(c)).count();
    let ill_dis = random.iter().filter(|c| c.admissible == Some(false) && is_disagreement(c)).count();
    s.push_str(&format!(
        "random cases: {adm} admissible ({adm_dis} disagree), {} ill-defined ({ill_dis} disagree)\n",
        random.len() - adm
    ));
    s
}

/// Random cases per feature (cutecheck::fuzz::features): drawn, admissible, agreeing (or both
/// refusing), disagreeing; the `atom:NAME` features are summed into one line of distinct atoms.
fn feature_table(cases: &[CaseReport]) -> String {
    let mut per: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut atoms = std::collections::BTreeSet::new();
    for c in cases.iter().filter(|c| c.group == "random") {
        for f in &c.features {
            if let Some(a) = f.strip_prefix("atom:") {
                atoms.insert(a);
                continue;
            }
            let e = per.entry(f).or_default();
            e[0] += 1;
            e[1] += usize::from(c.admissible == Some(true));
            e[2] += usize::from(matches!(c.status, Status::Agree | Status::BothRefuse));
            e[3] += usize::from(is_disagreement(c));
        }
    }
    let mut s = format!(
        "{:<24} {:>6} {:>10} {:>6} {:>8}\n",
        "feature (random cases)", "cases", "admissible", "agree", "DISAGREE"
    );
    for (f, [n, a, g, d]) in &per {
        s.push_str(&format!("{f:<24} {n:>6} {a:>10} {g:>6} {d:>8}\n"));
    }
    s.push_str(&format!("distinct MMA atoms and copy operations drawn: {}\n", atoms.len()));
    s
}

/// report.md: the command, the oracle, the tables and every disagreement.
pub fn markdown(r: &Report, tables: &str, command: &str) -> String {
    let mut s = String::from("# cutecheck conformance report\n\n");
    s.push_str(&format!("Command: `cargo xtask {command}`  \n"));
    s.push_str(&format!(
        "Oracle: {}  \nRandom cases: {} (seed {}, shard {})  \nRun time: {:.1} s ({:.0} cases/minute through the oracle, cache hits included)\n\n",
        r.oracle, r.random_cases, r.seed, r.shard, r.seconds, r.cases_per_minute
    ));
    s.push_str("```text\n");
    s.push_str(tables);
    s.push_str("```\n\n## Disagreements\n\n");
    let mut any = false;
    for c in r.cases.iter().filter(|c| is_disagreement(c) || matches!(c.status, Status::Stale(_))) {
        any = true;
        s.push_str(&format!(
            "- `{}` ({})\n  - CuTe: `{}`\n  - engine: `{}`\n",
            c.expr,
            c.location,
            c.cute.join(" | "),
            c.engine.join(" | ")
        ));
        if let Some(t) = &c.triage {
            s.push_str(&format!("  - triage: {}: {t}\n", class_label(t)));
        }
        if let Some(e) = &c.explained {
            s.push_str(&format!("  - known: {e}\n"));
        }
        if let Some(x) = &c.shrunk {
            s.push_str(&format!(
                "  - shrunk ({} steps): `{}` (CuTe `{}`, engine `{}`)\n",
                x.steps,
                x.expr,
                x.cute.join(" | "),
                x.engine.join(" | ")
            ));
        }
        if let Some(p) = &c.pycute {
            s.push_str(&format!("  - pycute: {}\n", p.summary()));
        }
    }
    if !any {
        s.push_str("None.\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explained_dynamic_cases_beyond_the_first_of_each_entry_are_counted() {
        let mut o = Omissions::default();
        let sig = "one-rejects:engine-rejects:accepted-wrong";
        let listed = (0..DYNAMIC_EXPLAINED_KEPT + 5)
            .filter(|_| o.list("flat_divide", "3 one-rejects", sig, "family: d"))
            .count();
        assert_eq!(listed, DYNAMIC_EXPLAINED_KEPT);
        // Another operation or entry has its own first cases.
        assert!(o.list("logical_divide", "3 one-rejects", sig, "family: d"));
        assert!(o.list("flat_divide", "3 one-rejects", sig, "family: e"));
        let omitted = o.omitted();
        assert_eq!(omitted.len(), 1);
        assert_eq!(
            (omitted[0].op.as_str(), omitted[0].explained.as_str(), omitted[0].cases),
            ("flat_divide", "family: d", 5)
        );
    }

    #[test]
    fn the_engines_overflow_refusals_are_counted_by_what_cute_did() {
        let overflow = crate::engine::Error::Overflow { what: "multiplication", op: "max_common_layout" };
        let other = crate::engine::Error::DivisionByZero;
        let mut o = OverflowRefusals::default();
        assert_eq!(o.line(), "");
        let ub = Outcome::Overflow("layout.hpp:1108: signed integer overflow".into());
        o.count(Some(&overflow), &ub, "a");
        o.count(Some(&overflow), &Outcome::Rejected("compile error: static assertion failed".into()), "b");
        o.count(Some(&overflow), &Outcome::Printed("_1:_0".into()), "max_common_layout(x,y)");
        o.count(Some(&overflow), &Outcome::Error("timeout".into()), "d");
        // Not the engine's overflow refusal: not counted, whatever CuTe did.
        o.count(Some(&other), &ub, "e");
        o.count(None, &ub, "f");
        assert_eq!(
            o,
            OverflowRefusals {
                engine: 4,
                cute_overflows: 1,
                cute_refuses_first: 1,
                cute_answers: vec!["max_common_layout(x,y)".into()],
                unanswered: 1
            }
        );
        let line = o.line();
        assert!(line.starts_with("engine overflow refusals 4: CuTe overflows too (UBSan or the compiler) 1, CuTe refuses first 1, CuTe answers 1, oracle unanswered 1\n"), "{line}");
        assert!(line.contains("CuTe answers (no UBSan report): max_common_layout(x,y)"), "{line}");
    }
}
