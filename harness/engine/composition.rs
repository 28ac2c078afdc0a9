//! `composition(A, B)`: the layout `R = A o B` (layout.hpp).
//!
//! Definition: `R(c) = A(B(c))` for every coordinate `c` of `B`, with `R`'s shape compatible with
//! `B`'s. `A` is read as a function on all integers (its last mode extends past its size, as CuTe's
//! `crd2idx` does).
//!
//! How CuTe 4.2 computes it (and so how the engine does, static-ness included):
//! - `A` is replaced by `coalesce_x(A)` (see `coalesce`).
//! - `B` is split mode by mode (right distributivity): a tuple `B` gives the tuple of the
//!   compositions with its modes; a mode `s:_0` (static zero) is returned as is; if `coalesce_x(A)`
//!   is a single mode `n:d`, the result is `s:(t*d)`.
//! - Otherwise a leaf `s:t` walks the flat modes `n_i:d_i` of `A` except the last, keeping a rest
//!   shape `s` and rest stride `t`: `next_shape = ceil_div(n_i, |t|)`,
//!   `next_stride = ceil_div(|t|, n_i) * signum(t)`; if `next_shape` or `s` is the static `_1` only
//!   the stride advances, otherwise the mode `min(next_shape, s) : t*d_i` is emitted and
//!   `s /= min(...)`. The remaining `s : t*d_last` closes the result (dropped if `s` is a static
//!   `_1`; a result of one mode is unwrapped).
//! - CuTe checks, only where both operands are static: "Stride Divisibility Condition"
//!   `t % n_i == 0 or t < n_i`, and "Shape Divisibility Condition" `s % min(...) == 0`. These are
//!   the engine's [`Error::StrideDivisibility`] and [`Error::ShapeDivisibility`]. With dynamic
//!   values CuTe checks nothing.
//!
//! A tiler `B` (see [`Tiler`]) composes by mode: a tuple tiler composes mode `i` of `A` with
//! element `i` and **drops** `A`'s modes beyond the tiler; `_` returns `A`; an integer `n` is
//! composed as the layout `n:_1`, even for `_1` (real CuTe 4.2: `composition(make_layout((4,2)),_1)`
//! is `_1:4`), whereas the divides and products use `make_layout(n)` (`_1:_0` for `_1`).
//!
//! Postconditions (checked by [`check_postconditions`]; both are CuTe's own, so a result of CuTe's
//! algorithm that violates one is refused with [`Error::Undefined`], never returned):
//! 1. `R(c) == A(B(c))` for every `0 <= c < size(B)` (1-D coordinates of `B`) [CuTe:
//!    composition.cpp `EXPECT_EQ(layoutR(c), layoutA(layoutB(c)))`; layout.hpp
//!    `@post result(c) = lhs(rhs(c))`].
//! 2. `shape(R)` is compatible with `shape(B)`: same size, and where `B` has a tuple mode `R`
//!    has a tuple mode of the same rank whose modes are compatible in turn [CuTe: composition.cpp
//!    `EXPECT_TRUE(compatible(layoutB, layoutR))`; layout.hpp `@post compatible(rhs, result)`].
//!
//! For a tiler ([`check_tiler`]): the same mode by mode, `_` keeps the mode [CuTe: layout.hpp's
//! `composition(layout, tiler)`, `transform_layout` by mode].
//!
//! Fast path ([`verified`], used by every checked entry point): the brute-force check is skipped
//! when the certificate [`super::fast::composition_ok`] holds, otherwise it runs as before. The
//! certificate: postcondition 2 holds (checked exactly); for every leaf `s:t` of `B` (`t >= 0`)
//! the walk over `A`'s flat leaves only meets steps where the rest stride and the leaf's extent
//! divide one another and the rest extent is divisible by what is taken, so `A(c*t)` is exactly a
//! flat layout `L` of the taken pieces; `R`'s part for that leaf equals `L` after dropping
//! extent-1 modes and merging `n:d, n':n*d` neighbours; and the largest digits that the leaves of
//! `B` put on each leaf of `A` sum to less than its extent (no carries), so `A` is additive over
//! `B(c) = sum_k c_k t_k` and `R(c) = sum_k L_k(c_k) = A(B(c))` (postcondition 1). Overflow of the
//! brute-force evaluation is excluded by a checked bound. Full argument: `fast.rs`. Where the
//! certificate does not apply, the walk of [`check_postconditions`] skips the boxes of coordinates
//! on which `A` is provably affine with `R`'s slopes and agrees with `R` at a corner, and checks
//! every other coordinate as before, in order (`walk.rs`), so its answer and error are unchanged.

use super::coalesce::{bw_coalesce_modes, with_coalesce, ModesRef, Walk};
use super::error::{Error, Result};
use super::int::{int32, Int, IntResult};
use super::int_tuple::{compatible, IntTuple, TreeWriter, Tup, View};
use super::layout::{Layout, MAX_WALK};
use super::postcondition::{cite, enforce, Checked, Violation};
use super::release::{COMPOSITION_COALESCES_LHS, COMPOSITION_WEAK_DIVISIBILITY, INTEGER_TILER_COMPOSES_AT_STRIDE_1};
use super::runtime::{checks_on, deferred, rt};
use super::tiler::Tiler;

