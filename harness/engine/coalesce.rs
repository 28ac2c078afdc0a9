//! `coalesce`: CuTe's simplification of a layout into the fewest flat modes (layout.hpp).
//!
//! Definition (CuTe 4.2). Flatten the layout into leaf modes `s_0:d_0 ... s_{R-1}:d_{R-1}` and walk
//! them from the back, keeping a "front" mode `S:D` (initially the last leaf):
//! - a leaf with a **static** extent `_1` is skipped;
//! - if the front is still the single leaf `_1:D` (static 1), it is replaced by the leaf;
//! - if `S` is static and `s_i * d_i == D` is known at compile time (both sides static; note
//!   `x * _0` is the static `_0`) and true, the two merge into `(s_i * S):d_i`;
//! - otherwise the leaf is prepended as a new mode.
//!
//! At the end a lone static `_1` front becomes `_1:_0`. So only what static values prove mergeable
//! is merged; dynamic extents 1 are kept (`coalesce((2,(1,6)):(1,(6,2))) = (2,1,6):(1,6,2)`).
//!
//! `coalesce_x` (detail::coalesce_x, used by composition) is the same walk, except that a static
//! `_1` last leaf starts the front as `_2:d`, which preserves the layout's function beyond its
//! domain. `coalesce_by(layout, profile)` applies coalesce to the modes selected by a tuple profile
//! (the remaining modes are kept as they are); a non-tuple profile coalesces the whole layout.
//!
//! Postconditions (checked by [`check_postconditions`]; sources in brackets, see
//! [`super::postcondition`]):
//! 1. `size(result) == size(layout)` [CuTe: coalesce.cpp `ASSERT_EQ(size(coalesce_layout),
//!    size(layout))`; layout.hpp `@post size(@a result) == size(@a layout)`].
//! 2. `depth(result) <= 1` [CuTe: coalesce.cpp `CUTE_STATIC_ASSERT_V(depth(coalesce_layout) <=
//!    Int<1>{})`; layout.hpp `@post depth(@a result) <= 1`].
//! 3. `result(i) == layout(i)` for every `0 <= i < size(layout)` [CuTe: coalesce.cpp
//!    `EXPECT_EQ(coalesce_layout(i), layout(i))`; layout.hpp `@post ... @a layout(i) == @a result(i)`].
//! 4. No two adjacent modes of the result are statically mergeable, and no static `_1` mode
//!    remains, unless the result is `_1:_0` (CuTe's "nothing left" layout) [ours: CuTe's tests do
//!    not ask for a fully coalesced result; a violation is "stricter than CuTe", never refused].

use super::error::{Error, Result};
use super::int::{int32, Int};
use super::int_tuple::{Builder, IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::release::COALESCE_FRONT_MUST_BE_STATIC;

/// A list of flat (extent, stride) modes. (An inline stack buffer was tried here and measured
/// slower than the allocator's small-object path on the bench; see BENCHMARKS.md.)
pub(crate) type Pairs = Vec<(Int, Int)>;

/// The result of the backward walk as flat modes (first mode first); `tuple` is false when the
/// result is one leaf mode.
pub(crate) struct Coalesced {
    pub(crate) modes: Pairs,
    pub(crate) tuple: bool,
}

impl Coalesced {
    /// The modes, borrowed.
    pub(crate) fn as_ref(&self) -> ModesRef<'_> {
        ModesRef { modes: &self.modes, tuple: self.tuple }
    }
    pub(crate) fn to_layout(&self) -> Layout {
        self.as_ref().to_layout()
    }
}

/// The flat modes of a [`Coalesced`], borrowed (from it, or from a stack buffer: see
/// [`with_coalesce`]).
#[derive(Clone, Copy)]
pub(crate) struct ModesRef<'a> {
    pub(crate) modes: &'a [(Int, Int)],
    pub(crate) tuple: bool,
}

impl ModesRef<'_> {
    /// The shape of [`ModesRef::to_layout`].
    pub(crate) fn shape(self) -> IntTuple {
        if !self.tuple {
            return IntTuple::leaf(self.modes[0].0);
        }
        IntTuple::of_leaves(self.modes.iter().map(|m| m.0))
    }
    pub(crate) fn to_layout(self) -> Layout {
        if !self.tuple {
            let (s, d) = self.modes[0];
            return Layout::leaf(s, d);
        }
        Layout {
            shape: IntTuple::of_leaves(self.modes.iter().map(|m| m.0)),
            stride: IntTuple::of_leaves(self.modes.iter().map(|m| m.1)),
        }
    }
}

