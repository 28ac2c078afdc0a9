//! `make_tiled_mma(mma_atom, atom_layout_mnk[, permutation_mnk])` and the TV layouts of a
//! TiledMMA (CuTe 4.2, atom/mma_atom.hpp), computed the way CuTe computes them.
//!
//! Definitions:
//! 1. The atom layout is padded to rank 3 with `_1:_0` modes and the permutations to rank 3 with
//!    `_`; `ThrLayoutVMNK = tiled_product(ThrID, atom_layout_mnk)`: (atom thread, m, n, k) ->
//!    thread index.
//! 2. `permutation_mnk<I>` is the given permutation, or for `_` the extent
//!    `size<I>(Shape_MNK) * size<I+1>(ThrLayoutVMNK)`; `tile_size<I> = size(permutation_mnk<I>)`.
//! 3. `thrfrg_C(L)` (L an (M,N) layout): `logical_divide(L, (perm_M, perm_N))`, then
//!    `zipped_divide` by the atom's `(M:_1, N:_1)`, then mode 0 composed with the atom's `CLayout`
//!    (giving (ThrV, FrgV)), then `zipped_divide` by `(_, (ThrM:_1, ThrN:_1))`. `thrfrg_A` and
//!    `thrfrg_B` are the same over (M,K) with `ALayout` and (ThrM, ThrK), and over (N,K) with
//!    `BLayout` and (ThrN, ThrK).
//! 4. `thridx_2_thrid = composition((size(VMNK),_1):(_1,_0), right_inverse((VMNK, complement(VMNK))))`.
//! 5. `LayoutC_TV = thrfrg_C(make_layout((tile_M, tile_N))).compose(thridx_2_thrid, _)`;
//!    `LayoutA_TV` first composes the thread mode with `(_, ((ThrM,ThrN):(_1,_0), _))` so that the
//!    N threads share A, and `LayoutB_TV` with `(_, ((ThrM,ThrN):(_0,_1), _))`.
//!
//! CuTe requires the permutations to be static and the op to be instantiable: an `RS` GMMA with
//! MN-major A fails "Register source operand A must have K major layout.".

use super::mma::{check_atom, mma_atom, MmaAtom};
use crate::complement::complement;
use crate::composition::composition_tiler;
use crate::logical_divide::logical_divide;
use crate::release::{PERMUTATION_IS_THE_TILE, TILED_MMA_THREADS_WITH_COMPLEMENT, VALUE_LAYOUT_ARGUMENT_GONE};
use crate::right_inverse::right_inverse;
use crate::tiled_product::tiled_product;
use crate::zipped_divide::zipped_divide;
use crate::{Error, Int, IntTuple, Layout, Result, Tiler};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMma {
    pub atom: MmaAtom,
    /// `ThrLayoutVMNK`.
    pub thr_layout_vmnk: Layout,
    /// The permutations as given, padded to rank 3 (`_` where none was given).
    pub permutation_mnk: Vec<Tiler>,
    /// Before 3.4 ([`VALUE_LAYOUT_ARGUMENT_GONE`] off): `AtomLayoutMNK` padded to rank 3 and the
    /// third argument, CuTe 3.3's `ValLayoutMNK` (`None`: its default `Layout<Shape<_1,_1,_1>>`).
    pub old: Option<(Layout, Option<Vec<Tiler>>)>,
}

fn sz(l: &Layout, i: usize) -> Result<Int> {
    l.mode(i)?.size()
}

fn tup(items: Vec<Tiler>) -> Tiler {
    Tiler::Tuple(items)
}

impl TiledMma {
    /// CuTe's `print(TiledMMA)`, without the final newline (before 3.4: TiledThr, TiledVal,
    /// TiledPerm, TiledShape_MNK and ThrLayoutVMNK).
    pub fn print(&self) -> String {
        if let Some((thr, val)) = &self.old {
            let val = match val {
                Some(v) => Tiler::Tuple(v.clone()).to_string(),
                None => "(_1,_1,_1):(_0,_0,_0)".to_string(),
            };
            let shape = self.tile_shape().map(|t| t.to_string()).unwrap_or_default();
            return format!(
                "TiledMMA\n  TiledThr:  {thr}\n  TiledVal:  {val}\n  TiledPerm: {}\n  TiledShape_MNK: {shape}\n  ThrLayoutVMNK:  {}\n{}",
                Tiler::Tuple(self.permutation_mnk.clone()),
                self.thr_layout_vmnk,
                self.atom.print()
            );
        }
        format!(
            "TiledMMA\n  ThrLayoutVMNK:  {}\n  PermutationMNK: {}\n{}",
            self.thr_layout_vmnk,
            Tiler::Tuple(self.permutation_mnk.clone()),
            self.atom.print()
        )
    }

