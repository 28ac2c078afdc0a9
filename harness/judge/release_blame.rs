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

/// The blame of a change of CuTe's output from `old` (release `from`, modelled by `from_model`) to
/// `new` (`to`, modelled by `to_model`):
///
/// - `switch NAME (since R)`: the engine follows both sides, and modelling `to` with that one switch
///   turned off (`release::with_switch_off`) gives the old output back;
/// - `atom NAME (first declared in R)`: the case names an atom that `from`'s model does not declare
///   and `to`'s does (atom/since.rs);
/// - `modelled by the releases' models, no single switch`: the engine follows both sides and no
///   one switch or atom accounts for it;
/// - `not modelled: ...`: the engine does not follow the change (which side it follows).
pub fn release_blame(case: &Case, table: bool, models: (Release, Release), old: &Outcome, new: &Outcome) -> String {
    let (from, to) = models;
    let at = |r: Release| release::with_release(r, || engine(case, table).outcome);
    let (e_from, e_to) = (at(from), at(to));
    match (agrees(&e_from, old), agrees(&e_to, new)) {
        (true, true) => {}
        (true, false) => return "not modelled: the engine follows the old output, not the new".to_string(),
        (false, true) => return "not modelled: the engine follows the new output, not the old".to_string(),
        (false, false) => return "not modelled: the engine follows neither output".to_string(),
    }
    if e_from == e_to {
        // Both sides agree with one engine answer: the change is one both outputs meet (two refusals
        // that differ in their words).
        return "modelled: the engine's answer meets both outputs".to_string();
    }
    for s in SWITCHES.iter().filter(|s| from < s.since && s.since <= to) {
        let off = release::with_release(to, || release::with_switch_off(s, || engine(case, table).outcome));
        if agrees(&off, old) {
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
    "modelled by the releases' models, no single switch".to_string()
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
        let b = release_blame(&c, false, (v37, v38), &printed("(_6):(_1)"), &printed("((_2,_3)):((_1,_2))"));
        assert_eq!(b, "switch `blocked/raked products keep their modes` (since 3.8.0.0)");
        // The engine following neither side.
        let b = release_blame(&c, false, (v37, v38), &printed("_7:_1"), &printed("((_2,_3)):((_1,_2))"));
        assert_eq!(b, "not modelled: the engine follows the new output, not the old");
        let b = release_blame(&c, false, (v37, v38), &printed("(_6):(_1)"), &printed("_8:_1"));
        assert_eq!(b, "not modelled: the engine follows the old output, not the new");
        let b = release_blame(&c, false, (v37, v38), &printed("_7:_1"), &printed("_8:_1"));
        assert_eq!(b, "not modelled: the engine follows neither output");
        // An atom that first appears in the newer release.
        let (from, to) = (Release::new(3, 6, 0, 0), Release::new(3, 8, 0, 0));
        let c = case("mma_thr_id(SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>)");
        let old = release::with_release(from, || engine(&c, false).outcome);
        let new = release::with_release(to, || engine(&c, false).outcome);
        assert_ne!(old, new);
        let b = release_blame(&c, false, (from, to), &old, &new);
        assert!(b.starts_with("atom `SM100_MMA_F16BF16_SS` (first declared in 3.8.0.0)"), "{b}");
    }
}
