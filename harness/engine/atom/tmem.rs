//! SM100 tensor-memory copy atoms (`tcgen05.ld` / `tcgen05.st`): `SM100_TMEM_LOAD_<dp>dp<b>b<x>x`
//! and `SM100_TMEM_STORE_...` of cute/arch/copy_sm100.hpp and their `Copy_Traits` in
//! cute/atom/copy_traits_sm100.hpp (CUTLASS 3.8 to 4.7), as CuTe's pattern computes them.
//!
//! Definition (bits; one warp, `ThrID = _32`): the datapath shape `<dp>dp<b>b` is one of 32dp32b,
//! 16dp32b, 16dp64b, 16dp128b and 16dp256b, `x` the repetition (1 to 128; 64 for 16dp128b, 32 for
//! 16dp256b); `_16b` variants (16-bit packing) have the same Src/Dst/Ref. A load's `SrcLayout` is
//! the TMEM side, every thread naming the whole block: `(_32, B):(_0,_1)` with `B` = 1024x bits (32
//! lanes x 32 bits; 2048x for 16dp128b, 4096x for 16dp256b); its `DstLayout` is the registers,
//! (thread, value) -> bit:
//! - 32dp32b: `(_32,32x):(32x,_1)` (each thread one lane, x words);
//! - 16dp32b: `((_16,_2),32x):((64x,32x),_1)`;
//! - 16dp64b: `((_2,_2,_8),(_32,x)):((512x,_32,64x),(_1,_64))`;
//! - 16dp128b: `((_4,_8),(_32,_2,x)):((_32,128x),(_1,1024x,_128))`;
//! - 16dp256b: `((_4,_8),(_64,_2,x)):((_64,256x),(_1,2048x,_256))`;
//!
//! (a mode of size 1 dropped: x = 1 leaves `(_32)` and `(_32,_2)`), and `RefLayout = SrcLayout`.
//! A store is the load's traits with Src and Dst swapped (`RefLayout` stays the load's).
//!
//! `ValID` (logical bit -> TMEM bit address, what `make_tmem_copy` tiles with): `(W x, dp):(_1,
//! DP_b)` with `W` = 32 (32dp32b), 64 (16dp32b, 16dp64b), 128, 256, `dp` 32 or 16 lanes and `DP_b =
//! 2^21` (arch/tmem_allocator_sm100.hpp: a lane's bit stride); the `_16b` forms use half of each
//! 32-bit word: `((_16, W x/16), dp):((_1,_32), DP_b)`.
//!
//! `SM100_TMEM_LOAD_STAT_32dp32b32x` and `..._128x` (tag v4.5.0; the 4.5.0.0 wheel lacks them: from 4.5.1) have the traits and `ValID` of the
//! 32dp32b load of the same repetition ([`tmem_stat_ops`]).
//!
//! The UTCCP copies (`tcgen05.cp`, shared memory -> TMEM; `SM100::TMEM::UTCCP::SM100_UTCCP_*`,
//! copy_traits_sm100.hpp, 3.8 to 4.7) are data: one issuing thread (`_1cta`) or one per CTA of a
//! pair (`_2cta`, `ThrID = _2`, each naming the same bits: thread stride `_0`); Src and Dst
//! `(T, bits):(_0, _1)` over 128 lanes x 256 or 128 bits, the 4-lane refresh `4dp256bit`
//! `(T,(_4,_256)):(_0,(_32,_128))`, the broadcasts `4x32dp128bit` (Src `(T,(_32,_128,_4)):(_0,(_1,
//! _32,_0))`, the fourth mode the broadcast) and `2x64dp128bitlw0213` / `lw0123`; `RefLayout =
//! DstLayout`. Definition: Dst names the bits Src names times Src's value broadcast (the stride-0
//! value mode: 4 or 2 for the broadcasts; checked by `atom::definition::check_copy`).

use super::lit;
use crate::{Layout, Result};

/// The datapath shapes and their largest repetition.
const SHAPES: &[(&str, i64)] =
    &[("32dp32b", 128), ("16dp32b", 128), ("16dp64b", 128), ("16dp128b", 64), ("16dp256b", 32)];

