//! `upcast<N>` / `downcast<N>` of layouts, swizzles and swizzled layouts, and the SM90 GMMA
//! shared-memory layout atoms built with them (CuTe 4.2: layout.hpp, swizzle_layout.hpp,
//! layout_composed.hpp, pointer_flagged.hpp, atom/mma_traits_sm90_gmma.hpp).
//!
//! Definitions:
//! 1. `upcast<N>(layout)`: see [`super::copy::upcast`]. `downcast<N>(layout)` needs a static `_1`
//!    stride somewhere ("Downcast requires adjacent elements"); per leaf a static stride `_1` or
//!    `_-1` multiplies the extent by N, any other stride is multiplied by N.
//! 2. `upcast<N>(Swizzle<B,M,S>)` (N a power of two, "N must be a power of two") is
//!    `Swizzle<B,M-log2 N,S>`, or `Swizzle<max(B+M-log2 N,0),0,S>` when that M would be negative;
//!    `downcast<N>` is `Swizzle<B,M+log2 N,S>`.
//! 3. `upcast<N>(Sw o off o L)` is `composition(upcast(Sw), off / N, upcast(L))` (a zero-bit
//!    swizzle stays: the offset is no longer CuTe's `Int<0>`); with the shared-memory marker
//!    `smem_ptr_flag_bits<B>` the swizzle is kept and the marker becomes `B*N` bits
//!    (`B/N` for downcast).
//! 4. `GMMA::Layout_{MN,K}_{INTER,SW32,SW64,SW128}_Atom_Bits` is `Swizzle<b,4,3> o smem_ptr[1b] o L`
//!    with b = 0,1,2,3 and L = `(_W,_8):(_1,_W)` (MN) or `(_8,_W):(_W,_1)` (K), W = 128,256,512,1024;
//!    `..._Atom<T>` is its `upcast<sizeof_bits<T>>`.

use super::copy::{type_bits, upcast};
use crate::swizzle::{ComposedLayout, Offset, Swizzle};
use crate::{Error, Int, IntTuple, Layout, Result};

/// What upcast/downcast apply to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recastable {
    Layout(Layout),
    Swizzle(Swizzle),
    Composed(ComposedLayout),
}

fn log2_pow2(n: i64) -> Result<i32> {
    if n <= 0 || n & (n - 1) != 0 {
        return Err(Error::Rejected { condition: "N must be a power of two", detail: format!("N = {n}") });
    }
    Ok(n.trailing_zeros() as i32)
}

/// `downcast<N>(layout)`.
pub fn downcast_layout(l: &Layout, n: i64) -> Result<Layout> {
    if !l.shape.congruent(&l.stride) {
        return Err(Error::MismatchedRanks { detail: format!("downcast of non-congruent {l}") });
    }
    if !l.stride.leaves().iter().any(|d| d.is_static_value(1)) {
        return Err(Error::Rejected { condition: "Downcast requires adjacent elements", detail: l.to_string() });
    }
    let nn = Int::st(n);
    let (mut shapes, mut strides) = (Vec::new(), Vec::new());
    for (s, d) in l.leaf_pairs() {
        if d.is_static_value(1) || d.is_static_value(-1) {
            shapes.push(s.mul(nn)?);
            strides.push(d);
        } else {
            shapes.push(s);
            strides.push(d.mul(nn)?);
        }
    }
    Ok(Layout { shape: l.shape.unflatten_like(&shapes)?, stride: l.stride.unflatten_like(&strides)? })
}

fn upcast_swizzle(sw: Swizzle, n: i64) -> Result<Swizzle> {
    let m = sw.m - log2_pow2(n)?;
    if m >= 0 {
        Ok(Swizzle { m, ..sw })
    } else {
        Ok(Swizzle { b: (sw.b + m).max(0), m: 0, s: sw.s })
    }
}

fn downcast_swizzle(sw: Swizzle, n: i64) -> Result<Swizzle> {
    Swizzle::new(sw.b as i64, sw.m as i64 + log2_pow2(n)? as i64, sw.s as i64)
}

