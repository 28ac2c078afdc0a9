//! The conformance judge: an engine answer against CuTe C++'s, compared ([`super::compare`]),
//! classified ([`super::classify`]) and looked up in the known discrepancies of one CUTLASS
//! version, giving one [`Judgement`] with its [`Status`].

use std::fmt;

use serde::Serialize;

use super::compare::{compare, Agreement};
use super::verdict::{blame_name, classify, Answer, Verdict, ENGINE_CUTE};
use crate::case::{engine, Case, EngineAnswer, Origin, Outcome};
use crate::engine::release::{self, Release};
use crate::expr::Value;
use crate::known::{Discrepancy, KnownDiscrepancies};

/// The final word on one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "detail", rename_all = "snake_case")]
pub enum Status {
    /// Identical output.
    Agree,
    /// Both refuse.
    BothRefuse,
    /// CuTe's side has no result (unsupported): neither agreement nor failure.
    Unchecked(String),
    /// The oracle failed on the case: a failure of the run.
    OracleError(String),
    /// A disagreement listed in fixtures/known-discrepancies.toml (the entry's reproducer).
    Explained(String),
    /// A disagreement nobody has explained: a failure of the run.
    New,
    /// A listed discrepancy that no longer reproduces as listed: a failure of the run.
    Stale(String),
    /// On a release the engine does not model: a disagreement listed for the nearest older
    /// modelled release, still present (`known since 4.2.0.0, still present`).
    KnownEarlier(String),
    /// On a release the engine does not model: a discrepancy listed for the nearest older modelled
    /// release that no longer reproduces (`fixed in this release?`). News, not a failure.
    FixedHere(String),
    /// CuTe's own computation overflows ([`Outcome::Overflow`]: UBSan or the compiler said so):
    /// CuTe has no defined answer. Neither side is blamed, never new, never explained by a known
    /// discrepancy; the detail says where CuTe overflowed and whether the engine refused for
    /// overflow too (`...; the engine refuses for overflow too`).
    CuteOverflows(String),
    /// On a release newer than every modelled one: a disagreement no known entry explains whose
    /// triage does not blame the engine (the engine's answer meets CuTe's definition of the
    /// operation): CuTe changed after the newest model (the detail). Not an engine fault and not
    /// a pass: the run ends with its own exit status ([`CHANGED_IN_RELEASE_EXIT`]).
    ChangedInRelease(String),
}

/// The exit status of a conformance run with no failure but some [`Status::ChangedInRelease`]
/// (1 is a failure, 130 an interrupted run).
pub const CHANGED_IN_RELEASE_EXIT: i32 = 4;

impl Status {
    /// Whether a case with this status fails a run (a new disagreement, a stale entry, an oracle
    /// failure).
    pub fn fails(&self) -> bool {
        matches!(self, Status::New | Status::Stale(_) | Status::OracleError(_))
    }
}

/// One case judged: how the outputs compare, the triage of a disagreement, and the final status.
#[derive(Clone, Debug, Serialize)]
pub struct Judgement {
    pub agreement: Agreement,
    /// For disagreements: the triage verdict with the definition checks.
    pub triage: Option<Verdict>,
    pub status: Status,
}

impl Judgement {
    /// Whether this case fails a run (a new disagreement, a stale entry, an oracle failure).
    pub fn fails(&self) -> bool {
        self.status.fails()
    }

    /// One line for people: `agree`, `agree (both refuse)`, `unchecked: ...`, or
    /// `DISAGREE class 3 (one rejects) blame: cute` and whether it is known.
    pub fn summary(&self) -> String {
        match &self.status {
            Status::Agree => "agree".into(),
            Status::BothRefuse => "agree (both refuse)".into(),
            Status::Unchecked(why) => format!("unchecked: {why}"),
            Status::OracleError(why) => format!("ORACLE ERROR: {why}"),
            Status::Stale(why) => format!("STALE known discrepancy: {why}"),
            Status::FixedHere(since) => format!("fixed in this release? (known since {since}, no longer reproduces)"),
            Status::CuteOverflows(at) => format!("CuTe overflows (neither side blamed): {at}"),
            Status::ChangedInRelease(model) => format!(
                "CHANGED IN RELEASE: CuTe differs from the engine's model of {model} (newer than every modelled release)"
            ),
            Status::Explained(_) | Status::New | Status::KnownEarlier(_) => {
                let mut s = match &self.triage {
                    Some(t) => format!("DISAGREE {}", disagreement_line(t)),
                    None => "DISAGREE (untriaged)".into(),
                };
                match &self.status {
                    Status::Explained(e) => s.push_str(&format!(" (known: {e})")),
                    Status::KnownEarlier(since) => s.push_str(&format!(" (known since {since}, still present)")),
                    _ => {}
                }
                s
            }
        }
    }
}

