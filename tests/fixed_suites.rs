//! The engine against real CuTe's recorded output for every fixed suite (fixtures/cases/*.cases,
//! snapshots/<suite>.snap, written only by `cargo xtask bless` from what CUTLASS 4.2 printed).
//!
//! A `harness = false` test (libtest-mimic): one trial per case file, selected by name like any
//! test (`cargo test --test fixed_suites -- suite::layout_compose`, `-- --list` lists them).
//!
//! - `suite::<name>` needs no compiler: each case of `fixtures/cases/<name>.cases` (recorded for the
//!   default release: a file whose `# recorded-for:` line leaves it out is judged by
//!   tests/releases.rs only) is parsed once,
//!   the engine answers it, and the judge (`cutecheck::judge::Judge`, the same one `cargo xtask
//!   conformance` uses) compares the answer with the recorded CuTe outcome, triages a disagreement
//!   and looks it up in fixtures/known-discrepancies.toml (exact entries and families) for CUTLASS
//!   4.2 (`cutecheck::run::judge_recorded`). Every case the judge fails is listed as `file:line`
//!   with both outputs and the verdict. The snapshots are only read here, never written (no insta,
//!   no pending `.snap.new` of the engine's lines): they hold what real CuTe printed. A missing
//!   snapshot, a case without its recorded result and recorded results without their case fail
//!   too, named `file:line`. `suites_hold_more_than_1000_cases` keeps the suites from emptying.
//! - `cute::<name>` compiles the cases of the file against real CuTe 4.2 and fails, naming
//!   `file:line`, where CuTe now prints something other than the snapshot. The files selected in
//!   one run are recorded in one oracle run, exactly as `cargo xtask bless` records them. Every
//!   case is asked, but in the suites of [`SAMPLED`] (the kernel forms, whose tiled MMAs and
//!   copies took about half of CI's time to compile, and the TMA mainloops' forms) only the forms of one stratum of
//!   [`sampled`]: all of them are asked again by `cargo xtask bless --check` and by the nightly
//!   conformance workflow (`--live-fixed`), on every pinned release.
//!   `oracle::one_batch_survives_static_asserts_and_crashes` compiles oracle_batch.cases as one
//!   batch. These run when `CUTECHECK_CUTE` is set at build time (`cargo xtask test` provisions
//!   CuTe and sets it); otherwise they are reported as ignored, their kind saying why.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use cutecheck::case::Outcome;
use cutecheck::judge::Judge;
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::provision::DEFAULT_CUTLASS;
use cutecheck::run::judge_recorded;
use cutecheck::suite::{all_suites, record, snapshot_path, Suite};
use libtest_mimic::{Arguments, Failed, Trial};

/// The kind shown (`test [needs CuTe] cute::x ... ignored`) on the trials that need real CuTe when
/// it is absent, and why.
const NEEDS_CUTE: (&str, &str) =
    ("needs CuTe", "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)");

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    // A suite whose `# recorded-for:` line leaves the default release out (kernel_forms_tags_*: forms
    // CUTLASS 4.2 does not build) has no record here: tests/releases.rs judges it on its releases.
    let suites = match all_suites() {
        Ok(s) => s.into_iter().filter(|s| s.is_recorded_for(None)).collect::<Vec<_>>(),
        Err(e) => {
            let e = format!("{e:#}");
            trials.push(Trial::test("fixtures", move || Err(format!("fixtures/cases: {e}").into())));
            Vec::new()
        }
    };
    for s in &suites {
        let s = s.clone();
        trials.push(Trial::test(format!("suite::{}", s.name), move || engine_matches_recorded_cute(&s)));
    }
    let total: usize = suites.iter().map(|s| s.cases.len()).sum();
    trials.push(Trial::test("suites_hold_more_than_1000_cases", move || {
        if total > 1000 {
            Ok(())
        } else {
            Err(format!("only {total} cases in fixtures/cases/*.cases").into())
        }
    }));
    let sampled_suites: Vec<Suite> =
        suites.iter().filter(|s| SAMPLED.iter().any(|(n, _)| *n == s.name)).cloned().collect();
    trials
        .push(Trial::test("sampled_suites_ask_a_stratum_of_their_forms", move || sample_is_a_stratum(&sampled_suites)));
    let cute = cfg!(cutecheck_cute);
    if !cute && !args.list {
        eprintln!("fixed_suites: the trials marked [{}] are ignored ({})", NEEDS_CUTE.0, NEEDS_CUTE.1);
    }
    let needs_cute = |t: Trial| if cute { t } else { t.with_kind(NEEDS_CUTE.0).with_ignored_flag(true) };
    let recording = Arc::new(Recording::default());
    for s in &suites {
        let (s, recording) = (s.clone(), recording.clone());
        trials
            .push(needs_cute(Trial::test(cute_trial(&s), move || real_cute_still_prints_the_snapshot(&s, &recording))));
    }
    trials.push(needs_cute(Trial::test(
        "oracle::one_batch_survives_static_asserts_and_crashes",
        one_batch_survives_static_asserts_and_crashes,
    )));
    // The files whose `cute::` trial runs this time are recorded together, in one oracle run.
    let wanted = suites
        .iter()
        .filter(|s| trials.iter().any(|t| t.name() == cute_trial(s) && !args.is_filtered_out(t) && !args.is_ignored(t)))
        .cloned()
        .collect::<Vec<Suite>>();
    // The first of them to run records them all while the others wait: it runs first, beside the
    // engine's trials, and the others after those.
    if let Some(k) = wanted.first().and_then(|s| trials.iter().position(|t| t.name() == cute_trial(s))) {
        let first = trials.remove(k);
        trials.insert(0, first);
    }
    recording.wanted.set(wanted).expect("set once");
    libtest_mimic::run(&args, trials).exit();
}

