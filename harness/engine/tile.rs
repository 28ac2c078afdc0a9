//! Helpers shared by the zipped, tiled and flat divides and products: CuTe's `zip2_by` /
//! `tile_unzip` regrouping along a tiler and the unpacking of a rank-2 result's modes.

use super::coalesce::by_mode;
use super::error::{Error, Result};
use super::int_tuple::{Builder, IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{cite, Checked, Violation};
use super::tiler::Tiler;

fn mismatched(t: &Tup, what: &str) -> Error {
    Error::MismatchedRanks { detail: format!("{what}: {t}") }
}

/// CuTe's `zip2_by(t, guide)` on one int tuple (shape or stride).
pub(crate) fn zip2_by(t: &Tup, guide: &Tiler) -> Result<IntTuple> {
    Ok(zip2_by_ref(t, guide)?.into_owned())
}

/// [`zip2_by`], borrowing `t` where it is its own result (a mode under a leaf of the tiler).
fn zip2_by_ref<'a>(t: &'a Tup, guide: &Tiler) -> Result<std::borrow::Cow<'a, Tup>> {
    match (guide, t.view()) {
        (Tiler::Tuple(g), View::Tuple(items)) => {
            if items.len() < g.len() {
                return Err(mismatched(t, "zip2_by: fewer modes than the tiler"));
            }
            let (mut first, mut second) = (Builder::new(), Builder::new());
            for (ti, gi) in items.iter().zip(g) {
                let z = zip2_by_ref(ti, gi)?;
                match z.view() {
                    View::Tuple(pair) if pair.len() == 2 => {
                        let mut halves = pair.iter();
                        first.push(halves.next().expect("two"));
                        second.push(halves.next().expect("two"));
                    }
                    _ => {
                        return Err(mismatched(
                            &z,
                            "zip2_by: a divided mode is not rank 2, so its get<1> fails (CuTe: Index out of range)",
                        ))
                    }
                }
            }
            items.iter().skip(g.len()).for_each(|m| second.push(m));
            Ok(std::borrow::Cow::Owned(IntTuple::pair(&first.finish(), &second.finish())))
        }
        (Tiler::Tuple(_), View::Leaf(_)) => Err(mismatched(t, "zip2_by: a tuple tiler on a leaf mode")),
        (_, View::Tuple(items)) if items.len() == 2 => Ok(std::borrow::Cow::Borrowed(t)),
        _ => {
            Err(mismatched(t, "zip2_by: a divided mode is not rank 2, so its get<1> fails (CuTe: Index out of range)"))
        }
    }
}

/// CuTe's `tile_unzip(layout, tiler)`.
pub(crate) fn tile_unzip(l: &Layout, t: &Tiler) -> Result<Layout> {
    Ok(Layout { shape: zip2_by(&l.shape, t)?, stride: zip2_by(&l.stride, t)? })
}

/// The modes a slice with `repeat<rank>(_)` keeps of `m`: its own modes when its rank is above 1,
/// else `m` itself.
fn lifted(m: &Layout) -> Vec<Layout> {
    if m.rank() > 1 {
        m.modes()
    } else {
        vec![m.clone()]
    }
}

/// `result(_, repeat<R1>(_))` (`first` false) or `result(repeat<R0>(_), repeat<R1>(_))` (`first`
/// true) on a rank-2 layout.
pub fn unpack(l: &Layout, first: bool) -> Result<Layout> {
    let (m0, m1) = (l.mode(0)?, l.mode(1)?);
    let mut out = if first { lifted(&m0) } else { vec![m0] };
    out.extend(lifted(&m1));
    Ok(Layout::concat(&out))
}

/// The tiler forms of `logical_divide` and `logical_product` (`op`): `_` keeps `A`, a tuple
/// applies its elements to `A`'s modes (more elements than modes is "`op`: Too many modes in
/// tiler."; further modes of `A` are kept), a layout or an integer `n` (the layout `n:_1`) applies
/// `on_layout`.
pub(crate) fn by_tiler(
    a: &Layout,
    t: &Tiler,
    op: &'static str,
    on_layout: &dyn Fn(&Layout, &Layout) -> Result<Layout>,
) -> Result<Layout> {
    match t {
        Tiler::Underscore => Ok(a.clone()),
        Tiler::Tuple(items) => {
            if items.len() > a.rank() {
                return Err(Error::TooManyModes { op });
            }
            by_mode(a, items, op, |m, ti| by_tiler(m, ti, op, on_layout))
        }
        Tiler::Layout(b) => on_layout(a, b),
        other => on_layout(a, &other.as_layout().expect("layout or int")),
    }
}

/// The postconditions of a tiler form (see [`by_tiler`]): `_` leaves `A` unchanged, a tuple holds
/// mode by mode with `A`'s further modes unchanged, a layout `B` is checked by `check_layout(A, B, R)`.
pub(crate) fn check_by_tiler(
    a: &Layout,
    t: &Tiler,
    r: &Layout,
    check_layout: fn(&Layout, &Layout, &Layout) -> Checked,
) -> Checked {
    match t {
        Tiler::Underscore => {
            (a == r).then_some(()).ok_or_else(|| Violation::cute(cite::TILER_FORMS, format!("_ changed {a} into {r}")))
        }
        Tiler::Tuple(items) => {
            if r.rank() != a.rank() {
                return Err(Violation::cute(cite::TILER_FORMS, format!("rank({r}) != rank({a})")));
            }
            let (am, rm) = (a.modes(), r.modes());
            for k in 0..am.len() {
                match items.get(k) {
                    Some(tk) => check_by_tiler(&am[k], tk, &rm[k], check_layout)?,
                    None if am[k] != rm[k] => {
                        return Err(Violation::cute(
                            cite::TILER_FORMS,
                            format!("untouched mode {} became {}", am[k], rm[k]),
                        ))
                    }
                    None => {}
                }
            }
            Ok(())
        }
        other => check_layout(a, &other.as_layout().expect("layout or int"), r),
    }
}

