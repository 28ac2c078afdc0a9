//! `make_tiled_copy(copy_atom, thr_layout, val_layout)` (CuTe 4.2, atom/copy_atom.hpp).
//!
//! Definition: with `T` the thread layout ((m,n) -> thread index) and `V` the value layout
//! ((m,n) -> value index),
//! 1. `layout_mn = raked_product(T, V)`: (M,N) -> (thread, value) packed as one index;
//! 2. `TiledLayout_TV = right_inverse(layout_mn).with_shape((size(T), size(V)))`, i.e. composed
//!    with `make_layout((size(T), size(V)))`: (thread, value) -> column-major index of the tile;
//! 3. `Tiler_MN = product_each(shape(layout_mn))`: the tile's extent in each mode.
//!
//! Building the TiledCopy instantiates the copy operation, whose own requirements then apply
//! (`copy::check_copy_op`). CuTe then requires the tiling to use whole atoms: `size<0>(TV) % size<0>(ValLayoutRef) == 0`
//! ("TiledCopy uses too few thrs for selected CopyAtom") and likewise for values ("TiledCopy
//! uses too few vals for selected CopyAtom").
//!
//! `make_tiled_copy_A/B/C(copy_atom, tiled_mma)` take the TV layout and tile of the MMA's operand
//! instead (`get_layoutA_TV()` over (tile_M, tile_K), and so on), with the same checks.
//!
//! Postconditions: (a) `TV` is injective onto `0..size(Tiler_MN)` when T and V are compact,
//! (b) `layout_mn(TV(t, v))` is the packed `(t, v)`.

use super::copy::CopyAtom;
use crate::composition::composition;
use crate::raked_product::raked_product;
use crate::right_inverse::right_inverse;
use crate::{Error, IntTuple, Layout, Result, Tiler, Tup, View};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledCopy {
    pub atom: CopyAtom,
    /// `Tiler_MN`, a shape such as `(_16,_64)` (for a co-tiled copy, the sizes of its tiler's
    /// layouts).
    pub tiler: IntTuple,
    /// `TiledLayout_TV`.
    pub tv: Layout,
    /// A co-tiled copy's (`make_cotiled_copy`, `make_tmem_copy`) `Tiler_MN`: a layout per mode of
    /// the data, by which its partitions divide the data (`partition::tidfrg`).
    pub cotiler: Option<Tiler>,
}

impl TiledCopy {
    /// CuTe's `print(TiledCopy)`, without the final newline.
    pub fn print(&self) -> String {
        let tiler = match &self.cotiler {
            Some(t) => t.to_string(),
            None => self.tiler.to_string(),
        };
        format!("TiledCopy\n  Tiler_MN:       {tiler}\n  TiledLayout_TV: {}\n{}", self.tv, self.atom.print())
    }
}

/// CuTe's `product_each(shape)`: the product of each top-level mode.
pub fn product_each(shape: &Tup) -> Result<IntTuple> {
    match shape.view() {
        View::Leaf(_) => Ok(shape.to_owned()),
        View::Tuple(v) => {
            Ok(IntTuple::tuple(v.iter().map(|m| m.product().map(IntTuple::leaf)).collect::<Result<Vec<_>>>()?))
        }
    }
}

pub fn make_tiled_copy(atom: &CopyAtom, thr: &Layout, val: &Layout) -> Result<TiledCopy> {
    let layout_mn = raked_product(thr, val)?;
    let shape = IntTuple::tuple([IntTuple::leaf(thr.size()?), IntTuple::leaf(val.size()?)]);
    let tv = composition(&right_inverse(&layout_mn)?, &Layout::col_major(shape)?)?;
    // CuTe's product_each wraps a leaf (`transform(wrap(t), product)`): a one-mode layout_mn is a
    // leaf only where rank-1 products coalesce whole (3.3: [`PRODUCTS_COALESCE_BY_A_TUPLE`] off),
    // and real CuTe 3.3 prints that tiler `(_32)` (kernel_forms.cases, the blockwise scale
    // factors' `make_tiled_copy(.., Layout<Shape<_32>>{}, Layout<Shape<_1>>{})`).
    let tiler = crate::product_each::product_each(&layout_mn.shape)?;
    make_tiled_copy_impl(atom, tv, tiler)
}