/// The suites whose `cute::` trial asks real CuTe about one stratum of the forms (what each
/// stratum holds: [`sampled`]), and how many strata: a sixth of the kernel forms, a sixteenth of the
/// TMA mainloops' forms and of the second problem's (each mostly a `make_tma_copy` instantiation, the
/// slowest C++ the oracle compiles).
const SAMPLED: &[(&str, u8)] = &[("kernel_forms", 6), ("kernel_forms_tma", 16), ("kernel_forms_residue", 16)];

/// Whether the `cute::` trial asks real CuTe about `case` of `suite`: always, but in a suite of
/// [`SAMPLED`] with `k` strata only where the first byte of the sha256 of the C++ body the oracle
/// compiles for the case is 0 modulo `k`. The two spellings of a kernel form compile to one body
/// (but for 21 of the 1,118 forms), so a form is mostly asked in both or in neither; a case the
/// oracle cannot generate (CuTe is never asked about it) is kept, so its recorded refusal is
/// still checked.
fn sampled(suite: &str, expr: &str) -> bool {
    use sha2::{Digest, Sha256};
    let Some(&(_, k)) = SAMPLED.iter().find(|(n, _)| *n == suite) else { return true };
    match cutecheck::expr::parse::parse(expr).map(|e| cutecheck::oracle::codegen::case_body(&e)) {
        Ok(Ok(body)) => Sha256::digest(body.as_bytes())[0] % k == 0,
        _ => true,
    }
}

/// The sample of each suite of [`SAMPLED`] is near its share of the distinct bodies the oracle
/// compiles (not empty, not all).
fn sample_is_a_stratum(suites: &[Suite]) -> Result<(), Failed> {
    if suites.len() != SAMPLED.len() {
        return Err(format!("SAMPLED names {} suites, {} found", SAMPLED.len(), suites.len()).into());
    }
    for s in suites {
        let k = SAMPLED.iter().find(|(n, _)| *n == s.name).map_or(1, |&(_, k)| usize::from(k));
        // Each distinct body the oracle would compile, and whether it is asked.
        let mut forms: BTreeMap<String, bool> = BTreeMap::new();
        for c in &s.cases {
            let e = cutecheck::expr::parse::parse(&c.expr).map_err(|e| format!("{}: {e}", s.locate(c)))?;
            let body = cutecheck::oracle::codegen::case_body(&e).unwrap_or_else(|e| format!("unsupported {e}"));
            forms.insert(body, sampled(&s.name, &c.expr));
        }
        let asked = forms.values().filter(|&&a| a).count();
        let share = asked as f64 / forms.len() as f64;
        if !(0.6 / k as f64..=1.5 / k as f64).contains(&share) {
            return Err(format!("{}: {asked} of {} compiled forms asked (1/{k} wanted)", s.name, forms.len()).into());
        }
        eprintln!("{}: real CuTe asked about {asked} of {} compiled forms in CI", s.name, forms.len());
    }
    Ok(())
}

fn cute_trial(s: &Suite) -> String {
    format!("cute::{}", s.name)
}

