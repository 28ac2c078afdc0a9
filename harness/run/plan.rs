//! The run's first step: what cases it asks. The fixed suites (fixtures/cases), the random cases
//! of a seed and shard (cutecheck::fuzz, drawn under the judge's release), and one reproducer of
//! every known discrepancy of the version under test.

use std::time::Instant;

use anyhow::{Context, Result};

use crate::case::{Case, Origin};
use crate::fuzz::{self, CaseTree, ValueTree};
use crate::judge::Judge;
use crate::suite::all_suites;

/// A case of a run, parsed once, with its group and origin.
#[derive(Clone)]
pub struct Planned {
    pub group: String,
    pub case: Case,
    pub origin: Origin,
    /// Index into the random case trees (for shrinking).
    pub random: Option<usize>,
}

impl Planned {
    pub fn admissible(&self) -> Option<bool> {
        match self.origin {
            Origin::Random { admissible } => Some(admissible),
            _ => None,
        }
    }
}

/// What a run plans.
#[derive(Clone, Copy, Debug)]
pub struct PlanSpec {
    /// Number of random cases (before sharding).
    pub cases: usize,
    pub seed: u64,
    /// Shard K of N (0-based) of the random cases; the fixed suites and the known discrepancies
    /// run in shard 0.
    pub shard: (usize, usize),
    /// The fixed suites (in shard 0).
    pub fixed: bool,
    /// One case per known discrepancy of the judge's version and the release it carries (in
    /// shard 0).
    pub known: bool,
}

/// The planned cases, the random cases' trees (for shrinking), and how long planning took.
pub struct Plan {
    pub cases: Vec<Planned>,
    pub trees: Vec<Option<CaseTree>>,
    pub seconds: f64,
}

/// Plan a run: the fixed suites, the random cases drawn under the judge's release (so that a case
/// is admissible for this release: an atom whose traits break its definition only before 4.2
/// makes no admissible tiled MMA there), then the known discrepancies' reproducers.
pub fn plan(judge: &Judge<'_>, spec: &PlanSpec) -> Result<Plan> {
    let t = Instant::now();
    let first = spec.shard.0 == 0;
    let (mut cases, trees) = crate::engine::release::with_release(judge.release, || {
        draw(spec.cases, spec.seed, spec.shard, spec.fixed && first)
    })?;
    if spec.known && first {
        cases.extend(known_cases(judge)?);
    }
    Ok(Plan { cases, trees, seconds: t.elapsed().as_secs_f64() })
}

/// [`plan`], then the cases of the user's case file (`--case-file`, in shard 0), after the fixed
/// suites and random cases and before nothing else changes: the same run, the same judge.
pub fn plan_with_file(judge: &Judge<'_>, spec: &PlanSpec, case_file: Option<&std::path::Path>) -> Result<Plan> {
    let t = Instant::now();
    let mut p = plan(judge, spec)?;
    if let (Some(f), 0) = (case_file, spec.shard.0) {
        p.cases.extend(case_file_cases(f)?);
    }
    p.seconds += t.elapsed().as_secs_f64() - p.seconds;
    Ok(p)
}

/// Fixed suites (unless skipped) and the random cases of `seed` in `shard`.
pub fn draw(n: usize, seed: u64, shard: (usize, usize), fixed: bool) -> Result<(Vec<Planned>, Vec<Option<CaseTree>>)> {
    let mut cases = Vec::new();
    if fixed {
        for s in all_suites()? {
            for c in &s.cases {
                let case = Case::parse(&c.expr, s.locate(c))
                    .with_context(|| format!("{}: cannot parse the case", s.locate(c)))?;
                cases.push(Planned { group: s.name.clone(), case, origin: Origin::Fixed, random: None });
            }
        }
    }
    let trees: Vec<Option<CaseTree>> = fuzz::case_trees(seed, n).into_iter().map(Some).collect();
    let (k, of) = shard;
    for (i, t) in trees.iter().enumerate() {
        if of > 1 && i % of != k {
            continue;
        }
        let Some(t) = t else { continue };
        let c = t.current();
        let location = format!("random #{i} (seed {seed})");
        let case =
            Case::parse(&c.expr, &location).with_context(|| format!("{location}: the generator wrote `{}`", c.expr))?;
        cases.push(Planned {
            group: "random".into(),
            case,
            origin: Origin::Random { admissible: c.admissible },
            random: Some(i),
        });
    }
    Ok((cases, trees))
}

