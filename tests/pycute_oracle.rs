//! The pycute oracle (`cutecheck::oracle::pycute`) against the real pycute of the nvidia-cutlass
//! wheel: its answers carry pycute's structure (a layout's values, a number, an exception) and
//! agree with the engine as functions where both answer; a case over the time bound is that
//! oracle's timeout and the run goes on; the pool answers in input order.
//!
//! These tests need the provisioned wheel (it ships pycute): `cargo xtask test` provisions CUTLASS
//! 4.2 and sets `CUTECHECK_CUTE` at build time (build.rs turns it into `cfg(cutecheck_cute)`);
//! otherwise they are reported as ignored, with the reason. Run by hand (`-- --ignored`) they
//! find the wheel in the provisioned cache (`$CUTECHECK_DIR`), as `cargo xtask test` would.

use std::time::Duration;

use cutecheck::case::{Case, Oracle as _, Outcome};
use cutecheck::expr::{eval_str, Value};
use cutecheck::oracle::provision::{Provisioner, DEFAULT_CUTLASS};
use cutecheck::oracle::pycute::{timeout_outcome, PyValue, Pycute, PycuteOptions};

/// The pycute of the provisioned wheel (the one the CuTe headers of the tests come from).
fn pycute(opts: PycuteOptions) -> Pycute {
    let version = option_env!("CUTECHECK_CUTE").unwrap_or(DEFAULT_CUTLASS);
    let headers = Provisioner::new()
        .and_then(|p| p.cutlass(version))
        .unwrap_or_else(|e| panic!("the nvidia-cutlass {version} wheel is not provisioned: {e:#}"));
    Pycute::next_to(&headers.include_dir, opts)
        .unwrap_or_else(|e| panic!("the nvidia-cutlass {version} wheel has no usable pycute: {e:#}"))
}

fn cases(texts: &[&str]) -> Vec<Case> {
    texts.iter().enumerate().map(|(k, t)| Case::parse(t, format!("tests/pycute_oracle.rs case {k}")).unwrap()).collect()
}