/// fixtures/known-discrepancies.toml, loaded once for all trials.
fn known() -> Result<&'static KnownDiscrepancies, Failed> {
    static KNOWN: OnceLock<Result<KnownDiscrepancies, String>> = OnceLock::new();
    KNOWN
        .get_or_init(|| KnownDiscrepancies::load_default().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| format!("fixtures/known-discrepancies.toml: {e}").into())
}

fn engine_matches_recorded_cute(s: &Suite) -> Result<(), Failed> {
    // A case recorded as one the oracle could not write in C++ must still be one: once the oracle
    // learns it, the record is stale (cpp_spelling.cases:50-52 were, after ComposedLayout<...>{}
    // became readable) and only a bless makes it CuTe's answer.
    let recorded = s.recorded(None).map_err(|p| p.join("\n"))?;
    let stale: Vec<String> = s
        .cases
        .iter()
        .zip(&recorded)
        .filter(|(c, was)| {
            matches!(Outcome::from_lines(was), Outcome::Unsupported(_))
                && cutecheck::expr::parse::parse(&c.expr)
                    .is_ok_and(|e| cutecheck::oracle::codegen::case_body(&e).is_ok())
        })
        .map(|(c, was)| format!("{}: {}\n    recorded: {}", s.locate(c), c.expr, was.join(" | ")))
        .collect();
    if !stale.is_empty() {
        return Err(format!(
            "{} case(s) recorded as unsupported by the oracle, which now writes their C++ (`cargo xtask bless --suite {}`):\n{}",
            stale.len(),
            s.name,
            stale.join("\n")
        )
        .into());
    }
    let judge = Judge::new(known()?, DEFAULT_CUTLASS);
    let j = judge_recorded(s, &judge, None);
    if j.passed() {
        return Ok(());
    }
    let snap = snapshot_path(&s.name, None);
    let snap = snap.strip_prefix(cutecheck::oracle::repo_root()).unwrap_or(&snap);
    Err(format!(
        "{} problem(s) judging the engine against real CuTe {DEFAULT_CUTLASS} as recorded in {} ({} cases \
         judged):\n{}",
        j.problems.len(),
        snap.display(),
        j.judged,
        j.problems.join("\n")
    )
    .into())
}

/// What real CuTe prints now for the suites whose `cute::` trial runs, recorded on first use.
#[derive(Default)]
struct Recording {
    /// Those suites (set before any trial runs).
    wanted: OnceLock<Vec<Suite>>,
    /// Per suite name, the result lines of each case, or why real CuTe could not be asked.
    results: OnceLock<Result<Recorded, String>>,
}

/// Per suite name, the result lines of each case asked, by its line in the case file.
type Recorded = BTreeMap<String, BTreeMap<usize, Vec<String>>>;

impl Recording {
    fn of(&self, s: &Suite) -> Result<&BTreeMap<usize, Vec<String>>, Failed> {
        let results = self.results.get_or_init(|| {
            use cutecheck::oracle::{Oracle, OracleOptions};
            let suites = self.wanted.get().expect("set before the trials run");
            let version = option_env!("CUTECHECK_CUTE").unwrap_or(DEFAULT_CUTLASS);
            let opts = OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() };
            let alone = cutecheck::suite::alone_oracle(&opts).map_err(|e| format!("real CuTe: {e:#}"))?;
            let oracle =
                Oracle::new(opts).map_err(|e| format!("CUTECHECK_CUTE is set but real CuTe is not usable: {e:#}"))?;
            // Recorded exactly as `cargo xtask bless` records (a batch's compile errors asked again
            // alone), the cases of a sampled suite outside its stratum left out.
            let asked: Vec<Suite> = suites
                .iter()
                .map(|s| Suite {
                    cases: s.cases.iter().filter(|c| sampled(&s.name, &c.expr)).cloned().collect(),
                    ..s.clone()
                })
                .collect();
            let results = record(&oracle, &alone, &asked);
            Ok(asked
                .into_iter()
                .zip(results)
                .map(|(s, r)| (s.name, s.cases.into_iter().map(|c| c.line).zip(r).collect()))
                .collect())
        });
        let results = results.as_ref().map_err(|e| Failed::from(e.as_str()))?;
        results.get(&s.name).ok_or_else(|| format!("{} was not recorded", s.name).into())
    }
}

