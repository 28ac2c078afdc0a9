//! Definitions of the atoms and their tilings, so that a trait that violates its own definition is
//! refused (like a wrong layout of the algebra) and triage can blame it.
//!
//! MMA atom `Op` with `Shape_MNK = (M,N,K)` ([`check_mma_operand`], [`check_mma`]):
//! 1. `ThrID` maps the atom's logical threads to thread indices, and every TV layout is
//!    `(thread, value)` with `size<0>` equal to `size(ThrID)` [CuTe: mma_traits.hpp, "ThrID:
//!    Logical thread id (tid) -> tidx", "ALayout: (Logical thread id (tid), Logical value id
//!    (vid)) -> Flat MK-coord"].
//!    The layout's stride is congruent with its shape: `crd2idx` (layout.hpp) pairs each
//!    coordinate with its stride mode by mode, so a TV layout that is not congruent has no value
//!    CuTe can compute (CuTe's `Layout` constructor leaves `static_assert(is_congruent<Shape,
//!    Stride>)` commented out, so such a trait prints; `cosize` or any evaluation of it does not
//!    compile: CUTLASS's `SM80_16x8x128_S32U1U1S32_TN_XORPOPC` / `_ANDPOPC` ALayout
//!    `((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))`).
//! 2. Every `(thread, value)` lands inside the tile: A in `[0, M*K)`, B in `[0, N*K)`, C in
//!    `[0, M*N)` [CuTe: mma_traits.hpp, "-> Flat MK-coord" (NK, MN)].
//! 3. One-to-one onto the tile: after dropping the modes of stride `_0` (a value replicated over
//!    threads, as the SM90 GMMA `SS` operands are: all 128 threads name the whole shared-memory
//!    tile), each element of the tile is one `(thread, value)` [CuTe: mma_traits.hpp's flat
//!    (tid, vid) -> coord map of the instruction's fragments; an element held twice means two
//!    registers load the same element, which the PTX fragment layouts never do (our GPU run,
//!    fixtures/gpu, found CuTe 4.2's `SM80_16x8x32_S32S4S4S32_TN` BLayout doing it: lane 0 value
//!    4 and lane 1 value 0 load the same element)]. Instructions that replicate the atom over the
//!    warp (SM70's quad-pairs, `ThrID = (_4,_2):(_1,_16)`) are covered by 1: the TV layouts are
//!    over the 8 *logical* threads of one quad-pair, `ThrID` maps them to the lanes.
//!
//! Metadata and scale-factor layouts of a sparse or block-scaled MMA atom (`ELayout`, `SFALayout`,
//! `SFBLayout`; [`check_mma_extra`]):
//! 1. `(thread, value)` over `ThrID`'s threads [CuTe: mma_traits_sm90_gmma_sparse.hpp, "ELayout",
//!    mma_traits_sm120.hpp "(T32,V64) -> (M16,K64)" for SFA, "(T32,V64) -> (N8,K64)" for SFB].
//! 2. Its image is exactly its tile, `[0, M*K)` for E and SFA, `[0, N*K)` for SFB: every element
//!    of A (of B) has its metadata (its scale factor) held by some thread, and no thread names an
//!    element outside the tile; threads may share one (SFA's `2:0` mode, "effectively 16
//!    threads"; the GMMA E layouts' stride-0 mode) [CuTe: the same comments; the SM120
//!    `mma_unpack` checks `size(SFA) == size<2>(Shape_MNK)` per thread's K slice].
//!
//! Copy atom `Copy_Atom<Op,T>` ([`check_copy`]):
//! 1. `size<0>` of the source, destination and reference value layouts is `size(ThrID)` [CuTe:
//!    copy_atom.hpp, `CUTE_STATIC_ASSERT_V(size<0>(ValLayoutSrc{}) == size(ThrID{}), "CopyOperation
//!    is not valid for Src of ValType.")`, Dst and Ref likewise].
//! 2. The source and destination name the same data: the bits DstLayout names (its stride-0 modes
//!    dropped: threads naming the bits another thread names) are the bits SrcLayout names, times
//!    the broadcast of Src's value mode (its stride-0 value modes) [CuTe: copy_traits.hpp,
//!    SrcLayout and DstLayout map (thr, val) to the bits of the same copied data; stride-0 thread
//!    modes: `ldmatrix`'s lanes that give no row address (copy_traits_sm75.hpp
//!    `SM75_U32x1_LDSM_N` SrcLayout `((_8,_4),_128):((_128,_0),_1)`, the SM100 8-bit and
//!    SU4/SU6 forms of copy_traits_sm100.hpp alike) and a TMEM load's threads each naming the
//!    whole block; the broadcast: the UTCCP `4x32dp128bit` and `2x64dp128bit` copies of
//!    copy_sm100.hpp, which write each source bit to 4 or 2 lane groups]. (Before issue 27 this
//!    compared the unfiltered sizes, which every `ldmatrix`/`stmatrix` atom violated; nothing
//!    enforced it, and only UniversalCopy was tested.)
//!
//! TiledMMA / TiledCopy TV layouts ([`check_tv_covers`]): `(thread, value)` lands inside the tile
//! (`tile_M x tile_K` for A, ..., `Tiler_MN` for a copy) and every element of the tile is reached
//! [CuTe: mma_atom.hpp `get_layoutA_TV` "(thr_idx,val) -> (M,K)", copy_atom.hpp
//! `TiledLayout_TV` "(tid,vid) -> coord"; partitioning a tile with them hands out every element].