/// A real case pycute answers slowly: a layout of 1,032,192 coordinates (random #212 of seed 2027),
/// whose values the worker lists (about 0.2 to 2 s; the walk is bounded by limits::WALK).
const SLOW: &str = "filter((_256,(_21,_8),_2,(_6,_2)):(_10,(_10,_6),_9,(_14,_-8)))";

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs pycute: run `cargo xtask test` (provisions the nvidia-cutlass 4.2 wheel, which ships pycute, and sets CUTECHECK_CUTE)"
)]
fn answers_carry_pycute_structure_and_agree_with_the_engine_as_functions() {
    let o = pycute(PycuteOptions::default());
    let texts = [
        "composition((_6,_2):(_2,_12),(_3,_4):(_1,_3))",
        "logical_divide(_24:_1,_4:_2)",
        "complement(_4:_2,_24)",
        "coalesce((_2,(_1,_6)):(_1,(_6,_2)))",
        "right_inverse((_4,_2):(_2,_1))",
        "zipped_product((_2,_3):(_3,_1),_4:_1)",
        "logical_divide((_8,_12):(_12,_1),(_2,_3))",
        SLOW,
        "size((_4,(_2,_3)):(_1,(_4,_8)))",
        "cosize((_4,_2):(_2,_1))",
    ];
    let cs = cases(&texts);
    let refs: Vec<&Case> = cs.iter().collect();
    let answers = o.answers(&refs);
    assert_eq!(answers.len(), texts.len());
    for (t, a) in texts.iter().zip(&answers) {
        let Outcome::Printed(text) = &a.outcome else { panic!("{t}: pycute did not answer: {a:?}") };
        assert!(a.code.as_deref().is_some_and(|c| !c.is_empty()), "{t}: no Python recorded");
        assert!(a.seconds.is_some() && !a.timed_out, "{t}: {a:?}");
        match eval_str(t).unwrap_or_else(|e| panic!("{t}: the engine refuses: {e}")) {
            Value::Layout(l) => {
                let engine = l.values().unwrap();
                let Some(PyValue::Layout { size, values: Some(values) }) = &a.value else {
                    panic!("{t}: pycute printed {text} but gave no layout values: {a:?}")
                };
                assert_eq!(*size, Some(engine.len() as i64), "{t}: size");
                assert_eq!(values, &engine, "{t}: pycute {text} and the engine {l} differ as functions");
                // pycute prints without static-ness: its text has no `_`.
                assert!(!text.contains('_'), "{t}: {text}");
            }
            Value::Int(i) => assert_eq!(a.number(), Some(i.value), "{t}: pycute printed {text}"),
            other => panic!("{t}: the engine gave {other}"),
        }
    }
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs pycute: run `cargo xtask test` (provisions the nvidia-cutlass 4.2 wheel, which ships pycute, and sets CUTECHECK_CUTE)"
)]
fn refusals_and_cases_without_a_pycute_form() {
    let o = pycute(PycuteOptions::default());
    // pycute's composition asserts that the shapes divide (CuTe refuses it with a static_assert).
    let cs = cases(&["composition((_6,_2):(_8,_2),_4:_4)", "make_layout_right((_4,_8))", "flat_divide(_8:_1,_2:_1)"]);
    let refs: Vec<&Case> = cs.iter().collect();
    let answers = o.answers(&refs);
    let Outcome::Rejected(why) = &answers[0].outcome else { panic!("pycute did not refuse: {:?}", answers[0]) };
    assert!(why.starts_with("AssertionError"), "{why}");
    assert_eq!(answers[0].error.as_deref(), Some(why.as_str()));
    assert!(answers[0].value.is_none());
    for a in &answers[1..] {
        assert!(matches!(a.outcome, Outcome::Unsupported(_)), "{a:?}");
        assert!(a.code.is_none() && a.seconds.is_none(), "asked anyway: {a:?}");
    }
    // The Oracle trait gives the same outcomes, and names the oracle.
    assert_eq!(o.run(&refs), answers.iter().map(|a| a.outcome.clone()).collect::<Vec<_>>());
    assert!(o.describe().starts_with("pycute from nvidia-cutlass-"), "{}", o.describe());
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs pycute: run `cargo xtask test` (provisions the nvidia-cutlass 4.2 wheel, which ships pycute, and sets CUTECHECK_CUTE)"
)]
fn a_case_over_the_time_bound_is_a_timeout_and_the_run_goes_on() {
    // One worker, so the case after the slow one is asked of the worker started in its place.
    let bound = Duration::from_millis(40);
    let o = pycute(PycuteOptions { jobs: Some(1), case_timeout: bound, ..PycuteOptions::default() });
    let cs = cases(&["size(_4:_1)", SLOW, "logical_divide(_24:_1,_4:_2)", SLOW, "cosize((_4,_2):(_2,_1))"]);
    let refs: Vec<&Case> = cs.iter().collect();
    let answers = o.answers(&refs);
    assert_eq!(answers[0].number(), Some(4), "{:?}", answers[0]);
    for slow in [&answers[1], &answers[3]] {
        assert!(slow.timed_out, "{slow:?}");
        assert_eq!(slow.outcome, timeout_outcome(bound));
        assert!(slow.seconds.is_some_and(|s| s >= bound.as_secs_f64()), "{slow:?}");
    }
    assert!(matches!(answers[2].outcome, Outcome::Printed(_)), "{:?}", answers[2]);
    let engine = match eval_str("logical_divide(_24:_1,_4:_2)").unwrap() {
        Value::Layout(l) => l.values().unwrap(),
        v => panic!("{v}"),
    };
    assert_eq!(answers[2].values(), Some(&engine[..]), "{:?}", answers[2]);
    assert_eq!(answers[4].number(), Some(8), "{:?}", answers[4]);
    // Given the time, the same case is answered.
    let o = pycute(PycuteOptions { jobs: Some(1), ..PycuteOptions::default() });
    let a = o.answers(&refs[1..2]).remove(0);
    assert_eq!(a.values().map(<[i64]>::len), Some(1_032_192), "{a:?}");
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs pycute: run `cargo xtask test` (provisions the nvidia-cutlass 4.2 wheel, which ships pycute, and sets CUTECHECK_CUTE)"
)]
fn the_pool_answers_in_input_order() {
    // More workers than cores, cases of unequal cost, and unsupported cases in between.
    let o = pycute(PycuteOptions { jobs: Some(4), ..PycuteOptions::default() });
    assert_eq!(o.jobs(), 4);
    let texts: Vec<String> = (1..=300)
        .map(|k| match k % 3 {
            0 => format!("size(({k},_{}):(_1,{k}))", k % 7 + 1),
            1 => format!("cosize((_{k},_64):(_64,_1))"),
            _ => format!("make_layout_right(({k},_2))"),
        })
        .collect();
    let cs = cases(&texts.iter().map(String::as_str).collect::<Vec<_>>());
    let refs: Vec<&Case> = cs.iter().collect();
    let answers = o.answers(&refs);
    assert_eq!(answers.len(), texts.len());
    for (t, a) in texts.iter().zip(&answers) {
        match eval_str(t) {
            Ok(Value::Int(i)) => assert_eq!(a.number(), Some(i.value), "{t}: {a:?}"),
            _ => assert!(matches!(a.outcome, Outcome::Unsupported(_)), "{t}: {a:?}"),
        }
    }
}