    /// `permutation_mnk<I>()` as a tiler.
    fn perm(&self, i: usize) -> Result<Tiler> {
        match &self.permutation_mnk[i] {
            Tiler::Underscore => {
                Ok(Tiler::Int(self.atom.shape_mnk.mode(i)?.product()?.mul(sz(&self.thr_layout_vmnk, i + 1)?)?))
            }
            t => Ok(t.clone()),
        }
    }
    /// The tiler `thrfrg_X` divides by: `permutation_mnk<I>()`; before 3.5 the permutation as
    /// given, `_` kept ([`PERMUTATION_IS_THE_TILE`]).
    pub(crate) fn divide_by(&self, i: usize) -> Result<Tiler> {
        if PERMUTATION_IS_THE_TILE.on() {
            self.perm(i)
        } else {
            Ok(self.permutation_mnk[i].clone())
        }
    }
    /// `tile_size_mnk<I>()`: `size(permutation_mnk<I>())`; before 3.5
    /// `max(size<I>(Shape_MNK) * size<I+1>(ThrLayoutVMNK), size(perm))` ([`PERMUTATION_IS_THE_TILE`]).
    pub fn tile_size(&self, i: usize) -> Result<Int> {
        let size = |t: Tiler| match t {
            Tiler::Int(n) => Ok(n),
            t => t.to_layout()?.size(),
        };
        if let Some((_, val)) = &self.old {
            // CuTe 3.3: TiledShape_MNK = atom extent x threads x size(ValLayoutMNK mode).
            let core = self.atom.shape_mnk.mode(i)?.product()?.mul(sz(&self.thr_layout_vmnk, i + 1)?)?;
            let v = match val.as_ref().map(|v| &v[i]) {
                None => Int::st(1),
                // size(_) is _0 in CuTe 3.3 (a permutation tile passed as the ValLayoutMNK).
                Some(Tiler::Underscore) => Int::st(0),
                Some(t) => size(t.clone())?,
            };
            return Ok(core.mul(v)?);
        }
        let n = size(self.perm(i)?)?;
        if PERMUTATION_IS_THE_TILE.on() || matches!(self.permutation_mnk[i], Tiler::Underscore) {
            return Ok(n);
        }
        let core = self.atom.shape_mnk.mode(i)?.product()?.mul(sz(&self.thr_layout_vmnk, i + 1)?)?;
        Ok(if core.value > n.value { core } else { n })
    }
    /// `tile_shape(mma)`: `(tile_M, tile_N, tile_K)`.
    pub fn tile_shape(&self) -> Result<IntTuple> {
        Ok(IntTuple::tuple([
            IntTuple::leaf(self.tile_size(0)?),
            IntTuple::leaf(self.tile_size(1)?),
            IntTuple::leaf(self.tile_size(2)?),
        ]))
    }

    /// `thrfrg_X` for operand `which` (0: C over (M,N), 1: A over (M,K), 2: B over (N,K)).
    pub(crate) fn thrfrg(&self, l: &Layout, which: usize) -> Result<Layout> {
        self.thrfrg_impl(l, which, true)
    }

    /// [`TiledMma::thrfrg`] without CuTe 3.3's divisibility assert of `thrfrg_C` (its
    /// `partition_shape_C` computes the shape apart, without it).
    pub(crate) fn thrfrg_shape(&self, l: &Layout, which: usize) -> Result<Layout> {
        self.thrfrg_impl(l, which, false)
    }

