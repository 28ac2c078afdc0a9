//! Copy atoms as data: CuTe's `Copy_Traits<Op>` (`ThrID`, and `SrcLayout`, `DstLayout`,
//! `RefLayout` mapping (thread, value) to a *bit* of the atom's data), and `Copy_Atom<Op, T>`,
//! which reads those bit layouts in units of the value type `T`.
//!
//! Definitions (CuTe 4.2, atom/copy_traits*.hpp and copy_atom.hpp, checked against a probe):
//! 1. `UniversalCopy<S,D=S>` and the SM80 `cp.async` ops move one value per thread:
//!    `ThrID = _1:_0`, `Src = (_1,_bits(S)):(_0,_1)`, `Dst = (_1,_bits(D)):(_0,_1)`, `Ref = Src`.
//! 2. `ldmatrix` (SM75 `LDSM`), `movmatrix` (SM75 `MOVM`) and `stmatrix` (SM90 `STSM`, whose Src and
//!    Dst are LDSM's swapped) are warp-wide (`ThrID = _32:_1`) with the layouts of the tables below.
//! 3. `Copy_Atom<Op,T>`'s `ValLayoutX = recast_layout<uint1_t,T>(X)`, i.e. `upcast<bits(T)>(X)`:
//!    per leaf, a static stride 0 stays; a static stride `d` needs `d % n == 0 || n % d == 0`
//!    (CuTe's "Divisibility condition") and becomes shape `ceil_div(s, ceil_div(n,|d|))`, stride
//!    `sign(d) * ceil_div(|d|, n)`; a dynamic stride is divided by n.
//! 4. The SM100 TMEM loads and stores (`tcgen05.ld`/`st`): see [`super::tmem`]. The SM100 8-bit
//!    `ldmatrix`/`stmatrix` forms and the 256-bit no-allocation global copies are the tables
//!    `SM100_WARP` and `SM100_256BIT` below (cute/atom/copy_traits_sm100.hpp, v4.7.0:46-259).
//! 5. The atom is valid for `T` only when mode 0 of each ValLayout has `size(ThrID)` threads
//!    (CuTe: "CopyOperation is not valid for Src of ValType.", and Dst, Ref likewise).

use super::lit;
use super::name::AtomName;
use crate::release::{COPY_OP_SIZE_ASSERTS, UPCAST_DIVISIBILITY_CONDITION};
use crate::{Error, Int, IntTuple, Layout, Result};

/// A copy atom with its value type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyAtom {
    /// The operation's C++ name (canonical spelling).
    pub op: String,
    /// The value type's name and width in bits.
    pub val_type: String,
    pub val_bits: i64,
    pub thr_id: Layout,
    /// The traits' layouts, in bits.
    pub bits_src: Layout,
    pub bits_dst: Layout,
    pub bits_ref: Layout,
    /// The same layouts in units of the value type.
    pub src: Layout,
    pub dst: Layout,
    pub ref_: Layout,
}

impl CopyAtom {
    /// CuTe's `print(Copy_Atom)`, without the final newline.
    pub fn print(&self) -> String {
        format!(
            "Copy_Atom\n  ThrID:        {}\n  ValLayoutSrc: {}\n  ValLayoutDst: {}\n  ValLayoutRef: {}\n  ValueType:    {}b",
            self.thr_id, self.src, self.dst, self.ref_, self.val_bits
        )
    }
}

/// `sizeof_bits` of a value type spelled as in C++ (`half_t`, `cutlass::half_t`, `uint128_t`,
/// `uint_bit_t<64>`, ...).
pub fn type_bits(ty: &str) -> Result<i64> {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.strip_prefix("cute::").or_else(|| t.strip_prefix("cutlass::")).unwrap_or(&t);
    if let Some(n) =
        t.strip_prefix("uint_bit_t<").or_else(|| t.strip_prefix("int_bit_t<")).and_then(|r| r.strip_suffix('>'))
    {
        return match n.parse::<i64>() {
            Ok(b @ (1 | 2 | 4 | 8 | 16 | 32 | 64 | 128)) => Ok(b),
            _ => Err(Error::Type(format!("unsupported bit width in '{ty}'"))),
        };
    }
    Ok(match t {
        "uint1b_t" | "uint1_t" | "bin1_t" => 1,
        "int2b_t" | "uint2b_t" | "uint2_t" => 2,
        "int4b_t" | "uint4b_t" | "uint4_t" => 4,
        "int8_t" | "uint8_t" | "char" | "bool" | "float_e4m3_t" | "float_e5m2_t" => 8,
        "half_t" | "bfloat16_t" | "int16_t" | "uint16_t" => 16,
        "float" | "tfloat32_t" | "int32_t" | "uint32_t" | "int" => 32,
        "double" | "int64_t" | "uint64_t" | "complex<float>" => 64,
        "uint128_t" | "complex<double>" => 128,
        _ => return Err(Error::Type(format!("unknown value type '{ty}'"))),
    })
}

