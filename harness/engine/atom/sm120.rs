//! SM120 warp-level MMA atoms (cute/arch/mma_sm120.hpp, cute/atom/mma_traits_sm120.hpp, CUTLASS
//! 3.9 to 4.7, the same in each): the F8F6F4 `mma.sync` `SM120_16x8x32_TN<a,b,c>` and the
//! block-scaled `SM120::BLOCKSCALED::SM120_16x8x32_TN_VS<a,b,c,sf,VS>` and
//! `SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<a,b,c,sf,VS>`.
//!
//! Definition (the traits):
//! - `SM120_16x8x32_TN<a,b,c>` derives from `MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>`: `Shape_MNK =
//!   (_16,_8,_32)`, `ThrID = _32`, `ALayout = ((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))`,
//!   `BLayout = ((_4,_8),(_4,_2)):((_32,_1),(_8,_128))`, `CLayout = SM80_16x8_Row`; its value
//!   types are `ValTypeA = ValTypeB = uint8_t` (the registers), `ValTypeD = ValTypeC = c`;
//! - `SM120_16x8x32_TN_VS` takes those of `SM120_16x8x32_TN<a,b,c>` (and scale-factor layouts,
//!   not printed here);
//! - `SM120_16x8x64_TN_VS`: `Shape_MNK = (_16,_8,_64)`, `ThrID = _32`, `ALayout =
//!   ((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))`, `BLayout = ((_4,_8),(_8,_2)):((_64,_1),(_8,_256))`,
//!   `CLayout = SM80_16x8_Row`, `ValTypeA = ValTypeB = uint4_t`.
//!
//! The sparse atoms (cute/arch/mma_sm120_sparse.hpp, cute/atom/mma_traits_sm120_sparse.hpp, 4.2
//! to 4.7): `SM120::SPARSE::SM120_SPARSE_16x8x64_TN<a,b,c>` (2:4-sparse A: `Shape_MNK =
//! (_16,_8,_64)`, A `((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))`, B
//! `((_4,_8),(_4,_4)):((_32,_1),(_8,_128))`, C `SM120_16x8_Row`, metadata `ELayout =
//! ((_2,_2,_8),_32):((_8,_512,_1),_16)`), the block-scaled
//! `SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x64_TN_VS<a,b,c,sf,VS>` (those, with the scale
//! factors of `SM120_16x8x64_TN_VS`) and `SM120_SPARSE_16x8x128_TN_VS` (`(_16,_8,_128)`, its own
//! A, B, SF and E layouts).
//!
//! Scale-factor layouts (`SFALayout`, `SFBLayout`, (thread, value) -> (m, k) or (n, k) of the
//! M x K or N x K tile, a scale factor per element that it scales): for K = 32, 64 and 128,
//! `SFA = ((_2,_2,_8),K):((_8,_0,_1),_16)` ("effectively 16 threads due to the 2:0 mode") and
//! `SFB = ((_4,_8),K):((_0,_1),_8)` ("effectively 8 threads").
//!
//! Definition of E, SFA and SFB (checked by the tests and by `definition::mma_extra`): a (thread,
//! value) layout of `ThrID`'s threads whose image is exactly its tile, M x K for E and SFA, N x
//! K for SFB (every element has its metadata or scale factor held by some thread).
//!
//! The traits print for any type arguments. Refusals, at the atom (`MMA_Atom<Op>{}` instantiates
//! the operation) [`check_atom`]: the operation's primary template `static_assert`s "No MMA matches
//! `OP` for given data types." unless a specialization exists: `SM120_16x8x32_TN` for A and B each
//! one of `float_e2m1_t`, `float_e3m2_t`, `float_e2m3_t`, `float_e4m3_t`, `float_e5m2_t` and C
//! `float` or `half_t`; `SM120_16x8x32_TN_VS` for the same A and B, C `float` and `float_ue8m0_t`
//! scale factors (any VS); `SM120_16x8x64_TN_VS` for `float_e2m1_t` A and B, C `float` and
//! `float_ue8m0_t` or `float_ue4m3_t` scale factors.

use super::lit;
use super::name::AtomName;
use super::umma::{Extra, UmmaTraits};
use crate::{Error, Layout, Result};

/// The narrow floating-point types of the F8F6F4 `mma.sync` (A and B).
const F8F6F4: &[&str] = &["float_e2m1_t", "float_e3m2_t", "float_e2m3_t", "float_e4m3_t", "float_e5m2_t"];

const THR: &str = "_32:_1";
const C_ROW: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";

/// Which SM120 operation a base name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    K32,
    K32Vs,
    K64Vs,
    SparseK64,
    SparseK64Vs,
    SparseK128Vs,
}