/// (load, shape, x) of an operation name, or `None` when it is none of these.
fn parse(base: &str) -> Option<(bool, &'static str, i64)> {
    // `SM100_TMEM_LOAD_STAT_32dp32b{32,128}x` (namespace SM100::TMEM::LOAD_STAT, brought into cute
    // by a using-declaration): the 32dp32b load's layouts and ValID, plus a row maximum.
    if let Some(rest) = base.strip_prefix("SM100_TMEM_LOAD_STAT_") {
        return match rest {
            "32dp32b32x" => Some((true, "32dp32b", 32)),
            "32dp32b128x" => Some((true, "32dp32b", 128)),
            _ => None,
        };
    }
    let (load, rest) = match base.strip_prefix("SM100_TMEM_LOAD_") {
        Some(r) => (true, r),
        None => (false, base.strip_prefix("SM100_TMEM_STORE_")?),
    };
    let rest = rest.strip_suffix("_16b").unwrap_or(rest);
    let (shape, max) = SHAPES.iter().find(|(s, _)| rest.starts_with(s))?;
    let x: i64 = rest[shape.len()..].strip_suffix('x')?.parse().ok()?;
    (x > 0 && (x & (x - 1)) == 0 && x <= *max && !rest[shape.len()..].starts_with('0')).then_some((load, *shape, x))
}

/// A layout literal `shape:stride` from mode texts, dropping a value mode of size 1.
fn layout(thr: (&str, &str), vals: &[(i64, i64)]) -> Result<Layout> {
    let vals: Vec<&(i64, i64)> = vals.iter().filter(|(s, _)| *s != 1).collect();
    let (vs, vd) = if vals.len() == 1 {
        (format!("_{}", vals[0].0), format!("_{}", vals[0].1))
    } else {
        let s: Vec<String> = vals.iter().map(|(s, _)| format!("_{s}")).collect();
        let d: Vec<String> = vals.iter().map(|(_, d)| format!("_{d}")).collect();
        (format!("({})", s.join(",")), format!("({})", d.join(",")))
    };
    lit::layout(&format!("({},{vs}):({},{vd})", thr.0, thr.1))
}

/// The UTCCP operations: (name without `SM100_UTCCP_` and `_Ncta`, Src per thread, Dst per thread),
/// bits.
const UTCCP: &[(&str, &str, &str)] = &[
    ("128dp256bit", "_32768:_1", "_32768:_1"),
    ("128dp128bit", "_16384:_1", "_16384:_1"),
    ("4dp256bit", "(_4,_256):(_32,_128)", "(_4,_256):(_32,_128)"),
    ("4x32dp128bit", "(_32,_128,_4):(_1,_32,_0)", "_16384:_1"),
    ("2x64dp128bitlw0213", "(_64,_128,_2):(_1,_64,_0)", "_16384:_1"),
    ("2x64dp128bitlw0123", "(_32,_128,_2,_2):(_1,_32,_4096,_0)", "_16384:_1"),
];

/// The `Copy_Traits` of a UTCCP operation (module doc), `None` for other names.
fn utccp_traits(base: &str) -> Result<Option<(Layout, Layout, Layout, Layout)>> {
    if base.starts_with("SM100::") && !crate::release::SM100_TMEM_NAMESPACES.on() {
        // Before 3.9 the UTCCP operations are declared in namespace cute itself.
        return Err(crate::Error::Rejected {
            condition: "'SM100' was not declared in this scope",
            detail: format!("{base}: the SM100::TMEM::UTCCP namespace is new in CUTLASS 3.9"),
        });
    }
    let base = base.strip_prefix("SM100::TMEM::UTCCP::").unwrap_or(base);
    let Some(rest) = base.strip_prefix("SM100_UTCCP_") else { return Ok(None) };
    let (shape, t) = match (rest.strip_suffix("_1cta"), rest.strip_suffix("_2cta")) {
        (Some(s), _) => (s, 1),
        (_, Some(s)) => (s, 2),
        _ => return Ok(None),
    };
    let Some((_, src, dst)) = UTCCP.iter().find(|(n, _, _)| *n == shape) else { return Ok(None) };
    let with_thr = |l: &str| -> Result<Layout> {
        let (s, d) = l.split_once(':').unwrap_or((l, "_1"));
        lit::layout(&format!("(_{t},{s}):(_0,{d})"))
    };
    let thr = lit::layout(&format!("_{t}:{}", if t == 1 { "_0" } else { "_1" }))?;
    let dst = with_thr(dst)?;
    Ok(Some((thr, with_thr(src)?, dst.clone(), dst)))
}

/// Every UTCCP operation name (the random mix and `atom-releases` read them).
pub fn utccp_ops() -> Vec<String> {
    UTCCP.iter().flat_map(|(n, _, _)| ["1cta", "2cta"].map(|c| format!("SM100_UTCCP_{n}_{c}"))).collect()
}