/// `composition(sw, upcast<N>(offset), layout)`. CuTe's identity case (`Swizzle<0,..>` with `Int<0>`
/// gives the layout itself) does not apply here: the recast offset is a `C<0>` of another integer
/// type, so even a zero-bit swizzle stays (`Sw<0,0,3> o _0 o L`, as CuTe prints).
fn compose3(swizzle: Swizzle, offset: Offset, layout: Layout) -> Recastable {
    Recastable::Composed(ComposedLayout { swizzle, offset, layout })
}

/// `upcast<N>(x)`.
pub fn upcast_any(x: &Recastable, n: i64) -> Result<Recastable> {
    if n <= 0 {
        return Err(Error::Rejected { condition: "upcast<N> needs N > 0", detail: format!("N = {n}") });
    }
    match x {
        Recastable::Layout(l) => Ok(Recastable::Layout(upcast(l, n)?)),
        Recastable::Swizzle(sw) => Ok(Recastable::Swizzle(upcast_swizzle(*sw, n)?)),
        Recastable::Composed(c) => match c.offset {
            Offset::SmemPtr(b) => Ok(Recastable::Composed(ComposedLayout {
                swizzle: c.swizzle,
                // pointer_flagged.hpp: smem_ptr_flag_bits<B*N>, an `int` template argument.
                offset: Offset::SmemPtr(
                    crate::int::int32(b.checked_mul(n))
                        .ok_or(Error::Overflow { what: "smem_ptr_flag_bits<B*N>", op: "upcast" })?,
                ),
                layout: upcast(&c.layout, n)?,
            })),
            Offset::Mixed { .. } => Err(Error::Type(format!("upcast of {c} (a MixedBits offset) is not modelled"))),
            Offset::Int(o) => {
                if !o.is_static_value(0) {
                    return Err(Error::Rejected {
                        condition: "upcast of a composed layout with a nonzero offset",
                        detail: c.to_string(),
                    });
                }
                Ok(compose3(upcast_swizzle(c.swizzle, n)?, Offset::Int(o), upcast(&c.layout, n)?))
            }
        },
    }
}

/// `downcast<N>(x)`.
pub fn downcast_any(x: &Recastable, n: i64) -> Result<Recastable> {
    if n <= 0 {
        return Err(Error::Rejected { condition: "downcast<N> needs N > 0", detail: format!("N = {n}") });
    }
    match x {
        Recastable::Layout(l) => Ok(Recastable::Layout(downcast_layout(l, n)?)),
        Recastable::Swizzle(sw) => Ok(Recastable::Swizzle(downcast_swizzle(*sw, n)?)),
        Recastable::Composed(c) => match c.offset {
            Offset::SmemPtr(b) => Ok(Recastable::Composed(ComposedLayout {
                swizzle: c.swizzle,
                offset: Offset::SmemPtr(b / n),
                layout: downcast_layout(&c.layout, n)?,
            })),
            Offset::Mixed { .. } => Err(Error::Type(format!("downcast of {c} (a MixedBits offset) is not modelled"))),
            Offset::Int(o) => {
                if !o.is_static_value(0) {
                    return Err(Error::Rejected {
                        condition: "downcast of a composed layout with a nonzero offset",
                        detail: c.to_string(),
                    });
                }
                Ok(compose3(downcast_swizzle(c.swizzle, n)?, Offset::Int(o), downcast_layout(&c.layout, n)?))
            }
        },
    }
}

/// CuTe's `print_layout` of a composed layout (util/print_tensor.hpp): the generic grid, whose
/// cells are `Sw(off + L(m,n))` and whose width comes from `cosize(L)`; a layout over the
/// shared-memory marker `smem_ptr[Bb]` is first made position independent
/// (pointer_flagged.hpp `as_position_independent_swizzle_layout`: the swizzle recast from
/// `uint8_t` to B-bit elements, offset `Int<0>`, which for a zero-bit swizzle is the layout itself).
pub fn print_layout_composed(c: &ComposedLayout) -> Result<String> {
    let c = match c.offset {
        Offset::SmemPtr(_) if !crate::release::PRINT_LAYOUT_SMEM_POSITION_INDEPENDENT.on() => {
            // Before 3.5 the generic print_layout: the grid of Sw(_0 + L(m,n)), the swizzle on
            // element offsets as it stands (in bytes), under the flagged header.
            let plain = ComposedLayout { offset: Offset::Int(Int::st(0)), ..c.clone() };
            return crate::layout::print_grid(&c.to_string(), &c.layout, &|x| plain.call(x));
        }
        Offset::SmemPtr(b) => {
            let sw =
                if b >= 8 { upcast_swizzle(c.swizzle, b / 8)? } else { downcast_swizzle(c.swizzle, 8 / b.max(1))? };
            if sw.b == 0 {
                return crate::print_layout(&c.layout);
            }
            ComposedLayout { swizzle: sw, offset: Offset::Int(Int::st(0)), layout: c.layout.clone() }
        }
        Offset::Int(_) | Offset::Mixed { .. } => c.clone(),
    };
    crate::layout::print_grid(&c.to_string(), &c.layout, &|x| c.call(x))
}