    fn thrfrg_impl(&self, l: &Layout, which: usize, assert_c: bool) -> Result<Layout> {
        // (tile modes, atom layout, thread modes of VMNK)
        let (m0, m1, atom_tv, t0, t1) = match which {
            0 => (0, 1, &self.atom.c, 1, 2),
            1 => (0, 2, &self.atom.a, 1, 3),
            _ => (1, 2, &self.atom.b, 2, 3),
        };
        if assert_c && self.old.is_some() && which == 0 {
            // CuTe 3.3's thrfrg_C: CUTE_STATIC_ASSERT_V(size<I>(ctensor) % size<I>(TiledShape_MNK) == 0)
            // for M and N (a zero extent fails to compile).
            for i in [0, 1] {
                let (n, t) = (sz(l, i)?, self.tile_size(i)?);
                // A run-time extent: a run-time remainder, which CUTE_STATIC_ASSERT_V cannot read.
                if t.value == 0 || n.value % t.value != 0 || (!n.is_static && !t.is_static_value(1)) {
                    return Err(Error::Rejected {
                        condition: "static_assert(size<I>(ctensor) % size<I>(TiledShape_MNK{}) == Int<0>{})",
                        detail: format!("mode {i} of {l}: extent {n}, tile {t} (CuTe 3.3's thrfrg_C)"),
                    });
                }
            }
        }
        let t_tensor = logical_divide(l, &tup(vec![self.divide_by(m0)?, self.divide_by(m1)?]))?;
        let ext = |i: usize| -> Result<Tiler> {
            Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(self.atom.shape_mnk.mode(i)?.product()?))?))
        };
        let a_tensor = zipped_divide(&t_tensor, &tup(vec![ext(m0)?, ext(m1)?]))?;
        // composition(a_tensor, (atom_tv, _)) is by mode: mode 0 composed (and verified alone, so a
        // large tensor of many atoms is still answered), mode 1 kept.
        let tv_tensor =
            Layout::concat(&[crate::composition::composition(&a_tensor.mode(0)?, atom_tv)?, a_tensor.mode(1)?]);
        let v = &self.thr_layout_vmnk;
        let thr = |i: usize| -> Result<Tiler> { Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(sz(v, i)?))?)) };
        zipped_divide(&tv_tensor, &tup(vec![Tiler::Underscore, tup(vec![thr(t0)?, thr(t1)?])]))
    }

    /// `thrfrg_X` of a layout with basis strides (an identity layout composed with a tiler, as
    /// CuTe's SM100 TMA atoms pass it, atom/copy_traits_sm100_tma.hpp): the same divides and the
    /// same composition with the atom's TV layout as [`TiledMma::thrfrg`], in the basis algebra.
    pub fn thrfrg_basis(
        &self,
        l: &crate::scaled_basis::BasisLayout,
        which: usize,
    ) -> Result<crate::scaled_basis::BasisLayout> {
        use crate::scaled_basis::{self as sb, BasisLayout};
        let (m0, m1, atom_tv, t0, t1) = match which {
            0 => (0, 1, &self.atom.c, 1, 2),
            1 => (0, 2, &self.atom.a, 1, 3),
            _ => (1, 2, &self.atom.b, 2, 3),
        };
        let t_tensor = sb::logical_divide(l, &tup(vec![self.divide_by(m0)?, self.divide_by(m1)?]))?;
        let ext = |i: usize| -> Result<Tiler> {
            Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(self.atom.shape_mnk.mode(i)?.product()?))?))
        };
        let a_tensor = sb::zipped_divide(&t_tensor, &tup(vec![ext(m0)?, ext(m1)?]))?;
        let tv_tensor = BasisLayout::concat(&[sb::composition(&a_tensor.mode(0)?, atom_tv)?, a_tensor.mode(1)?]);
        let v = &self.thr_layout_vmnk;
        let thr = |i: usize| -> Result<Tiler> { Ok(Tiler::Layout(Layout::col_major(IntTuple::leaf(sz(v, i)?))?)) };
        sb::zipped_divide(&tv_tensor, &tup(vec![Tiler::Underscore, tup(vec![thr(t0)?, thr(t1)?])]))
    }

    /// `thridx_2_thrid`: thread index -> (ThrV, ThrM, ThrN, ThrK) position.
    fn thridx_2_thrid(&self) -> Result<Layout> {
        let v = &self.thr_layout_vmnk;
        if !TILED_MMA_THREADS_WITH_COMPLEMENT.on() {
            // Before 4.2: right_inverse(ThrLayoutVMNK) alone.
            return right_inverse(v);
        }
        let full = Layout::concat(&[v.clone(), complement(v, None)?]);
        let pick = Layout {
            shape: IntTuple::tuple([IntTuple::leaf(v.size()?), IntTuple::st(1)]),
            stride: IntTuple::tuple([IntTuple::st(1), IntTuple::st(0)]),
        };
        crate::composition::composition(&pick, &right_inverse(&full)?)
    }

    /// `get_layoutC_TV()`: (thread index, value) -> column-major index of the tile_M x tile_N tile.
    pub fn layout_c_tv(&self) -> Result<Layout> {
        let refc = Layout::col_major(IntTuple::tuple([
            IntTuple::leaf(self.tile_size(0)?),
            IntTuple::leaf(self.tile_size(1)?),
        ]))?;
        let f = self.thrfrg(&refc, 0)?;
        composition_tiler(&f, &tup(vec![Tiler::Layout(self.thridx_2_thrid()?), Tiler::Underscore]))
    }

    /// `get_layoutA_TV()` (`a == true`, over tile_M x tile_K) or `get_layoutB_TV()` (over
    /// tile_N x tile_K).
    fn layout_ab_tv(&self, a: bool) -> Result<Layout> {
        let (r0, which) = if a { (0, 1) } else { (1, 2) };
        let refl = Layout::col_major(IntTuple::tuple([
            IntTuple::leaf(self.tile_size(r0)?),
            IntTuple::leaf(self.tile_size(2)?),
        ]))?;
        let f = self.thrfrg(&refl, which)?;
        let v = &self.thr_layout_vmnk;
        let (d1, d2) = if a { (1, 0) } else { (0, 1) };
        let spread = Layout {
            shape: IntTuple::tuple([IntTuple::leaf(sz(v, 1)?), IntTuple::leaf(sz(v, 2)?)]),
            stride: IntTuple::tuple([IntTuple::st(d1), IntTuple::st(d2)]),
        };
        let tile = tup(vec![Tiler::Underscore, tup(vec![Tiler::Layout(spread), Tiler::Underscore])]);
        let f = composition_tiler(&f, &tup(vec![tile, Tiler::Underscore]))?;
        composition_tiler(&f, &tup(vec![Tiler::Layout(self.thridx_2_thrid()?), Tiler::Underscore]))
    }
    pub fn layout_a_tv(&self) -> Result<Layout> {
        self.layout_ab_tv(true)
    }
    pub fn layout_b_tv(&self) -> Result<Layout> {
        self.layout_ab_tv(false)
    }
}