/// `ValID` of a TMEM load or store (module doc): logical bit -> TMEM bit address. `None` when
/// `base` names none.
pub fn tmem_val_id(base: &str) -> Result<Option<Layout>> {
    let Some((_, shape, x)) = parse(base) else { return Ok(None) };
    let (w, dp) = match shape {
        "32dp32b" => (32, 32),
        "16dp32b" | "16dp64b" => (64, 16),
        "16dp128b" => (128, 16),
        _ => (256, 16),
    };
    let bits = w * x;
    let l = if base.ends_with("_16b") {
        format!("((_16,_{}),_{dp}):((_1,_32),_{DP_B})", bits / 16)
    } else {
        format!("(_{bits},_{dp}):(_1,_{DP_B})")
    };
    lit::layout(&l).map(Some)
}

/// `TMEM::DP_b`: the bit stride between TMEM lanes (arch/tmem_allocator_sm100.hpp).
pub const DP_B: i64 = 1 << 21;

/// The `Copy_Traits` of a TMEM copy operation: (ThrID, Src, Dst, Ref) in bits; `None` when `base`
/// names none.
pub fn tmem_copy_traits(base: &str) -> Result<Option<(Layout, Layout, Layout, Layout)>> {
    if let Some(t) = utccp_traits(base)? {
        return Ok(Some(t));
    }
    let Some((load, shape, x)) = parse(base) else { return Ok(None) };
    let tmem_bits = match shape {
        "16dp128b" => 2048,
        "16dp256b" => 4096,
        _ => 1024,
    } * x;
    let tmem = lit::layout(&format!("(_32,_{tmem_bits}):(_0,_1)"))?;
    let regs = match shape {
        "32dp32b" => layout(("_32", &format!("_{}", 32 * x)), &[(32 * x, 1)])?,
        "16dp32b" => layout(("(_16,_2)", &format!("(_{},_{})", 64 * x, 32 * x)), &[(32 * x, 1)])?,
        "16dp64b" => layout(("(_2,_2,_8)", &format!("(_{},_32,_{})", 512 * x, 64 * x)), &[(32, 1), (x, 64)])?,
        "16dp128b" => layout(("(_4,_8)", &format!("(_32,_{})", 128 * x)), &[(32, 1), (2, 1024 * x), (x, 128)])?,
        _ => layout(("(_4,_8)", &format!("(_64,_{})", 256 * x)), &[(64, 1), (2, 2048 * x), (x, 256)])?,
    };
    let thr = lit::layout("_32:_1")?;
    Ok(Some(if load { (thr, tmem.clone(), regs, tmem) } else { (thr, regs, tmem.clone(), tmem) }))
}

/// Every TMEM copy operation name (the random mix and `atom-releases` read them).
pub fn tmem_copy_ops() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["LOAD", "STORE"] {
        for (shape, max) in SHAPES {
            let mut x = 1;
            while x <= *max {
                out.push(format!("SM100_TMEM_{dir}_{shape}{x}x"));
                out.push(format!("SM100_TMEM_{dir}_{shape}{x}x_16b"));
                x *= 2;
            }
        }
    }
    out
}

/// The TMEM loads with a row statistic (`SM100_TMEM_LOAD_STAT_*`, copy_traits_sm100.hpp from 4.5:
/// v4.7.0:3558-3602): `ThrID = _32`, Src `(_32,1024x):(_0,_1)`, Dst `(_32,32x):(32x,_1)`, `Ref =
/// Src`, ValID `(32x,_32):(_1,DP_b)`: exactly `SM100_TMEM_LOAD_32dp32b<x>x`'s, for x 32 and
/// 128.
pub fn tmem_stat_ops() -> Vec<String> {
    ["32dp32b32x", "32dp32b128x"].iter().map(|s| format!("SM100_TMEM_LOAD_STAT_{s}")).collect()
}

/// The TMEM copy atoms of the random mix: each operation of one and two repetitions, with `float`
/// (`half_t` for the `_16b` ones). Apart from `copy::copy_atom_cases` (whose atoms_copy suite is
/// recorded for every release; these are recorded in atoms_sm100).
pub fn tmem_copy_cases() -> Vec<(String, String)> {
    tmem_copy_ops()
        .into_iter()
        .filter(|o| o.contains("b1x") || o.contains("b2x"))
        .map(|o| {
            let t = if o.ends_with("_16b") { "half_t" } else { "float" };
            (o, t.to_string())
        })
        .collect()
}