/// CuTe's `upcast<n>(layout)` (definition 3 above).
pub fn upcast(layout: &Layout, n: i64) -> Result<Layout> {
    if !layout.shape.congruent(&layout.stride) {
        return Err(Error::MismatchedRanks { detail: format!("upcast of non-congruent {layout}") });
    }
    let nn = Int::st(n);
    let mut shapes = Vec::new();
    let mut strides = Vec::new();
    for (s, d) in layout.leaf_pairs() {
        if d.is_static_value(0) {
            shapes.push(s);
            strides.push(d);
        } else if d.is_static {
            let ad = d.abs()?;
            if ad.value == 0 || (ad.value % n != 0 && n % ad.value != 0) {
                // CuTe: static_assert(Stride::value % N == 0 or N % Stride::value == 0, "Divisibility condition");
                // before 3.9 the same case failed inside shape_div ("Static shape_div failure").
                let condition = if UPCAST_DIVISIBILITY_CONDITION.on() {
                    "Divisibility condition"
                } else {
                    "Static shape_div failure"
                };
                return Err(Error::Rejected { condition, detail: format!("upcast<{n}> of stride {d} in {layout}") });
            }
            if UPCAST_DIVISIBILITY_CONDITION.on() {
                shapes.push(s.ceil_div(nn.ceil_div(ad)?)?);
                strides.push(Int::st(d.value.signum()).mul(ad.ceil_div(nn)?)?);
            } else {
                // Before 4.2: make_layout(shape_div(shape, shape_div(N, abs(stride))), shape_div(stride, N))
                // (layout.hpp upcast), so a static extent the factor does not divide (nor divides) is
                // "Static shape_div failure", and a dynamic one is divided rounding down.
                let div = crate::composition::shape_div;
                shapes.push(div(s, div(nn, ad)?)?);
                strides.push(div(d, nn)?);
            }
        } else {
            shapes.push(s);
            strides.push(d.div(nn)?);
        }
    }
    Ok(Layout { shape: layout.shape.unflatten_like(&shapes)?, stride: layout.stride.unflatten_like(&strides)? })
}

/// The `(_1,_bits):(_0,_1)` layout of one value of `bits` bits held by one thread.
fn one_value(bits: i64) -> Layout {
    Layout {
        shape: IntTuple::tuple([IntTuple::st(1), IntTuple::st(bits)]),
        stride: IntTuple::tuple([IntTuple::st(0), IntTuple::st(1)]),
    }
}

/// The warp-wide ops: name, Src and Dst in bits (Ref = Dst for LDSM and MOVM).
const LDSM: &[(&str, &str, &str)] = &[
    ("SM75_U32x1_LDSM_N", "((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)"),
    ("SM75_U32x2_LDSM_N", "((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))"),
    ("SM75_U32x4_LDSM_N", "(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))"),
    ("SM75_U16x2_LDSM_T", "((_8,_4),_128):((_128,_0),_1)", "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))"),
    ("SM75_U16x4_LDSM_T", "((_16,_2),_128):((_128,_0),_1)", "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))"),
    ("SM75_U16x8_LDSM_T", "(_32,_128):(_128,_1)", "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"),
    ("SM75_U32x1_MOVM_T", "(_32,_32):(_32,_1)", "(_32,_32):(_32,_1)"),
];

