//! `zipped_divide(A, tiler)` (layout.hpp).
//!
//! Definition (CuTe 4.2): `logical_divide` followed by CuTe's `zip2_by` along the tiler: for a
//! tuple tiler the tile parts of the divided modes are gathered into mode 0 and their rest parts
//! (then `A`'s untouched modes) into mode 1: `((t0,t1,..),(r0,r1,..,x,y))`. A mode selected by a
//! non-tuple tiler element must itself be rank 2 (so `_` on a leaf mode is refused, as CuTe
//! fails to compile it). For a non-tuple tiler the result is the logical divide itself.
//!
//! Postconditions (checked by [`check_postconditions`]), with `L` CuTe's `logical_divide(A, T)`:
//! 1. `L` satisfies the postconditions of `logical_divide` (so every element is where the divide
//!    puts it).
//! 2. `R` is `L` regrouped by `zip2_by` along `T`: the same sub-layouts, tile parts in mode 0 and
//!    rest parts then untouched modes in mode 1.
//! 3. `size(R) == size(L)`.
//!
//! Sources: 1 inherits `logical_divide`'s (CuTe's and ours, as cited there); 2 and 3 are CuTe's
//! [layout.hpp: `zipped_divide := tile_unzip(logical_divide(layout, tiler), tiler)`].
//!
//! Fast path: as for `logical_divide` (the certificates of `fast`), run once inside the zipped
//! computation; the checked `logical_divide` runs only when a certificate does not apply.

use std::cell::Cell;

use super::error::Result;
use super::layout::Layout;
use super::logical_divide::{divide_tiler, logical_divide, logical_divide_unchecked};
use super::postcondition::{cite, Checked, Violation};
use super::runtime::{checks_on, deferred, Mode};
use super::tile::tile_unzip;
use super::tiler::{Elem, Tiler, TilerView};

/// `zipped_divide(A, tiler)`.
///
/// CuTe's whole computation (including `zip2_by`, whose rank errors are compile-time errors) runs
/// before the definition checks of `logical_divide`.
pub fn zipped_divide(a: &Layout, t: &Tiler) -> Result<Layout> {
    if let Some(r) = small(a, t, checks_on()) {
        return Ok(r);
    }
    general(a, t)
}

/// [`zipped_divide`] without the small path.
fn general(a: &Layout, t: &Tiler) -> Result<Layout> {
    let ok = Cell::new(true);
    let z = deferred(|| tile_unzip(&divide_tiler(a, t, Mode::Certify(&ok))?, t))?;
    if !ok.get() && checks_on() {
        logical_divide(a, t)?;
    }
    Ok(z)
}

/// Most elements of a tuple tiler the small path takes.
const SMALL_TILER: usize = 4;

/// The small path of [`zipped_divide`] for a tuple tiler of layouts and integers (`n` is
/// `make_layout(n)`) on a layout of at least as many modes: mode `i` of `A` is divided by element
/// `i` as `logical_divide`'s small path does (`C_i` by complement's, `A_i o (B_i, C_i)` by
/// composition's, each with its certificate where `certify`), and the parts are written straight
/// into `zip2_by`'s places, `((A_0 o B_0, ..), (A_0 o C_0, .., A's further modes))`: neither the
/// divided layout nor the tiler's layouts are built. `None` where a part does not apply or a
/// certificate does not hold: the general path then answers as before (property test below).
fn small(a: &Layout, t: &Tiler, certify: bool) -> Option<Layout> {
    let Tiler::Tuple(items) = t else { return None };
    let mut elems: arrayvec::ArrayVec<Elem<'_>, SMALL_TILER> = arrayvec::ArrayVec::new();
    for item in items {
        elems.try_push(item.elem()?).ok()?;
    }
    small_elems(a, &elems, certify)
}

/// The small paths of `zipped_divide(A, tiler)` for a borrowed tiler (the builtins' entry, before
/// a [`Tiler`] is built); `None`: take [`zipped_divide`].
pub fn small_view(a: &Layout, t: TilerView<'_>) -> Option<Layout> {
    match t {
        // A non-tuple tiler: the logical divide itself.
        TilerView::One(e) => super::logical_divide::small_view(a, TilerView::One(e)),
        TilerView::Tuple(elems) => small_elems(a, elems, checks_on()),
    }
}