/// The first release whose cute/atom/mma_traits_sm100.hpp declares the UMMA shared-memory layout
/// atoms (tag v3.8.0).
pub const UMMA_SMEM_ATOMS_SINCE: crate::release::Release = crate::release::Release::new(3, 8, 0, 0);

/// The GMMA shared-memory layout atoms: `GMMA::Layout_K_SW128_Atom<half_t>`, `..._Atom_Bits`;
/// and the SM100 UMMA ones (cute/atom/mma_traits_sm100.hpp): `UMMA::Layout_{MN,K}_{INTER,SW32,
/// SW64,SW128}_Atom<T>` are GMMA's (`using cute::GMMA::...`, the `<T>` forms only), and
/// `UMMA::Layout_MN_SW128_32B_Atom_Bits` is `Sw<2,5,2> o smem_ptr o (_1024,_4):(_1,_1024)`,
/// `UMMA::Layout_MN_SW128_32B_Atom<T>` its `upcast<sizeof_bits<T>>`. `None` when `name` is none
/// of them.
pub fn gmma_smem_atom(name: &str) -> Option<Result<Recastable>> {
    let text: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    let text = text.strip_prefix("cute::").unwrap_or(&text);
    if let Some(rest) = text.strip_prefix("UMMA::Layout_") {
        return umma_smem_atom(rest);
    }
    let text = text.strip_prefix("SM90::").unwrap_or(text);
    let rest = text.strip_prefix("GMMA::Layout_")?;
    smem_atom(rest)
}

/// `UMMA::Layout_<rest>`.
fn umma_smem_atom(rest: &str) -> Option<Result<Recastable>> {
    let (head, targ) = match rest.split_once('<') {
        Some((h, t)) => (h, Some(t.strip_suffix('>')?)),
        None => (rest, None),
    };
    let atom = match (head, targ) {
        ("MN_SW128_32B_Atom_Bits", None) | ("MN_SW128_32B_Atom", Some(_)) => None,
        (h, Some(_)) if h.ends_with("_Atom") => Some(smem_atom(rest)?),
        _ => return None,
    };
    if !crate::release::since(UMMA_SMEM_ATOMS_SINCE) {
        let r = crate::release::current();
        return Some(Err(Error::Rejected {
            condition: "'UMMA' has not been declared",
            detail: format!(
                "the UMMA shared-memory layout atoms first appear in CUTLASS {UMMA_SMEM_ATOMS_SINCE} (modelled: {r})"
            ),
        }));
    }
    if let Some(a) = atom {
        return Some(a);
    }
    let bits = Recastable::Composed(ComposedLayout {
        swizzle: Swizzle { b: 2, m: 5, s: 2 },
        offset: Offset::SmemPtr(1),
        layout: Layout {
            shape: IntTuple::tuple([IntTuple::st(1024), IntTuple::st(4)]),
            stride: IntTuple::tuple([IntTuple::st(1), IntTuple::st(1024)]),
        },
    });
    match targ {
        None => Some(Ok(bits)),
        Some(t) => Some(type_bits(t).and_then(|b| upcast_any(&bits, b))),
    }
}