/// The SM100 warp-wide shared-memory copies of cute/atom/copy_traits_sm100.hpp (CUTLASS 3.8 to 4.7,
/// unchanged): name, Src and Dst in bits, and whether `RefLayout` is Src (the `STSM` stores) or
/// Dst (the `LDSM` loads). The 8-bit transposing `ldmatrix.b8x16` / `stmatrix.b8` forms and the
/// `SU4`/`SU6` to `U8x16` unpacking loads (`ldmatrix...b8x16.b4x16_p64` / `b6x16_p32`: the source
/// rows as `SM75_U32xN_LDSM_N`'s, the destination as theirs).
const SM100_WARP: &[(&str, &str, &str, bool)] = &[
    (
        "SM100_U8x8_LDSM_T",
        "((_2,_2,_4,_2),_128):((_128,_1024,_256,_0),_1)",
        "((_4,_8),(_8,_2,_2,_2)):((_256,_8),(_1,_128,_64,_1024))",
        false,
    ),
    (
        "SM100_U8x16_LDSM_T",
        "((_2,_2,_4,_2),_128):((_128,_1024,_256,_2048),_1)",
        "((_4,_8),(_8,_2,_2,_4)):((_256,_8),(_1,_128,_64,_1024))",
        false,
    ),
    ("SM100_SU4_DU8x16_x1_LDSM_N", "((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)", false),
    ("SM100_SU6_DU8x16_x1_LDSM_N", "((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)", false),
    ("SM100_SU4_DU8x16_x2_LDSM_N", "((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))", false),
    ("SM100_SU6_DU8x16_x2_LDSM_N", "((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))", false),
    ("SM100_SU4_DU8x16_x4_LDSM_N", "(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))", false),
    ("SM100_SU6_DU8x16_x4_LDSM_N", "(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))", false),
    ("SM100_U8x4_STSM_T", "((_4,_8),(_8,_2,_2)):((_256,_8),(_1,_128,_64))", "((_8,_4),_128):((_128,_0),_1)", true),
    (
        "SM100_U8x8_STSM_T",
        "((_4,_8),(_8,_2,_2,_2)):((_256,_8),(_1,_128,_64,_1024))",
        "((_16,_2),_128):((_128,_0),_1)",
        true,
    ),
    ("SM100_U8x16_STSM_T", "((_4,_8),(_8,_2,_2,_4)):((_256,_8),(_1,_128,_64,_1024))", "(_32,_128):(_128,_1)", true),
];

/// The SM100 one-thread 256-bit global loads and stores without L1 allocation
/// (`SM100_LOAD_256bit_CACHE_NOALLOCATION`, `SM100_STORE_256bit_CACHE_NOALLOCATION`, from 4.2):
/// `ThrID = _1`, Src = Dst = Ref = `(_1,_256):(_0,_1)`.
const SM100_256BIT: &[&str] = &["SM100_LOAD_256bit_CACHE_NOALLOCATION", "SM100_STORE_256bit_CACHE_NOALLOCATION"];

/// The traits of a copy operation: (ThrID, Src, Dst, Ref), all in bits. The operation's own
/// requirements are not checked here: CuTe reads `Copy_Traits<Op>` (and `Copy_Atom<Op,T>`'s
/// layouts) without instantiating `Op`; see [`check_copy_op`].
pub fn copy_traits(op: &str) -> Result<(Layout, Layout, Layout, Layout)> {
    copy_traits_impl(op, false)
}

/// The `static_assert`s of the copy operation itself, which fire where CuTe instantiates the
/// operation (building a TiledCopy): `UniversalCopy` needs `sizeof_bits >= 8`, `cp.async` equal
/// sizes of 4, 8 or 16 bytes (16 for CACHEGLOBAL), `AutoVectorizingCopyWithAssumedAlignment`
/// 8, 16, 32, 64 or 128 bits.
pub fn check_copy_op(op: &str) -> Result<()> {
    copy_traits_impl(op, true).map(|_| ())
}

