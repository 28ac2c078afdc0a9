//! SM100 TMA copies as CuTe builds them on the host for a UMMA (atom/copy_traits_sm100_tma.hpp,
//! CUTLASS 3.8 to 4.7, which agree on everything modelled here): `make_tma_atom_A_sm100` /
//! `make_tma_atom_B_sm100` (the Copy_Atom CUTLASS's SM100 collectives build) and
//! `make_tma_copy_A_sm100` / `_B_` / `_C_` (the TiledCopy), for `SM90_TMA_LOAD`,
//! `SM90_TMA_LOAD_MULTICAST`, `SM90_TMA_STORE` and SM100's 2-SM loads `SM100_TMA_2SM_LOAD[_MULTICAST]`
//! (whose Copy_Traits have `ThrID _2`: engine::tma).
//!
//! What CuTe derives (then the SM90 steps 2 to 5 of engine::tma, from this CTA value map):
//! 1. The operand's modes of the MMA tiler `(TILE_M, TILE_N, TILE_K)`: `remove<1>` for A (M,K),
//!    `remove<0>` for B (N,K), `remove<2>` for C (M,N).
//! 2. `g_tile = make_identity_layout(shape(gtensor)).compose(tiler)`: tile coordinate -> gmem
//!    coordinate, as basis strides.
//! 3. `cta_v_tile = layout<1>(mma.thrfrg_X(g_tile))(_, repeat<rank(g_tile)>(_))`: the values one
//!    CTA of the TiledMMA holds, `(FrgV, RestM, RestK)` ([`TiledMma::thrfrg_basis`]).
//! 4. The atoms: `num_multicast` is `size<2>(cluster_shape)` for A and `size<1>` for B with a
//!    multicast operation (the N- or M-CTAs of the VMNK cluster), else 1; any other operation fails
//!    CuTe's `static_assert(dependent_false<CopyOp>, "Unsupported TMA")`.
//! 5. The tiled copies: `cta_t_map = coalesce(make_layout(shape(VMNK), compact_col_major(shape(VMNK),
//!    S)))` with `S = (_0,_0,_1,_0)` for a multicast A (`(_0,_1,_0,_0)` for B), all `_0` else;
//!    C takes no multicast (`_1:_0`; CuTe's static_assert "Unsupported TMA Op, expected a
//!    non-multicast TMA" refuses the others). The multicast count is `cosize(cta_t_map)`.
//!
//! Postconditions (checked by [`check`]; property test `tma_sm100::tests::every_postcondition_holds`):
//! 1. engine::tma's postconditions (the box is one TMA's worth of smem, the gbasis maps each box
//!    index to its gmem coordinate, the descriptor is in range; for a TiledCopy, its threads are
//!    `size(cta_t_map)`, a multiple of the atom's `ThrID`).
//! 2. `size(cta_v_tile) == size(smem layout)`, and every value of `cta_v_tile` is a coordinate
//!    inside the MMA tile: `0 <= cta_v_tile(i)[m] < extent m` of the tiler's operand modes.
//! 3. The multicast count divides the smem tile: `size(smem) % num_multicast == 0`.

use super::atom::tiled_mma::TiledMma;
use super::coalesce::coalesce;
use super::error::{Error, Result};
use super::int::Int;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::postcondition::{enforce, Checked, Violation};
use super::scaled_basis::{self as sb, BasisLayout, BasisValue};
use super::slice::Coord;
use super::tiler::Tiler;
use super::tma::{assemble, check_copy, Parts, SmemLayout, TmaCopy, TmaOp};

/// The MMA operand a TMA copy feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    A,
    B,
    C,
}

impl Operand {
    /// The letter in CuTe's function names.
    pub fn letter(self) -> char {
        match self {
            Operand::A => 'A',
            Operand::B => 'B',
            Operand::C => 'C',
        }
    }
    /// The tiler mode `remove<I>` drops.
    fn removed(self) -> usize {
        match self {
            Operand::A => 1,
            Operand::B => 0,
            Operand::C => 2,
        }
    }
    /// `thrfrg_X`'s operand index in [`TiledMma::thrfrg_basis`].
    fn which(self) -> usize {
        match self {
            Operand::C => 0,
            Operand::A => 1,
            Operand::B => 2,
        }
    }
}

/// What `make_tma_atom_X_sm100(op, gtensor, slayout, mma_tiler, mma, cluster_shape)` and
/// `make_tma_copy_X_sm100(op, gtensor, slayout, cluster_tiler, mma)` take.
#[derive(Clone, Debug)]
pub struct Sm100Args {
    pub op: TmaOp,
    pub val_type: String,
    pub gmem: Layout,
    pub smem: SmemLayout,
    pub operand: Operand,
    /// `(TILE_M, TILE_N, TILE_K[, ...])`.
    pub tiler: Tiler,
    pub mma: TiledMma,
    /// The VMNK cluster shape (the atoms'; `None` for the tiled copies).
    pub cluster: Option<IntTuple>,
}

