//! The engine modelling each CUTLASS release against what that release's real CuTe printed: every
//! fixed suite recorded under snapshots/versions/<V>/ (by `cargo xtask bless --cutlass-version V`
//! or `--cutlass-dir`) is judged with the engine modelling V (`engine::release`), by the same judge as `cargo xtask
//! conformance --cutlass-version V`, with the known discrepancies listed for V. Needs no compiler.
//!
//! A `harness = false` test (libtest-mimic), selected by name like any test (`-- --list` lists
//! them):
//!
//! - `release::<V>::<name>`: one trial per recorded release other than the default (whose suites
//!   tests/fixed_suites.rs judges; each directory of snapshots/versions/) and case file recorded
//!   for it (a file's `# recorded-for:` line can leave a release out), judged by
//!   `cutecheck::run::judge_recorded` with the engine modelling `V.model()` (V itself when
//!   modelled, else the nearest older model: tag 3.9.2 by the 3.9.0.0 model) as
//!   tests/fixed_suites.rs judges the default; it fails with the `file:line` of every case the
//!   judge fails. A suite recorded alike (the same snapshot file) for an earlier release of the same
//!   model, or for the default, is judged there once.
//!   A recorded release whose model is not complete yet (`UNMODELLED`, none now) lists each
//!   suite's problem count and why; such a trial is reported as ignored with the reason while the
//!   count holds, and fails when it changes (`CUTECHECK_LIST_PROBLEMS=1 cargo test --test releases
//!   -- --include-ignored release::3.3.0.0` fails every such trial with its problems listed).
//! - `models::every_model_is_recorded`: every modelled release has a recorded release it models.
//! - `switch::<name>` (the switch's name, `_` for each space): each modelled switch
//!   (`engine::release::SWITCHES`) has a fixture that real CuTe prints differently in the releases
//!   recorded for the last model before the switch and for the switch's (looked up in the releases
//!   suite, else in any suite recorded for both).

use std::collections::HashMap;
use std::sync::OnceLock;

use cutecheck::engine::release::{Release, Switch, DEFAULT, MODELLED, PARTIAL, SWITCHES};
use cutecheck::judge::{EngineMemo, Judge};
use cutecheck::known::KnownDiscrepancies;
use cutecheck::run::judge_recorded;
use cutecheck::suite::{all_suites, parse_snapshot_body, recorded_versions, snapshot_body_of, snapshot_path, Suite};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    match all_suites() {
        Ok(suites) => {
            // A suite recorded alike for two releases of one model is judged once, where first
            // recorded so (tags 4.3.6 and 4.4.3 print what 4.2.0 printed, which
            // tests/fixed_suites.rs judges): the later one's trial passes at once.
            let mut judged: HashMap<(Option<Release>, String, String), Release> = HashMap::new();
            for s in &suites {
                if let Ok(body) = std::fs::read_to_string(snapshot_path(&s.name, None)) {
                    judged.insert((Some(DEFAULT), s.name.clone(), body), DEFAULT);
                }
            }
            for r in recorded_releases() {
                let v = r.to_string();
                let unmodelled = UNMODELLED.iter().find(|u| u.release == v);
                for s in suites.iter().filter(|s| s.is_recorded_for(Some(&v))) {
                    let s = s.clone();
                    let name = format!("release::{v}::{}", s.name);
                    let body = std::fs::read_to_string(snapshot_path(&s.name, Some(&v))).unwrap_or_default();
                    let first = (unmodelled.is_none() && !body.is_empty())
                        .then(|| *judged.entry((r.model(), s.name.clone(), body)).or_insert(r))
                        .filter(|first| *first != r);
                    trials.push(match (unmodelled, first) {
                        (Some(u), _) => Trial::ignorable_test(name, move || unmodelled_problems_as_listed(u, r, &s)),
                        // Judged where first recorded so (tests/fixed_suites.rs for the default).
                        (None, Some(_)) => Trial::test(name, || Ok(())),
                        (None, None) => Trial::test(name, move || release_matches_its_recorded_cute(r, &s)),
                    });
                }
            }
        }
        Err(e) => {
            let e = format!("{e:#}");
            trials.push(Trial::test("fixtures", move || Err(format!("fixtures/cases: {e}").into())));
        }
    }
    trials.push(Trial::test("models::every_model_is_recorded", every_model_is_recorded));
    trials.push(Trial::test("models::partial_models_are_the_listed_ones", partial_models_are_the_listed_ones));
    for &s in SWITCHES {
        // The switch's name, in words, as one word: `switch::inverses_by_sorted_strides`.
        let name: String = s.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        trials.push(Trial::test(format!("switch::{name}"), move || real_cute_prints_the_fixture_differently_across(s)));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// A recorded release the engine does not model (older than every model): its suites are judged
/// with the oldest model like any other, and each suite's problems are counted and listed here; a
/// suite with listed problems is reported as ignored with the reason, and fails when its count
/// changes (a change to the engine or the record shows, and the list is kept true).
struct Unmodelled {
    release: &'static str,
    why: &'static str,
    /// (suite, problems); a suite not listed has none.
    problems: &'static [(&'static str, usize)],
}