fn copy_traits_impl(op: &str, check: bool) -> Result<(Layout, Layout, Layout, Layout)> {
    let n = AtomName::parse(op)?;
    super::check_declared(&n.base, "not declared in this release")?;
    let unknown = || Error::Type(format!("unknown copy operation '{op}'"));
    let t1 = lit::layout("_1:_0")?;
    let t32 = lit::layout("_32:_1")?;
    let targs = n.targs.clone().unwrap_or_default();
    let no_targs = || {
        if n.targs.is_some() {
            Err(Error::Type(format!("{} is not a template", n.base)))
        } else {
            Ok(())
        }
    };
    let src_dst_types = |name: &str| -> Result<(i64, i64)> {
        match targs.as_slice() {
            [s] => Ok((type_bits(s)?, type_bits(s)?)),
            [s, d] => Ok((type_bits(s)?, type_bits(d)?)),
            _ => Err(Error::Type(format!("{name} takes <S> or <S,D>"))),
        }
    };
    match n.base.as_str() {
        "UniversalCopy" => {
            let (s, d) = src_dst_types("UniversalCopy")?;
            if check && COPY_OP_SIZE_ASSERTS.on() && (s < 8 || d < 8) {
                // CuTe: static_assert(sizeof_bits_v<S> >= 8) (no message).
                return Err(Error::Rejected {
                    condition: "static assertion failed",
                    detail: format!("sizeof_bits_v<S> >= 8 and sizeof_bits_v<D> >= 8 in {}", n.canonical()),
                });
            }
            Ok((t1, one_value(s), one_value(d), one_value(s)))
        }
        "SM80_CP_ASYNC_CACHEALWAYS"
        | "SM80_CP_ASYNC_CACHEALWAYS_ZFILL"
        | "SM80_CP_ASYNC_CACHEGLOBAL"
        | "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL" => {
            let (s, d) = src_dst_types(&n.base)?;
            if check && s != d {
                return Err(Error::Rejected {
                    condition: "cp.async requires sizeof(src_value_type) == sizeof(dst_value_type)",
                    detail: n.canonical(),
                });
            }
            let ok = if n.base.contains("CACHEGLOBAL") && COPY_OP_SIZE_ASSERTS.on() {
                s == 128
            } else {
                [32, 64, 128].contains(&s)
            };
            if check && !ok {
                return Err(Error::Rejected {
                    condition: "cp.async sizeof(TS) is not supported",
                    detail: n.canonical(),
                });
            }
            Ok((t1, one_value(s), one_value(d), one_value(s)))
        }
        "AutoVectorizingCopyWithAssumedAlignment" | "AutoVectorizingCopy" | "DefaultCopy" => {
            let bits = match (n.base.as_str(), targs.as_slice()) {
                ("AutoVectorizingCopy" | "DefaultCopy", _) => {
                    no_targs()?;
                    0
                }
                (_, []) if n.targs.is_some() => 128,
                (_, [b]) => b.parse::<i64>().map_err(|_| unknown())?,
                _ => return Err(unknown()),
            };
            if check && bits != 0 && ![8, 16, 32, 64, 128].contains(&bits) {
                return Err(Error::Rejected {
                    condition: "Expected MaxVecBits to be 8 or 16 or 32 or 64 or 128 for alignment and performance.",
                    detail: n.canonical(),
                });
            }
            let l = lit::layout("(_1,_1):(_0,_0)")?;
            Ok((t1, l.clone(), l.clone(), l))
        }
        base => {
            no_targs()?;
            if let Some(t) = super::tmem::tmem_copy_traits(base)? {
                return Ok(t);
            }
            if let Some((_, s, d, ref_src)) = SM100_WARP.iter().find(|(name, _, _, _)| *name == base) {
                let (s, d) = (lit::layout(s)?, lit::layout(d)?);
                let r = if *ref_src { s.clone() } else { d.clone() };
                return Ok((t32, s, d, r));
            }
            if SM100_256BIT.contains(&base) {
                return Ok((t1, one_value(256), one_value(256), one_value(256)));
            }
            if let Some((_, s, d)) = LDSM.iter().find(|(name, _, _)| *name == base) {
                let (s, d) = (lit::layout(s)?, lit::layout(d)?);
                return Ok((t32, s, d.clone(), d));
            }
            // stmatrix: the transpose of the matching ldmatrix; Ref = Src.
            if let Some(ld) = base.strip_prefix("SM90_").and_then(|r| {
                r.strip_suffix("_STSM_N")
                    .map(|x| format!("SM75_{x}_LDSM_N"))
                    .or_else(|| r.strip_suffix("_STSM_T").map(|x| format!("SM75_{x}_LDSM_T")))
            }) {
                if let Some((_, s, d)) = LDSM.iter().find(|(name, _, _)| *name == ld) {
                    let (s, d) = (lit::layout(s)?, lit::layout(d)?);
                    return Ok((t32, d.clone(), s, d));
                }
            }
            Err(unknown())
        }
    }
}

