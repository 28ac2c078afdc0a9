//! Fixed suites: the case files `fixtures/cases/*.cases` and their snapshots.
//!
//! A case file has one expression per line; blank lines and lines starting with `#` are skipped.
//! A case is named by its file and line (`fixtures/cases/chapter_table.cases:4`).
//!
//! A suite's snapshot (`snapshots/<suite>.snap`, an insta file) lists, per case, the expression
//! on one line and each line of the result prefixed `=> `, with a blank line between cases:
//!
//! ```text
//! coalesce((_2,(_1,_6)):(_1,(_6,_2)))
//! => _12:_1
//!
//! complement((_2,_2):(_1,_1),_24)
//! => rejected: Non-injective Layout detected in complement.
//! ```
//!
//! Results are the lines of a `cutecheck::case::Outcome` (`Outcome::lines` / `Outcome::from_lines`):
//! real CuTe's print text, `rejected: <static_assert message>` (or `rejected: compile error: ...`),
//! `crashed: <signal>` or `unsupported: <why>` (the oracle has no C++ for the expression). `cargo
//! xtask bless` (only it) writes these files from real CuTe; tests/fixed_suites.rs judges the engine against
//! them with the same judge as `cargo xtask conformance`.

pub use crate::snapshot::{parse_snapshot_body, snapshot_body_of};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::paths::repo_root;

/// One case of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The expression exactly as written in the file (trimmed).
    pub expr: String,
    /// 1-based line number in the case file.
    pub line: usize,
}

/// One case file.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The file name without `.cases` (also the snapshot's name).
    pub name: String,
    pub path: PathBuf,
    pub cases: Vec<Case>,
    /// The CUTLASS versions whose output is recorded for this suite, from a `# recorded-for: V ...`
    /// line of the case file; `None` (no such line): every version with a snapshots/versions/
    /// directory, and the default.
    pub recorded_for: Option<Vec<String>>,
}

impl Suite {
    pub fn parse(name: &str, path: &Path, text: &str) -> Suite {
        let cases = text
            .lines()
            .enumerate()
            .filter_map(|(k, l)| {
                let t = l.trim();
                (!t.is_empty() && !t.starts_with('#')).then(|| Case { expr: t.to_string(), line: k + 1 })
            })
            .collect();
        let recorded_for = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("# recorded-for:"))
            .map(|v| v.split_whitespace().map(String::from).collect());
        Suite { name: name.to_string(), path: path.to_path_buf(), cases, recorded_for }
    }

    /// Whether CuTe's output of this suite is recorded for `version` (`None`: the default).
    pub fn is_recorded_for(&self, version: Option<&str>) -> bool {
        let v = version.unwrap_or(crate::oracle::provision::DEFAULT_CUTLASS);
        self.recorded_for.as_ref().is_none_or(|vs| vs.iter().any(|x| x == v))
    }

    pub fn load(path: &Path) -> Result<Suite> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("suite").to_string();
        Ok(Suite::parse(&name, path, &text))
    }

    /// `fixtures/cases/x.cases:LINE` for a case, relative to the repository when possible.
    pub fn locate(&self, case: &Case) -> String {
        let p = self.path.strip_prefix(repo_root()).unwrap_or(&self.path);
        format!("{}:{}", p.display(), case.line)
    }

    /// Real CuTe's recorded lines for each case (from `snapshots/<name>.snap`, or the version's
    /// directory), or every problem, named `file:line`: no snapshot, a case without its recorded
    /// result, recorded results without their case. Only reads; `cargo xtask bless` writes.
    pub fn recorded(&self, version: Option<&str>) -> Result<Vec<Vec<String>>, Vec<String>> {
        let path = snapshot_path(&self.name, version);
        let shown = path.strip_prefix(repo_root()).unwrap_or(&path).display().to_string();
        let Some(recorded) =
            std::fs::read_to_string(&path).ok().and_then(|f| snapshot_body_of(&f).map(parse_snapshot_body))
        else {
            return Err(vec![format!(
                "{}: no readable snapshot {shown} (record it with `cargo xtask bless`)",
                self.locate_file()
            )]);
        };
        let mut problems = Vec::new();
        if recorded.len() > self.cases.len() {
            problems.push(format!(
                "{shown}: {} recorded results for the {} cases of {} (run `cargo xtask bless`)",
                recorded.len(),
                self.cases.len(),
                self.locate_file()
            ));
        }
        let mut out = Vec::new();
        for (k, c) in self.cases.iter().enumerate() {
            match recorded.get(k) {
                Some((e, lines)) if *e == c.expr => out.push(lines.clone()),
                _ => problems.push(format!(
                    "{}: {} has no recorded result in {shown} (run `cargo xtask bless`)",
                    self.locate(c),
                    c.expr
                )),
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems)
        }
    }

    /// The case file, relative to the repository when possible.
    pub fn locate_file(&self) -> String {
        self.path.strip_prefix(repo_root()).unwrap_or(&self.path).display().to_string()
    }

    /// The snapshot body for results given per case (each a list of lines).
    pub fn snapshot_body(&self, results: &[Vec<String>]) -> String {
        let mut out = String::new();
        for (k, (c, r)) in self.cases.iter().zip(results).enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&c.expr);
            out.push('\n');
            for l in r {
                out.push_str("=> ");
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}