fn real_cute_still_prints_the_snapshot(s: &Suite, recording: &Recording) -> Result<(), Failed> {
    let recorded = s.recorded(None).map_err(|p| p.join("\n"))?;
    let now = recording.of(s)?;
    // The recorded result of each case asked (all of them, but in a sampled suite).
    let asked: Vec<_> =
        s.cases.iter().zip(&recorded).filter_map(|(c, was)| Some((c, was, now.get(&c.line)?))).collect();
    if asked.is_empty() {
        return Err(format!("no case of {} was asked of real CuTe", s.locate_file()).into());
    }
    // A refusal whose message changed is asked again alone before it counts: in a batch g++
    // reports a failing instantiation once per translation unit, so another case that fails in the
    // same instantiation can get a secondary message, even a bare static assertion (seen in the
    // fresh-clone CI of 03e0579: probes_refused.cases:240 `Index out of range` alone, `static
    // assertion failed` in a batch). Only the answer real CuTe gives the case alone is compared.
    let refused = |lines: &[String]| lines.first().is_some_and(|l| l.starts_with("rejected:"));
    let retry: Vec<String> = asked
        .iter()
        .filter(|(_, was, now)| was != now && refused(was) && refused(now))
        .map(|(c, _, _)| c.expr.clone())
        .collect();
    let alone: BTreeMap<String, Vec<String>> = if retry.is_empty() {
        BTreeMap::new()
    } else {
        use cutecheck::oracle::OracleOptions;
        let version = option_env!("CUTECHECK_CUTE").unwrap_or(DEFAULT_CUTLASS);
        let opts = OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() };
        let oracle = cutecheck::suite::alone_oracle(&opts).map_err(|e| format!("real CuTe: {e:#}"))?;
        retry.iter().cloned().zip(oracle.run(&retry).into_iter().map(|o| o.lines())).collect()
    };
    let asked: Vec<_> = asked.into_iter().map(|(c, was, now)| (c, was, alone.get(&c.expr).unwrap_or(now))).collect();
    let changed: Vec<String> = asked
        .iter()
        .filter(|(_, was, now)| was != now)
        .map(|(c, was, now)| {
            format!("{}: {}\n    recorded: {}\n    CuTe now: {}", s.locate(c), c.expr, was.join(" | "), now.join(" | "))
        })
        .collect();
    if changed.is_empty() {
        if asked.len() < s.cases.len() {
            eprintln!(
                "cute::{}: real CuTe asked about {} of {} cases (the rest: `cargo xtask bless --check --suite {}`)",
                s.name,
                asked.len(),
                s.cases.len(),
                s.name
            );
        }
        Ok(())
    } else {
        Err(format!(
            "real CuTe now prints something else for {} case(s) (`cargo xtask bless --check`):\n{}",
            changed.len(),
            changed.join("\n")
        )
        .into())
    }
}

fn one_batch_survives_static_asserts_and_crashes() -> Result<(), Failed> {
    use cutecheck::oracle::{Oracle, OracleOptions};
    // fixtures/cases/oracle_batch.cases mixes prints, static_asserts and a run-time crash; compiled
    // as one batch (no results cache), each case still gets its own recorded outcome.
    let s = all_suites()
        .map_err(|e| format!("fixtures/cases: {e:#}"))?
        .into_iter()
        .find(|s| s.name == "oracle_batch")
        .ok_or("no fixtures/cases/oracle_batch.cases")?;
    let recorded = s.recorded(None).map_err(|p| p.join("\n"))?;
    let kinds: std::collections::BTreeSet<&str> = recorded.iter().map(|l| Outcome::from_lines(l).kind()).collect();
    if kinds.len() < 3 {
        return Err(format!("the batch should mix prints, refusals and crashes: {kinds:?}").into());
    }
    let oracle = Oracle::new(OracleOptions { cache: false, ..OracleOptions::default() })
        .map_err(|e| format!("real CuTe: {e:#}"))?;
    let exprs: Vec<String> = s.cases.iter().map(|c| c.expr.clone()).collect();
    let differ: Vec<String> = s
        .cases
        .iter()
        .zip(&recorded)
        .zip(oracle.run(&exprs))
        .filter(|((_, was), now)| now.lines() != **was)
        .map(|((c, was), now)| {
            format!(
                "{}: {}\n    recorded: {}\n    in one batch: {}",
                s.locate(c),
                c.expr,
                was.join(" | "),
                now.lines().join(" | ")
            )
        })
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(format!("compiled as one batch, {} case(s) print something else:\n{}", differ.len(), differ.join("\n"))
            .into())
    }
}