/// Issue 30: a `--pycute` run of 5,000 random cases finishes on 2 cores in a few minutes. The
/// random cases of a conformance run (`cutecheck::run::plan::draw`, seed
/// `CUTECHECK_PYCUTE_SEED`, default 2027; `CUTECHECK_PYCUTE_CASES`, default 5,000) through 2
/// pycute workers with the default time bound; every case is answered, refused, unsupported or
/// that oracle's timeout (listed by case), no worker is lost, and the whole takes less than 10
/// minutes. Slow (minutes): run by hand with `-- --ignored --nocapture`.
#[test]
#[ignore = "slow: 5,000 random cases through 2 pycute workers (minutes); run with -- --ignored --nocapture"]
fn five_thousand_random_cases_finish_on_two_workers() {
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let (n, seed) = (env("CUTECHECK_PYCUTE_CASES", 5000) as usize, env("CUTECHECK_PYCUTE_SEED", 2027));
    let (planned, _) = cutecheck::run::plan::draw(n, seed, (0, 1), false).unwrap();
    let refs: Vec<&Case> = planned.iter().map(|p| &p.case).collect();
    let o = pycute(PycuteOptions { jobs: Some(2), ..PycuteOptions::default() });
    let start = std::time::Instant::now();
    let answers = o.answers(&refs);
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(answers.len(), n);
    let (mut printed, mut rejected, mut unsupported, mut timeouts) = (0, 0, 0, Vec::new());
    for (c, a) in refs.iter().zip(&answers) {
        match &a.outcome {
            Outcome::Printed(_) => printed += 1,
            Outcome::Rejected(_) => rejected += 1,
            Outcome::Unsupported(_) => unsupported += 1,
            _ if a.timed_out => timeouts.push(format!("{} ({})", c.text, c.location)),
            other => panic!("{} ({}): pycute failed: {other:?}", c.text, c.location),
        }
    }
    let slowest = answers.iter().filter_map(|a| a.seconds).fold(0.0, f64::max);
    eprintln!(
        "pycute, seed {seed}, {n} random cases, 2 workers: {secs:.1} s; printed {printed}, rejected {rejected}, \
         no pycute form {unsupported}, timeouts {} (of {} s); slowest answered case {slowest:.2} s",
        timeouts.len(),
        o.opts.case_timeout.as_secs_f64()
    );
    for t in &timeouts {
        eprintln!("  pycute timeout: {t}");
    }
    assert!(secs < 600.0, "{n} cases took {secs:.0} s");
}