/// What judging one suite against real CuTe's recorded output found.
#[derive(Clone, Debug, Default)]
pub struct Judged {
    /// The cases the judge compared.
    pub judged: usize,
    /// Every problem, each starting `fixtures/cases/x.cases:LINE: `: a case the judge fails (with
    /// CuTe's recorded lines, the engine's and the verdict), a case that does not parse, and what
    /// `Suite::recorded` finds wrong with the snapshot.
    pub problems: Vec<String>,
}

impl Judged {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Every suite in `fixtures/cases/`, sorted by name.
pub fn all_suites() -> Result<Vec<Suite>> {
    let dir = repo_root().join("fixtures").join("cases");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cases"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Suite::load(p)).collect()
}

/// The snapshot file of a suite: `snapshots/<name>.snap`, or
/// `snapshots/versions/<version>/<name>.snap` for another CUTLASS version.
pub fn snapshot_path(name: &str, version: Option<&str>) -> PathBuf {
    let base = repo_root().join("snapshots");
    match version {
        None => base.join(format!("{name}.snap")),
        Some(v) => base.join("versions").join(v).join(format!("{name}.snap")),
    }
}

/// The oracle that [`record`] asks again alone: `opts` without the results cache (quiet), one case
/// per translation unit (`batch: 1`).
pub fn alone_oracle(opts: &crate::oracle::OracleOptions) -> Result<crate::oracle::Oracle> {
    crate::oracle::Oracle::new(crate::oracle::OracleOptions { cache: false, verbose: false, batch: 1, ..opts.clone() })
}

/// Real CuTe's result lines for every case of every suite, as `cargo xtask bless` records them.
///
/// The cases go to `oracle` in one run (batched into translation units). g++ reports a failing
/// template instantiation once per translation unit, so a case batched with another that fails in
/// the same instantiation can be refused with a secondary compile error instead of CuTe's
/// static_assert (seen with CUTLASS 4.2: `tiled_product((4,5):(1,5),(3,5):(5,2))` is `compile
/// error: no matching function for call to 'repeat<R1>(const cute::Underscore&)'` in a batch and
/// `Dynamic-stride complement only for rank-1 layouts` alone). So every case refused with a
/// compile error that is not a static_assert is asked again alone, through `alone` (an oracle
/// without the results cache, whose translation units hold one case each: `batch: 1`), and that
/// answer is the recorded one: a recorded result does not depend on which cases were batched with
/// it. The retries go to `alone` in one run, which compiles them in parallel on its own thread
/// pool: asked one by one from a rayon pool, each blocked retry's worker took the next retry onto
/// its own stack, and 3.4.1's hundreds of retries overflowed it.
pub fn record(
    oracle: &crate::oracle::Oracle,
    alone: &crate::oracle::Oracle,
    suites: &[Suite],
) -> Vec<Vec<Vec<String>>> {
    let exprs: Vec<String> = suites.iter().flat_map(|s| s.cases.iter().map(|c| c.expr.clone())).collect();
    let mut outcomes = oracle.run(&exprs);
    ask_again_alone(&exprs, &mut outcomes, |again| alone.run(again));
    let mut it = outcomes.into_iter();
    suites.iter().map(|s| s.cases.iter().map(|_| it.next().map(|o| o.lines()).unwrap_or_default()).collect()).collect()
}

/// Whether a batched case's outcome is one to ask again alone: refused with a compile error that
/// is not a static_assert (g++ may have reported another case's failing instantiation; see
/// [`record`]).
pub fn asked_again_alone(o: &crate::case::Outcome) -> bool {
    matches!(o, crate::case::Outcome::Rejected(m) if m.starts_with("compile error: "))
}

/// The single-case retry of [`record`] (and of every other batched run of real CuTe whose answers
/// are compared, `cargo xtask release-diff`): every case whose batched outcome
/// [`asked_again_alone`] is asked again through `alone` (in one call, one case per translation
/// unit there), and that answer replaces the batched one.
pub fn ask_again_alone<T: Clone>(
    cases: &[T],
    outcomes: &mut [crate::case::Outcome],
    alone: impl FnOnce(&[T]) -> Vec<crate::case::Outcome>,
) {
    let again: Vec<usize> = (0..outcomes.len()).filter(|&k| asked_again_alone(&outcomes[k])).collect();
    if again.is_empty() {
        return;
    }
    let retried: Vec<T> = again.iter().map(|&k| cases[k].clone()).collect();
    for (k, o) in again.into_iter().zip(alone(&retried)) {
        outcomes[k] = o;
    }
}

/// A batched oracle whose compile-error refusals are asked again alone ([`ask_again_alone`]), as
/// [`record`] does for bless: `batched` answers first, `alone` (see [`alone_oracle`]) the retries.
pub struct RetryAlone<'a> {
    pub batched: &'a dyn crate::case::Oracle,
    pub alone: &'a dyn crate::case::Oracle,
}