use super::copy::CopyAtom;
use super::mma::MmaAtom;
use crate::filter::filter;
use crate::postcondition::{enforce, Checked, Violation};
use crate::{Layout, Result};

const CITE_MMA_THR: &str = "mma_traits.hpp: ThrID: Logical thread id (tid) -> tidx; ALayout/BLayout/CLayout: (Logical thread id (tid), Logical value id (vid)) -> coord";
const CITE_CONGRUENT: &str = "layout.hpp: crd2idx(coord, shape, stride) maps each mode of a congruent coordinate through the matching mode of the stride (Layout's own static_assert(is_congruent<Shape, Stride>) is commented out, so a non-congruent trait prints but cannot be evaluated)";
const CITE_MMA_TILE: &str =
    "mma_traits.hpp: ALayout -> Flat MK-coord, BLayout -> Flat NK-coord, CLayout -> Flat MN-coord";
const CITE_MMA_ONE: &str =
    "mma_traits.hpp: (tid, vid) -> flat coord of the instruction's fragment, one register per element of the tile (stride-0 modes replicate)";
const CITE_COPY_THR: &str = "copy_atom.hpp: CUTE_STATIC_ASSERT_V(size<0>(ValLayoutSrc{}) == size(ThrID{}), \"CopyOperation is not valid for Src of ValType.\") (Dst, Ref likewise)";
const CITE_COPY_SIZE: &str =
    "copy_traits.hpp: SrcLayout and DstLayout map (thr,val) to the bits of the same copied data";
const CITE_TV: &str =
    "mma_atom.hpp get_layoutA/B/C_TV: (thr_idx,val) -> (M,K) etc.; copy_atom.hpp TiledLayout_TV: (tid,vid) -> coord";

/// The operand layout of an MMA atom (`'A'`, `'B'` or `'C'`) and its tile's rows and columns.
fn operand(atom: &MmaAtom, which: char) -> std::result::Result<(&Layout, i64, i64), Violation> {
    let [m, n, k] = atom.mnk()?;
    Ok(match which {
        'A' => (&atom.a, m, k),
        'B' => (&atom.b, n, k),
        _ => (&atom.c, m, n),
    })
}