/// Postconditions 2 and 3 of the tiled and flat forms (divides and products alike): `r` is the
/// zipped result `z` with mode 1 (`first` false) or modes 0 and 1 (`first` true) unpacked, and the
/// same function as `z`.
pub(crate) fn check_unpacked(z: &Layout, r: &Layout, first: bool) -> Checked {
    let want = unpack(z, first)?;
    if *r != want {
        let which = if first { "modes 0 and 1" } else { "mode 1" };
        return Err(Violation::cute(cite::ZIP, format!("2: {r} is not {z} with {which} unpacked ({want})")));
    }
    if !super::fast::same_function(r, z) && r.values()? != z.values()? {
        return Err(Violation::cute(cite::ZIP, format!("3: {r} and {z} differ as functions")));
    }
    Ok(())
}

/// The four divides side by side (moved here from the former `divide` facade).
#[cfg(test)]
mod divide_tests {
    use crate::flat_divide::flat_divide;
    use crate::logical_divide::{check_postconditions, logical_divide};
    use crate::test_util::{l, t};
    use crate::tiled_divide::tiled_divide;
    use crate::zipped_divide::zipped_divide;

    #[test]
    fn chapter_cases() {
        // The chapter's table (identical to real CuTe 4.2's prints).
        let a = l("_24:_1");
        let r = logical_divide(&a, &t("_4:_2")).unwrap();
        assert_eq!(r.to_string(), "(_4,(_2,_3)):(_2,(_1,_8))");
        check_postconditions(&a, &t("_4:_2"), &r).unwrap();
        let a = l("(_16,_8):(_1,_16)");
        assert_eq!(zipped_divide(&a, &t("(_2,_2)")).unwrap().to_string(), "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))");
        assert_eq!(zipped_divide(&a, &t("(_16,_2)")).unwrap().to_string(), "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))");
        let r = logical_divide(&a, &t("(_16,_2)")).unwrap();
        check_postconditions(&a, &t("(_16,_2)"), &r).unwrap();
    }

    #[test]
    fn each_divide_has_its_own_check() {
        // The results are real CuTe 4.2 prints (fixtures/cases/probes_modules.cases); each check accepts its own
        // operation's result and rejects the others' forms.
        use crate::{flat_divide as fd, tiled_divide as td, zipped_divide as zd};
        let (a, tt) = (l("(_16,_8,_2):(_1,_16,_128)"), t("(_2,_2)"));
        let (z, ti, fl) =
            (zipped_divide(&a, &tt).unwrap(), tiled_divide(&a, &tt).unwrap(), flat_divide(&a, &tt).unwrap());
        zd::check_postconditions(&a, &tt, &z).unwrap();
        td::check_postconditions(&a, &tt, &ti).unwrap();
        fd::check_postconditions(&a, &tt, &fl).unwrap();
        assert!(zd::check_postconditions(&a, &tt, &ti).is_err());
        assert!(td::check_postconditions(&a, &tt, &z).is_err());
        assert!(fd::check_postconditions(&a, &tt, &ti).is_err());
        let a = l("(_16,_8):(_1,_16)");
        let tt = t("_4:_2");
        zd::check_postconditions(&a, &tt, &zipped_divide(&a, &tt).unwrap()).unwrap();
        td::check_postconditions(&a, &tt, &tiled_divide(&a, &tt).unwrap()).unwrap();
        fd::check_postconditions(&a, &tt, &flat_divide(&a, &tt).unwrap()).unwrap();
    }
}

/// The six products side by side (moved here from the former `product` facade).
#[cfg(test)]
mod product_tests {
    use crate::blocked_product::blocked_product;
    use crate::flat_product::flat_product;
    use crate::raked_product::raked_product;
    use crate::test_util::{l, t};
    use crate::tiled_product::tiled_product;
    use crate::zipped_product::zipped_product;

    #[test]
    fn each_product_has_its_own_check() {
        // The results are real CuTe 4.2 prints (fixtures/cases/probes_modules.cases); each check accepts its own
        // operation's result and rejects the others' forms.
        use crate::{blocked_product as bp, flat_product as fp, raked_product as rp};
        use crate::{tiled_product as tp, zipped_product as zp};
        let (a, tt) = (l("(_2,_2):(_1,_2)"), t("(_3,_4)"));
        let (z, ti, fl) =
            (zipped_product(&a, &tt).unwrap(), tiled_product(&a, &tt).unwrap(), flat_product(&a, &tt).unwrap());
        zp::check_postconditions(&a, &tt, &z).unwrap();
        tp::check_postconditions(&a, &tt, &ti).unwrap();
        fp::check_postconditions(&a, &tt, &fl).unwrap();
        assert!(zp::check_postconditions(&a, &tt, &ti).is_err());
        assert!(tp::check_postconditions(&a, &tt, &fl).is_err());
        assert!(fp::check_postconditions(&a, &tt, &z).is_err());
        let b = l("(_3,_4):(_1,_3)");
        let (bl, ra) = (blocked_product(&a, &b).unwrap(), raked_product(&a, &b).unwrap());
        bp::check_postconditions(&a, &b, &bl).unwrap();
        rp::check_postconditions(&a, &b, &ra).unwrap();
        assert!(bp::check_postconditions(&a, &b, &ra).is_err());
        assert!(rp::check_postconditions(&a, &b, &bl).is_err());
    }
}
