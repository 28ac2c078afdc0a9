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