/// Check one operand's TV layout of an MMA atom against the definition (module doc).
pub fn check_mma_operand(atom: &MmaAtom, which: char) -> Checked {
    let (l, rows, cols) = operand(atom, which)?;
    let name = &atom.name;
    let thr = atom.thr_id.size()?.value;
    if l.rank() != 2 || l.mode(0)?.size()?.value != thr {
        return Err(Violation::cute(
            CITE_MMA_THR,
            format!(
                "1: {which}Layout {l} of {name} is not (thread, value) over the {thr} threads of ThrID {}",
                atom.thr_id
            ),
        ));
    }
    if !l.shape.congruent(&l.stride) {
        return Err(Violation::cute(
            CITE_CONGRUENT,
            format!(
                "1: {which}Layout {l} of {name} is not congruent: its stride {} does not match its shape {}",
                l.stride, l.shape
            ),
        ));
    }
    let tile = rows * cols;
    // filter drops only the modes of stride _0 (and size 1): the same image, without the
    // replicas (a 64x256x64 sparse GMMA's B names 2^21 coordinates, 2^14 of them distinct).
    let f = filter(l)?;
    inside(&f, tile).map_err(|v| v.context(format!("2: {which}Layout {l} of {name} (filtered): ")))?;
    let mut vals = f.values()?;
    let n = vals.len();
    vals.sort_unstable();
    if let Some(w) = vals.windows(2).find(|w| w[0] == w[1]) {
        let (t, v) = first_two(l, w[0])?;
        return Err(Violation::cute(
            CITE_MMA_ONE,
            format!("3: {which}Layout {l} of {name} is not one-to-one: {t} and {v} hold the same element {} of the {rows}x{cols} tile", w[0]),
        ));
    }
    if n as i64 != tile {
        return Err(Violation::cute(
            CITE_MMA_ONE,
            format!("3: {which}Layout {l} of {name} reaches {n} of the {tile} elements of its tile"),
        ));
    }
    Ok(())
}

/// The first two (thread, value) coordinates of `l` holding the value `x`, as text.
fn first_two(l: &Layout, x: i64) -> std::result::Result<(String, String), Violation> {
    let nt = l.mode(0)?.size()?.value.max(1);
    let vals = l.values()?;
    let mut hits = vals
        .iter()
        .enumerate()
        .filter(|(_, &y)| y == x)
        .map(|(i, _)| format!("(thread {}, value {})", i as i64 % nt, i as i64 / nt));
    Ok((hits.next().unwrap_or_default(), hits.next().unwrap_or_default()))
}

/// Every value of `l` is in `[0, tile)`.
fn inside(l: &Layout, tile: i64) -> Checked {
    if let Some((i, x)) = l.values()?.into_iter().enumerate().find(|&(_, x)| x < 0 || x >= tile) {
        return Err(Violation::cute(CITE_MMA_TILE, format!("{l}({i}) = {x} lies outside the tile of {tile} elements")));
    }
    Ok(())
}

const CITE_EXTRA: &str = "mma_traits_sm90_gmma_sparse.hpp ELayout_64xK, mma_traits_sm120.hpp / mma_traits_sm120_sparse.hpp: SFALayout (T32,V) -> (M16,K), SFBLayout (T32,V) -> (N8,K), ELayout (T32,V) -> (M16,K)";

/// A metadata (`'E'`) or scale-factor (`'S'` for SFA, `'T'` for SFB) layout of an MMA atom against
/// its definition (module doc).
pub fn check_mma_extra(atom: &MmaAtom, which: char, l: &Layout) -> Checked {
    let [m, n, k] = atom.mnk()?;
    let (member, tile) = match which {
        'E' => ("ELayout", m * k),
        'S' => ("SFALayout", m * k),
        _ => ("SFBLayout", n * k),
    };
    let thr = atom.thr_id.size()?.value;
    let name = &atom.name;
    if l.rank() != 2 || l.mode(0)?.size()?.value != thr || !l.shape.congruent(&l.stride) {
        return Err(Violation::cute(
            CITE_EXTRA,
            format!("1: {member} {l} of {name} is not a congruent (thread, value) layout over the {thr} threads of ThrID {}", atom.thr_id),
        ));
    }
    check_tv_covers(l, tile).map_err(|v| v.context(format!("2: {member} of {name}: ")))
}