fn unsupported(condition: &'static str, op: TmaOp, f: &str) -> Error {
    Error::Rejected { condition, detail: format!("{} in {f}", op.name()) }
}

/// The SM100 TMA functions are declared from CUTLASS 3.8 (atom/copy_traits_sm100_tma.hpp).
fn check_release(f: &str) -> Result<()> {
    let first = super::release::Release::new(3, 8, 0, 0);
    if !super::release::since(first) {
        let r = super::release::current();
        return Err(Error::Rejected {
            condition: "not declared in this release",
            detail: format!("{f} first appears in CUTLASS {first} (modelled: {r})"),
        });
    }
    Ok(())
}

/// Steps 1 to 3 of the module doc: the CTA value map.
pub fn cta_v_tile(a: &Sm100Args) -> Result<BasisLayout> {
    let Tiler::Tuple(items) = &a.tiler else {
        return Err(Error::Type(format!("the MMA tiler must be a tuple (TILE_M, TILE_N, TILE_K), found {}", a.tiler)));
    };
    let r = a.operand.removed();
    if items.len() <= r {
        return Err(Error::Rejected {
            condition: "remove<I>(tuple): the tiler has too few modes",
            detail: format!("{} has no mode {r}", a.tiler),
        });
    }
    let kept: Vec<Tiler> = items.iter().enumerate().filter(|&(i, _)| i != r).map(|(_, t)| t.clone()).collect();
    let g_tile = sb::composition_tiler(&sb::make_identity_layout(&a.gmem.shape), &Tiler::Tuple(kept))?;
    let f = a.mma.thrfrg_basis(&g_tile, a.operand.which())?;
    let v = f.mode(1)?;
    let rank = g_tile.shape.rank();
    let rest = if rank == 1 { Coord::Under } else { Coord::Tuple(vec![Coord::Under; rank]) };
    sb::slice(&Coord::Tuple(vec![Coord::Under, rest]), &v)
}

fn size_of_mode(t: &IntTuple, i: usize) -> Result<Int> {
    t.mode(i)
        .map_err(|_| Error::Rejected {
            condition: "size<I>(cluster_shape): the cluster shape must be (CTA_V, CTA_M, CTA_N, CTA_K)",
            detail: format!("{t} has no mode {i}"),
        })?
        .product()
}

/// `make_tma_atom_A_sm100` / `make_tma_atom_B_sm100`: the Copy_Atom.
pub fn make_tma_atom_sm100(a: &Sm100Args) -> Result<TmaCopy> {
    let f = format!("make_tma_atom_{}_sm100", a.operand.letter());
    if a.operand == Operand::C {
        return Err(Error::Type("CuTe has no make_tma_atom_C_sm100".into()));
    }
    check_release(&f)?;
    let cluster = a.cluster.clone().ok_or_else(|| Error::Type(format!("{f} takes a VMNK cluster shape")))?;
    let multicast = match a.op {
        TmaOp::LoadMulticast | TmaOp::TwoSmLoadMulticast | TmaOp::Gather4Multicast => {
            size_of_mode(&cluster, if a.operand == Operand::A { 2 } else { 1 })?
        }
        TmaOp::Load | TmaOp::Store | TmaOp::TwoSmLoad | TmaOp::Gather4 => Int::st(1),
        TmaOp::ReduceAdd | TmaOp::Scatter4 => return Err(unsupported("Unsupported TMA", a.op, &f)),
    };
    if multicast.value < 1 {
        return Err(Error::Rejected {
            condition: "TMA: the multicast count must be positive",
            detail: cluster.to_string(),
        });
    }
    let v = cta_v_tile(a)?;
    let r = assemble(&parts(a), v, None, multicast.value)?;
    if super::runtime::checks_on() {
        enforce("make_tma_atom_sm100", check(a, &r))?;
    }
    Ok(r)
}

fn parts(a: &Sm100Args) -> Parts<'_> {
    Parts { op: a.op, val_type: &a.val_type, gmem: &a.gmem, smem: &a.smem }
}

