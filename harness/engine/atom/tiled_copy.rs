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
use crate::{Error, IntTuple, Layout, Result, Tup, View};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledCopy {
    pub atom: CopyAtom,
    /// `Tiler_MN`, a shape such as `(_16,_64)`.
    pub tiler: IntTuple,
    /// `TiledLayout_TV`.
    pub tv: Layout,
}

impl TiledCopy {
    /// CuTe's `print(TiledCopy)`, without the final newline.
    pub fn print(&self) -> String {
        format!("TiledCopy\n  Tiler_MN:       {}\n  TiledLayout_TV: {}\n{}", self.tiler, self.tv, self.atom.print())
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
    let tiler = product_each(&layout_mn.shape)?;
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
    Ok(TiledCopy { atom: atom.clone(), tiler, tv })
}

#[cfg(test)]
mod tests {
    use super::super::{copy::copy_atom, lit};
    use super::*;

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