/// `make_tiled_mma(MMA_Atom<atom>{}, atom_layout, permutations)`; `atom_layout` None is CuTe's
/// default `Layout<Shape<_1,_1,_1>>`.
pub fn make_tiled_mma(atom: &str, atom_layout: Option<&Layout>, permutations: &[Tiler]) -> Result<TiledMma> {
    let atom_v = mma_atom(atom)?;
    // The TiledMMA holds an MMA_Atom: the atom's own refusals apply.
    check_atom(atom)?;
    let mut thr = match atom_layout {
        Some(l) => l.clone(),
        None => Layout::col_major(IntTuple::tuple([IntTuple::st(1), IntTuple::st(1), IntTuple::st(1)]))?,
    };
    // append<3>(thr_layout, Layout<_1,_0>{})
    if thr.rank() > 3 {
        return Err(Error::Rejected { condition: "TiledMMA requires rank-3 AtomLayoutMNK", detail: thr.to_string() });
    }
    if !thr.shape.is_tuple() {
        thr = Layout::concat(&[thr]);
    }
    let mut modes = thr.modes();
    while modes.len() < 3 {
        modes.push(Layout::leaf(Int::st(1), Int::st(0)));
    }
    let thr = Layout::concat(&modes);
    if permutations.len() > 3 {
        return Err(Error::Rejected {
            condition: "TiledMMA requires rank-3 PermutationMNK",
            detail: format!("{} permutations", permutations.len()),
        });
    }
    let mut perm = permutations.to_vec();
    perm.resize(3, Tiler::Underscore);
    for p in &perm {
        if !tiler_is_static(p) {
            return Err(Error::Rejected {
                condition: "TiledMMA requires static permutations of MNK.",
                detail: p.to_string(),
            });
        }
    }
    let vmnk = tiled_product(&atom_v.thr_id, &Tiler::Layout(thr.clone()))?;
    if !VALUE_LAYOUT_ARGUMENT_GONE.on() {
        // CuTe 3.3: make_tiled_mma(atom, thr_layout, val_layout, permutations); the third
        // argument is the ValLayoutMNK (append<3> with _1:_0), the permutations stay `_`.
        let val = (!permutations.is_empty()).then(|| {
            let mut v = permutations.to_vec();
            v.resize(3, Tiler::Layout(Layout::leaf(Int::st(1), Int::st(0))));
            v
        });
        let perm = vec![Tiler::Underscore; 3];
        return Ok(TiledMma { atom: atom_v, thr_layout_vmnk: vmnk, permutation_mnk: perm, old: Some((thr, val)) });
    }
    Ok(TiledMma { atom: atom_v, thr_layout_vmnk: vmnk, permutation_mnk: perm, old: None })
}

fn tiler_is_static(t: &Tiler) -> bool {
    match t {
        Tiler::Layout(l) => l.shape.is_static() && l.stride.is_static(),
        Tiler::Int(i) => i.is_static,
        Tiler::Underscore => true,
        Tiler::Tuple(v) => v.iter().all(tiler_is_static),
    }
}

#[cfg(test)]
mod tests {
    use super::super::lit;
    use super::*;

    #[test]
    fn probe_2x2_warps() {
        // From a real-CuTe 4.2 probe: make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}).
        let m =
            make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", Some(&lit::layout("(_2,_2,_1):(_1,_2,_0)").unwrap()), &[])
                .unwrap();
        assert_eq!(m.thr_layout_vmnk.to_string(), "(_32,_2,_2,_1):(_1,_32,_64,_0)");
        assert_eq!(m.tile_shape().unwrap().to_string(), "(_32,_16,_16)");
        assert_eq!(
            m.layout_a_tv().unwrap().to_string(),
            "((_4,_8,_2,_2),((_2,_2,_2),(_1,_1))):((_64,_1,_16,_0),((_32,_8,_256),(_0,_0)))"
        );
    }
}