/// The TMEM accumulator fragment of a UMMA (`ThrMMA::make_fragment_C` of an `SM100_MMA_*` atom,
/// whose `FrgTypeC` is `UMMA::tmem_frg_1sm/2sm<c_type>`, cute/atom/mma_traits_sm100.hpp): for the
/// post-partitioned shape `((M_MMA, N_MMA), rest...)` with `M_MMA = 128` (every datapath
/// occupied, the 1-SM and the 2-SM allocator alike), the logical layout `tiled_product((_128,
/// N_MMA):(_1,_128), make_layout(rest))` composed with the restride `(_128,_16384):(DP<C>,
/// COL_ADDR)`, `DP<C> = 2^16 << log2(32 / bits(C))` (arch/tmem_allocator_sm100.hpp, pointer.hpp's
/// tmem_ptr OffsetShift) and `COL_ADDR = 32 / bits(C)` (a uint32_t storage word). Other `M_MMA`
/// (64 and 32: the interleaved and duplicated allocations) are refused, not modelled.
pub fn umma_accumulator_fragment(tmem_shape: &Layout, c_bits: i64) -> Result<Layout> {
    use crate::{Error, Tiler};
    let modes = tmem_shape.modes();
    let mn = modes.first().map(|m| m.modes()).unwrap_or_default();
    let (Some(m), Some(n)) = (mn.first(), mn.get(1)) else {
        return Err(Error::Type(format!("a UMMA accumulator shape ((M,N),...), found {}", tmem_shape.shape)));
    };
    let (m, n) = (m.size()?, n.size()?);
    if m.value != 128 || !m.is_static || !n.is_static || !(1..=32).contains(&c_bits) || 32 % c_bits != 0 {
        return Err(Error::Rejected {
            condition: "a UMMA accumulator fragment modelled for M_MMA = 128 and a 32-bit-word value type",
            detail: format!("M_MMA {m}, {c_bits}-bit values"),
        });
    }
    let ratio = 32 / c_bits;
    let atom = lit::layout(&format!("(_128,_{}):(_1,_128)", n.value))?;
    let rest = crate::IntTuple::tuple(modes[1..].iter().map(|l| l.shape.clone()));
    let logical = crate::tiled_product::tiled_product(&atom, &Tiler::Layout(Layout::col_major(rest)?))?;
    let restride = lit::layout(&format!("(_128,_16384):(_{},_{ratio})", 65536 * ratio))?;
    crate::composition::composition(&restride, &logical)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> [String; 4] {
        let (a, b, c, d) = tmem_copy_traits(s).unwrap().unwrap();
        [a, b, c, d].map(|l| l.to_string())
    }

    #[test]
    fn loads_and_stores() {
        assert_eq!(
            t("SM100_TMEM_LOAD_32dp32b1x"),
            ["_32:_1", "(_32,_1024):(_0,_1)", "(_32,_32):(_32,_1)", "(_32,_1024):(_0,_1)"]
        );
        let s = t("SM100_TMEM_STORE_16dp128b1x_16b");
        assert_eq!(s[1], "((_4,_8),(_32,_2)):((_32,_128),(_1,_1024))");
        assert_eq!(s[2], s[3]);
        assert_eq!(t("SM100_TMEM_LOAD_16dp64b2x")[2], "((_2,_2,_8),(_32,_2)):((_1024,_32,_128),(_1,_64))");
        // Every (thread, value) of the register side names a distinct bit of the block.
        for op in tmem_copy_ops() {
            let (_, s, d, _) = tmem_copy_traits(&op).unwrap().unwrap();
            let regs = if op.contains("LOAD") { d } else { s };
            let mut v = regs.values().unwrap();
            v.sort_unstable();
            let n = v.len() as i64;
            assert!(v.iter().copied().eq(0..n), "{op}: {regs}");
        }
        assert_eq!(tmem_copy_ops().len(), 2 * 2 * (8 + 8 + 8 + 7 + 6));
        for bad in [
            "SM100_TMEM_LOAD_16dp256b64x",
            "SM100_TMEM_LOAD_32dp32b3x",
            "SM100_TMEM_LOAD_32dp32b",
            "SM100_TMEM_LOAD_8dp32b1x",
        ] {
            assert!(tmem_copy_traits(bad).unwrap().is_none(), "{bad}");
        }
    }
}
