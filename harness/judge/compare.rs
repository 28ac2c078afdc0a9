//! How two printed answers compare as text: identical, both refuse by the refusal rule, one side
//! without an answer, or different (then [`super::classify`] says what the difference means).

use serde::Serialize;

use crate::case::Outcome;

/// How the engine's printed text compares with CuTe's.
///
/// The rule for refusals: CuTe refuses at compile time with a static_assert message; the engine
/// refuses with a typed error whose text names the same condition. They agree when the
/// static_assert message (trailing `.` dropped, case ignored) appears in the engine's error text:
/// `Non-injective Layout detected in complement.` agrees with the engine's `Non-injective Layout
/// detected in complement: (_2,_2):(_1,_1)`. A CuTe rejection that is not a static_assert
/// (`compile error: ...`, e.g. no overload takes these arguments), or a static_assert without a
/// message (`static assertion failed`), agrees with any engine refusal, and so does a CuTe run-time
/// crash: CuTe cannot compute the case, and the engine must refuse it rather than invent a result.
/// The engine's division by zero and 32-bit overflow agree with any CuTe refusal
/// ([`DIVISION_BY_ZERO`], [`OVERFLOW`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "why", rename_all = "snake_case")]
pub enum Agreement {
    /// Identical printed text.
    Same,
    /// Both refuse the case, by the rule above.
    BothRefuse,
    /// CuTe's side has no result to compare with (unsupported, or the oracle failed).
    Unchecked(String),
    /// They differ.
    Differ,
    /// CuTe's own computation overflowed ([`Outcome::Overflow`]: UBSan or the compiler said so):
    /// CuTe has no defined answer, so there is nothing to compare and no side to blame.
    CuteOverflows(String),
}

impl Agreement {
    /// Counts as agreement (unchecked cases are neither agreement nor failure: callers decide).
    pub fn agrees(&self) -> bool {
        matches!(self, Agreement::Same | Agreement::BothRefuse)
    }
}

fn normalized(s: &str) -> String {
    s.trim().trim_end_matches('.').trim().to_lowercase()
}

/// Whether the engine's `print_svg` picture draws what CuTe's does. CUTLASS 4.2 comments the tile
/// first (`<!--  Tile: (_16,_8,_16)  -->`, compared) and then its A, B and C identity tensors
/// (skipped: the engine prints the TV layouts they are made from), and the rest must be the same
/// lines in the same order. CUTLASS 3.6 to 3.8 print no comments and draw the same cells in another
/// order (cells do not overlap): there the `<svg>` header and the close must match and the drawn
/// elements must be the same multiset.
fn same_picture(engine: &str, cute: &str) -> bool {
    const TILE: &str = "<!--  Tile: ";
    fn body(t: &str) -> Vec<&str> {
        t.lines().filter(|l| !l.starts_with("<!--")).collect()
    }
    let (e, c) = (body(engine), body(cute));
    if !engine.starts_with(TILE) || !c.first().is_some_and(|l| l.starts_with("<svg ")) {
        return false;
    }
    if cute.starts_with(TILE) {
        return engine.lines().next() == cute.lines().next() && e == c;
    }
    let (mut es, mut cs) = (e.clone(), c.clone());
    es.sort_unstable();
    cs.sort_unstable();
    e.first() == c.first() && e.last() == c.last() && es == cs
}

/// The engine's refusal of a division by zero ([`crate::engine::Error::DivisionByZero`]). In CuTe
/// `C<t> / C<0>` is no constant expression, so the static operator drops out (SFINAE) and the
/// quotient goes on as a run-time int: the compile then stops at whatever static_assert comes
/// next (or the program traps), so any CuTe refusal agrees with it.
const DIVISION_BY_ZERO: &str = "division by zero";
/// The start of the engine's refusal of a 32-bit overflow ([`crate::engine::Error::Overflow`]):
/// run-time arithmetic comes after every compile-time check, so it too agrees with any CuTe
/// refusal (against a result CuTe printed it is a disagreement; where CuTe itself overflows the
/// oracle says so, `Outcome::Overflow`, and the judge's class "CuTe overflows" takes the case).
const OVERFLOW: &str = "integer overflow in ";