/// Step 5: `cta_t_map` of `make_tma_copy_X_sm100`.
pub fn cta_t_map(a: &Sm100Args) -> Result<Layout> {
    let f = format!("make_tma_copy_{}_sm100", a.operand.letter());
    let multicast = a.op.is_multicast();
    let strides: [i64; 4] = match (a.operand, a.op) {
        (Operand::C, TmaOp::Load | TmaOp::Store | TmaOp::TwoSmLoad) => return Ok(Layout::leaf(Int::st(1), Int::st(0))),
        (Operand::C, _) => return Err(unsupported("Unsupported TMA Op, expected a non-multicast TMA", a.op, &f)),
        (_, TmaOp::ReduceAdd | TmaOp::Gather4 | TmaOp::Gather4Multicast | TmaOp::Scatter4) => {
            return Err(unsupported("Unsupported TMA", a.op, &f))
        }
        (Operand::A, _) if multicast => [0, 0, 1, 0],
        (Operand::B, _) if multicast => [0, 1, 0, 0],
        _ => [0, 0, 0, 0],
    };
    let vmnk = &a.mma.thr_layout_vmnk;
    let modes: Vec<Layout> = (0..4)
        .map(|i| {
            // compact_col_major(s, c): col-major from the static c, all _0 for c = _0.
            let m = Layout::col_major(vmnk.shape.mode(i)?.to_owned())?;
            let stride = m.stride.map_leaves(&mut |d| Ok(Int::st(d.value * strides[i])))?;
            Ok(Layout { shape: m.shape, stride })
        })
        .collect::<Result<_>>()?;
    coalesce(&Layout::concat(&modes))
}

/// `make_tma_copy_A_sm100` / `_B_` / `_C_`: the TiledCopy.
pub fn make_tma_copy_sm100(a: &Sm100Args) -> Result<TmaCopy> {
    check_release(&format!("make_tma_copy_{}_sm100", a.operand.letter()))?;
    let t = cta_t_map(a)?;
    let v = cta_v_tile(a)?;
    let multicast = t.cosize()?.value;
    let r = assemble(&parts(a), v, Some(&t), multicast)?;
    if super::runtime::checks_on() {
        enforce("make_tma_copy_sm100", check(a, &r))?;
    }
    Ok(r)
}