/// `make_tiled_copy_A/B/C(copy_atom, mma)`: the MMA's TV layout of A (B, C) over its
/// (tile_M, tile_K) ((tile_N, tile_K), (tile_M, tile_N)) tile. `which` is 'A', 'B' or 'C'.
pub fn make_tiled_copy_for(atom: &CopyAtom, mma: &super::tiled_mma::TiledMma, which: char) -> Result<TiledCopy> {
    let (tv, d0, d1) = match which {
        'A' => (mma.layout_a_tv()?, 0, 2),
        'B' => (mma.layout_b_tv()?, 1, 2),
        _ => (mma.layout_c_tv()?, 0, 1),
    };
    let tiler = IntTuple::tuple([IntTuple::leaf(mma.tile_size(d0)?), IntTuple::leaf(mma.tile_size(d1)?)]);
    make_tiled_copy_impl(atom, tv, tiler)
}

/// `make_tiled_copy_impl`: the TiledCopy type, whose definition checks the thread and value counts.
fn make_tiled_copy_impl(atom: &CopyAtom, tv: Layout, tiler: IntTuple) -> Result<TiledCopy> {
    // Building the TiledCopy instantiates the copy operation and its static_asserts.
    super::copy::check_copy_op(&atom.op)?;
    let (tiled_thr, tiled_val) = (tv.mode(0)?.size()?.value, tv.mode(1)?.size()?.value);
    let (atom_thr, atom_val) = (atom.ref_.mode(0)?.size()?.value, atom.ref_.mode(1)?.size()?.value);
    let detail = || format!("TV layout {tv} with Copy_Atom<{},{}>", atom.op, atom.val_type);
    if atom_thr == 0 || tiled_thr % atom_thr != 0 {
        return Err(Error::Rejected {
            condition: "TiledCopy uses too few thrs for selected CopyAtom",
            detail: detail(),
        });
    }
    if atom_val == 0 || tiled_val % atom_val != 0 {
        return Err(Error::Rejected {
            condition: "TiledCopy uses too few vals for selected CopyAtom",
            detail: detail(),
        });
    }
    Ok(TiledCopy { atom: atom.clone(), tiler, tv, cotiler: None })
}