/// `class 3 (one rejects) blame: cute` for a triage verdict.
pub fn disagreement_line(t: &Verdict) -> String {
    let what = match t {
        Verdict::Agree { .. } | Verdict::BothRefuse => "both reject, different reasons",
        Verdict::SameFunction => "same function, different representation",
        Verdict::DifferentFunction { .. } => "different functions",
        Verdict::OneRejects { .. } => "one rejects",
        Verdict::OracleCrashed { .. } => "CuTe crashes",
        Verdict::ReferenceCrashed => "the engine crashes",
        Verdict::Staticness { .. }
        | Verdict::DifferentUnknown { .. }
        | Verdict::Unchecked { .. }
        | Verdict::CuteOverflows { .. } => t.class(),
    };
    let class = if t.agrees() { 3 } else { t.number() };
    format!("class {class} ({what}) blame: {}", blame_name(t.blame(), ENGINE_CUTE))
}

/// The judge: compares, triages, and looks disagreements up in the known discrepancies of one
/// CUTLASS version. The only place these steps are put together.
pub struct Judge<'k> {
    pub known: &'k KnownDiscrepancies,
    /// The CUTLASS version the known discrepancies are matched against (`4.2.0.0`, or `dir:PATH`
    /// for a checkout).
    pub version: String,
    /// The release the engine models for this run (`engine::release`).
    pub release: Release,
    /// When the version is not modelled exactly: the modelled release whose known discrepancies
    /// carry over (reported as known earlier / fixed here, never as stale).
    pub carried: Option<String>,
    /// The version is newer than every modelled release: a disagreement that does not blame the
    /// engine is [`Status::ChangedInRelease`], not [`Status::New`].
    pub newer: bool,
    /// Engine answers shared with the judges of other releases ([`Judge::sharing`]).
    pub memo: Option<&'static EngineMemo>,
}

/// The engine's answers to slow cases, kept with what each evaluation asked of the modelled
/// release (`engine::release::reading`): a judge of another release reuses an answer whose reads
/// that release answers alike, which is the answer the engine would give it (the engine is
/// deterministic given those reads). tests/releases.rs judges every recorded release with one.
#[derive(Default)]
pub struct EngineMemo {
    answers: std::sync::Mutex<std::collections::HashMap<(String, bool), Vec<Remembered>>>,
}

/// An answer and what computing it read of the release.
type Remembered = (release::Reads, EngineAnswer);

impl EngineMemo {
    /// Answers that took less than this to compute are not kept (computing is as cheap as keeping).
    const KEEP_OVER: std::time::Duration = std::time::Duration::from_millis(2);

    fn answer(&self, r: Release, case: &Case, table: bool) -> EngineAnswer {
        let key = (case.text.clone(), table);
        let lock = || self.answers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(a) = lock().get(&key).and_then(|v| v.iter().find(|(reads, _)| reads.hold_for(r))) {
            return a.1.clone();
        }
        let t = std::time::Instant::now();
        let (a, reads) = release::with_release(r, || release::reading(|| engine(case, table)));
        if t.elapsed() > Self::KEEP_OVER {
            lock().entry(key).or_default().push((reads, a.clone()));
        }
        a
    }
}

impl<'k> Judge<'k> {
    /// A judge for a CUTLASS version: a modelled wheel version is modelled exactly; any other
    /// version is modelled by the nearest older modelled release, whose known discrepancies carry
    /// over; a version that does not parse (a checkout without version.h) by the default release.
    pub fn new(known: &'k KnownDiscrepancies, version: impl Into<String>) -> Judge<'k> {
        let version = version.into();
        let release = version.parse::<Release>().ok();
        Judge::for_release(known, version, release)
    }

    /// A judge for `version` whose CuTe is `release` (read from a checkout's version.h).
    pub fn for_release(
        known: &'k KnownDiscrepancies,
        version: impl Into<String>,
        release: Option<Release>,
    ) -> Judge<'k> {
        let model = release.and_then(Release::model).unwrap_or(release::DEFAULT);
        let exact = release.is_some_and(Release::is_modelled);
        let mut version = version.into();
        // A checkout (`dir:...`) of a release the engine models exactly is judged as that release:
        // its own known discrepancies apply.
        if exact && version.parse::<Release>().ok() != release {
            version = model.to_string();
        }
        let newest = release::MODELLED.last().copied();
        let newer = release.zip(newest).is_some_and(|(r, n)| r > n);
        Judge { known, version, release: model, carried: (!exact).then(|| model.to_string()), newer, memo: None }
    }