fn sign(i: Int) -> Int {
    Int::new(i.value.signum(), i.is_static)
}

/// `detail::composition_impl` on a coalesced `A` (flat modes) and `B`'s shape/stride.
pub(crate) fn composition_impl(a: ModesRef<'_>, rs: &Tup, rd: &Tup) -> Result<Layout> {
    let mut out = Out { shape: TreeWriter::new(), stride: TreeWriter::new() };
    compose(a, rs, rd, &mut out)?;
    Ok(Layout { shape: out.shape.finish(), stride: out.stride.finish() })
}

/// The composition with `B`'s shape/stride `rs:rd`, written to `out` as one element.
fn compose(a: ModesRef<'_>, rs: &Tup, rd: &Tup, out: &mut Out) -> Result<()> {
    match (rs.view(), rd.view()) {
        (View::Leaf(s), View::Leaf(t)) => compose_leaf(a, s, t, out),
        (View::Tuple(_), View::Tuple(_)) => compose_tuple(a, rs, rd, out),
        _ => Err(Error::MismatchedRanks { detail: format!("shape {rs} vs stride {rd}") }),
    }
}

/// The result's shape and stride, written in preorder as `B` is walked.
struct Out {
    shape: TreeWriter,
    stride: TreeWriter,
}

impl Out {
    fn leaf(&mut self, s: Int, d: Int) {
        self.shape.leaf(s);
        self.stride.leaf(d);
    }
}

