//! `UMMA::tile_to_mma_shape(atom, mma_tile_shape[, order])` (CUTLASS 4.x, cute/atom/mma_traits_sm100.hpp):
//! an M/N-logical shared-memory layout atom tiled to a post-partitioned MMA tile shape
//! `((MMA_M,MMA_K),M_MMAs,K_MMAs,...)` (what `partition_shape_A/B` of a UMMA TiledMMA gives; the
//! Blackwell tutorials' `sA_layout`).
//!
//! Definition (CuTe 4.2, with `S` the MMA tile shape and `R = rank(S)`):
//! 1. `mn_shape = tuple_cat(zip(shape<0>(S), take<1,3>(S)), take<3,R>(S))`:
//!    `((MMA_M,M_MMAs),(MMA_K,K_MMAs),rest...)`;
//! 2. `mn_tiled = tile_to_shape(atom, mn_shape, order)` (default order column-major);
//! 3. the result is `tiled_divide(mn_tiled, product_each(shape<0>(S)))`:
//!    `((MMA_M,MMA_K),M_MMAs,K_MMAs,rest...)`.
//!
//! A swizzled atom (`ComposedLayout<Sw,O,L>`) keeps `Sw` and `O`: both steps act on `L` (the
//! expression language's composed-layout rule, as for `tile_to_shape` and `tiled_divide`).
//!
//! Postconditions (checked by [`check_postconditions`]):
//! 1. `rank(R) == rank(S)` and mode 0 of `R` has the size of `shape<0>(S)`, modes 1.. the sizes
//!    of `S`'s modes 1.. [mma_traits_sm100.hpp: "Tile a MN-logical layout atom to an MMA Tile
//!    Shape ((MMA_M,MMA_N),M_MMAs,N_MMAs,...)"], where the atom divides the tile;
//! 2. `R` is `mn_tiled` re-indexed: the same values, each as often [tiled_divide is a divide:
//!    layout.hpp "Same as zipped_divide, but unpacks the second mode"].

use super::error::{Error, Result};
use super::int_tuple::{IntTuple, Tup, View};
use super::layout::Layout;
use super::postcondition::{Checked, Violation};
use super::product_each::product_each;
use super::tile_to_shape::{tile_to_shape, Order};
use super::tiled_divide::tiled_divide;
use super::tiler::Tiler;

const CITE: &str = "cute/atom/mma_traits_sm100.hpp tile_to_mma_shape";

/// Step 1: `((MMA_M,M_MMAs),(MMA_K,K_MMAs),rest...)` of the MMA tile shape `S`.
pub fn mn_shape(s: &Tup) -> Result<IntTuple> {
    if matches!(s.view(), View::Leaf(_)) || s.rank() < 3 {
        return Err(Error::MismatchedRanks {
            detail: format!(
                "tile_to_mma_shape of {s}: an MMA tile shape ((MMA_M,MMA_K),M_MMAs,K_MMAs,...) has rank >= 3"
            ),
        });
    }
    let m0 = s.mode(0)?;
    if matches!(m0.view(), View::Leaf(_)) || m0.rank() != 2 {
        return Err(Error::MismatchedRanks {
            detail: format!("tile_to_mma_shape of {s}: zip of its mode 0 {m0} with (M_MMAs,K_MMAs)"),
        });
    }
    let mut out = Vec::with_capacity(s.rank() - 1);
    for i in 0..2 {
        out.push(IntTuple::tuple_of([m0.mode(i)?, s.mode(1 + i)?]));
    }
    for i in 3..s.rank() {
        out.push(s.mode(i)?.to_owned());
    }
    Ok(IntTuple::tuple(out))
}

/// `UMMA::tile_to_mma_shape(atom, S, order)` for a layout atom.
pub fn tile_to_mma_shape(atom: &Layout, s: &Tup, order: &Order) -> Result<Layout> {
    let mn_tiled = tile_to_shape(atom, &mn_shape(s)?, order)?;
    tiled_divide(&mn_tiled, &Tiler::from_shape(&product_each(s.mode(0)?)?))
}