/// Which backward walk [`with_coalesce`] runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// `coalesce` ([`coalesce_modes`]).
    Coalesce,
    /// `detail::coalesce_x` ([`coalesce_x_modes`]).
    CoalesceX,
}

/// `f` applied to the flat modes of the walk `w` over `layout`: on a stack buffer for layouts of
/// at most [`STACK`] leaves read node by node (`Tup::zip_steps`), else on the general path's
/// modes; the same modes and the same errors either way (tested below).
pub(crate) fn with_coalesce<T>(layout: &Layout, w: Walk, f: impl FnOnce(ModesRef<'_>) -> Result<T>) -> Result<T> {
    let prep = |leaves: &mut [(Int, Int)]| {
        if w == Walk::CoalesceX {
            x_front(leaves);
        }
    };
    match walk_on_stack(layout, prep, f) {
        Ok(r) => r,
        Err(f) => match w {
            Walk::Coalesce => f(coalesce_modes(layout)?.as_ref()),
            Walk::CoalesceX => f(coalesce_x_modes(layout)?.as_ref()),
        },
    }
}

/// The stack path of [`with_coalesce`] (and of `filter::with_filter`): `layout`'s leaves into a
/// stack buffer, changed by `prep`, walked backward, and `f` applied to the result's modes; `f`
/// handed back (`Err`) where the layout does not fit, for the caller's general path.
pub(crate) fn walk_on_stack<T, F: FnOnce(ModesRef<'_>) -> Result<T>>(
    layout: &Layout,
    prep: impl FnOnce(&mut [(Int, Int)]),
    f: F,
) -> std::result::Result<Result<T>, F> {
    let mut buf = [(Int::st(0), Int::st(0)); STACK];
    let Some(n) = stack_leaves(layout, &mut buf) else { return Err(f) };
    let leaves = &mut buf[..n];
    prep(leaves);
    Ok(bw_walk(leaves).and_then(|(start, tuple)| f(ModesRef { modes: &leaves[start..], tuple })))
}

/// The leaves of `layout` into `buf`, and their number (at least one), where they fit and are read
/// node by node.
fn stack_leaves(layout: &Layout, buf: &mut [(Int, Int); STACK]) -> Option<usize> {
    let mut n = 0;
    for step in layout.shape.zip_steps(&layout.stride)? {
        if let super::int_tuple::Step::Leaf(s, d) = step {
            *buf.get_mut(n)? = (s, d);
            n += 1;
        }
    }
    (n > 0).then_some(n)
}

/// The backward walk of the module doc over `pairs` (all leaves but the last) with the front
/// starting as `init`.
pub(crate) fn bw_coalesce_modes(pairs: &[(Int, Int)], init: (Int, Int)) -> Result<Coalesced> {
    let mut modes = Pairs::with_capacity(pairs.len() + 1);
    modes.extend_from_slice(pairs);
    modes.push(init);
    bw_coalesce_in_place(modes)
}

/// The backward walk of the module doc over `modes`, whose last entry is the front's start, done
/// in place: walking from the back, the result's modes are written from the back too (each leaf
/// writes at most one, at or after its own index), then moved to the front.
fn bw_coalesce_in_place(mut modes: Pairs) -> Result<Coalesced> {
    let (w, tuple) = bw_walk(&mut modes)?;
    modes.drain(..w);
    Ok(Coalesced { modes, tuple })
}

/// [`bw_walk`] on static modes (every value static, so its tests reduce to the values), for the
/// small paths here and in complement and composition; the result is `m[w..]` and whether it is a
/// tuple, or `None` where a product leaves the 32-bit range.
pub(crate) fn bw_walk_static(m: &mut [(i64, i64)]) -> Option<(usize, bool)> {
    let n = m.len();
    let mut w = n - 1;
    let mut tuple = false;
    for i in (0..n - 1).rev() {
        let (s, d) = m[i];
        if s == 1 {
            continue;
        }
        if !tuple && m[w].0 == 1 {
            m[w] = (s, d);
            continue;
        }
        if int32(s.checked_mul(d))? == m[w].1 {
            m[w] = (int32(s.checked_mul(m[w].0))?, d);
        } else {
            w -= 1;
            m[w] = (s, d);
            tuple = true;
        }
    }
    if !tuple && m[w].0 == 1 {
        m[w] = (1, 0);
    }
    Some((w, tuple))
}

/// [`bw_coalesce_in_place`] on a slice: the result's modes are left in `modes[w..]`; returns `w`
/// and whether the result is a tuple.
fn bw_walk(modes: &mut [(Int, Int)]) -> Result<(usize, bool)> {
    let n = modes.len();
    let mut w = n - 1; // the front
    let mut tuple = false;
    for i in (0..n - 1).rev() {
        let (s, d) = modes[i];
        if s.is_static_value(1) {
            continue;
        }
        let front = &mut modes[w];
        if !tuple && front.0.is_static_value(1) {
            *front = (s, d);
            continue;
        }
        let (fs, fd) = *front;
        let prod = s.mul(d)?;
        // Before 3.5 a dynamic front extent merges too ([`COALESCE_FRONT_MUST_BE_STATIC`]).
        let front_ok = fs.is_static || !COALESCE_FRONT_MUST_BE_STATIC.on();
        if front_ok && prod.is_static && fd.is_static && prod.value == fd.value {
            *front = (s.mul(fs)?, d);
        } else {
            w -= 1;
            modes[w] = (s, d);
            tuple = true;
        }
    }
    if !tuple && modes[w].0.is_static_value(1) {
        modes[w] = (Int::st(1), Int::st(0));
    }
    Ok((w, tuple))
}

/// Most leaves the stack path ([`walk_on_stack`]) takes.
const STACK: usize = 8;

/// Flat (extent, stride) leaf modes.
pub(crate) type Modes = Vec<(Int, Int)>;

/// Coalesce's refusal of a layout without leaves (`detail` names it).
fn no_leaves(detail: String) -> Error {
    Error::Rejected { condition: "coalesce needs a layout of rank >= 1", detail }
}

/// The leaves of `layout`, refused when there are none.
fn nonempty_leaves(layout: &Layout) -> Result<Pairs> {
    let pairs = layout.leaf_pairs();
    if pairs.is_empty() {
        return Err(no_leaves(layout.to_string()));
    }
    Ok(pairs)
}

/// CuTe's `coalesce(layout)`.
pub fn coalesce(layout: &Layout) -> Result<Layout> {
    if let Some(r) = small(layout) {
        return Ok(r);
    }
    with_coalesce(layout, Walk::Coalesce, |m| Ok(m.to_layout()))
}

/// The small path of [`coalesce`]: a layout of at most [`STACK`] leaves, all static, walked on
/// plain integers (every value static, so the walk's static-ness tests reduce to the values) and
/// the result built once; `None` (the general path) for anything else, or where a product leaves
/// CuTe's 32-bit range (the general path then reports it). Tested with the general path below.
/// (Also the builtin's entry, inlined there: `None` means take [`coalesce`].)
#[inline(always)]
pub fn small(layout: &Layout) -> Option<Layout> {
    let mut m = [(0i64, 0i64); STACK];
    let mut k = 0;
    for step in layout.shape.zip_steps(&layout.stride)? {
        if let super::int_tuple::Step::Leaf(s, d) = step {
            if !s.is_static || !d.is_static || k == STACK {
                return None;
            }
            m[k] = (s.value, d.value);
            k += 1;
        }
    }
    if k == 0 {
        return None;
    }
    let (w, tuple) = bw_walk_static(&mut m[..k])?;
    let m = &m[w..k];
    if !tuple {
        return Some(Layout::leaf(Int::st(m[0].0), Int::st(m[0].1)));
    }
    Some(Layout {
        shape: IntTuple::of_static(m.iter().map(|x| x.0)),
        stride: IntTuple::of_static(m.iter().map(|x| x.1)),
    })
}

/// [`coalesce`] as flat modes.
pub(crate) fn coalesce_modes(layout: &Layout) -> Result<Coalesced> {
    bw_coalesce_in_place(nonempty_leaves(layout)?)
}

/// CuTe's `detail::coalesce_x(layout)`: coalesce that also keeps the function outside the domain.
pub fn coalesce_x(layout: &Layout) -> Result<Layout> {
    Ok(coalesce_x_modes(layout)?.to_layout())
}

/// [`coalesce_x`] as flat modes.
pub(crate) fn coalesce_x_modes(layout: &Layout) -> Result<Coalesced> {
    let mut pairs = nonempty_leaves(layout)?;
    x_front(&mut pairs);
    bw_coalesce_in_place(pairs)
}

/// What `coalesce_x` changes before coalesce's walk: a static `_1` last leaf starts the front as
/// `_2` (non-empty leaves).
fn x_front(leaves: &mut [(Int, Int)]) {
    let last = leaves.last_mut().expect("non-empty");
    if last.0.is_static_value(1) {
        last.0 = Int::st(2);
    }
}

/// [`coalesce`] of the layout whose leaves are `pairs` (`display` builds that layout, only for
/// the error message of an empty one), as flat modes.
pub(crate) fn coalesce_pairs(pairs: Pairs, display: impl FnOnce() -> String) -> Result<Coalesced> {
    if pairs.is_empty() {
        return Err(no_leaves(display()));
    }
    bw_coalesce_in_place(pairs)
}

/// [`coalesce_pairs`] in place on a slice (no error message: the caller's modes are never empty):
/// the result's modes, borrowed from it.
pub(crate) fn coalesce_slice(modes: &mut [(Int, Int)]) -> Result<ModesRef<'_>> {
    if modes.is_empty() {
        return Err(no_leaves(String::new()));
    }
    let (start, tuple) = bw_walk(modes)?;
    Ok(ModesRef { modes: &modes[start..], tuple })
}