/// `Copy_Atom<Op, T>`.
pub fn copy_atom(op: &str, val_type: &str) -> Result<CopyAtom> {
    let (thr_id, bits_src, bits_dst, bits_ref) = copy_traits(op)?;
    let val_bits = type_bits(val_type)?;
    let recast = |l: &Layout| if val_bits == 1 { Ok(l.clone()) } else { upcast(l, val_bits) };
    let (src, dst, ref_) = (recast(&bits_src)?, recast(&bits_dst)?, recast(&bits_ref)?);
    let nthr = thr_id.size()?.value;
    for (l, what) in [(&src, "Src"), (&dst, "Dst"), (&ref_, "Ref")] {
        if l.mode(0)?.size()?.value != nthr {
            return Err(Error::Rejected {
                condition: match what {
                    "Src" => "CopyOperation is not valid for Src of ValType.",
                    "Dst" => "CopyOperation is not valid for Dst of ValType.",
                    _ => "CopyOperation is not valid for Ref of ValType.",
                },
                detail: format!("Copy_Atom<{op},{val_type}>"),
            });
        }
    }
    let canon = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    Ok(CopyAtom {
        op: AtomName::parse(op)?.canonical(),
        val_type: canon(val_type),
        val_bits,
        thr_id,
        bits_src,
        bits_dst,
        bits_ref,
        src,
        dst,
        ref_,
    })
}

/// Copy operations the engine knows, each with the value types the probe checks it with.
pub fn copy_atom_cases() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for t in ["uint8_t", "half_t", "float", "double", "uint128_t"] {
        v.push((format!("UniversalCopy<{t}>"), t.to_string()));
    }
    v.push(("UniversalCopy<uint32_t>".into(), "half_t".into()));
    v.push(("UniversalCopy<uint128_t>".into(), "half_t".into()));
    v.push(("UniversalCopy<uint64_t>".into(), "bfloat16_t".into()));
    v.push(("UniversalCopy<uint32_t>".into(), "int8_t".into()));
    v.push(("UniversalCopy<uint32_t,uint32_t>".into(), "float".into()));
    for op in ["SM80_CP_ASYNC_CACHEALWAYS", "SM80_CP_ASYNC_CACHEALWAYS_ZFILL"] {
        for (s, ts) in [
            ("uint32_t", &["half_t", "float", "int8_t"][..]),
            ("uint64_t", &["half_t", "double"]),
            ("uint128_t", &["half_t", "bfloat16_t", "float", "int8_t", "tfloat32_t", "double", "uint128_t"]),
        ] {
            for t in ts {
                v.push((format!("{op}<{s}>"), t.to_string()));
            }
        }
    }
    for op in ["SM80_CP_ASYNC_CACHEGLOBAL", "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL"] {
        for t in ["half_t", "float", "int8_t", "uint128_t"] {
            v.push((format!("{op}<uint128_t>"), t.to_string()));
        }
    }
    for (op, _, _) in LDSM {
        for t in ["half_t", "bfloat16_t", "uint16_t", "float", "uint32_t"] {
            v.push((op.to_string(), t.to_string()));
        }
    }
    for op in [
        "SM90_U32x1_STSM_N",
        "SM90_U32x2_STSM_N",
        "SM90_U32x4_STSM_N",
        "SM90_U16x2_STSM_T",
        "SM90_U16x4_STSM_T",
        "SM90_U16x8_STSM_T",
    ] {
        for t in ["half_t", "float"] {
            v.push((op.to_string(), t.to_string()));
        }
    }
    for op in ["DefaultCopy", "AutoVectorizingCopy", "AutoVectorizingCopyWithAssumedAlignment<64>"] {
        v.push((op.to_string(), "half_t".to_string()));
    }
    v
}