/// `make_cotiled_copy(copy_atom, atom_tv_layout, data_layout)` (atom/copy_atom.hpp, CuTe's
/// algorithm): `atom_tv_layout` maps an atom's (thread, value) to a data address, `data_layout`
/// a coordinate of the data to its address.
/// 1. `layout_tv_data = composition(make_layout(left_inverse(data_layout), _1:_0), atom_tv_layout)`:
///    (thread, value) -> data coordinate (addresses past the end go to the stride-0 mode);
/// 2. refused unless `coalesce(composition(make_layout(data_layout, _1:_0), layout<1>(layout_tv_data)))
///    (from 4.2; before, `data_layout` without the `_1:_0`)
///    == coalesce(layout<1>(atom_tv_layout))` ("The memory pointed to by AtomTVLayout does not
///    exist in the DataLayout."): every value address is one the data layout reaches;
/// 3. the tiler: for each mode i of `flat = product_each(shape(data_layout))`,
///    `filter(composition(make_layout(flat, e_i), layout_tv_data))` (e_i: `_1` at i, `_0`
///    elsewhere): the data coordinates of mode i the atom touches;
/// 4. `TiledLayout_TV = composition(left_inverse(composition(make_layout(flat), tiler)),
///    layout_tv_data)`: (thread, value) -> coordinate in the tile; then `make_tiled_copy_impl`.
///
/// Postcondition: (a) every (thread, value) of `TiledLayout_TV` lands in the tile (the product of
/// the tiler's sizes), checked by `definition::check_tv_covers`'s first half in the tests.
pub fn make_cotiled_copy(atom: &CopyAtom, atom_tv: &Layout, data: &Layout) -> Result<TiledCopy> {
    use crate::coalesce::coalesce;
    use crate::composition::composition_tiler;
    use crate::filter::filter;
    use crate::left_inverse::left_inverse;
    let zero_one = Layout::leaf(crate::Int::st(1), crate::Int::st(0));
    if !atom_tv.shape.is_static() || !data.shape.is_static() || !data.stride.is_static() {
        return Err(Error::Rejected {
            condition: "static_assert(is_static<DataLayout>::value)",
            detail: format!("make_cotiled_copy needs static layouts: {data}"),
        });
    }
    let inv = Layout::concat(&[left_inverse(data)?, zero_one.clone()]);
    let tv_data = composition(&inv, atom_tv)?;
    // Before 4.2 the check composes with data_layout alone (an address past the data's end
    // extrapolates its last mode): [`crate::release::COTILED_CHECK_PAST_END_STRIDE_0`].
    let checked = if crate::release::COTILED_CHECK_PAST_END_STRIDE_0.on() {
        Layout::concat(&[data.clone(), zero_one])
    } else {
        data.clone()
    };
    let reached = coalesce(&composition(&checked, &tv_data.mode(1)?)?)?;
    if reached != coalesce(&atom_tv.mode(1)?)? {
        return Err(Error::Rejected {
            condition: "The memory pointed to by AtomTVLayout does not exist in the DataLayout.",
            detail: format!("atom (thread, value) -> address {atom_tv}, data {data}"),
        });
    }
    let flat = product_each(&data.shape)?;
    let r = flat.modes().len().max(1);
    let mut parts = Vec::new();
    for i in 0..r {
        let e = if flat.modes().is_empty() {
            IntTuple::st(1)
        } else {
            IntTuple::tuple((0..r).map(|k| IntTuple::st(i64::from(k == i))))
        };
        parts.push(filter(&composition(&Layout::new(flat.clone(), e)?, &tv_data)?)?);
    }
    let tiler = Tiler::Tuple(parts.iter().cloned().map(Tiler::Layout).collect());
    let tile2data = composition_tiler(&Layout::col_major(flat)?, &tiler)?;
    let tv = composition(&left_inverse(&tile2data)?, &tv_data)?;
    let sizes = IntTuple::tuple(parts.iter().map(|l| l.size().map(IntTuple::leaf)).collect::<Result<Vec<_>>>()?);
    let mut tc = make_tiled_copy_impl(atom, tv, sizes)?;
    tc.cotiler = Some(tiler);
    Ok(tc)
}

/// `make_tmem_copy(OP{}, make_tensor(make_tmem_ptr<T>(0), L))` (atom/copy_traits_sm100.hpp): the
/// co-tiled copy of `Copy_Atom<OP,T>` over the TMEM tensor `L`, with the atom's threads as four
/// warps, each at the same place of its own 32-lane subpartition (`(_32,_4):(_0, 32 DP<T>)`, `DP<T>
/// = 2^16 * 32 / sizeof_bits<T>`: a lane in T-addressing) and its values `coalesce(upcast<bits>(ValID))`
/// ([`super::tmem::tmem_val_id`]). CuTe requires a TMEM load or store (their traits have a
/// `ValID`).
pub fn make_tmem_copy(atom: &CopyAtom, data: &Layout) -> Result<TiledCopy> {
    use crate::coalesce::coalesce;
    let base = super::name::AtomName::parse(&atom.op)?.base;
    let val_id = super::tmem::tmem_val_id(&base)?.ok_or_else(|| {
        Error::Type(format!("make_tmem_copy needs a TMEM load or store (Copy_Traits with a ValID), not {}", atom.op))
    })?;
    let bits = atom.val_bits;
    if ![8, 16, 32].contains(&bits) {
        return Err(Error::Type(format!(
            "make_tmem_copy of {bits}-bit values: TMEM addresses 8-, 16- or 32-bit types"
        )));
    }
    let dp = (1i64 << 16) * (32 / bits);
    let t = crate::atom::lit::layout(&format!("(_32,_4):(_0,_{})", 32 * dp))?;
    let v = coalesce(&super::copy::upcast(&val_id, bits)?)?;
    let atom_tv = Layout::concat(&[t, v]);
    check_tmem_lanes(&atom_tv, dp)?;
    make_cotiled_copy(atom, &atom_tv, data)
}