/// The cases of a user's case file (`--case-file FILE`): one expression a line, `#` comments and
/// blank lines skipped; each case is located at `FILE:line` and grouped under the file's name.
pub fn case_file_cases(path: &std::path::Path) -> Result<Vec<Planned>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read the case file {}", path.display()))?;
    case_lines(&text, &path.display().to_string())
}

/// [`case_file_cases`] on text already read; `file` names it in every location.
pub fn case_lines(text: &str, file: &str) -> Result<Vec<Planned>> {
    let group = std::path::Path::new(file).file_name().map_or(file.to_string(), |n| n.to_string_lossy().into_owned());
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let expr = line.trim();
        if expr.is_empty() || expr.starts_with('#') {
            continue;
        }
        let location = format!("{file}:{}", i + 1);
        // Columns count in the line as written (its indentation included), from 1.
        let indent = line.len() - line.trim_start().len();
        let at = |col: usize, msg: &str| {
            let col = indent + col.max(1);
            anyhow::anyhow!("{location}:{col}: {msg}\n  {line}\n  {}^", " ".repeat(col - 1))
        };
        let case = match Case::parse(expr, &location) {
            Ok(c) => c,
            Err(e) => return Err(at(e.col, &format!("cannot parse the case: {}", e.msg))),
        };
        if let Some((col, name, near)) = misspelled_call(&case.expr) {
            return Err(at(col, &format!("unknown function '{name}' (did you mean '{near}'?)")));
        }
        cases.push(Planned { group: group.clone(), case, origin: Origin::Fixed, random: None });
    }
    if cases.is_empty() {
        anyhow::bail!("{file}: no cases (one expression a line; `#` starts a comment)");
    }
    Ok(cases)
}

/// The first call `name(...)` of `e` whose name is no operation, no atom form and no CuTe name the
/// engine knows, but is near an operation's name ([`crate::expr::builtins::did_you_mean`]): a typo
/// in a user's case file, refused with the name it is near. A called name near none is left to
/// the run (CuTe may know a function the engine has not modelled: the engine refuses it and the
/// judge says so), as is every bare name (an atom the engine lacks).
pub fn misspelled_call(e: &crate::expr::Expr) -> Option<(usize, String, &'static str)> {
    use crate::expr::Expr;
    match e {
        Expr::Call { name, args, called, col } => {
            if *called && name.targs.is_none() && crate::expr::op::Op::lookup(name).is_none() {
                let text = name.to_string();
                let unknown = matches!(
                    crate::expr::builtins::call(name, &[], true),
                    Err(crate::engine::Error::Type(m)) if m.starts_with("unknown function or name")
                );
                if let Some(near) = crate::expr::builtins::did_you_mean(&text).filter(|_| unknown) {
                    return Some((*col, text, near));
                }
            }
            args.iter().find_map(misspelled_call)
        }
        Expr::Tuple { items, .. } => items.iter().find_map(misspelled_call),
        Expr::Layout { shape, stride, .. } => misspelled_call(shape).or_else(|| misspelled_call(stride)),
        Expr::Apply { target, args, .. } => misspelled_call(target).or_else(|| args.iter().find_map(misspelled_call)),
        Expr::Int { .. } | Expr::Basis { .. } | Expr::Ratio { .. } | Expr::Underscore { .. } => None,
    }
}

/// One case per expression the known discrepancies list for the judge's version (and, on a
/// release the engine does not model, for the release whose discrepancies carry over).
pub fn known_cases(judge: &Judge<'_>) -> Result<Vec<Planned>> {
    let mut cases = Vec::new();
    let mut listed: Vec<&str> = Vec::new();
    let versions = std::iter::once(judge.version.as_str()).chain(judge.carried.as_deref());
    for d in versions.flat_map(|v| judge.known.for_version(v)) {
        if listed.contains(&d.expr.as_str()) {
            continue;
        }
        listed.push(&d.expr);
        let location = if d.location.is_empty() { "fixtures/known-discrepancies.toml" } else { &d.location };
        let case = Case::parse(&d.expr, location)?;
        cases.push(Planned { group: "known".into(), case, origin: Origin::Known, random: None });
    }
    Ok(cases)
}
