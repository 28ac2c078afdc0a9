//! CuTe's own overflow as a fact (issue 30): the compiled driver is built with UBSan
//! (`-fsanitize=signed-integer-overflow`, stopping at the first overflow) and reads the compiler's
//! overflow diagnostics, so a case whose CuTe arithmetic overflows `int` is
//! `Outcome::Overflow` with CuTe's file:line, and the judge puts it in its own class ("CuTe
//! overflows": neither side blamed, never new, never explained by a known discrepancy).
//!
//! The cases are the ones the issue found judged wrongly without UBSan: the seed-2027 and
//! seed-3032 cases (CuTe printed a result through undefined behaviour and the engine, which
//! refused for overflow, was blamed) and the two reproducers the known list explained as
//! "CuTe wrong" (products whose static cotarget passes 2^31).

use cutecheck::case::{self, Case, Origin, Outcome};
use cutecheck::judge::{Judge, Status};
use cutecheck::known::KnownDiscrepancies;

/// (case, CuTe's header and line UBSan names).
const OVERFLOWS: &[(&str, &str)] = &[
    (
        "max_common_layout((1,(1,21),4096,3):(258048,(258048,12288),3,1),(((_21,_2),_8),(_32,_4)):(((_2048,_1),_256),(_8,_2)))",
        "cute/layout.hpp:1108",
    ),
    (
        "max_common_vector((1,3,(1,1),(2,(1024,2))):(12288,1,(6,12288),(6,(12,3))),(_1,_128,(_6,_128,(_2,_4)),_1):(_4,_4,(_65536,_512,(_393216,_1)),_393216))",
        "cute/layout.hpp:1108",
    ),
    ("raked_product((_16,_1024,(_4,_9)):(_1,_16,(_16384,_65536)),_4096:_1)", "cute/layout.hpp:"),
    ("zipped_product((_10,_4096):(_4096,_1),(_8,(_4096,_2)):(_1,(_16,_8)))", "cute/layout.hpp:"),
    ("size((_65536,_32768))", "cute/"),
    ("size((65536,32768))", "cute/"),
];

/// Just below 2^31: no overflow, both sides answer.
const FITS: &[(&str, &str)] = &[("size((_46341,_46340))", "_2147441940"), ("size((46340,46341))", "2147441940")];

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn cute_overflow_is_reported_and_judged_as_its_own_class() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    let version = option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0");
    let oracle = Oracle::new(OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() })
        .expect("real CuTe");
    let known = KnownDiscrepancies::load_default().expect("known discrepancies");
    let judge = Judge::new(&known, version);
    let cases: Vec<Case> =
        OVERFLOWS.iter().chain(FITS).map(|(e, _)| Case::parse(e, "tests/cute_overflow.rs").unwrap()).collect();
    let refs: Vec<&Case> = cases.iter().collect();
    let got = case::Oracle::run(&oracle, &refs);
    for ((c, o), (_, want)) in cases.iter().zip(&got).zip(OVERFLOWS.iter().chain(FITS)) {
        let engine = judge.engine(c, false);
        let j = judge.judge(c, Origin::Random { admissible: true }, &engine, o);
        if FITS.iter().any(|(e, _)| *e == c.text) {
            assert_eq!(o, &Outcome::Printed(want.to_string()), "{}", c.text);
            assert_eq!(j.status, Status::Agree, "{}", c.text);
            continue;
        }
        match o {
            Outcome::Overflow(at) => {
                assert!(at.starts_with(want) && at.contains("signed integer overflow"), "{}: {at}", c.text)
            }
            other => panic!("{}: CuTe's overflow not reported: {other:?}", c.text),
        }
        // UBSan agrees with the engine's refusal: the engine refuses for overflow too.
        assert!(
            matches!(&j.status, Status::CuteOverflows(d) if d.ends_with("the engine refuses for overflow too")),
            "{}: {}",
            c.text,
            j.summary()
        );
        assert!(!j.fails(), "{}", c.text);
    }
}

/// Cases around 2^31 on both sides: extents `a` and `b` with `a * b` just below, at and just
/// above 2^31, static and dynamic, through the operations whose arithmetic reaches it.
fn near_int_max() -> Vec<String> {
    let mut v = Vec::new();
    let mut x: u64 = 0x2027;
    let mut next = |n: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    let n = std::env::var("CUTECHECK_NEAR_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    for k in 0..n {
        let a = 2 + next(65535) as i64;
        let b = (1i64 << 31) / a + [-1, 0, 1][k % 3];
        let st = |v: i64, s: bool| if s { format!("_{v}") } else { v.to_string() };
        let (sa, sb) = (next(2) == 0, next(2) == 0);
        let (ea, eb) = (st(a, sa), st(b, sb));
        let l = format!("({ea},{eb}):(_1,{ea})");
        v.push(match k % 8 {
            0 => format!("size(({ea},{eb}))"),
            1 => format!("cosize({l})"),
            2 => format!("coalesce({l})"),
            3 => format!("logical_product({ea}:_1,{eb}:_1)"),
            4 => format!("complement({ea}:_1,{})", st((a * b).min(i32::MAX as i64), sa && sb)),
            5 => format!("max_common_layout({l},{l})"),
            6 => format!("make_layout(({ea},{eb}))"),
            _ => format!("{l}({})", (a * b - 1).min(i32::MAX as i64)),
        });
    }
    v
}