/// The SM100 copy operations of this module and of [`super::tmem`]'s `LOAD_STAT` forms, each with
/// the value types the random mix and fixtures/cases/atoms_sm100_more.cases draw them with. Apart
/// from [`copy_atom_cases`] (whose atoms_copy suite and device plan are the SM75-SM90 atoms').
pub fn sm100_copy_cases() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (op, _, _, _) in SM100_WARP {
        for t in ["uint8_t", "half_t", "float"] {
            v.push((op.to_string(), t.to_string()));
        }
    }
    for op in SM100_256BIT {
        for t in ["float", "half_t", "uint128_t"] {
            v.push((op.to_string(), t.to_string()));
        }
    }
    for op in super::tmem::tmem_stat_ops() {
        v.push((op, "float".to_string()));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_lines() {
        // From a real-CuTe 4.2 probe: print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}).
        let a = copy_atom("SM75_U32x4_LDSM_N", "half_t").unwrap();
        assert_eq!(
            a.print(),
            "Copy_Atom\n  ThrID:        _32:_1\n  ValLayoutSrc: (_32,_8):(_8,_1)\n  ValLayoutDst: (_32,(_2,_4)):(_2,(_1,_64))\n  ValLayoutRef: (_32,(_2,_4)):(_2,(_1,_64))\n  ValueType:    16b"
        );
        // Same probe: Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>.
        let a = copy_atom("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t").unwrap();
        assert_eq!(a.ref_.to_string(), "(_1,_8):(_0,_1)");
        assert_eq!(a.thr_id.to_string(), "_1:_0");
    }

    #[test]
    fn sm100_copies() {
        // Recorded on 4.7.0.0 (fixtures/cases/atoms_sm100_more.cases).
        let a = copy_atom("SM100_U8x8_LDSM_T", "uint8_t").unwrap();
        assert_eq!(a.src.to_string(), "((_2,_2,_4,_2),_16):((_16,_128,_32,_0),_1)");
        assert_eq!(a.ref_, a.dst);
        let s = copy_atom("SM100_U8x16_STSM_T", "uint8_t").unwrap();
        assert_eq!(s.dst.to_string(), "(_32,_16):(_16,_1)");
        assert_eq!(s.ref_, s.src);
        let g = copy_atom("SM100_LOAD_256bit_CACHE_NOALLOCATION", "half_t").unwrap();
        assert_eq!([g.thr_id.to_string(), g.ref_.to_string()], ["_1:_0", "(_1,_16):(_0,_1)"]);
        // LOAD_STAT is the 32dp32b load of its repetition.
        crate::release::with_release(crate::release::Release::new(4, 7, 0, 0), || {
            for x in ["32", "128"] {
                assert_eq!(
                    copy_traits(&format!("SM100_TMEM_LOAD_STAT_32dp32b{x}x")).unwrap(),
                    copy_traits(&format!("SM100_TMEM_LOAD_32dp32b{x}x")).unwrap()
                );
            }
            assert!(copy_traits("SM100_TMEM_LOAD_STAT_32dp32b64x").is_err());
        });
        // A value type the 8-bit layouts do not hold per thread: CuTe's thread-count refusal.
        assert!(copy_atom("SM100_U8x8_LDSM_T", "half_t").is_err());
        // Each first release (atom/since.rs): the 256-bit copies from 4.2, LOAD_STAT from 4.5.1.
        crate::release::with_release(crate::release::Release::new(4, 1, 0, 0), || {
            assert!(copy_traits("SM100_STORE_256bit_CACHE_NOALLOCATION").is_err());
            assert!(copy_traits("SM100_U8x4_STSM_T").is_ok());
        });
        crate::release::with_release(crate::release::Release::new(4, 5, 0, 0), || {
            assert!(copy_traits("SM100_TMEM_LOAD_STAT_32dp32b32x").is_err());
        });
    }

    #[test]
    fn refusals() {
        // CuTe reads these traits without instantiating the operation; building a TiledCopy does.
        assert!(copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>", "half_t").is_ok());
        assert!(check_copy_op("SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>").is_err());
        assert!(check_copy_op("UniversalCopy<int4b_t>").is_err());
        assert!(check_copy_op("AutoVectorizingCopyWithAssumedAlignment<7>").is_err());
        assert!(copy_atom("SM75_U32x1_LDSM_N<>", "half_t").is_err());
        assert!(copy_atom("NoSuchCopy", "half_t").is_err());
        assert!(copy_atom("SM75_U32x1_LDSM_N", "no_such_t").is_err());
    }
}