impl crate::case::Oracle for RetryAlone<'_> {
    fn describe(&self) -> String {
        format!("{}; compile errors asked again alone", self.batched.describe())
    }
    fn run(&self, cases: &[&crate::case::Case]) -> Vec<crate::case::Outcome> {
        let mut outcomes = self.batched.run(cases);
        ask_again_alone(cases, &mut outcomes, |again| self.alone.run(again));
        outcomes
    }
    fn caps(&self) -> crate::case::Caps {
        self.batched.caps()
    }
    fn name(&self) -> &'static str {
        self.batched.name()
    }
}

/// The older CUTLASS versions with recorded files (`snapshots/versions/<V>/`), sorted.
pub fn recorded_versions() -> Vec<String> {
    let dir = repo_root().join("snapshots").join("versions");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    v.sort();
    v
}

/// The whole insta file for a suite body: insta's header (`source`, `expression`) then the body.
pub fn snapshot_file(name: &str, body: &str) -> String {
    format!("---\nsource: tests/fixed_suites.rs\nexpression: \"suite(\\\"{name}\\\")\"\n---\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a non-static_assert compile error is asked again alone, and the alone answer replaces
    /// it; the other outcomes are kept and nothing else is asked.
    #[test]
    fn a_batched_compile_error_is_asked_again_alone() {
        use crate::case::Outcome;
        let cases = vec!["a", "b", "c", "d"];
        let mut outcomes = vec![
            Outcome::Printed("1".into()),
            Outcome::Rejected("compile error: no matching function".into()),
            Outcome::Rejected("Static shape_div failure".into()),
            Outcome::Rejected("compile error: secondary".into()),
        ];
        let mut asked = Vec::new();
        ask_again_alone(&cases, &mut outcomes, |again| {
            asked.extend_from_slice(again);
            again.iter().map(|c| Outcome::Printed(format!("alone {c}"))).collect()
        });
        assert_eq!(asked, vec!["b", "d"]);
        assert_eq!(outcomes[1], Outcome::Printed("alone b".into()));
        assert_eq!(outcomes[3], Outcome::Printed("alone d".into()));
        assert_eq!(outcomes[2], Outcome::Rejected("Static shape_div failure".into()));
        assert_eq!(outcomes[0], Outcome::Printed("1".into()));
    }

    #[test]
    fn case_files_and_snapshot_bodies_round_trip() {
        let s = Suite::parse("t", Path::new("t.cases"), "# c\n\n_4:_1\n  size(_4:_1) \n");
        assert_eq!(s.cases, vec![Case { expr: "_4:_1".into(), line: 3 }, Case { expr: "size(_4:_1)".into(), line: 4 }]);
        let body = s.snapshot_body(&[vec!["_4:_1".into()], vec!["_4".into()]]);
        assert_eq!(body, "_4:_1\n=> _4:_1\n\nsize(_4:_1)\n=> _4\n");
        let file = snapshot_file("t", &body);
        assert_eq!(snapshot_body_of(&file), Some(body.as_str()));
        let parsed = parse_snapshot_body(&body);
        assert_eq!(parsed[1], ("size(_4:_1)".to_string(), vec!["_4".to_string()]));
        assert!(s.is_recorded_for(None) && s.is_recorded_for(Some("3.8.0.0")));
        let only = Suite::parse("t", Path::new("t.cases"), "# recorded-for: 4.2.0.0\n_4:_1\n");
        assert!(
            only.is_recorded_for(None)
                && only.is_recorded_for(Some("4.2.0.0"))
                && !only.is_recorded_for(Some("3.8.0.0"))
        );
    }
}