/// None now: 3.3.0.0's (tile_to_shape's divisibility static_assert and five TMA copies) are
/// modelled by release switches (engine::release, TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY and
/// TMA_MULTICAST_SPLITS_THE_BOX).
const UNMODELLED: &[Unmodelled] = &[];

/// An unmodelled release's suite: ignored with the reason when its problems are as many as listed,
/// a failure naming them when not.
fn unmodelled_problems_as_listed(u: &Unmodelled, version: Release, s: &Suite) -> Result<Completion, Failed> {
    // CUTECHECK_LIST_PROBLEMS=1: fail with every problem listed, whatever the count (to work on them).
    let listed = match std::env::var_os("CUTECHECK_LIST_PROBLEMS") {
        Some(_) => usize::MAX,
        None => u.problems.iter().find(|(n, _)| *n == s.name).map_or(0, |(_, k)| *k),
    };
    let judge = Judge::new(known()?, version.to_string());
    let j = judge_recorded(s, &judge, Some(&version.to_string()));
    match (j.problems.len(), listed) {
        (0, 0) => Ok(Completion::Completed),
        (n, k) if n == k => Ok(Completion::ignored_with(format!("{n} problems listed in tests/releases.rs: {}", u.why))),
        (n, k) => Err(format!(
            "CUTLASS {version} ({}) {}: {n} problems, {k} listed in tests/releases.rs UNMODELLED (update the count, or model the release):\n{}",
            judge.release,
            s.name,
            j.problems.join("\n")
        )
        .into()),
    }
}

/// fixtures/known-discrepancies.toml, loaded once for all trials.
/// The engine's answers shared by every release's judges: a slow case (a whole make_tma_copy)
/// whose evaluation asks nothing that two releases answer differently is evaluated once
/// (`cutecheck::judge::EngineMemo`).
fn memo() -> &'static EngineMemo {
    static MEMO: OnceLock<EngineMemo> = OnceLock::new();
    MEMO.get_or_init(EngineMemo::default)
}

fn known() -> Result<&'static KnownDiscrepancies, Failed> {
    static KNOWN: OnceLock<Result<KnownDiscrepancies, String>> = OnceLock::new();
    KNOWN
        .get_or_init(|| KnownDiscrepancies::load_default().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| format!("fixtures/known-discrepancies.toml: {e}").into())
}

/// Every release with recorded snapshots other than the default (whose suites
/// tests/fixed_suites.rs judges): each directory of snapshots/versions/ (a wheel's release, or a tag
/// recorded from a checkout), oldest first. Each is judged with the engine modelling its
/// `Release::model()`: itself when modelled, else the nearest older model.
fn recorded_releases() -> Vec<Release> {
    let mut v: Vec<Release> = recorded_versions().iter().filter_map(|d| d.parse::<Release>().ok()).collect();
    v.retain(|r| *r != DEFAULT);
    v.sort();
    v
}

/// The recorded release that stands for modelled release `m`: `m` itself when recorded (the
/// default's snapshots/ count), else the newest recorded release that `m` models (a tag like 3.9.2
/// for the 3.9.0.0 model).
fn recorded_for_model(m: Release) -> Option<Release> {
    let mut all = recorded_releases();
    all.push(DEFAULT);
    if all.contains(&m) {
        return Some(m);
    }
    all.into_iter().filter(|r| r.model() == Some(m)).max()
}