/// The engine's refusal of an extra layout that violates its definition (nothing when the
/// definition checks are off).
pub fn enforce_mma_extra(atom: &MmaAtom, which: char, l: &Layout) -> Result<()> {
    if !crate::runtime::checks_on() {
        return Ok(());
    }
    enforce("mma_atom", check_mma_extra(atom, which, l))
}

/// All three operands of an MMA atom.
pub fn check_mma(atom: &MmaAtom) -> Checked {
    for w in ['A', 'B', 'C'] {
        check_mma_operand(atom, w)?;
    }
    Ok(())
}

/// A copy atom against its definition (module doc).
pub fn check_copy(atom: &CopyAtom) -> Checked {
    let thr = atom.thr_id.size()?.value;
    for (what, l) in [("Src", &atom.src), ("Dst", &atom.dst), ("Ref", &atom.ref_)] {
        let n0 = if l.rank() >= 2 { l.mode(0)?.size()?.value } else { l.size()?.value };
        if n0 != thr {
            return Err(Violation::cute(
                CITE_COPY_THR,
                format!("1: ValLayout{what} {l} of {} has {n0} threads, ThrID {thr}", atom.op),
            ));
        }
    }
    // The bits each side names once (its stride-0 modes dropped), and the broadcast of Src's value
    // mode (its stride-0 value modes: each source bit written that many times).
    let named = |l: &Layout| -> Result<i64> { Ok(filter(l)?.size()?.value) };
    let broadcast: i64 = match atom.bits_src.rank() {
        2 => atom
            .bits_src
            .mode(1)?
            .leaf_pairs()
            .iter()
            .filter(|(_, d)| d.is_static_value(0))
            .map(|(s, _)| s.value)
            .product(),
        _ => 1,
    };
    let (s, d) = (named(&atom.bits_src)?, named(&atom.bits_dst)?);
    if s * broadcast != d {
        return Err(Violation::cute(
            CITE_COPY_SIZE,
            format!(
                "2: {} reads {s} bits (SrcLayout {}, broadcast {broadcast}) but writes {d} (DstLayout {})",
                atom.op, atom.bits_src, atom.bits_dst
            ),
        ));
    }
    Ok(())
}

/// A tiled TV layout stays inside its tile of `tile` elements and reaches each of them.
pub fn check_tv_covers(tv: &Layout, tile: i64) -> Checked {
    let vals = tv.values()?;
    if let Some((i, x)) = vals.iter().enumerate().find(|&(_, &x)| x < 0 || x >= tile) {
        return Err(Violation::cute(CITE_TV, format!("1: {tv}({i}) = {x} lies outside the tile of {tile} elements")));
    }
    let mut seen = vec![false; usize::try_from(tile).map_err(|_| Violation::unverifiable("tile size"))?];
    for &x in &vals {
        seen[x as usize] = true;
    }
    if let Some(x) = seen.iter().position(|s| !s) {
        return Err(Violation::cute(
            CITE_TV,
            format!("2: no (thread, value) of {tv} reaches element {x} of its tile of {tile}"),
        ));
    }
    Ok(())
}

/// The atom with operand `which` replaced by `l` (to check a layout printed for that operand).
pub fn with_operand(atom: &MmaAtom, which: char, l: Layout) -> MmaAtom {
    let mut a = atom.clone();
    match which {
        'A' => a.a = l,
        'B' => a.b = l,
        _ => a.c = l,
    }
    a
}