fn op_of(base: &str) -> Option<Op> {
    match base {
        "SM120_16x8x32_TN" => Some(Op::K32),
        "SM120::BLOCKSCALED::SM120_16x8x32_TN_VS" => Some(Op::K32Vs),
        "SM120::BLOCKSCALED::SM120_16x8x64_TN_VS" => Some(Op::K64Vs),
        "SM120::SPARSE::SM120_SPARSE_16x8x64_TN" => Some(Op::SparseK64),
        "SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x64_TN_VS" => Some(Op::SparseK64Vs),
        "SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x128_TN_VS" => Some(Op::SparseK128Vs),
        _ => None,
    }
}

/// `SFALayout` and `SFBLayout` over a K-wide tile.
fn sf_layouts(k: i64) -> Result<(Layout, Layout)> {
    Ok((
        lit::layout(&format!("((_2,_2,_8),_{k}):((_8,_0,_1),_16)"))?,
        lit::layout(&format!("((_4,_8),_{k}):((_0,_1),_8)"))?,
    ))
}

/// The struct name the release tables know the operation by (without its namespace).
pub fn declared_name(base: &str) -> &str {
    base.rsplit("::").next().unwrap_or(base)
}

fn value_type(t: &str) -> String {
    t.strip_prefix("cute::").or_else(|| t.strip_prefix("cutlass::")).unwrap_or(t).to_string()
}

/// The parsed arguments: (op, a, b, c, sf).
fn parse(n: &AtomName) -> Result<Option<(Op, Vec<String>)>> {
    let Some(op) = op_of(&n.base) else { return Ok(None) };
    let plain = matches!(op, Op::K32 | Op::SparseK64);
    let want = if plain { 3 } else { 5 };
    let form = if plain { "<A,B,C>" } else { "<A,B,C,SF,VS>" };
    let t = n.targs.as_deref().unwrap_or_default();
    let bad = |why: &str| Error::Type(format!("{} takes {form}: {why} in {}", n.base, n.canonical()));
    if t.len() != want {
        return Err(bad("wrong number of template arguments"));
    }
    for ty in &t[..want.min(4)] {
        if !ty.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            return Err(bad(&format!("'{ty}' is not a type name")));
        }
    }
    if !plain && t[4].parse::<i64>().is_err() {
        return Err(bad(&format!("VS must be an integer, got '{}'", t[4])));
    }
    Ok(Some((op, t.iter().map(|x| value_type(x)).collect())))
}

/// The traits of an SM120 atom, or `None` when `n` names none.
pub fn sm120_traits(n: &AtomName) -> Result<Option<UmmaTraits>> {
    let Some((op, t)) = parse(n)? else { return Ok(None) };
    const A64: &str = "((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))";
    const E64: &str = "((_2,_2,_8),_32):((_8,_512,_1),_16)";
    let (mnk, a, b, regs, e, sf_k) = match op {
        Op::K32 => (
            "(_16,_8,_32)",
            "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
            "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
            ["uint8_t"; 2],
            None,
            None,
        ),
        Op::K32Vs => (
            "(_16,_8,_32)",
            "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
            "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
            ["uint8_t"; 2],
            None,
            Some(32),
        ),
        Op::K64Vs => ("(_16,_8,_64)", A64, "((_4,_8),(_8,_2)):((_64,_1),(_8,_256))", ["uint4_t"; 2], None, Some(64)),
        Op::SparseK64 | Op::SparseK64Vs => (
            "(_16,_8,_64)",
            A64,
            "((_4,_8),(_4,_4)):((_32,_1),(_8,_128))",
            ["sparse_elem<2,A>", "uint8_t"],
            Some(E64),
            (op == Op::SparseK64Vs).then_some(64),
        ),
        Op::SparseK128Vs => (
            "(_16,_8,_128)",
            "((_4,_8),(_16,_2,_2)):((_256,_1),(_16,_8,_1024))",
            "((_4,_8),(_8,_4)):((_64,_1),(_8,_256))",
            ["sparse_elem<4,uint8_t>", "uint4_t"],
            Some("((_2,_2,_8),(_64)):((_8,_1024,_1),(_16))"),
            Some(128),
        ),
    };
    let (sfa, sfb) = match sf_k {
        Some(k) => {
            let (a, b) = sf_layouts(k)?;
            (Some(a), Some(b))
        }
        None => (None, None),
    };
    Ok(Some(UmmaTraits {
        shape_mnk: lit::int_tuple(mnk)?,
        thr_id: lit::layout(THR)?,
        a: lit::layout(a)?,
        b: lit::layout(b)?,
        c: lit::layout(C_ROW)?,
        val_types: [t[2].clone(), regs[0].replace('A', &t[0]), regs[1].to_string(), t[2].clone()],
        extra: Extra { e: e.map(lit::layout).transpose()?, sfa, sfb },
    }))
}