/// Apply `f` to the first `profile.rank()` modes of `layout` (paired with the profile's modes) and
/// keep the remaining modes: CuTe's `transform_layout(layout, profile, f)`.
pub(crate) fn by_mode<P: IntoIterator>(
    layout: &Layout,
    profile: P,
    what: &'static str,
    mut f: impl FnMut(&Layout, P::Item) -> Result<Layout>,
) -> Result<Layout>
where
    P::IntoIter: ExactSizeIterator,
{
    let (sm, dm) = (layout.shape.modes(), layout.stride.modes());
    let mut profile = profile.into_iter();
    if profile.len() > sm.len() {
        return Err(Error::Rejected {
            condition: "tuple_size<IntTuple>::value <= Layout::rank",
            detail: format!("{what}: profile of rank {} for {layout}", profile.len()),
        });
    }
    // make_layout of the modes, each result moved in (not cloned as Layout::concat would).
    let (mut shape, mut stride) = (Builder::new(), Builder::new());
    for (s, d) in sm.iter().zip(dm) {
        if let Some(p) = profile.next() {
            let r = f(&Layout { shape: s.to_owned(), stride: d.to_owned() }, p)?;
            shape.push(&r.shape);
            stride.push(&r.stride);
        } else {
            shape.push(s);
            stride.push(d);
        }
    }
    Ok(Layout { shape: shape.finish(), stride: stride.finish() })
}

