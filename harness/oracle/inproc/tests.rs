//! Tests of the in-process oracle: the menu, crash isolation, and agreement with the compiled
//! driver (the same cases both ways).

use super::*;

const NEEDS_FFI: &str =
    "needs the in-process library: run `cargo xtask test` (provisions CuTe and libclang, builds cpp/ffi)";

fn case(text: &str) -> Case {
    Case::parse(text, "test").unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(o: &InProcess, texts: &[&str]) -> Vec<Outcome> {
    let cases: Vec<Case> = texts.iter().map(|t| case(t)).collect();
    o.run(&cases.iter().collect::<Vec<_>>())
}

#[test]
fn without_the_library_the_oracle_is_absent_and_says_why() {
    if available() {
        assert!(InProcess::new(Some(1)).is_some());
        assert!(built_for().is_some_and(|v| v.split('.').count() == 3), "{:?}", built_for());
    } else {
        assert!(InProcess::new(Some(1)).is_none());
        assert!(OFF.contains("cargo xtask"));
    }
}

#[test]
#[cfg_attr(
    not(cutecheck_ffi),
    ignore = "needs the in-process library: run `cargo xtask test` (provisions CuTe and libclang, builds cpp/ffi)"
)]
fn menu_takes_dynamic_cases_of_its_profiles_only() {
    let o = InProcess::new(Some(1)).expect(NEEDS_FFI);
    for t in [
        "coalesce((2,(3,4)):(1,(2,6)))",
        "composition((4,(2,3)):(1,(4,8)),(2,3):(1,2))",
        "(4,2):(1,4)(5)",
        "complement(4:2,16)",
        "logical_divide((8,(2,3)):(1,(8,16)),4:2)",
        "raked_product((3):(1),((2,2),4):((1,2),4))",
        "size(((2,2,2),4,(1,3)):((1,2,4),8,(0,32)))",
        "filter((1,2,3,4):(0,1,2,6))",
    ] {
        assert_eq!(o.takes(&case(t)), Ok(()), "{t}");
    }
    for (t, why) in [
        ("coalesce((_2,4):(_1,2))", "static"),
        ("coalesce(((2,(2,2)),4):((1,(2,4)),8))", "profile"),
        ("left_inverse((2,4):(1,2))", "instantiated"),
        ("complement((2,4):(1,2))", "instantiated"),
        ("coalesce((2,4):(1,2),(1,1))", "arguments"),
        ("composition((2,4):(1,2),(2,_))", "layout"),
        ("(4,2):(1,4)(1,1)", "tuple"),
        ("coalesce(4:(1,2))", "profile"),
    ] {
        let e = o.takes(&case(t)).expect_err(t);
        assert!(e.contains(why), "{t}: {e}");
    }
    // Cases the menu does not take come back Unsupported, in order with the others.
    let r = run(&o, &["coalesce((_2,4):(_1,2))", "coalesce((2,4):(1,2))", "cosize((2,4):(1,2))"]);
    assert!(matches!(&r[0], Outcome::Unsupported(s) if s.contains("static")), "{r:?}");
    assert_eq!(r[1], Outcome::Printed("(2,4):(1,2)".into()));
    assert_eq!(r[2], Outcome::Printed("8".into()));
}

#[test]
#[cfg_attr(
    not(cutecheck_ffi),
    ignore = "needs the in-process library: run `cargo xtask test` (provisions CuTe and libclang, builds cpp/ffi)"
)]
fn cute_signals_are_reported_as_crashes_and_never_reach_the_harness() {
    let o = InProcess::new(Some(2)).expect(NEEDS_FFI);
    // A zero extent makes CuTe's idx2crd divide by zero (SIGFPE); the cases around each crash,
    // on the same worker, are still answered, and a fresh worker takes over.
    let mut texts = Vec::new();
    for k in 0..300 {
        texts.push(if k % 50 == 7 { "(0,2):(1,1)(1)" } else { "coalesce((2,(3,4)):(1,(2,6)))" });
    }
    let r = run(&o, &texts);
    assert_eq!(r.len(), texts.len());
    for (k, (t, out)) in texts.iter().zip(&r).enumerate() {
        if t.starts_with("(0,2)") {
            assert!(matches!(out, Outcome::Crashed(s) if s.starts_with("SIGFPE (signal 8)")), "case {k}: {out:?}");
        } else {
            assert_eq!(out, &Outcome::Printed("(2,3,4):(1,2,6)".into()), "case {k}");
        }
    }
    // The pool is still usable afterwards.
    assert_eq!(run(&o, &["size((2,3):(1,2))"]), vec![Outcome::Printed("6".into())]);
}