/// UBSan agrees with the engine around 2^31: every engine refusal for overflow is a case where
/// CuTe overflows (or refuses at compile time), and every case where CuTe overflows is one the
/// engine refuses.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn ubsan_agrees_with_the_engine_near_int_max() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    let version = option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0");
    let oracle = Oracle::new(OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() })
        .expect("real CuTe");
    let known = KnownDiscrepancies::load_default().expect("known discrepancies");
    let judge = Judge::new(&known, version);
    let cases: Vec<Case> = near_int_max().iter().map(|e| Case::parse(e, "tests/cute_overflow.rs").unwrap()).collect();
    let refs: Vec<&Case> = cases.iter().collect();
    let got = case::Oracle::run(&oracle, &refs);
    let mut wrong = Vec::new();
    let mut tally = std::collections::BTreeMap::<(bool, &str), usize>::new();
    for (c, o) in cases.iter().zip(&got) {
        let e = judge.engine(c, false);
        let engine_overflows = matches!(e.refusal, Some(cutecheck::engine::Error::Overflow { .. }));
        let cute_overflows = matches!(o, Outcome::Overflow(_));
        *tally.entry((engine_overflows, o.kind())).or_default() += 1;
        if cute_overflows != engine_overflows {
            eprintln!("{}: engine {}", c.text, e.outcome.lines().join(" | "));
        }
        let agrees = match (engine_overflows, cute_overflows) {
            (true, _) => cute_overflows || matches!(o, Outcome::Rejected(_)),
            (false, true) => matches!(e.outcome, Outcome::Rejected(_) | Outcome::Unsupported(_)),
            (false, false) => true,
        };
        if !agrees || judge.judge(c, Origin::Random { admissible: true }, &e, o).fails() {
            wrong.push(format!(
                "{}\n  cute:   {}\n  engine: {}",
                c.text,
                o.lines().join(" | "),
                e.outcome.lines().join(" | ")
            ));
        }
    }
    eprintln!("(engine refuses for overflow, CuTe's outcome) -> cases: {tally:?}");
    assert!(tally.get(&(true, "overflow")).is_some_and(|n| *n > 0), "no case overflowed: {tally:?}");
    assert!(wrong.is_empty(), "{} of {} cases:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

/// UBSan agrees with every overflow refusal of the engine on random cases: the conformance run's
/// random cases (`cutecheck::run::plan::draw`, seed `CUTECHECK_OVERFLOW_SEED`, default 30030;
/// `CUTECHECK_OVERFLOW_CASES`, default 20,000) through the engine, and every case the engine
/// refuses for overflow through real CuTe: CuTe overflows too (UBSan or the compiler says so) or
/// refuses before its arithmetic (a compile error, a static_assert, a run-time check that stops
/// the program); it never prints a result.
/// Seed 30030's random #14130 (a flat_product CuTe refuses first) is among the default cases.
#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE)"
)]
fn ubsan_agrees_with_every_engine_overflow_refusal_of_random_cases() {
    use cutecheck::oracle::{Oracle, OracleOptions};
    use rayon::prelude::*;
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let (n, seed) = (env("CUTECHECK_OVERFLOW_CASES", 20_000) as usize, env("CUTECHECK_OVERFLOW_SEED", 30030));
    let version = option_env!("CUTECHECK_CUTE").unwrap_or("4.2.0.0");
    let known = KnownDiscrepancies::load_default().expect("known discrepancies");
    let judge = Judge::new(&known, version);
    let (planned, _) = cutecheck::run::plan::draw(n, seed, (0, 1), false).unwrap();
    let refused: Vec<&Case> = planned
        .par_iter()
        .map(|p| &p.case)
        .filter(|c| matches!(judge.engine(c, false).refusal, Some(cutecheck::engine::Error::Overflow { .. })))
        .collect();
    let oracle = Oracle::new(OracleOptions { cutlass_version: Some(version.to_string()), ..OracleOptions::default() })
        .expect("real CuTe");
    let got = case::Oracle::run(&oracle, &refused);
    let mut tally = std::collections::BTreeMap::<&str, usize>::new();
    let mut answered = Vec::new();
    for (c, o) in refused.iter().zip(&got) {
        *tally.entry(o.kind()).or_default() += 1;
        if !matches!(o, Outcome::Overflow(_) | Outcome::Rejected(_) | Outcome::Crashed(_)) {
            answered.push(format!("{} ({}): CuTe {}", c.text, c.location, o.lines().join(" | ")));
        }
    }
    eprintln!(
        "seed {seed}, {n} random cases: the engine refuses {} for overflow; CuTe's outcomes: {tally:?}",
        refused.len()
    );
    assert!(!refused.is_empty(), "no overflow refusal among {n} cases of seed {seed}");
    assert!(answered.is_empty(), "CuTe answers where the engine refuses for overflow:\n{}", answered.join("\n"));
}