/// The engine's refusal of an MMA operand that violates the definition (nothing when the
/// definition checks are off, `--unchecked`).
///
/// A layout that is not congruent is printed as declared (CuTe prints it, and its `size` reads
/// only the shape); every evaluation of it is refused by the layout itself with CuTe's own
/// "Mismatched ranks" ([`Layout::congruent_to_evaluate`]).
pub fn enforce_mma_operand(atom: &MmaAtom, which: char) -> Result<()> {
    if !crate::runtime::checks_on() {
        return Ok(());
    }
    if operand(atom, which).is_ok_and(|(l, _, _)| !l.shape.congruent(&l.stride)) {
        return Ok(());
    }
    enforce("mma_atom", check_mma_operand(atom, which))
}

/// The engine's refusal of a tiled TV layout that leaves its tile or misses part of it, and of a
/// tiled MMA whose atom's operand violates its definition.
pub fn enforce_tv(op: &'static str, tv: &Layout, tile: i64, atom: Option<(&MmaAtom, char)>) -> Result<()> {
    if !crate::runtime::checks_on() {
        return Ok(());
    }
    if let Some((a, w)) = atom {
        // A tiled MMA evaluates its atom's operand layout: one that is not congruent is refused
        // as CuTe refuses it (its crd2idx does not compile: "Mismatched ranks").
        if let Ok((l, _, _)) = operand(a, w) {
            l.congruent_to_evaluate()?;
        }
        enforce(op, check_mma_operand(a, w))?;
    }
    enforce(op, check_tv_covers(tv, tile))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::{copy_atom, mma_atom, mma_atom_names};

    #[test]
    fn the_int4_m16n8k32_b_layout_is_refused_by_its_definition() {
        // Our GPU run (fixtures/gpu) proved CuTe 4.2's BLayout of this atom wrong: lane 0 value 4
        // and lane 1 value 0 load the same element of B.
        let a = mma_atom("SM80_16x8x32_S32S4S4S32_TN").unwrap();
        assert_eq!(check_mma_operand(&a, 'A'), Ok(()));
        assert_eq!(check_mma_operand(&a, 'C'), Ok(()));
        let v = check_mma_operand(&a, 'B').unwrap_err();
        assert!(v.is_cute(), "{v}");
        assert!(v.condition.contains("(thread 1, value 0) and (thread 0, value 4)"), "{v}");
        // CUTLASS 4.5 fixed it (release::SM80_INT4_B_LAYOUT_ONE_TO_ONE): every variant satisfies
        // its definition there.
        crate::release::with_release(crate::release::SM80_INT4_B_LAYOUT_ONE_TO_ONE.since, || {
            for n in mma_atom_names().into_iter().filter(|n| n.starts_with("SM80_16x8x32_S32") && n.contains('4')) {
                check_mma(&mma_atom(&n).unwrap()).unwrap_or_else(|v| panic!("{n} in 4.5: {v}"));
            }
        });
    }

    #[test]
    fn replicating_atoms_satisfy_it() {
        // SM70 quad-pairs (ThrID with strides), GMMA SS operands (stride-0 thread mode), UniversalFMA.
        for n in ["SM70_8x8x4_F32F16F16F32_NT", "SM80_16x8x16_F32F16F16F32_TN", "UniversalFMA<float>"] {
            check_mma(&mma_atom(n).unwrap()).unwrap_or_else(|v| panic!("{n}: {v}"));
        }
        let g = mma_atom_names().into_iter().find(|n| n.starts_with("SM90_64x") && n.contains("_SS")).unwrap();
        check_mma(&mma_atom(&g).unwrap()).unwrap_or_else(|v| panic!("{g}: {v}"));
    }

    #[test]
    fn the_umma_atoms_satisfy_it() {
        // One issuing thread holding the whole tile, or two SMs holding half of M (and of N for B).
        // In the newest modelled release, which has every listed form.
        crate::release::with_release(*crate::release::MODELLED.last().unwrap(), || {
            for n in crate::atom::umma::umma_atom_names() {
                check_mma(&mma_atom(&n).unwrap()).unwrap_or_else(|v| panic!("{n}: {v}"));
            }
        });
    }

    #[test]
    fn which_atoms_violate_their_definition() {
        // The warp-level table (the GMMA families are generated from one structure, checked above).
        let bad: Vec<String> = mma_atom_names()
            .into_iter()
            .filter(|n| !n.starts_with("SM90_64x"))
            .filter(|n| mma_atom(n).ok().is_some_and(|a| check_mma(&a).is_err()))
            .collect();
        // Exactly the int4 m16n8k32 family (all signedness and saturation variants; one element
        // held twice) and the single-bit m16n8k128 pair (an ALayout that is not congruent).
        assert!(!bad.is_empty());
        let int4 = |n: &String| n.starts_with("SM80_16x8x32_S32") && n.contains('4');
        let b1 = |n: &String| n.starts_with("SM80_16x8x128_S32U1U1S32_TN_");
        assert!(bad.iter().all(|n| int4(n) || b1(n)), "{bad:?}");
        assert_eq!(bad.iter().filter(|n| b1(n)).count(), 2, "{bad:?}");
        let x = mma_atom("SM80_16x8x128_S32U1U1S32_TN_XORPOPC").unwrap();
        let v = check_mma_operand(&x, 'A').unwrap_err();
        assert!(v.is_cute() && v.condition.contains("not congruent"), "{v}");
        assert_eq!(check_mma_operand(&x, 'B'), Ok(()));
        // It prints (CuTe prints it), but nothing evaluates it: CuTe's crd2idx does not compile.
        assert!(matches!(x.a.cosize(), Err(crate::Error::MismatchedRanks { .. })));
        assert!(matches!(x.a.values(), Err(crate::Error::MismatchedRanks { .. })));
    }

    #[test]
    fn every_listed_copy_atom_satisfies_it() {
        // Every copy operation the engine lists with the value types it is drawn with (SM75-SM90,
        // the SM100 8-bit ldmatrix/stmatrix, 256-bit and LOAD_STAT forms, the TMEM loads and stores
        // and the UTCCP copies), in the newest modelled release, which has every one.
        let mut all = crate::atom::copy::copy_atom_cases();
        all.extend(crate::atom::copy::sm100_copy_cases());
        all.extend(crate::atom::tmem::tmem_copy_cases());
        all.extend(crate::atom::tmem::utccp_ops().into_iter().map(|o| (o, "float".to_string())));
        crate::release::with_release(*crate::release::MODELLED.last().unwrap(), || {
            let mut checked = 0;
            for (op, t) in &all {
                // Copy_Atom's own refusals (a value type the layouts do not divide) are CuTe's.
                if let Ok(a) = copy_atom(op, t) {
                    check_copy(&a).unwrap_or_else(|v| panic!("{op}, {t}: {v}"));
                    checked += 1;
                }
            }
            assert!(checked * 4 > all.len() * 3, "{checked} of {}", all.len());
        });
        // A source that names fewer bits than its destination writes is refused.
        let mut a = copy_atom("SM75_U32x1_LDSM_N", "half_t").unwrap();
        a.bits_dst = crate::test_util::l("(_32,(_32,_2)):(_32,(_1,_1024))");
        assert!(check_copy(&a).unwrap_err().is_cute());
    }

    #[test]
    fn copy_atoms_and_tiles() {
        let c = copy_atom("UniversalCopy<uint32_t>", "float").unwrap();
        assert_eq!(check_copy(&c), Ok(()));
        assert_eq!(check_tv_covers(&crate::test_util::l("(_4,_2):(_2,_1)"), 8), Ok(()));
        assert!(check_tv_covers(&crate::test_util::l("(_4,_2):(_2,_0)"), 8).unwrap_err().is_cute());
        assert!(check_tv_covers(&crate::test_util::l("(_4,_2):(_2,_8)"), 8).is_err());
    }
}
