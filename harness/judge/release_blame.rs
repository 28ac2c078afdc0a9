//! Why a case's CuTe output changed between two releases, in the engine's terms: the release
//! switch (`engine::release::SWITCHES`) or the atom (`engine::atom::since`) that the engine models
//! the change by, or that the engine does not model it. `cargo xtask release-diff` reports it for
//! every changed case.

use super::compare::{compare, Agreement};
use crate::case::{engine, Case, Outcome};
use crate::engine::release::{self, Release, SWITCHES};

/// Whether the engine's answer and CuTe's agree (the same text, or both refuse).
fn agrees(engine: &Outcome, cute: &Outcome) -> bool {
    matches!(compare(engine, cute), Agreement::Same | Agreement::BothRefuse)
}

/// The blame of a change of CuTe's output from `old` (the older release, modelled by `models.0`)
/// to `new` (the newer, modelled by `models.1`), in the engine's terms:
///
/// - `switch NAME (since R)`: the engine's answer changes between the two models, and modelling the
///   newer release with that one switch turned off (`release::with_switch_off`) gives the older
///   model's answer back;
/// - `atom NAME (first declared in R)`: the case names an atom that the older model does not
///   declare and the newer does (atom/since.rs);
/// - `modelled: ...`: the engine's answer changes, but by more than one switch or atom; or it does
///   not change and meets both outputs (two refusals in other words);
/// - `not modelled: ...`: the engine's answer does not change, and meets only one output or none.
///
/// Whether each model's answer agrees with its side's CuTe is the judge's word beside it (the
/// release diff's `engine_vs_from`, `engine_vs_to`; a known discrepancy stays one).
pub fn release_blame(case: &Case, table: bool, models: (Release, Release), old: &Outcome, new: &Outcome) -> String {
    let (from, to) = models;
    let at = |r: Release| release::with_release(r, || engine(case, table).outcome);
    let (e_from, e_to) = (at(from), at(to));
    if e_from == e_to {
        return match (agrees(&e_to, old), agrees(&e_to, new)) {
            (true, true) => "modelled: the engine's one answer meets both outputs (both refuse)".to_string(),
            (true, false) => "not modelled: the engine answers both releases as the old one".to_string(),
            (false, true) => "not modelled: the engine answers both releases as the new one".to_string(),
            (false, false) => "not modelled: the engine's one answer meets neither output".to_string(),
        };
    }
    for s in SWITCHES.iter().filter(|s| from < s.since && s.since <= to) {
        let off = release::with_release(to, || release::with_switch_off(s, || engine(case, table).outcome));
        if off == e_from {
            return format!("switch `{}` (since {})", s.name, s.since);
        }
    }
    let words = case.text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for w in words {
        if let Some((n, r)) = crate::engine::atom::since::SINCE.iter().find(|(n, _)| *n == w) {
            if from < *r && *r <= to {
                return format!("atom `{n}` (first declared in {r})");
            }
        }
    }
    "modelled: the engine's answer changes between the models, by no single switch or atom".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(s: &str) -> Case {
        Case::parse(s, "test").unwrap()
    }

    fn printed(s: &str) -> Outcome {
        Outcome::Printed(s.to_string())
    }

    #[test]
    fn a_change_is_blamed_on_its_switch_its_atom_or_the_engine() {
        let (v37, v38) = (Release::new(3, 7, 0, 0), Release::new(3, 8, 0, 0));
        // blocked_product coalesced its modes before 3.8 (releases.cases).
        let c = case("blocked_product(_2:_1,_3:_1)");
        let (old, new) = (printed("(_6):(_1)"), printed("((_2,_3)):((_1,_2))"));
        let b = release_blame(&c, false, (v37, v38), &old, &new);
        assert_eq!(b, "switch `blocked/raked products keep their modes` (since 3.8.0.0)");
        // The same engine answer on both models: not modelled, unless it meets both outputs.
        let c = case("coalesce((_2,_4):(_1,_2))");
        let b = release_blame(&c, false, (v37, v38), &printed("_8:_1"), &printed("_7:_1"));
        assert_eq!(b, "not modelled: the engine answers both releases as the old one");
        let b = release_blame(&c, false, (v37, v38), &printed("_7:_1"), &printed("_8:_1"));
        assert_eq!(b, "not modelled: the engine answers both releases as the new one");
        let b = release_blame(&c, false, (v37, v38), &printed("_7:_1"), &printed("_9:_1"));
        assert_eq!(b, "not modelled: the engine's one answer meets neither output");
        // An atom that first appears in the newer release.
        let (from, to) = (Release::new(3, 6, 0, 0), Release::new(3, 8, 0, 0));
        let c = case("mma_thr_id(SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>)");
        let old = release::with_release(from, || engine(&c, false).outcome);
        let new = release::with_release(to, || engine(&c, false).outcome);
        assert_ne!(old, new);
        let b = release_blame(&c, false, (from, to), &old, &new);
        assert!(b.starts_with("atom `SM100_MMA_F16BF16_SS` (first declared in 3.8.0.0)"), "{b}");
        // A switch whose old side the engine refuses on purpose (a known discrepancy): the int4
        // BLayout, blamed on its switch all the same.
        let (v42, v45) = (Release::new(4, 2, 0, 0), Release::new(4, 5, 0, 0));
        let c = case("mma_layout_b(SM80_16x8x32_S32S4S4S32_TN)");
        let b = release_blame(
            &c,
            false,
            (v42, v45),
            &printed("((_4,_8),(_8)):((_32,_1),(_8))"),
            &printed("((_4,_8),(_8)):((_64,_1),(_8))"),
        );
        assert_eq!(b, "switch `SM80 int4 m16n8k32 BLayout one to one` (since 4.5.0.0)");
    }
}