/// The numbered postconditions above for `tile_to_mma_shape(atom, S, order) == r`.
pub fn check_postconditions(atom: &Layout, s: &Tup, order: &Order, r: &Layout) -> Checked {
    let un = |e: Error| Violation::unverifiable(e.to_string());
    if r.rank() != s.rank() {
        return Err(Violation::cute(CITE, format!("1: rank of {r} is not rank({s}) = {}", s.rank())));
    }
    for (i, m) in s.modes().into_iter().enumerate() {
        let want = m.product().map_err(un)?.value;
        let got = r.mode(i).and_then(|x| x.size()).map_err(un)?.value;
        if got != want {
            return Err(Violation::cute(CITE, format!("1: mode {i} of {r} has size {got}, not size({m}) = {want}")));
        }
    }
    let mn_tiled = tile_to_shape(atom, &mn_shape(s).map_err(un)?, order).map_err(un)?;
    let (mut a, mut b) = (r.values().map_err(un)?, mn_tiled.values().map_err(un)?);
    a.sort_unstable();
    b.sort_unstable();
    if a != b {
        return Err(Violation::cute(CITE, format!("2: {r} is not a re-indexing of tile_to_shape's {mn_tiled}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::lit;

    #[test]
    fn the_blackwell_tutorials_smem_layout() {
        // 01_mma_sm100.cu prints `Sw<3,4,3> o smem_ptr[16b](unset) o ((_128,_16),_1,_4):((_64,_1),_0,_16)`
        // for the K-major SW128 atom of half_t ((_8,_64):(_64,_1) under the swizzle) tiled to
        // ((_128,_16),_1,_4); the layout part is this.
        let atom = lit::layout("(_8,_64):(_64,_1)").unwrap();
        let s = lit::int_tuple("((_128,_16),_1,_4)").unwrap();
        assert_eq!(mn_shape(&s).unwrap().to_string(), "((_128,_1),(_16,_4))");
        let r = tile_to_mma_shape(&atom, &s, &Order::ColMajor).unwrap();
        assert_eq!(r.to_string(), "((_128,_16),_1,_4):((_64,_1),_0,_16)");
        check_postconditions(&atom, &s, &Order::ColMajor, &r).unwrap();
    }

    #[test]
    fn postconditions_hold_over_atoms_and_tile_shapes() {
        // The SM100/SM90 smem atoms' layout parts (K- and MN-major, 16-bit, SW32..SW128 and
        // INTER), tiled to MMA tile shapes of 1- and 2-CTA UMMAs with stages, in both orders.
        let atoms = [
            "(_8,_8):(_8,_1)",
            "(_8,_16):(_16,_1)",
            "(_8,_32):(_32,_1)",
            "(_8,_64):(_64,_1)",
            "(_64,_8):(_1,_64)",
            "(_32,_8):(_1,_32)",
        ];
        let shapes = [
            "((_128,_16),_1,_4)",
            "((_256,_16),_1,_4)",
            "((_128,_16),_2,_4,_3)",
            "((_64,_16),_2,_2)",
            "(((_64,_2),_16),_1,_4,_2)",
        ];
        let (mut n, mut refused) = (0, 0);
        for a in atoms {
            let atom = lit::layout(a).unwrap();
            for sh in shapes {
                let s = lit::int_tuple(sh).unwrap();
                for order in [Order::ColMajor, Order::RowMajor] {
                    match tile_to_mma_shape(&atom, &s, &order) {
                        Ok(r) => {
                            check_postconditions(&atom, &s, &order, &r).unwrap_or_else(|v| panic!("{a} {sh}: {v:?}"));
                            n += 1;
                        }
                        // tile_to_shape's static_assert: the atom (8 x 64) does not divide K = 32.
                        Err(e) if e.to_string().contains("does not divide") => refused += 1,
                        Err(e) => panic!("{a} {sh}: {e}"),
                    }
                }
            }
        }
        assert_eq!((n, refused), (58, 2));
        // Not an MMA tile shape: refused.
        let atom = lit::layout("(_8,_64):(_64,_1)").unwrap();
        assert!(tile_to_mma_shape(&atom, &lit::int_tuple("(_128,_64)").unwrap(), &Order::ColMajor).is_err());
        assert!(tile_to_mma_shape(&atom, &lit::int_tuple("(_128,_1,_4)").unwrap(), &Order::ColMajor).is_err());
    }
}