/// A tuple `B`: the tuple of the compositions with its modes (right distributivity).
fn compose_tuple(a: ModesRef<'_>, rs: &Tup, rd: &Tup, out: &mut Out) -> Result<()> {
    let (View::Tuple(ss), View::Tuple(dd)) = (rs.view(), rd.view()) else { unreachable!("two tuples") };
    // Every mode is instantiated by the compiler: a compile-time condition failing in any mode
    // wins over a run-time failure (or a rank mismatch) in an earlier one.
    let compile_time = |e: &Error| matches!(e, Error::StrideDivisibility { .. } | Error::ShapeDivisibility { .. });
    let (at_s, at_d) = (out.shape.open(), out.stride.open());
    let mut first_err = None;
    for (s, d) in ss.iter().zip(dd) {
        match compose(a, s, d, out) {
            Ok(()) => {}
            Err(e) if compile_time(&e) => return Err(e),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    out.shape.close(at_s, ss.len());
    out.stride.close(at_d, ss.len());
    first_err.map_or(Ok(()), Err)
}

/// The composition with one leaf `s:t` of `B`, written to `out` as one element (a leaf mode or a
/// tuple of them); on an error `out` is left part-written (the whole result is then dropped).
fn compose_leaf(a: ModesRef<'_>, s: Int, t: Int, out: &mut Out) -> Result<()> {
    if t.is_static_value(0) {
        out.leaf(s, t);
        return Ok(());
    }
    if !COMPOSITION_COALESCES_LHS.on() && !a.tuple {
        // Before 3.5 the integral-lhs shortcut tests `flatten(lhs.shape())`, a value: it fires.
        out.leaf(s, t.mul(a.modes[0].1)?);
        return Ok(());
    }
    if !COMPOSITION_WEAK_DIVISIBILITY.on() {
        // Before 4.2 the integral-lhs shortcut never fired (it tested `is_integral` of a reference
        // type), so a one-mode A goes through the general walk too: `_1:d` comes out as `_1:_0`.
        let l = composition_leaf_shape_div(a, s, t)?;
        out.shape.push(&l.shape);
        out.stride.push(&l.stride);
        return Ok(());
    }
    if !a.tuple {
        out.leaf(s, t.mul(a.modes[0].1)?);
        return Ok(());
    }
    let modes = a.modes;
    let r = modes.len();
    // The element opens as a tuple; its length is known only at the end (or it is unwrapped).
    let (at_s, at_d) = (out.shape.open(), out.stride.open());
    let mut emitted = 0;
    let (mut rest_s, mut rest_d) = (s, t);
    // A failure of dynamic arithmetic (CuTe: a crash at run time) is kept until the walk ends, so
    // that a later compile-time condition (a static_assert) is reported first, as the compiler does.
    let mut runtime: Option<Error> = None;
    let mut rt = |r: IntResult<Int>, x: Int, y: Int| match rt(r, x, y) {
        Err(e) if !(x.is_static && y.is_static) => {
            runtime.get_or_insert(e);
            Ok(Int::dy(1))
        }
        other => other,
    };
    for &(cs, cd) in &modes[..r - 1] {
        if cs.is_static && rest_d.is_static {
            let ok = rest_d.rem(cs)?.value == 0 || rest_d.value < cs.value;
            if !ok {
                return Err(Error::StrideDivisibility {
                    detail: format!("stride {rest_d} against extent {cs} of {}", a.to_layout()),
                });
            }
        }
        let abs_d = rest_d.abs()?;
        let next_shape = rt(cs.ceil_div(abs_d), cs, abs_d)?;
        let next_stride = rt(abs_d.ceil_div(cs), abs_d, cs)?.mul(sign(rest_d))?;
        if next_shape.is_static_value(1) || rest_s.is_static_value(1) {
            rest_d = next_stride;
        } else {
            let new_shape = next_shape.min(rest_s);
            if new_shape.is_static && rest_s.is_static && rest_s.rem(new_shape)?.value != 0 {
                return Err(Error::ShapeDivisibility {
                    detail: format!(
                        "extent {rest_s} is not divisible by {new_shape} (composing {} with {s}:{t})",
                        a.to_layout()
                    ),
                });
            }
            out.leaf(new_shape, rest_d.mul(cd)?);
            emitted += 1;
            rest_s = rt(rest_s.div(new_shape), rest_s, new_shape)?;
            rest_d = next_stride;
        }
    }
    if let Some(e) = runtime {
        return Err(e);
    }
    let last_d = modes[r - 1].1;
    if emitted == 0 {
        // Only the last mode: a leaf (the opened tuple is dropped).
        out.shape.unwrap_at(at_s);
        out.stride.unwrap_at(at_d);
        out.leaf(rest_s, rest_d.mul(last_d)?);
    } else if rest_s.is_static_value(1) {
        if emitted == 1 {
            out.shape.unwrap_at(at_s);
            out.stride.unwrap_at(at_d);
        } else {
            out.shape.close(at_s, emitted);
            out.stride.close(at_d, emitted);
        }
    } else {
        out.leaf(rest_s, rest_d.mul(last_d)?);
        out.shape.close(at_s, emitted + 1);
        out.stride.close(at_d, emitted + 1);
    }
    Ok(())
}

/// CuTe before 3.9 (3.5.1 to 3.8): `shape_div(a, b)` on integers. Both static: `static_assert(a % b
/// == 0 || b % a == 0, "Static shape_div failure")`; then `a / b`, rounded away from zero to
/// `signum(a) * signum(b)` when the quotient is 0.
fn shape_div_int(a: Int, b: Int, mut rt: impl FnMut(IntResult<Int>, Int, Int) -> Result<Int>) -> Result<Int> {
    if a.is_static && b.is_static {
        if b.value == 0 {
            return Err(Error::DivisionByZero);
        }
        // a % b == 0 covers a == 0, so b % a is only taken for a != 0.
        if a.value % b.value != 0 && b.value % a.value != 0 {
            return Err(Error::Rejected {
                condition: "Static shape_div failure",
                detail: format!("shape_div({a}, {b})"),
            });
        }
    }
    let q = rt(a.div(b), a, b)?;
    if q.value != 0 || (q.is_static_value(0) && a.is_static_value(0)) {
        return Ok(q);
    }
    Ok(Int::new(a.value.signum() * b.value.signum(), q.is_static))
}

/// CuTe before 3.9: `shape_div(a, b)` on integers, as [`shape_div_int`] (for upcast).
pub(crate) fn shape_div(a: Int, b: Int) -> Result<Int> {
    shape_div_int(a, b, |q, _, _| Ok(q?))
}

/// CuTe before 3.9: `shape_min(a, b)`: a static `_1` on either side wins, else the minimum.
pub(crate) fn shape_min(a: Int, b: Int) -> Int {
    if a.is_static_value(1) || b.is_static_value(1) {
        Int::st(1)
    } else {
        a.min(b)
    }
}

/// composition_impl's leaf case before 3.9 ([`COMPOSITION_WEAK_DIVISIBILITY`] off), on the flat
/// modes of `coalesce_x(A)` (a tuple) and the leaf `s:t` of B (`t` not a static zero).
fn composition_leaf_shape_div(a: ModesRef<'_>, s: Int, t: Int) -> Result<Layout> {
    let modes = a.modes;
    let r = modes.len();
    let (init, last) = (&modes[..r - 1], modes[r - 1]);
    // A failure of dynamic arithmetic (CuTe: a crash at run time) waits for the compile-time checks.
    let mut runtime: Option<Error> = None;
    let mut rt = |r: IntResult<Int>, x: Int, y: Int| match rt(r, x, y) {
        Err(e) if !(x.is_static && y.is_static) => {
            runtime.get_or_insert(e);
            Ok(Int::dy(1))
        }
        other => other,
    };
    // Divide out B's stride from A's extents (skipped when it is a static _1), scaling A's strides.
    let (shapes, strides, rest_d) = if t.is_static_value(1) {
        (init.iter().map(|m| m.0).collect::<Vec<_>>(), init.iter().map(|m| m.1).collect::<Vec<_>>(), t)
    } else {
        let mut rest_d = t;
        let (mut shapes, mut strides) = (Vec::with_capacity(r), Vec::with_capacity(r));
        for &(c, d) in init {
            let c1 = shape_div_int(c, rest_d, &mut rt)?;
            rest_d = shape_div_int(rest_d, c, &mut rt)?;
            strides.push(d.mul(shape_div_int(c, c1, &mut rt)?)?);
            shapes.push(c1);
        }
        (shapes, strides, rest_d)
    };
    // Mod out B's extent.
    let mut rest_s = s;
    let mut pairs = Vec::with_capacity(r);
    for (c, d) in shapes.into_iter().zip(strides) {
        let c = c.abs()?;
        pairs.push((shape_min(c, rest_s), d));
        rest_s = shape_div_int(rest_s, c, &mut rt)?;
    }
    if let Some(e) = runtime {
        return Err(e);
    }
    let front = (rest_s, rest_d.mul(last.1)?);
    Ok(bw_coalesce_modes(&pairs, front)?.to_layout())
}

/// CuTe's algorithm for `composition(A, B)` without the definition check (what CuTe prints, or
/// CuTe's compile-time refusal).
pub fn composition_unchecked(a: &Layout, b: &Layout) -> Result<Layout> {
    if let Some(r) = SmallA::new(a, false).and_then(|sa| sa.compose(&[Operand::Layout(b)], false, false)) {
        return Ok(r);
    }
    general_unchecked(a, b)
}

/// [`composition_unchecked`] without the small path.
fn general_unchecked(a: &Layout, b: &Layout) -> Result<Layout> {
    with_lhs(a, |ax| composition_impl(ax, &b.shape, &b.stride))
}

/// `f` on the left-hand side as composition_impl reads it: `coalesce_x(A)`, before 3.5
/// `flatten(A)` ([`COMPOSITION_COALESCES_LHS`]).
fn with_lhs<T>(a: &Layout, f: impl FnOnce(ModesRef<'_>) -> Result<T>) -> Result<T> {
    if COMPOSITION_COALESCES_LHS.on() {
        return with_coalesce(a, Walk::CoalesceX, f);
    }
    let leaves = a.leaf_pairs();
    f(ModesRef { modes: &leaves, tuple: a.shape.is_tuple() })
}

/// `composition(A, B)` for two layouts; refuses results that violate the definition.
pub fn composition(a: &Layout, b: &Layout) -> Result<Layout> {
    if checks_on() {
        if let Some(r) = SmallA::new(a, false).and_then(|sa| sa.compose(&[Operand::Layout(b)], false, true)) {
            return Ok(r);
        }
    }
    general(a, b)
}

/// [`composition`] without the small path.
fn general(a: &Layout, b: &Layout) -> Result<Layout> {
    let r = deferred(|| general_unchecked(a, b))?;
    verify(a, b, &r)?;
    Ok(r)
}

/// Most leaves of `A` the small path ([`SmallA`]) takes.
const SMALL: usize = 8;

/// [`Int::mul`] on static values: a zero factor gives zero, else the checked product.
fn mul(x: i64, y: i64) -> Option<i64> {
    if x == 0 || y == 0 {
        return Some(0);
    }
    int32(x.checked_mul(y))
}

/// [`Int::ceil_div`] on static values (`None` for a zero divisor, as CuTe's division by zero).
fn ceil_div(x: i64, y: i64) -> Option<i64> {
    if y == 0 {
        return None;
    }
    int32(x.checked_add(y)?.checked_sub(1)?.checked_div(y))
}

/// The small path: CuTe's algorithm (the 4.2 walk of [`compose_leaf`], on `coalesce_x(A)`) and the
/// composition certificate (`fast::CompState`, fed leaf by leaf with the modes just computed) on
/// plain integers in stack arrays, for the common case: `A` of at most [`SMALL`] leaves and `B` of
/// 32-bit leaves, all static, `B`'s extents at least 1 and strides at least 0. Every value is then
/// static, so CuTe's static-ness rules reduce to the values. Anything else along the way (a
/// divisibility condition, a zero divisor, a value leaving CuTe's 32-bit range, a release model
/// before 3.9) hands the case back (`None`) to the general path, which computes it, or its error,
/// as before; where the small path answers, it answers the same (property test below).
pub(crate) struct SmallA {
    /// `A`'s leaves (the certificate reads `A` itself).
    pa: [(i64, i64); SMALL],
    npa: usize,
    /// `coalesce_x(A)`: its modes `ax[ax_lo..ax_hi]` and whether it is a tuple.
    ax: [(i64, i64); SMALL],
    ax_lo: usize,
    ax_hi: usize,
    ax_tuple: bool,
    /// The extents of `coalesce(A)` (its shape's leaves), where asked for ([`SmallA::new`]).
    cot: [i64; SMALL],
    ncot: usize,
}

/// An operand `B` of [`SmallA::compose`]: a layout, or flat static modes (one is a leaf mode).
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    Layout(&'a Layout),
    Modes(&'a [(i64, i64)]),
}

/// The result of [`SmallA::compose`], written in preorder as `B` is walked, with the tuples
/// still open: (where in the shape, where in the stride, elements, elements left).
pub(crate) struct Writer {
    shape: TreeWriter,
    stride: TreeWriter,
    open: arrayvec::ArrayVec<(usize, usize, usize, usize), 16>,
}

impl Writer {
    pub(crate) fn new() -> Writer {
        Writer { shape: TreeWriter::new(), stride: TreeWriter::new(), open: arrayvec::ArrayVec::new() }
    }
    /// The layout written (every tuple closed).
    pub(crate) fn finish(self) -> Layout {
        Layout { shape: self.shape.finish(), stride: self.stride.finish() }
    }
    /// A whole element, as it is.
    pub(crate) fn push(&mut self, shape: &Tup, stride: &Tup) {
        self.shape.push(shape);
        self.stride.push(stride);
        self.ended();
    }
    /// The layout `other` wrote (complete), as one element.
    pub(crate) fn append(&mut self, other: &Writer) {
        self.push(other.shape.as_tup(), other.stride.as_tup());
    }
    /// A tuple of `n` elements opens.
    pub(crate) fn open(&mut self, n: usize) -> Option<()> {
        let at = (self.shape.open(), self.stride.open());
        self.open.try_push((at.0, at.1, n, n)).ok()
    }
    /// An element ended: close every tuple it completes.
    fn ended(&mut self) {
        while let Some(top) = self.open.last_mut() {
            top.3 -= 1;
            if top.3 > 0 {
                break;
            }
            let (at_s, at_d, n, _) = self.open.pop().expect("non-empty");
            self.shape.close(at_s, n);
            self.stride.close(at_d, n);
        }
    }
}

impl SmallA {
    /// `A`'s leaves and `coalesce_x(A)` (and with `cot`, `coalesce(A)`'s extents), where the small
    /// path applies to `A`.
    #[inline(always)]
    pub(crate) fn new(a: &Layout, cot: bool) -> Option<SmallA> {
        SmallA::of(&a.shape, &a.stride, cot)
    }

    /// [`SmallA::new`] for the layout `shape:stride` (a mode of a layout, borrowed).
    #[inline(always)]
    pub(crate) fn of(shape: &Tup, stride: &Tup, cot: bool) -> Option<SmallA> {
        if !COMPOSITION_WEAK_DIVISIBILITY.on() {
            return None;
        }
        // The arrays are filled here, element by element (copies of whole arrays are calls).
        let mut sa = SmallA {
            pa: [(0, 0); SMALL],
            npa: 0,
            ax: [(0, 0); SMALL],
            ax_lo: 0,
            ax_hi: 0,
            ax_tuple: false,
            cot: [0; SMALL],
            ncot: 0,
        };
        let mut c = [(0i64, 0i64); SMALL];
        let mut k = 0;
        for step in shape.zip_steps(stride)? {
            if let super::int_tuple::Step::Leaf(s, d) = step {
                if !s.is_static || !d.is_static || k == SMALL {
                    return None;
                }
                sa.pa[k] = (s.value, d.value);
                sa.ax[k] = (s.value, d.value);
                c[k] = (s.value, d.value);
                k += 1;
            }
        }
        if k == 0 {
            return None;
        }
        sa.npa = k;
        // coalesce_x: a static `_1` last leaf starts the front as `_2`; then coalesce's walk.
        if sa.ax[k - 1].0 == 1 {
            sa.ax[k - 1].0 = 2;
        }
        let (w, ax_tuple) = super::coalesce::bw_walk_static(&mut sa.ax[..k])?;
        (sa.ax_lo, sa.ax_hi, sa.ax_tuple) = (w, k, ax_tuple);
        if cot {
            let (w, _) = super::coalesce::bw_walk_static(&mut c[..k])?;
            for (j, m) in c[w..k].iter().enumerate() {
                sa.cot[j] = m.0;
            }
            sa.ncot = k - w;
        }
        Some(sa)
    }

    /// The extents of `coalesce(A)` (asked for from [`SmallA::new`]).
    pub(crate) fn coalesced_extents(&self) -> &[i64] {
        &self.cot[..self.ncot]
    }

    /// `A o B` for `bs = [B]` (`pair` false), or `A o (B, C)` for `bs = [B, C]` (`pair` true: the
    /// divides' `(B, C)`, never built); with `certify`, only where the composition certificate
    /// holds (the result is then what the checked path returns).
    pub(crate) fn compose(&self, bs: &[Operand<'_>], pair: bool, certify: bool) -> Option<Layout> {
        let mut cert = if certify { Some(self.certificate()?) } else { None };
        let mut w = Writer::new();
        if pair {
            w.open(bs.len())?;
        }
        for &b in bs {
            self.compose_into(b, &mut cert, &mut w)?;
        }
        if let Some(cert) = &cert {
            cert.finish()?;
        }
        Some(w.finish())
    }

    /// The composition certificate's state before `B`'s first leaf (`None`: it does not apply).
    pub(crate) fn certificate(&self) -> Option<super::fast::CompState<'_>> {
        super::fast::CompState::new(&self.pa[..self.npa])
    }

    /// `A o b` written to `w` as one element, its leaves fed to `cert`.
    pub(crate) fn compose_into(
        &self,
        b: Operand<'_>,
        cert: &mut Option<super::fast::CompState<'_>>,
        w: &mut Writer,
    ) -> Option<()> {
        match b {
            Operand::Layout(b) => {
                for step in b.shape.zip_steps(&b.stride)? {
                    match step {
                        super::int_tuple::Step::Open(0) => return None,
                        super::int_tuple::Step::Open(n) => w.open(n)?,
                        super::int_tuple::Step::Leaf(s, t) => {
                            if !s.is_static || !t.is_static {
                                return None;
                            }
                            self.write_leaf(s.value, t.value, cert, w)?;
                        }
                    }
                }
            }
            Operand::Modes(m) => {
                if m.len() != 1 {
                    w.open(m.len())?;
                }
                for &(s, t) in m {
                    self.write_leaf(s, t, cert, w)?;
                }
            }
        }
        Some(())
    }

    /// `A` composed with the static leaf `s:t` of `B` (extent at least 1, stride at least 0): `R`'s
    /// element there written to `w`, and fed to the certificate.
    #[inline(always)]
    fn write_leaf(&self, s: i64, t: i64, cert: &mut Option<super::fast::CompState<'_>>, w: &mut Writer) -> Option<()> {
        if s < 1 || t < 0 {
            return None;
        }
        let mut m = [(0i64, 0i64); SMALL + 1];
        let (n, tuple) = self.leaf(s, t, &mut m)?;
        let m = &m[..n];
        if let Some(cert) = cert.as_mut() {
            cert.leaf(Int::st(s), Int::st(t), m)?;
        }
        if tuple {
            let at = (w.shape.open(), w.stride.open());
            for &(x, y) in m {
                w.shape.leaf(Int::st(x));
                w.stride.leaf(Int::st(y));
            }
            w.shape.close(at.0, n);
            w.stride.close(at.1, n);
        } else {
            w.shape.leaf(Int::st(m[0].0));
            w.stride.leaf(Int::st(m[0].1));
        }
        w.ended();
        Some(())
    }

    /// [`compose_leaf`] for the leaf `s:t` of `B` (4.2's walk on static values): `R`'s modes there
    /// in `m`, their number, and whether they form a tuple (else one leaf mode).
    #[inline(always)]
    fn leaf(&self, s: i64, t: i64, m: &mut [(i64, i64); SMALL + 1]) -> Option<(usize, bool)> {
        if t == 0 {
            m[0] = (s, 0);
            return Some((1, false));
        }
        let ax = &self.ax[self.ax_lo..self.ax_hi];
        if !self.ax_tuple {
            m[0] = (s, mul(t, ax[0].1)?);
            return Some((1, false));
        }
        let r = ax.len();
        let mut k = 0;
        let (mut rest_s, mut rest_d) = (s, t);
        for &(cs, cd) in &ax[..r - 1] {
            // Stride Divisibility Condition (a zero extent is a division by zero).
            let rem = if rest_d == 0 || cs == 1 || cs == -1 { 0 } else { rest_d.checked_rem(cs)? };
            if rem != 0 && rest_d >= cs {
                return None;
            }
            let abs_d = int32(rest_d.checked_abs())?;
            let next_shape = ceil_div(cs, abs_d)?;
            let next_stride = mul(ceil_div(abs_d, cs)?, rest_d.signum())?;
            if next_shape == 1 || rest_s == 1 {
                rest_d = next_stride;
            } else {
                let new_shape = next_shape.min(rest_s);
                // Shape Divisibility Condition (a zero extent is a division by zero).
                let rem =
                    if rest_s == 0 || new_shape == 1 || new_shape == -1 { 0 } else { rest_s.checked_rem(new_shape)? };
                if rem != 0 {
                    return None;
                }
                m[k] = (new_shape, mul(rest_d, cd)?);
                k += 1;
                rest_s = if rest_s == 0 { 0 } else { int32(rest_s.checked_div(new_shape))? };
                rest_d = next_stride;
            }
        }
        let last_d = ax[r - 1].1;
        if k == 0 {
            m[0] = (rest_s, mul(rest_d, last_d)?);
            return Some((1, false));
        }
        if rest_s == 1 {
            return Some((k, k > 1));
        }
        m[k] = (rest_s, mul(rest_d, last_d)?);
        Some((k + 1, true))
    }
}

/// CuTe's algorithm for `composition(A, tiler)` without the definition check.
pub fn composition_tiler_unchecked(a: &Layout, t: &Tiler) -> Result<Layout> {
    match t {
        Tiler::Layout(b) => composition_unchecked(a, b),
        Tiler::Underscore => Ok(a.clone()),
        // Before 3.4 an integer composes as make_layout(n) (`_1:_0` for `_1`):
        // [`INTEGER_TILER_COMPOSES_AT_STRIDE_1`].
        Tiler::Int(n) if !INTEGER_TILER_COMPOSES_AT_STRIDE_1.on() => {
            composition_unchecked(a, &Layout::col_major(IntTuple::leaf(*n))?)
        }
        Tiler::Int(n) => with_lhs(a, |ax| composition_impl(ax, &IntTuple::leaf(*n), &IntTuple::st(1))),
        Tiler::Tuple(items) => {
            let modes = a.modes();
            if items.len() > modes.len() {
                return Err(Error::Rejected {
                    condition: "tuple_size<Tiler>::value <= Layout::rank",
                    detail: format!("composition of {a} with a tiler of rank {}", items.len()),
                });
            }
            let parts = items
                .iter()
                .zip(&modes)
                .map(|(ti, m)| composition_tiler_unchecked(m, ti))
                .collect::<Result<Vec<_>>>()?;
            Ok(Layout::concat(&parts))
        }
    }
}

/// `composition(A, tiler)`: by-mode composition; each mode's result is checked against the
/// definition.
pub fn composition_tiler(a: &Layout, t: &Tiler) -> Result<Layout> {
    let r = deferred(|| composition_tiler_unchecked(a, t))?;
    if !checks_on() {
        return Ok(r);
    }
    walkable(&r)?;
    enforce("composition", check_tiler(a, t, &r))?;
    Ok(r)
}

/// Refuse to verify (and so to answer) when `l` has more than [`MAX_WALK`] coordinates.
pub(crate) fn walkable(l: &Layout) -> Result<()> {
    let n = l.walk_size()?;
    if n > MAX_WALK {
        return Err(Error::TooLarge(format!("{l} has {n} coordinates; the engine verifies at most {MAX_WALK}")));
    }
    Ok(())
}

fn verify(a: &Layout, b: &Layout, r: &Layout) -> Result<()> {
    if !checks_on() {
        return Ok(());
    }
    walkable(b)?;
    enforce("composition", verified(a, b, r))
}

/// [`check_postconditions`], answered in O(rank) when the analytic certificate
/// ([`super::fast::composition_ok`]) applies; the brute-force check otherwise. Same answer either way.
pub fn verified(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    if super::fast::composition_ok(a, b, r) {
        return Ok(());
    }
    check_postconditions(a, b, r)
}

/// Check the postconditions of `composition(A, tiler) == R` mode by mode (the modes of `R` match
/// the tiler's elements; `_` leaves the mode equal to `A`'s).
pub fn check_tiler(a: &Layout, t: &Tiler, r: &Layout) -> Checked {
    match t {
        Tiler::Underscore => (r == a)
            .then_some(())
            .ok_or_else(|| Violation::cute(cite::COMPOSITION_TILER, format!("_ changed {a} into {r}"))),
        Tiler::Tuple(items) => {
            if r.rank() != items.len() {
                return Err(Violation::cute(cite::COMPOSITION_TILER, format!("2: rank({r}) != rank of the tiler {t}")));
            }
            let (am, rm) = (a.modes(), r.modes());
            for (k, ti) in items.iter().enumerate() {
                check_tiler(&am[k], ti, &rm[k])?;
            }
            Ok(())
        }
        other => verified(a, &other.as_layout().expect("layout or int"), r),
    }
}

/// `A(x)` for a 1-D coordinate from `A`'s flat (extent, stride) pairs: the colexicographic split
/// of `x` in which the last leaf takes the rest (what `crd2idx` computes for an integer on any
/// nesting); `None` on overflow. A fast path for the brute-force checks.
pub fn eval_flat(pairs: &[(i64, i64)], x: i64) -> Option<i64> {
    let (mut rest, mut acc) = (x, 0i64);
    for (k, &(s, d)) in pairs.iter().enumerate() {
        let c = if k + 1 == pairs.len() || s == 0 { rest } else { rest % s };
        if k + 1 < pairs.len() && s != 0 {
            rest /= s;
        }
        acc = acc.checked_add(c.checked_mul(d)?)?;
    }
    Some(acc)
}

/// Check the numbered postconditions of `composition(A, B) == R`.
pub fn check_postconditions(a: &Layout, b: &Layout, r: &Layout) -> Checked {
    if !compatible(&b.shape, &r.shape) {
        return Err(Violation::cute(
            cite::COMPOSITION_COMPATIBLE,
            format!("2: shape of {r} is not compatible with the shape of {b}"),
        ));
    }
    let n = b.size()?.value;
    if n > MAX_WALK {
        return Err(Violation::unverifiable(format!("1: {b} has {n} coordinates, too many to verify")));
    }
    let pairs: Vec<(i64, i64)> = a.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
    // Every c in order, skipping the boxes of coordinates shown to pass (super::walk).
    super::walk::composition(
        &pairs,
        |x| eval_flat(&pairs, x),
        b,
        r,
        b.walk()?,
        r.walk()?,
        |c, bc, rc| {
            let want =
                eval_flat(&pairs, bc).ok_or_else(|| Violation::unverifiable(format!("1: {a}({bc}) overflows")))?;
            if rc != want {
                return Err(Violation::cute(
                    cite::COMPOSITION_VALUES,
                    format!("1: {r}({c}) = {rc} but {a}({b}({c})) = {a}({bc}) = {want}"),
                ));
            }
            Ok(())
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::l;

    #[test]
    fn a_walk_past_int_is_too_large_not_an_overflow() {
        // The pair (A, complement(A, size(A) * cosize(B))) of logical_product((_15,_4096):(_13,_0),
        // _4096:_-8) has 61440 * 13 * 10322236 coordinates: only the engine's check builds it,
        // so its size is the walk limit, not CuTe overflowing (CuTe 4.2 answers this product;
        // tests/cute_overflow.rs::ubsan_agrees_with_every_engine_overflow_refusal_of_random_cases
        // found it, seed 2027 random #153268).
        let pair = l("(_15,_4096,_13,_10322236):(_13,_0,_1,_195)");
        assert!(matches!(pair.size(), Err(Error::Overflow { .. })));
        assert!(matches!(walkable(&pair), Err(Error::TooLarge(_))), "{:?}", walkable(&pair));
        assert!(matches!(pair.values(), Err(Error::TooLarge(_))));
        let got = crate::logical_product::logical_product_layout(&l("(_15,_4096):(_13,_0)"), &l("_4096:_-8"));
        assert!(matches!(got, Err(Error::TooLarge(_))), "{got:?}");
        // CuTe's own computation in it is answered unchecked, as CuTe prints it.
        let c = crate::complement::complement_unchecked(
            &l("(_15,_4096):(_13,_0)"),
            Some(&IntTuple::leaf(Int::st(2012835840))),
        );
        assert_eq!(composition_unchecked(&c.unwrap(), &l("_4096:_-8")).unwrap().to_string(), "(_2,_2048):(_-8,_-195)");
    }

    #[test]
    fn chapter_cases() {
        // The chapter's table and exercise 1 (identical to real CuTe 4.2's prints).
        for (a, b, want) in [
            ("(_6,_2):(_8,_2)", "(_4,_3):(_3,_1)", "((_2,_2),_3):((_24,_2),_8)"),
            ("(_4,_8):(_8,_1)", "(_8,_4):(_4,_1)", "(_8,_4):(_1,_8)"),
            ("(_4,_8):(_8,_1)", "(_2,_8):(_2,_4)", "(_2,_8):(_16,_1)"),
            ("(_8,_8):(_8,_1)", "(_8,_4):(_1,_16)", "(_8,_4):(_8,_2)"),
        ] {
            assert_eq!(composition(&l(a), &l(b)).unwrap().to_string(), want, "composition({a},{b})");
        }
    }

    #[test]
    fn eval_flat_is_crd2idx() {
        for a in ["(4,(2,4)):(2,(1,8))", "((_2,_3),_4):((_1,_12),_2)", "(_3,(_2),_5):(_7,(_1),_0)"] {
            let a = l(a);
            let pairs: Vec<(i64, i64)> = a.leaf_pairs().iter().map(|(s, d)| (s.value, d.value)).collect();
            for x in 0..3 * a.size().unwrap().value {
                assert_eq!(eval_flat(&pairs, x), Some(a.call_int(Int::dy(x)).unwrap().value), "{a}({x})");
            }
        }
    }

    #[test]
    fn chapter_refusals() {
        // CuTe: static_assert "Shape Divisibility Condition" (chapter; real CuTe 4.2 probe).
        let e = composition(&l("(_6,_2):(_8,_2)"), &l("_4:_2")).unwrap_err();
        assert!(matches!(e, Error::ShapeDivisibility { .. }), "{e}");
        // CuTe compiles this one and prints (_2,_2):(_32,_2) (chapter; real CuTe 4.2 probe), but
        // R(2) = 2 while A(B(2)) = A(8) = 18: the engine refuses it.
        let (a, b) = (l("(_6,_2):(_8,_2)"), l("_4:_4"));
        assert_eq!(composition_unchecked(&a, &b).unwrap().to_string(), "(_2,_2):(_32,_2)");
        let e = composition(&a, &b).unwrap_err();
        assert!(matches!(e, Error::Undefined { op: "composition", .. }), "{e}");
    }

    use crate::gen::{self, Staticness};
    use proptest::prelude::*;

    fn st() -> impl Strategy<Value = Staticness> {
        prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::AllDynamic), 1 => Just(Staticness::Mixed)]
    }

    /// Operands for the small path: arbitrary layouts (strides may be zero, nested up to depth 3;
    /// mostly refused or uncertified) and compact ones with `B` scaled (the admissible common
    /// case).
    fn operands() -> impl Strategy<Value = (Layout, Layout)> {
        prop_oneof![
            st().prop_flat_map(|s| (gen::layout(3, 12, 80, s), gen::layout(3, 12, 80, s))),
            (st(), 1i64..4).prop_flat_map(|(s, k)| (gen::small_compact(4, 1, s), gen::small_compact(3, k, s))),
            (1i64..4).prop_flat_map(|k| (
                gen::layout(2, 8, 64, Staticness::AllStatic),
                gen::small_compact(4, k, Staticness::AllStatic)
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Where the small path answers, it answers as the general path: the same layout, and,
        /// where it certifies the result, the general path's certificate holds too; the checked
        /// and unchecked entry points give the general paths' layouts and errors.
        #[test]
        fn the_small_path_is_the_general_path((a, b) in operands()) {
            let unchecked = general_unchecked(&a, &b);
            if let Some(sa) = SmallA::new(&a, false) {
                for certify in [false, true] {
                    if let Some(r) = sa.compose(&[Operand::Layout(&b)], false, certify) {
                        prop_assert_eq!(Ok(r.clone()), unchecked.clone(), "composition({}, {})", a, b);
                        if certify {
                            prop_assert!(super::super::fast::composition_ok(&a, &b, &r) && walkable(&b).is_ok(), "composition({}, {}) = {}: certified by the small path only", a, b, r);
                        }
                    }
                }
            }
            prop_assert_eq!(composition_unchecked(&a, &b), unchecked);
            prop_assert_eq!(composition(&a, &b), general(&a, &b));
        }
    }
}