/// `GMMA::Layout_<rest>`.
fn smem_atom(rest: &str) -> Option<Result<Recastable>> {
    let (head, targ) = match rest.split_once('<') {
        Some((h, t)) => (h, Some(t.strip_suffix('>')?)),
        None => (rest, None),
    };
    let (major, rest) = head.split_once('_')?;
    let (kind, rest) = rest.split_once('_')?;
    let b: i64 = match kind {
        "INTER" => 0,
        "SW32" => 1,
        "SW64" => 2,
        "SW128" => 3,
        _ => return None,
    };
    let bits_form = match (rest, targ) {
        ("Atom_Bits", None) => true,
        ("Atom", Some(_)) => false,
        _ => return None,
    };
    let w = 128i64 << b;
    let (shape, stride) = match major {
        "MN" => ([w, 8], [1, w]),
        "K" => ([8, w], [w, 1]),
        _ => return None,
    };
    let layout =
        Layout { shape: IntTuple::tuple(shape.map(IntTuple::st)), stride: IntTuple::tuple(stride.map(IntTuple::st)) };
    let atom = Recastable::Composed(ComposedLayout {
        swizzle: Swizzle { b: b as i32, m: 4, s: 3 },
        offset: Offset::SmemPtr(1),
        layout,
    });
    if bits_form {
        return Some(Ok(atom));
    }
    let bits = match type_bits(targ?) {
        Ok(b) => b,
        Err(e) => return Some(Err(e)),
    };
    Some(upcast_any(&atom, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(r: &Recastable) -> String {
        match r {
            Recastable::Layout(l) => l.to_string(),
            Recastable::Swizzle(s) => s.to_string(),
            Recastable::Composed(c) => c.to_string(),
        }
    }

    #[test]
    fn umma_smem_atoms() {
        let s = |n: &str| gmma_smem_atom(n).map(|r| r.map(|x| show(&x)));
        // GMMA's atoms under the UMMA name (the <T> forms only), and the MN SW128_32B atom.
        assert_eq!(s("UMMA::Layout_K_SW128_Atom<half_t>"), s("GMMA::Layout_K_SW128_Atom<half_t>"));
        assert_eq!(s("UMMA::Layout_K_SW128_Atom_Bits"), None);
        assert_eq!(
            s("UMMA::Layout_MN_SW128_32B_Atom_Bits"),
            Some(Ok("Sw<2,5,2> o smem_ptr[1b](unset) o (_1024,_4):(_1,_1024)".into()))
        );
        assert_eq!(
            s("UMMA::Layout_MN_SW128_32B_Atom<half_t>"),
            Some(Ok("Sw<2,5,2> o smem_ptr[16b](unset) o (_64,_4):(_1,_64)".into()))
        );
        assert_eq!(s("UMMA::Layout_K_SW128_32B_Atom<half_t>"), None);
        // Not declared before 3.8.
        crate::release::with_release(crate::release::Release::new(3, 7, 0, 0), || {
            assert!(matches!(gmma_smem_atom("UMMA::Layout_K_SW128_Atom<half_t>"), Some(Err(Error::Rejected { .. }))));
        });
    }

    #[test]
    fn probe_lines() {
        // From a real-CuTe 4.2 probe.
        let g = |n: &str| show(&gmma_smem_atom(n).unwrap().unwrap());
        assert_eq!(g("GMMA::Layout_K_SW128_Atom<half_t>"), "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)");
        assert_eq!(g("GMMA::Layout_MN_SW64_Atom<float>"), "Sw<2,4,3> o smem_ptr[32b](unset) o (_16,_8):(_1,_16)");
        assert_eq!(g("GMMA::Layout_K_INTER_Atom<int8_t>"), "Sw<0,4,3> o smem_ptr[8b](unset) o (_8,_16):(_16,_1)");
        assert_eq!(g("GMMA::Layout_K_SW128_Atom_Bits"), "Sw<3,4,3> o smem_ptr[1b](unset) o (_8,_1024):(_1024,_1)");
        let c = Recastable::Composed(ComposedLayout {
            swizzle: Swizzle { b: 3, m: 4, s: 3 },
            offset: Offset::Int(Int::st(0)),
            layout: crate::atom::lit::layout("(_8,_1024):(_1024,_1)").unwrap(),
        });
        assert_eq!(show(&upcast_any(&c, 2).unwrap()), "Sw<3,3,3> o _0 o (_8,_512):(_512,_1)");
        assert!(gmma_smem_atom("GMMA::Layout_K_SW16_Atom<half_t>").is_none());
        assert!(upcast_any(&c, 3).is_err());
    }
}