/// Compare the engine's outcome with CuTe's (two `print_svg` pictures: by [`same_picture`]).
pub fn compare(engine: &Outcome, cute: &Outcome) -> Agreement {
    match (engine, cute) {
        (_, Outcome::Overflow(at)) => Agreement::CuteOverflows(at.clone()),
        (_, Outcome::Unsupported(why)) => Agreement::Unchecked(format!("the oracle: {why}")),
        (_, Outcome::Error(why)) => Agreement::Unchecked(format!("the oracle failed: {why}")),
        (Outcome::Unsupported(why), _) => Agreement::Unchecked(format!("the engine: {why}")),
        (Outcome::Printed(e), Outcome::Printed(c)) if e.trim_end_matches('\n') == c.trim_end_matches('\n') => {
            Agreement::Same
        }
        (Outcome::Printed(e), Outcome::Printed(c)) if same_picture(e, c) => Agreement::Same,
        (Outcome::Rejected(_), Outcome::Crashed(_)) => Agreement::BothRefuse,
        (Outcome::Rejected(e), Outcome::Rejected(c)) => {
            let m = normalized(c);
            if c.starts_with("compile error")
                || e == DIVISION_BY_ZERO
                || e.starts_with(OVERFLOW)
                || m == "static assertion failed"
                || (!m.is_empty() && normalized(e).contains(&m))
            {
                Agreement::BothRefuse
            } else {
                Agreement::Differ
            }
        }
        _ => Agreement::Differ,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_rule() {
        let r = |s: &str| Outcome::Rejected(s.into());
        let p = |s: &str| Outcome::Printed(s.into());
        let cute = r("Non-injective Layout detected in complement.");
        assert_eq!(
            compare(&r("Non-injective Layout detected in complement: (_2,_2):(_1,_1)"), &cute),
            Agreement::BothRefuse
        );
        assert_eq!(compare(&r("Divisibility Condition: x"), &cute), Agreement::Differ);
        assert_eq!(compare(&p("_4:_1"), &cute), Agreement::Differ);
        assert_eq!(
            compare(&r("division by zero"), &Outcome::Crashed("SIGFPE (signal 8)".into())),
            Agreement::BothRefuse
        );
        assert_eq!(compare(&r("type error: x"), &r("compile error: no matching function")), Agreement::BothRefuse);
        assert_eq!(compare(&r("Mismatched Ranks: x"), &r("static assertion failed")), Agreement::BothRefuse);
        // CuTe's static division by zero goes on at run time and fails at a later static_assert.
        assert_eq!(compare(&r("division by zero"), &r("Static shape_div failure")), Agreement::BothRefuse);
        assert_eq!(compare(&r("division by zeros"), &r("Static shape_div failure")), Agreement::Differ);
        // Run-time arithmetic comes after every compile-time check.
        let over = r("integer overflow in multiplication (CuTe's ints are 32-bit)");
        assert_eq!(compare(&over, &p("_4:_1")), Agreement::Differ);
        assert_eq!(compare(&over, &r("Static shape_div failure")), Agreement::BothRefuse);
        assert!(matches!(compare(&p("_1"), &Outcome::Unsupported("x".into())), Agreement::Unchecked(_)));
        assert_eq!(compare(&p("_4:_1"), &p("_4:_1")), Agreement::Same);
        assert_eq!(compare(&p("_4:_1\n"), &p("_4:_1")), Agreement::Same);
        let svg =
            |a: &str, body: &str, tile: &str| p(&format!("<!--  Tile: {tile}  -->\n{a}\n<svg a>\n{body}\n</svg>\n"));
        let (ours, cutes) = ("<!--     A: x  -->", "<!--     A: ArithTuple(_0,_0) o x  -->");
        assert_eq!(compare(&svg(ours, "<rect/>", "(_8,_8,_4)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")), Agreement::Same);
        assert_eq!(
            compare(&svg(ours, "<rect />", "(_8,_8,_4)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")),
            Agreement::Differ
        );
        assert_eq!(
            compare(&svg(ours, "<rect/>", "(_8,_8,_8)"), &svg(cutes, "<rect/>", "(_8,_8,_4)")),
            Agreement::Differ
        );
        // CUTLASS 3.x: no comments, the same cells in another order.
        let ours = p("<!--  Tile: (_8,_8,_4)  -->\n<!--     A: x  -->\n<svg a>\n<rect 1/>\n<rect 2/>\n</svg>\n");
        assert_eq!(compare(&ours, &p("<svg a>\n<rect 2/>\n<rect 1/>\n</svg>\n")), Agreement::Same);
        assert_eq!(compare(&ours, &p("<svg a>\n<rect 2/>\n<rect 2/>\n</svg>\n")), Agreement::Differ);
        assert_eq!(compare(&ours, &p("<svg b>\n<rect 2/>\n<rect 1/>\n</svg>\n")), Agreement::Differ);
        // Over the engine's walk limit: no verdict either way.
        let big = Outcome::Unsupported("too large: 2^27 coordinates".into());
        assert!(matches!(compare(&big, &Outcome::Printed("_4:_1".into())), Agreement::Unchecked(_)));
    }
}