/// CuTe's `coalesce(layout, trg_profile)`: coalesce each mode selected by a tuple profile.
pub fn coalesce_by(layout: &Layout, profile: &Tup) -> Result<Layout> {
    match profile.view() {
        View::Leaf(_) => coalesce(layout),
        View::Tuple(p) => by_mode(layout, p, "coalesce", coalesce_by),
    }
}

/// CuTe's `coalesce(shape)` for an int tuple: flatten, then multiply neighbours that are both
/// static or both dynamic. A leaf stays a leaf; the result is a leaf when everything merged.
pub fn coalesce_shape(shape: &Tup) -> Result<IntTuple> {
    if !shape.is_tuple() {
        return Ok(shape.to_owned());
    }
    let mut leaves = shape.leaf_iter();
    let Some(first) = leaves.next() else {
        return Ok(shape.to_owned());
    };
    let mut acc: smallvec::SmallVec<[Int; 8]> = smallvec::smallvec![first];
    for a in leaves {
        let back = acc.last_mut().expect("non-empty");
        if back.is_static == a.is_static {
            *back = back.mul(a)?;
        } else {
            acc.push(a);
        }
    }
    Ok(if acc.len() == 1 { IntTuple::leaf(acc[0]) } else { IntTuple::of_leaves(acc) })
}

/// Check the numbered postconditions of `coalesce(layout) == result` (CuTe's first, see the
/// module doc for the sources).
pub fn check_postconditions(layout: &Layout, result: &Layout) -> Checked {
    let (n, m) = (layout.size()?, result.size()?);
    if n.value != m.value {
        return Err(Violation::cute(
            CITE_SIZE,
            format!("1: size({result}) = {} but size({layout}) = {}", m.value, n.value),
        ));
    }
    if result.depth() > 1 {
        return Err(Violation::cute(CITE_DEPTH, format!("2: depth({result}) > 1")));
    }
    if !super::fast::same_function(layout, result) {
        // No certificate (fast.rs): walk both.
        for (i, (a, b)) in layout.walk()?.zip(result.walk()?).enumerate() {
            if a != b {
                return Err(Violation::cute(CITE_VALUES, format!("3: {result}({i}) = {b} but {layout}({i}) = {a}")));
            }
        }
    }
    let trivial = result.shape == IntTuple::st(1) && result.stride == IntTuple::st(0);
    if !trivial {
        let pairs = result.leaf_pairs();
        if let Some((s, _)) = pairs.iter().find(|(s, _)| s.is_static_value(1)) {
            return Err(Violation::ours(OURS_MINIMAL, format!("4: {result} keeps a static mode {s}")));
        }
        for w in pairs.windows(2) {
            let ((s0, d0), (s1, d1)) = (w[0], w[1]);
            let prod = s0.mul(d0)?;
            if s1.is_static && prod.is_static && d1.is_static && prod.value == d1.value {
                return Err(Violation::ours(
                    OURS_MINIMAL,
                    format!("4: modes {s0}:{d0} and {s1}:{d1} of {result} are statically mergeable"),
                ));
            }
        }
    }
    Ok(())
}