/// The module doc's postconditions for an SM100 TMA `r` made from `a`.
pub fn check(a: &Sm100Args, r: &TmaCopy) -> Checked {
    let ours = |m: String| Violation::ours("make_tma_atom_sm100", m);
    check_copy(r)?;
    let ssize = r.smem.nonswizzle().size().map_err(|e| ours(e.to_string()))?.value;
    let v = &r.cta_v_map;
    let vsize = v.size().map_err(|e| ours(e.to_string()))?.value;
    if vsize != ssize {
        return Err(ours(format!("size(cta_v_tile {v}) = {vsize}, size(smem) = {ssize}")));
    }
    // 2: each value a coordinate inside the operand's tile.
    let Tiler::Tuple(items) = &a.tiler else { return Err(ours("the tiler is no tuple".into())) };
    let extents: Vec<i64> = items
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != a.operand.removed())
        .map(|(_, t)| match t {
            Tiler::Int(n) => n.value,
            Tiler::Layout(l) => l.size().map_or(i64::MAX, |s| s.value),
            _ => i64::MAX,
        })
        .collect();
    for i in 0..vsize.min(4096) {
        let c = v.call(&IntTuple::leaf(Int::dy(i))).map_err(|e| ours(e.to_string()))?;
        let coord = match c.as_arithmetic_tuple() {
            BasisValue::Tuple(t) => t,
            other => vec![other],
        };
        for (m, x) in coord.iter().enumerate() {
            let BasisValue::Int(x) = x else { return Err(ours(format!("cta_v_tile({i}) = {c}: not a coordinate"))) };
            let bound = extents.get(m).copied().unwrap_or(1);
            if x.value < 0 || x.value >= bound {
                return Err(ours(format!("cta_v_tile({i}) = {c}: mode {m} outside the tile's extent {bound}")));
            }
        }
    }
    // 3.
    if r.multicast < 1 || ssize % r.multicast != 0 {
        return Err(ours(format!("{} CTAs do not split size(smem) = {ssize}", r.multicast)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::tiled_mma::make_tiled_mma;
    use proptest::prelude::*;

    use crate::test_util::flat as l;

    /// A random admissible SM100 operand TMA: a half-precision UMMA (one SM, M 64 or 128, or two
    /// SMs, M 128 or 256; N 64..256), an MMA tile of 1, 2 or 4 K-blocks of 16, operand A or B, a
    /// plain compact smem tile of the CTA's operand extent, K- or MN-major like a gmem padded to 16
    /// bytes, and an operation the function takes (with a VMNK cluster for multicast).
    fn admissible() -> impl Strategy<Value = (Sm100Args, bool)> {
        (
            (
                any::<bool>(),
                any::<bool>(),
                prop::sample::select(vec![64i64, 128, 256]),
                prop::sample::select(vec![1i64, 2, 4]),
            ),
            (any::<bool>(), any::<bool>(), 0usize..3, (1i64..3, 0i64..9), any::<bool>()),
        )
            .prop_map(|((two, big, n, kb), (a_op, k_major, op, (mult, extra), tiled))| {
                let m = match (two, big) {
                    (false, false) => 64,
                    (false, true) | (true, false) => 128,
                    (true, true) => 256,
                };
                let atom = format!(
                    "SM100_MMA_F16BF16_{}SS<half_t,half_t,float,{m},{n},UMMA::Major::{k},UMMA::Major::{k}>",
                    if two { "2x1SM_" } else { "" },
                    k = if k_major { "K" } else { "MN" }
                );
                let mma = make_tiled_mma(&atom, None, &[]).unwrap();
                let tk = 16 * kb;
                // Each CTA's operand rows: a two-SM UMMA splits M (A) and N (B) over its two CTAs.
                let rows = if a_op { m } else { n } / if two { 2 } else { 1 };
                let (gr, gk) = (rows * 2 * mult + extra, tk * mult + extra);
                let (gmem, smem) = if k_major {
                    let ld = (gk + 7) / 8 * 8;
                    (l(&[gr, gk], &[ld, 1], true), l(&[rows, tk], &[tk, 1], false))
                } else {
                    let ld = (gr + 7) / 8 * 8;
                    (l(&[gr, gk], &[1, ld], true), l(&[rows, tk], &[1, rows], false))
                };
                let ops: [TmaOp; 3] = if two {
                    [TmaOp::TwoSmLoad, TmaOp::TwoSmLoadMulticast, TmaOp::TwoSmLoad]
                } else {
                    [TmaOp::Load, TmaOp::LoadMulticast, TmaOp::Store]
                };
                let cluster =
                    IntTuple::of_leaves([Int::st(if two { 2 } else { 1 }), Int::st(2), Int::st(2), Int::st(1)]);
                let args = Sm100Args {
                    op: ops[op],
                    val_type: "half_t".into(),
                    gmem,
                    smem: SmemLayout::Plain(smem),
                    operand: if a_op { Operand::A } else { Operand::B },
                    tiler: Tiler::from_shape(&IntTuple::of_leaves([Int::st(m), Int::st(n), Int::st(tk)])),
                    mma,
                    cluster: Some(cluster),
                };
                (args, tiled)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Every postcondition of the module doc holds on every admissible SM100 TMA, atom or
        /// tiled copy, and the box with the multicast count is one TMA's elements.
        #[test]
        fn every_postcondition_holds((a, tiled) in admissible()) {
            let r = if tiled { make_tma_copy_sm100(&a) } else { make_tma_atom_sm100(&a) }.unwrap();
            prop_assert!(check(&a, &r).is_ok(), "{:?}", check(&a, &r));
            let boxed: u64 = r.desc.box_dim.iter().map(|&b| u64::from(b)).product();
            prop_assert_eq!(boxed * r.multicast as u64, r.gbasis.size().unwrap().value as u64);
            prop_assert_eq!(r.atom.thr_id.size().unwrap().value, a.op.atom_threads());
        }

        /// The check can fail: a CTA value map shifted out of the tile is refused.
        #[test]
        fn a_value_map_outside_the_tile_fails((a, _) in admissible()) {
            let mut r = make_tma_atom_sm100(&a).unwrap();
            let v = &r.cta_v_map;
            let shifted = sb::composition(v, &Layout::leaf(v.size().unwrap(), Int::st(2))).unwrap();
            r.cta_v_map = shifted;
            prop_assert!(check(&a, &r).is_err());
        }
    }

    #[test]
    fn refusals_name_cutes_conditions() {
        let mma = make_tiled_mma(
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>",
            None,
            &[],
        )
        .unwrap();
        let mut a = Sm100Args {
            op: TmaOp::ReduceAdd,
            val_type: "half_t".into(),
            gmem: l(&[1024, 512], &[512, 1], true),
            smem: SmemLayout::Plain(l(&[128, 64], &[64, 1], false)),
            operand: Operand::A,
            tiler: Tiler::from_shape(&IntTuple::of_leaves([Int::st(128), Int::st(256), Int::st(64)])),
            mma,
            cluster: Some(IntTuple::of_leaves([Int::st(1); 4])),
        };
        assert!(make_tma_atom_sm100(&a).unwrap_err().to_string().contains("Unsupported TMA"));
        a.op = TmaOp::LoadMulticast;
        a.operand = Operand::C;
        assert!(make_tma_copy_sm100(&a).unwrap_err().to_string().contains("expected a non-multicast TMA"));
        a.op = TmaOp::Load;
        a.operand = Operand::A;
        assert!(make_tma_atom_sm100(&a).is_ok());
        let old = crate::release::with_release(crate::release::Release::new(3, 7, 0, 0), || make_tma_atom_sm100(&a));
        assert!(old.unwrap_err().to_string().contains("not declared in this release"));
    }
}