/// [`small`] on the tuple tiler's elements.
fn small_elems(a: &Layout, items: &[Elem<'_>], certify: bool) -> Option<Layout> {
    use super::composition::{Operand, SmallA, Writer};
    if !super::release::DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE.on() {
        return None;
    }
    let (sm, dm) = (a.shape.modes(), a.stride.modes());
    if items.is_empty() || items.len() > SMALL_TILER || items.len() > sm.len() {
        return None;
    }
    // Mode by mode, its tile part into `tiles` and its rest part into `rests` (each mode's
    // operands are built and dropped in its turn: nothing large is moved).
    // `tiles` is the result: the pair opens, then the tuple of tile parts; `rests` is appended
    // to it at the end, as the pair's second element.
    let (mut tiles, mut rests) = (Writer::new(), Writer::new());
    tiles.open(2)?;
    tiles.open(items.len())?;
    rests.open(sm.len())?;
    for ((item, s), d) in items.iter().zip(sm.iter()).zip(dm.iter()) {
        let b = item.layout();
        let b = &*b;
        let sa = SmallA::of(s, d, true)?;
        let c = super::complement::Small::of(b, Some(sa.coalesced_extents()))?;
        let mut cert = if certify { Some(sa.certificate()?) } else { None };
        sa.compose_into(Operand::Layout(b), &mut cert, &mut tiles)?;
        sa.compose_into(Operand::Modes(c.modes()), &mut cert, &mut rests)?;
        if let Some(cert) = &cert {
            cert.finish()?;
        }
    }
    for (s, d) in sm.iter().zip(dm.iter()).skip(items.len()) {
        rests.push(s, d);
    }
    tiles.append(&rests);
    Some(tiles.finish())
}

/// CuTe's algorithm for `zipped_divide(A, tiler)` without the definition checks.
pub fn zipped_divide_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    tile_unzip(&logical_divide_unchecked(a, t)?, t)
}

/// Check the numbered postconditions of `zipped_divide(A, tiler) == R`.
pub fn check_postconditions(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    let l = logical_divide_unchecked(a, t)?;
    super::logical_divide::check_postconditions(a, t, &l).map_err(|v| v.context("1: "))?;
    let want = tile_unzip(&l, t)?;
    if *r != want {
        return Err(Violation::cute(cite::ZIP, format!("2: {r} is not {l} regrouped along {t} ({want})")));
    }
    let (n, m) = (r.size()?.value, l.size()?.value);
    if n != m {
        return Err(Violation::cute(cite::ZIP, format!("3: size({r}) = {n} != size({l}) = {m}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{self, Staticness};
    use crate::runtime::without_definition_checks;
    use crate::Int;
    use proptest::prelude::*;

    fn st() -> impl Strategy<Value = Staticness> {
        prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::Mixed)]
    }

    /// Operands: compact or arbitrary layouts of rank 1 to 4 and tuple tilers of 1 to 3 elements
    /// (at times more than the layout's modes), or a layout tiler.
    fn operands() -> impl Strategy<Value = (Layout, Tiler)> {
        st().prop_flat_map(|s| {
            let a = prop_oneof![gen::compact_layout(2, 8, s), gen::layout(2, 8, 40, s)];
            let t = prop_oneof![
                4 => prop::collection::vec(gen::tiler_element(s), 1..4).prop_map(Tiler::Tuple),
                1 => gen::small_layout(4, 9, s).prop_map(Tiler::Layout),
            ];
            (a, t)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// The small path answers as the general path (layouts and errors, and the certificates'
        /// verdict), with the checks on and off.
        #[test]
        fn the_small_path_is_the_general_path((a, t) in operands()) {
            prop_assert_eq!(zipped_divide(&a, &t), general(&a, &t), "zipped_divide({}, {})", a, t);
            // Where the small path certifies, the divide's certificates hold (the general path
            // would not have run the brute-force check either).
            if small(&a, &t, true).is_some() {
                let ok = Cell::new(true);
                let _ = deferred(|| divide_tiler(&a, &t, Mode::Certify(&ok)));
                prop_assert!(ok.get(), "zipped_divide({}, {}): certified by the small path only", a, t);
            }
            let off = without_definition_checks(|| (zipped_divide(&a, &t), general(&a, &t)));
            prop_assert_eq!(off.0, off.1, "zipped_divide({}, {}) unchecked", a, t);
        }
    }

    #[test]
    fn the_chapter_case_takes_the_small_path() {
        let a = crate::test_util::l("(_16,_8):(_1,_16)");
        let t = Tiler::Tuple(vec![Tiler::Layout(Layout::leaf(Int::st(2), Int::st(1))), Tiler::Int(Int::st(2))]);
        let r = small(&a, &t, true).expect("the small path answers");
        assert_eq!(r.to_string(), "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))");
        assert_eq!(Ok(r), general(&a, &t));
    }
}