    /// This judge, sharing the engine's answers with the other judges of `memo`.
    pub fn sharing(self, memo: &'static EngineMemo) -> Judge<'k> {
        Judge { memo: Some(memo), ..self }
    }

    /// The engine's answer to a case under this judge's release.
    pub fn engine(&self, case: &Case, table: bool) -> EngineAnswer {
        match self.memo {
            Some(m) => m.answer(self.release, case, table),
            None => release::with_release(self.release, || engine(case, table)),
        }
    }

    /// Judge one case from both sides' answers (under this judge's release).
    pub fn judge(&self, case: &Case, origin: Origin, engine: &EngineAnswer, cute: &Outcome) -> Judgement {
        release::with_release(self.release, || self.judge_here(case, origin, engine, cute))
    }

    fn judge_here(&self, case: &Case, origin: Origin, engine: &EngineAnswer, cute: &Outcome) -> Judgement {
        let agreement = compare(&engine.outcome, cute);
        let differ = matches!(agreement, Agreement::Differ | Agreement::CuteOverflows(_));
        let triage = differ.then(|| triage(case, engine, cute));
        let status = match (&agreement, cute) {
            (_, Outcome::Error(why)) => Status::OracleError(why.clone()),
            // A listed reproducer must disagree as listed: one that rests on CuTe's overflow
            // belongs to the overflow class, not to the list.
            (Agreement::CuteOverflows(at), _) if origin == Origin::Known => Status::Stale(format!(
                "listed in fixtures/known-discrepancies.toml, but CuTe's own computation overflows ({at}): \
                 the overflow class covers it, remove the entry"
            )),
            (Agreement::CuteOverflows(at), _) => {
                let engine_too = matches!(engine.refusal, Some(crate::engine::Error::Overflow { .. }));
                let engine = if engine_too {
                    "the engine refuses for overflow too".to_string()
                } else {
                    format!("the engine: {}", engine.outcome.lines().join(" | "))
                };
                Status::CuteOverflows(format!("{at}; {engine}"))
            }
            (Agreement::Same | Agreement::BothRefuse, _) if origin == Origin::Known => match &self.carried {
                Some(since) if self.known.lookup(&case.expr, &self.version).is_none() => {
                    Status::FixedHere(since.clone())
                }
                _ => Status::Stale(format!("listed at {} but no longer reproduces", case.location)),
            },
            (Agreement::Same, _) => Status::Agree,
            (Agreement::BothRefuse, _) => Status::BothRefuse,
            (Agreement::Unchecked(why), _) => Status::Unchecked(why.clone()),
            (Agreement::Differ, _) => {
                let t = triage.as_ref().expect("a disagreement is triaged");
                match self.explain(case, origin, t) {
                    // A carried-over entry whose case now blames the engine (CuTe's result meets
                    // the definition the earlier release broke) is news: fixed in this release?
                    Ok(d) if !d.applies_to(&self.version) && t.blames_reference() => Status::New,
                    Ok(d) if !d.applies_to(&self.version) => {
                        Status::KnownEarlier(self.carried.clone().unwrap_or_default())
                    }
                    Ok(d) => Status::Explained(d.expr.clone()),
                    Err(Some(why)) => Status::Stale(why),
                    Err(None) if self.newer && !t.blames_reference() => {
                        Status::ChangedInRelease(self.release.to_string())
                    }
                    Err(None) => Status::New,
                }
            }
        };
        Judgement { agreement, triage, status }
    }

    /// The entry that explains a disagreement: an exact entry (same expression, same class), or a
    /// family whose operand predicate holds (never for an admissible random case). `Err(Some)`:
    /// the case is a listed reproducer that now disagrees differently.
    fn explain(&self, case: &Case, origin: Origin, t: &Verdict) -> Result<&'k Discrepancy, Option<String>> {
        let exact = self.known.lookup(&case.expr, &self.version);
        let carried = || self.known.lookup(&case.expr, self.carried.as_deref()?);
        if let Some(d) = exact.or_else(carried) {
            return if d.class == t.class() {
                Ok(d)
            } else {
                Err(Some(format!("listed as {} but now {}", d.class, t.class())))
            };
        }
        if origin == Origin::Known {
            return Err(Some("listed, but not for this version".into()));
        }
        if matches!(origin, Origin::Random { admissible: true }) {
            return Err(None);
        }
        let sig = t.signature(ENGINE_CUTE);
        self.known
            .lookup_family(case, &sig, &self.version)
            .or_else(|| self.known.lookup_family(case, &sig, self.carried.as_deref()?))
            .ok_or(None)
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

/// Classify an engine~CuTe disagreement with the definition check of the case's operation (only
/// CuTe's own conditions blame a side: `definition::check_cute`).
pub fn triage(case: &Case, engine: &EngineAnswer, cute: &Outcome) -> Verdict {
    let check = |v: &Value| crate::definition::check_cute(&case.expr, v);
    classify(Answer::engine(engine), Answer::cute(cute), &check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(s: &str) -> Case {
        Case::parse(s, "test").unwrap()
    }

    #[test]
    fn the_judge_names_class_and_blame() {
        // The chapter's example: CuTe accepts an undefined composition and prints a wrong layout.
        let known = KnownDiscrepancies::default();
        let judge = Judge::new(&known, "4.2.0.0");
        let c = case("composition((_6,_2):(_8,_2),_4:_4)");
        let e = engine(&c, false);
        let j = judge.judge(&c, Origin::Adhoc, &e, &Outcome::Printed("(_2,_2):(_32,_2)".into()));
        assert_eq!(j.status, Status::New);
        assert!(j.fails());
        assert_eq!(j.summary(), "DISAGREE class 3 (one rejects) blame: cute");
        // The same CuTe output as the engine's: agreement; as a listed reproducer: stale.
        let j = judge.judge(&c, Origin::Known, &e, &e.outcome);
        assert!(matches!(j.status, Status::Stale(_)), "{j:?}");
        // An oracle failure fails the run; an unsupported case does not.
        assert!(judge.judge(&c, Origin::Fixed, &e, &Outcome::Error("timeout".into())).fails());
        assert!(!judge.judge(&c, Origin::Fixed, &e, &Outcome::Unsupported("x".into())).fails());
    }

    #[test]
    fn cute_overflow_is_its_own_class_and_blames_no_side() {
        // The seed-2027 case (issue 30): the engine refuses for overflow; CuTe built with UBSan
        // stops at layout.hpp:1108. Without UBSan CuTe printed `_1:_0` and the engine was blamed.
        let known = KnownDiscrepancies::default();
        let judge = Judge::new(&known, "4.2.0.0");
        let c = case("max_common_layout((1,(1,21),4096,3):(258048,(258048,12288),3,1),(((_21,_2),_8),(_32,_4)):(((_2048,_1),_256),(_8,_2)))");
        let e = engine(&c, false);
        assert!(matches!(e.refusal, Some(crate::engine::Error::Overflow { .. })), "{e:?}");
        let ub = Outcome::Overflow(
            "cute/layout.hpp:1108:80: runtime error: signed integer overflow: 258048 * 10752 cannot be represented in type 'int'".into(),
        );
        for origin in
            [Origin::Random { admissible: true }, Origin::Random { admissible: false }, Origin::Fixed, Origin::Adhoc]
        {
            let j = judge.judge(&c, origin, &e, &ub);
            assert!(
                matches!(&j.status, Status::CuteOverflows(d) if d.ends_with("the engine refuses for overflow too")),
                "{j:?}"
            );
            assert!(!j.fails());
            let t = j.triage.as_ref().unwrap();
            assert_eq!(
                (t.class(), t.fault(), t.blames_reference()),
                ("cute-overflows", super::super::Fault::CuteOverflows, false)
            );
        }
        // The engine answering where CuTe overflows: still neither side blamed, the detail says so.
        let c = case("size((_4,_8))");
        let j = judge.judge(&c, Origin::Random { admissible: true }, &engine(&c, false), &ub);
        assert!(matches!(&j.status, Status::CuteOverflows(d) if d.ends_with("the engine: _32")), "{j:?}");
        // Without UBSan's word, what CuTe printed is judged as before (blame: engine).
        let c = case("max_common_layout((1,(1,21),4096,3):(258048,(258048,12288),3,1),(((_21,_2),_8),(_32,_4)):(((_2048,_1),_256),(_8,_2)))");
        let j = judge.judge(&c, Origin::Random { admissible: true }, &e, &Outcome::Printed("_1:_0".into()));
        assert_eq!(j.status, Status::New);
        // A listed reproducer that rests on overflow is stale: the class covers it.
        assert!(matches!(judge.judge(&c, Origin::Known, &e, &ub).status, Status::Stale(_)));
    }

    #[test]
    fn an_unmodelled_release_carries_the_known_discrepancies_over() {
        let known = KnownDiscrepancies::parse(
            "[[discrepancy]]\nexpr = \"composition((_6,_2):(_8,_2),_4:_4)\"\nversions = [\"4.2.0.0\"]\nclass = \"one-rejects\"\nexplanation = \"x\"\n",
        )
        .unwrap();
        let exact = Judge::new(&known, "4.2.0.0");
        assert_eq!((exact.release, exact.carried.clone()), (release::DEFAULT, None));
        // A checkout of 4.3 is modelled by 4.2, whose entries carry over.
        let newer = Judge::for_release(&known, "dir:/x", Some("4.3.0".parse().unwrap()));
        assert_eq!((newer.release, newer.carried.as_deref()), (release::DEFAULT, Some("4.2.0.0")));
        let c = case("composition((_6,_2):(_8,_2),_4:_4)");
        let e = newer.engine(&c, false);
        let wrong = Outcome::Printed("(_2,_2):(_32,_2)".into());
        let j = newer.judge(&c, Origin::Known, &e, &wrong);
        assert_eq!(j.status, Status::KnownEarlier("4.2.0.0".into()));
        assert!(!j.fails());
        assert!(j.summary().ends_with("(known since 4.2.0.0, still present)"), "{}", j.summary());
        // The same entry no longer reproducing: news on the new release, a failure on 4.2.
        let j = newer.judge(&c, Origin::Known, &e, &e.outcome);
        assert_eq!(j.status, Status::FixedHere("4.2.0.0".into()));
        assert!(!j.fails());
        assert!(matches!(exact.judge(&c, Origin::Known, &e, &e.outcome).status, Status::Stale(_)));
        // A checkout of a modelled release is judged as that release, with its own entries.
        let dir = Judge::for_release(&known, "dir:/x", Some(release::DEFAULT));
        assert_eq!((dir.version.as_str(), dir.carried.clone()), ("4.2.0.0", None));
        assert!(matches!(dir.judge(&c, Origin::Known, &e, &wrong).status, Status::Explained(_)));
        // Older than every model: the oldest model, entries of 3.3.0 carry over.
        let old = Judge::new(&known, "3.2.0.0");
        assert_eq!(old.release.to_string(), "3.3.0.0");
        assert_eq!(old.carried.as_deref(), Some("3.3.0.0"));
    }

    #[test]
    fn a_release_newer_than_every_model_reads_as_changed_not_as_an_engine_fault() {
        let known = KnownDiscrepancies::default();
        let newest = *release::MODELLED.last().unwrap();
        let next = Release::new(99, 0, 0, 0);
        let newer = Judge::for_release(&known, "dir:/x", Some(next));
        assert!(newer.newer);
        assert_eq!(newer.release, newest);
        // CuTe's answer breaks its own definition, the engine's meets it: CuTe changed.
        let c = case("composition((_6,_2):(_8,_2),_4:_4)");
        let e = newer.engine(&c, false);
        let changed = Outcome::Printed("(_2,_2):(_32,_2)".into());
        for origin in [Origin::Random { admissible: true }, Origin::Fixed, Origin::Adhoc] {
            let j = newer.judge(&c, origin, &e, &changed);
            assert_eq!(j.status, Status::ChangedInRelease(newest.to_string()), "{origin:?}");
            assert!(!j.fails());
            assert!(j.summary().starts_with("CHANGED IN RELEASE"), "{}", j.summary());
        }
        // The engine blamed (its answer breaks the definition CuTe's meets): an engine fault, NEW.
        let m = case("max_common_layout((1,(1,21),4096,3):(258048,(258048,12288),3,1),(((_21,_2),_8),(_32,_4)):(((_2048,_1),_256),(_8,_2)))");
        let j = newer.judge(
            &m,
            Origin::Random { admissible: true },
            &newer.engine(&m, false),
            &Outcome::Printed("_1:_0".into()),
        );
        assert_eq!(j.status, Status::New);
        // The same disagreement on a release the models cover (a modelled one, or one between
        // models): NEW, a failure.
        for j in [Judge::new(&known, "4.2.0.0"), Judge::for_release(&known, "dir:/y", Some("4.3.0".parse().unwrap()))] {
            assert!(!j.newer);
            let v = j.judge(&c, Origin::Random { admissible: true }, &j.engine(&c, false), &changed);
            assert_eq!(v.status, Status::New, "{}", j.version);
        }
    }
}