/// TMEM has 128 lanes (datapaths), `DP<T>` apart in T-addressing, and 2^16 columns' worth of T
/// within a lane: every address of the atom's (thread, value) layout must name lane 0..127
/// (copy_traits_sm100.hpp: "4warps where each warp points to the same position within it's own
/// subpartition"; tmem_allocator_sm100.hpp: 128 DP x 512 COL). A definition of the construction,
/// refused if broken (the listed TMEM operations all keep it: the tests).
pub fn check_tmem_lanes(atom_tv: &Layout, dp: i64) -> Result<()> {
    let vals = atom_tv.values()?;
    if let Some(a) = vals.iter().find(|&&a| a < 0 || a / dp >= 128) {
        return Err(Error::Rejected {
            condition: "a TMEM address outside the 128 datapaths",
            detail: format!("{atom_tv}: address {a} is lane {} (DP {dp})", a / dp),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{copy::copy_atom, lit};
    use super::*;

    #[test]
    fn tmem_copies_stay_within_the_128_lanes_and_cover_their_tile() {
        // Every TMEM load and store (one and two repetitions of each datapath shape) over the
        // accumulator layout of a 128 x 64 tile: the atom's addresses stay in the 128 lanes
        // (check_tmem_lanes inside make_tmem_copy) and the TiledLayout_TV lands in its tile.
        let mut n = 0;
        for (op, t) in super::super::tmem::tmem_copy_cases() {
            let atom = copy_atom(&op, &t).unwrap();
            let dp = (1i64 << 16) * (32 / atom.val_bits);
            let data = lit::layout(&format!("(_128,_64):(_{dp},_1)")).unwrap();
            let tc = make_tmem_copy(&atom, &data).unwrap_or_else(|e| panic!("{op}: {e}"));
            let tile = tc.tiler.product().unwrap().value;
            assert!(tc.tv.values().unwrap().iter().all(|&x| (0..tile).contains(&x)), "{op}: {}", tc.tv);
            n += 1;
        }
        assert!(n >= 40, "{n}");
        // A thread layout past the 128th lane is refused.
        let bad = lit::layout("((_32,_5),_32):((_0,_2097152),_65536)").unwrap();
        assert!(check_tmem_lanes(&bad, 65536).is_err());
    }

    #[test]
    fn chapter_tiled_copy() {
        // The chapter (sgemm_sm80's copy of A, printed by real CuTe; also our probe):
        // Tiler_MN (_16,_64), TiledLayout_TV ((_8,_16),_8):((_128,_1),_16).
        let atom = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t").unwrap();
        let tc =
            make_tiled_copy(&atom, &lit::layout("(_16,_8):(_8,_1)").unwrap(), &lit::layout("(_1,_8):(_0,_1)").unwrap())
                .unwrap();
        assert_eq!(tc.tiler.to_string(), "(_16,_64)");
        assert_eq!(tc.tv.to_string(), "((_8,_16),_8):((_128,_1),_16)");
        // The chapter's exercise: thread 9 copies row 1, columns 8-15.
        for v in 0..8 {
            let i = tc.tv.call(&IntTuple::tuple([IntTuple::dy(9), IntTuple::dy(v)])).unwrap().value;
            assert_eq!((i % 16, i / 16), (1, 8 + v));
        }
        // Too few values per thread for a 128-bit atom of halfs.
        let r =
            make_tiled_copy(&atom, &lit::layout("(_16,_8):(_8,_1)").unwrap(), &lit::layout("(_1,_4):(_0,_1)").unwrap());
        assert!(matches!(
            r,
            Err(Error::Rejected { condition: "TiledCopy uses too few vals for selected CopyAtom", .. })
        ));
    }
}