/// Every modelled release is checked against real CuTe: some recorded release stands for it.
fn every_model_is_recorded() -> Result<(), Failed> {
    let missing: Vec<String> =
        MODELLED.iter().filter(|m| recorded_for_model(**m).is_none()).map(|m| m.to_string()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "modelled releases with no recorded release they model (record one with `cargo xtask bless --cutlass-dir`): {}",
        missing.join(", ")
    )
    .into())
}

/// `release::PARTIAL` (left out of the nightly matrix) is exactly the models of the releases whose
/// problems `UNMODELLED` lists.
fn partial_models_are_the_listed_ones() -> Result<(), Failed> {
    let mut listed: Vec<Release> = UNMODELLED
        .iter()
        .map(|u| u.release.parse::<Release>().ok().and_then(Release::model).ok_or(u.release))
        .collect::<Result<_, _>>()
        .map_err(|r| format!("UNMODELLED names {r}, which no model stands for"))?;
    listed.sort();
    listed.dedup();
    let mut partial = PARTIAL.to_vec();
    partial.sort();
    if listed != partial {
        return Err(
            format!("release::PARTIAL is {partial:?}, the models of UNMODELLED's releases are {listed:?}").into()
        );
    }
    Ok(())
}

/// Judge every recorded case of `s` for `version`, with the engine modelling `version.model()`
/// (itself when modelled) as `cargo xtask conformance --cutlass-version V` judges it.
fn release_matches_its_recorded_cute(version: Release, s: &Suite) -> Result<(), Failed> {
    let v = version.to_string();
    let judge = Judge::new(known()?, v.clone()).sharing(memo());
    if Some(judge.release) != version.model() {
        return Err(format!("{v}: the judge models {}, not {v}'s model {:?}", judge.release, version.model()).into());
    }
    let j = judge_recorded(s, &judge, Some(&v));
    if j.passed() {
        return Ok(());
    }
    let snap = snapshot_path(&s.name, Some(&v));
    let snap = snap.strip_prefix(cutecheck::oracle::repo_root()).unwrap_or(&snap);
    Err(format!(
        "{} problem(s) judging the engine's model of CUTLASS {v} ({}) against its real CuTe as recorded in {} ({} \
         cases judged; record with `cargo xtask bless --cutlass-version {v}`):\n{}",
        j.problems.len(),
        judge.release,
        snap.display(),
        j.judged,
        j.problems.join("\n")
    )
    .into())
}

/// What real CuTe printed for `expr` as recorded for `version`: in the releases suite, else in
/// any other suite recorded for it (a switch whose fixture a suite of every release already
/// holds, like the int4 atoms of atoms_mma, needs no new case recorded for every old release).
fn recorded(expr: &str, version: Release) -> Result<Vec<String>, Failed> {
    let v = (version != DEFAULT).then(|| version.to_string());
    let mut names = vec!["releases".to_string()];
    names.extend(all_suites().map_err(|e| format!("{e:#}"))?.into_iter().map(|s| s.name).filter(|n| n != "releases"));
    for name in names {
        let path = snapshot_path(&name, v.as_deref());
        let Ok(file) = std::fs::read_to_string(&path) else { continue };
        let body = snapshot_body_of(&file).ok_or_else(|| format!("{}: no snapshot header", path.display()))?;
        if let Some((_, l)) = parse_snapshot_body(body).into_iter().find(|(e, _)| e == expr) {
            return Ok(l);
        }
    }
    Err(format!("{expr} is not recorded for CUTLASS {version} in any suite").into())
}

fn real_cute_prints_the_fixture_differently_across(s: &Switch) -> Result<(), Failed> {
    let before = MODELLED
        .iter()
        .rev()
        .find(|r| **r < s.since)
        .copied()
        .ok_or_else(|| format!("switch `{}`: no modelled release before {}", s.name, s.since))?;
    let (old_r, new_r) = (recorded_for_model(before), recorded_for_model(s.since));
    let (Some(old_r), Some(new_r)) = (old_r, new_r) else {
        return Err(format!("switch `{}`: no release recorded for the model {before} or {}", s.name, s.since).into());
    };
    let (old, new) = (recorded(s.fixture, old_r)?, recorded(s.fixture, new_r)?);
    if old == new {
        return Err(format!(
            "switch `{}`: its fixture {} prints the same in CUTLASS {old_r} (modelled by {before}) and {new_r} (modelled by {}): {}",
            s.name,
            s.fixture,
            s.since,
            old.join(" | ")
        )
        .into());
    }
    Ok(())
}