const CITE_SIZE: &str = "test/unit/cute/core/coalesce.cpp (ASSERT_EQ(size(coalesce_layout), size(layout))); layout.hpp @post size(result) == size(layout)";
const CITE_DEPTH: &str = "test/unit/cute/core/coalesce.cpp (CUTE_STATIC_ASSERT_V(depth(coalesce_layout) <= Int<1>{})); layout.hpp @post depth(result) <= 1";
const CITE_VALUES: &str = "test/unit/cute/core/coalesce.cpp (EXPECT_EQ(coalesce_layout(i), layout(i)) for i < size(layout)); layout.hpp @post layout(i) == result(i)";
const OURS_MINIMAL: &str =
    "CuTe's tests do not require the result to be fully coalesced; the engine's model of CuTe's walk does";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    #[test]
    fn chapter_cases() {
        // The chapter's table (and real CuTe 4.2): static merges, dynamic only flattens.
        for (input, want) in [("(_2,(_1,_6)):(_1,(_6,_2))", "_12:_1"), ("(2,(1,6)):(1,(6,2))", "(2,1,6):(1,6,2)")] {
            let a = l(input);
            let r = coalesce(&a).unwrap();
            assert_eq!(r.to_string(), want);
            check_postconditions(&a, &r).unwrap();
        }
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..Default::default() })]

        /// The stack path and the small path (inside `coalesce`) answer exactly as the general
        /// one (errors included), and the stack path answers every layout of at most 8 leaves
        /// with 32-bit values.
        #[test]
        fn the_stack_path_is_the_general_path(
            a in prop_oneof![
                Just(crate::gen::Staticness::AllStatic),
                Just(crate::gen::Staticness::AllDynamic),
                Just(crate::gen::Staticness::Mixed),
            ].prop_flat_map(|st| crate::gen::layout(3, 40, 1 << 27, st)),
        ) {
            prop_assert_eq!(coalesce(&a), coalesce_modes(&a).map(|c| c.to_layout()), "{}", a);
            prop_assert_eq!(stack_leaves(&a, &mut [(Int::st(0), Int::st(0)); STACK]).is_some(), a.shape.leaf_count() <= STACK);
            // with_coalesce: each walk on the stack gives the general path's modes and errors.
            for (w, general) in [(Walk::Coalesce, coalesce_modes(&a)), (Walk::CoalesceX, coalesce_x_modes(&a))] {
                let general = general.map(|c| (c.modes.to_vec(), c.tuple));
                prop_assert_eq!(with_coalesce(&a, w, |m| Ok((m.modes.to_vec(), m.tuple))), general, "{}", a);
            }
            let general = crate::filter::filter_modes(&a).map(|c| (c.modes.to_vec(), c.tuple));
            let on_stack = crate::filter::with_filter(&a, |m| Ok((m.modes.to_vec(), m.tuple)));
            prop_assert_eq!(on_stack, general, "filter {}", a);
        }
    }

    #[test]
    fn coalesce_x_keeps_the_function_outside_the_domain() {
        // Real CuTe 4.2 (g++ probe of detail::coalesce_x): (_4,_1):(_1,_0) -> (_4,_2):(_1,_0) and
        // _1:_5 -> _2:_5, while coalesce((_4,_1):(_1,_0)) = _4:_1.
        let a = l("(_4,_1):(_1,_0)");
        let x = coalesce_x(&a).unwrap();
        assert_eq!(x.to_string(), "(_4,_2):(_1,_0)");
        assert_eq!(coalesce_x(&l("_1:_5")).unwrap().to_string(), "_2:_5");
        for i in 0..8 {
            assert_eq!(x.call_int(Int::dy(i)).unwrap().value, a.call_int(Int::dy(i)).unwrap().value);
        }
    }
}