/// The atom's refusal: no specialization of the operation for these types. `Ok` for a name of no
/// SM120 atom.
pub fn check_atom(n: &AtomName) -> Result<()> {
    let Some((op, t)) = parse(n)? else { return Ok(()) };
    let ab = |x: &str| F8F6F4.contains(&x);
    let (ok, condition) = match op {
        Op::K32 => (
            ab(&t[0]) && ab(&t[1]) && (t[2] == "float" || t[2] == "half_t"),
            "No MMA matches SM120_16x8x32_TN for given data types.",
        ),
        Op::K32Vs => (
            ab(&t[0]) && ab(&t[1]) && t[2] == "float" && t[3] == "float_ue8m0_t",
            "No MMA matches SM120_16x8x32_TN_VS for given data types.",
        ),
        Op::K64Vs => (
            t[0] == "float_e2m1_t"
                && t[1] == "float_e2m1_t"
                && t[2] == "float"
                && (t[3] == "float_ue8m0_t" || t[3] == "float_ue4m3_t"),
            "No MMA matches SM120_16x8x64_TN_VS for given data types.",
        ),
        Op::SparseK64 => (
            ab(&t[0]) && ab(&t[1]) && (t[2] == "float" || t[2] == "half_t"),
            "No MMA matches SM120_SPARSE_16x8x64_TN for given data types.",
        ),
        Op::SparseK64Vs => (
            ab(&t[0]) && ab(&t[1]) && t[2] == "float" && t[3] == "float_ue8m0_t",
            "No MMA matches SM120_SPARSE_16x8x64_TN_VS for given data types.",
        ),
        Op::SparseK128Vs => (
            t[0] == "float_e2m1_t"
                && t[1] == "float_e2m1_t"
                && t[2] == "float"
                && (t[3] == "float_ue8m0_t" || t[3] == "float_ue4m3_t"),
            "No MMA matches SM120_SPARSE_16x8x128_TN_VS for given data types.",
        ),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Rejected { condition, detail: n.canonical() })
    }
}

/// The SM120 atoms the engine lists (the random mix and `atom-releases` read them).
pub fn sm120_atom_names() -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in [("float_e4m3_t", "float_e4m3_t"), ("float_e2m1_t", "float_e5m2_t"), ("float_e3m2_t", "float_e2m3_t")]
    {
        out.push(format!("SM120_16x8x32_TN<{a},{b},float>"));
        out.push(format!("SM120_16x8x32_TN<{a},{b},half_t>"));
        out.push(format!("SM120::BLOCKSCALED::SM120_16x8x32_TN_VS<{a},{b},float,float_ue8m0_t,32>"));
    }
    for (sf, vs) in [("float_ue8m0_t", 32), ("float_ue4m3_t", 16)] {
        out.push(format!("SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<float_e2m1_t,float_e2m1_t,float,{sf},{vs}>"));
        out.push(format!(
            "SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x128_TN_VS<float_e2m1_t,float_e2m1_t,float,{sf},{}>",
            vs * 2
        ));
    }
    for (a, b) in [("float_e4m3_t", "float_e4m3_t"), ("float_e2m1_t", "float_e5m2_t")] {
        out.push(format!("SM120::SPARSE::SM120_SPARSE_16x8x64_TN<{a},{b},float>"));
        out.push(format!("SM120::SPARSE::SM120_SPARSE_16x8x64_TN<{a},{b},half_t>"));
        out.push(format!("SM120::BLOCKSCALED::SPARSE::SM120_SPARSE_16x8x64_TN_VS<{a},{b},float,float_ue8m0_t,64>"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn traits(s: &str) -> UmmaTraits {
        sm120_traits(&AtomName::parse(s).unwrap()).unwrap().unwrap()
    }

    #[test]
    fn traits_and_refusals() {
        let t = traits("SM120_16x8x32_TN<float_e4m3_t,float_e2m1_t,half_t>");
        assert_eq!(t.shape_mnk.to_string(), "(_16,_8,_32)");
        assert_eq!(t.val_types, ["half_t", "uint8_t", "uint8_t", "half_t"].map(String::from));
        let w = traits("SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<float_e2m1_t,float_e2m1_t,float,float_ue4m3_t,16>");
        assert_eq!(w.a.to_string(), "((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))");
        // The traits print for any types; the atom refuses those without a specialization.
        let check = |s: &str| check_atom(&AtomName::parse(s).unwrap());
        let bad = "SM120_16x8x32_TN<half_t,half_t,float>";
        let _ = traits(bad);
        assert!(check(bad).unwrap_err().to_string().contains("No MMA matches SM120_16x8x32_TN for given data types"));
        assert!(
            check("SM120::BLOCKSCALED::SM120_16x8x32_TN_VS<float_e4m3_t,float_e4m3_t,float,float_ue4m3_t,32>").is_err()
        );
        for n in sm120_atom_names() {
            check(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
        for bad in ["SM120_16x8x32_TN<float_e4m3_t,float_e4m3_t>", "SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<a,b,c,d,x>"]
        {
            assert!(matches!(sm120_traits(&AtomName::parse(bad).unwrap()), Err(Error::Type(_))), "{bad}");
        }
    }
}