#[test]
#[cfg_attr(
    not(cutecheck_ffi),
    ignore = "needs the in-process library: run `cargo xtask test` (provisions CuTe and libclang, builds cpp/ffi)"
)]
fn a_worker_that_dies_is_replaced_and_the_killing_case_found() {
    // Kill the workers from outside while they wait: the next batch finds them dead, asks again one
    // request at a time with fresh workers, and every case is answered.
    let o = InProcess::new(Some(1)).expect(NEEDS_FFI);
    assert_eq!(run(&o, &["size((2,3):(1,2))"]), vec![Outcome::Printed("6".into())]);
    o.kill_workers_for_test();
    let r = run(&o, &["size((2,3):(1,2))", "(0,2):(1,1)(1)", "cosize(4:2)"]);
    assert_eq!(r[0], Outcome::Printed("6".into()));
    assert!(matches!(&r[1], Outcome::Crashed(s) if s.starts_with("SIGFPE (signal 8)")), "{r:?}");
    assert_eq!(r[2], Outcome::Printed("7".into()));
}

#[test]
#[cfg_attr(
    not(all(cutecheck_ffi, cutecheck_cute)),
    ignore = "needs the in-process library and real CuTe: run `cargo xtask test`"
)]
fn in_process_and_compiled_driver_agree_on_a_sample() {
    use crate::oracle::{Oracle as Driver, OracleOptions};
    let inproc = InProcess::new(None).expect(NEEDS_FFI);
    let opts = OracleOptions {
        cutlass_version: Some(crate::oracle::provision::DEFAULT_CUTLASS.into()),
        ..OracleOptions::default()
    };
    let driver = Driver::new(opts).unwrap_or_else(|e| panic!("real CuTe is not usable: {e:#}"));
    // Dynamic cases of the menu (every operation), plus random cases of the static fuzzer, which
    // the routing oracle sends to the driver.
    let mut texts: Vec<String> = gen::cases(11, 160, (0, 1)).map(|(_, c)| c.expr).collect();
    texts.push("(0,2):(1,1)(1)".into());
    texts.extend(crate::fuzz::cases(11, 40, (0, 1)).into_iter().map(|(_, c)| c.expr));
    let cases: Vec<Case> = texts.iter().map(|t| case(t)).collect();
    let refs: Vec<&Case> = cases.iter().collect();
    let routing = Routing { inproc: Some(inproc), other: &driver };
    let n_in = routing.in_process_count(&refs);
    assert!(n_in >= 150 && n_in < refs.len(), "{n_in} of {} in-process", refs.len());
    let routed = routing.run(&refs);
    let compiled = crate::case::Oracle::run(&driver, &refs);
    let mut differ = Vec::new();
    for ((c, a), b) in cases.iter().zip(&routed).zip(&compiled) {
        let same = match (a, b) {
            // Both crashed on the same signal (the messages name different programs).
            (Outcome::Crashed(x), Outcome::Crashed(y)) => x.lines().next() == y.lines().next(),
            _ => a == b,
        };
        if !same {
            differ.push(format!("{}\n  routed:   {a:?}\n  compiled: {b:?}", c.text));
        }
    }
    assert!(differ.is_empty(), "{} of {} cases differ:\n{}", differ.len(), cases.len(), differ.join("\n"));
    // The sample exercises printed results and a crash on the in-process side.
    assert!(routed.iter().filter(|o| matches!(o, Outcome::Printed(_))).count() > 100);
    assert!(routed.iter().any(|o| matches!(o, Outcome::Crashed(_))));
}
