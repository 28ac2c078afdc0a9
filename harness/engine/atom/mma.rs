//! MMA atoms as data: for every atom, CuTe's `MMA_Traits<Op>` members `Shape_MNK`, `ThrID`,
//! `ALayout`, `BLayout`, `CLayout` and the four value types, keyed by the atom's C++ name.
//!
//! Meaning of the layouts (CuTe, mma_traits.hpp): `ThrID` maps a logical thread id of the atom to
//! a thread index; `ALayout` maps (logical thread, value) to the column-major index of an element
//! of the M x K tile of A; `BLayout` likewise into the N x K tile of B; `CLayout` into the M x N
//! tile of C.
//!
//! Sources, all read in CuTe 4.2's atom/mma_traits_sm{61,70,75,80,89,90,90_gmma}.hpp and
//! checked entry by entry against a real-CuTe probe (see tests/atoms.rs):
//! - the warp-level `mma.sync` atoms (SM70 quad-pair 8x8x4, SM75, SM80, SM89 fp8, SM90 f64) are a
//!   table of layout literals; families that CuTe derives from one base atom (signedness
//!   variants, `_SATURATE`, `ANDPOPC`, complex f64) are expanded from that base here too;
//! - the SM90 warpgroup GMMA atoms are generated from their structure: `SS` atoms read A and B
//!   through shared-memory descriptors (`(_128,(_M,_K)):(_0,(_1,_M))`), `RS` atoms hold A in
//!   registers (one of three fixed layouts, by K), and C is `((_4,_8,_4),(_2,_2,_N/8))` with
//!   fixed strides. Only the N of the base header (8,16,32,64,96,128,192,256) exist unless CuTe
//!   is built with `CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED`, so the others are refused.

use crate::release::{Release, GMMA_C_64X8_THIRD_MODE, SM80_INT4_B_LAYOUT_ONE_TO_ONE};
use std::sync::OnceLock;

use super::lit;
use super::name::AtomName;
use crate::{Error, IntTuple, Layout, Result};

/// One MMA atom's traits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaAtom {
    /// The atom's C++ name as given (canonical spelling, no spaces).
    pub name: String,
    /// `Shape_MNK`, e.g. `(_16,_8,_16)`.
    pub shape_mnk: IntTuple,
    pub thr_id: Layout,
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
    /// `ValTypeD`, `ValTypeA`, `ValTypeB`, `ValTypeC` as CuTe names them.
    pub val_types: [String; 4],
}

impl MmaAtom {
    /// CuTe's `print(MMA_Atom<Op>{})`, without the final newline.
    /// Before 3.5 the print has no `Shape_MNK` line ([`crate::release::MMA_ATOM_PRINTS_SHAPE_MNK`]).
    pub fn print(&self) -> String {
        let shape = if crate::release::MMA_ATOM_PRINTS_SHAPE_MNK.on() {
            format!("\n  Shape_MNK:  {}", self.shape_mnk)
        } else {
            String::new()
        };
        // Before 3.4 the labels are padded to 15 columns ([`crate::release::MMA_ATOM_PRINT_LABELS_NARROW`]).
        let pad = if crate::release::MMA_ATOM_PRINT_LABELS_NARROW.on() { 12 } else { 15 };
        format!(
            "MMA_Atom\n  {:pad$}{}{shape}\n  {:pad$}{}\n  {:pad$}{}\n  {:pad$}{}",
            "ThrID:", self.thr_id, "LayoutA_TV:", self.a, "LayoutB_TV:", self.b, "LayoutC_TV:", self.c
        )
    }
    /// M, N and K as plain numbers.
    pub fn mnk(&self) -> Result<[i64; 3]> {
        let m = |i| Ok::<i64, Error>(self.shape_mnk.mode(i)?.product()?.value);
        Ok([m(0)?, m(1)?, m(2)?])
    }
}

/// A warp-level atom from the tables: names, layouts as literals.
struct Fixed {
    name: String,
    types: [&'static str; 4],
    mnk: &'static str,
    thr: &'static str,
    a: &'static str,
    b: &'static str,
    c: &'static str,
}

// Layouts shared by several SM80-class atoms (the names are ours).
const T32: &str = "_32:_1";
const T1: &str = "_1:_0";
const SM70_QUADPAIR: &str = "(_4,_2):(_1,_16)";
const SM70_ROW_8X4: &str = "(_8,_4):(_1,_8)";
const SM70_COL_8X4: &str = "((_4,_2),_4):((_8,_4),_1)";
const SM70_C_16B: &str = "(_8,_8):(_1,_8)";
const SM70_C_32B: &str = "((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32))";
const QUAD_8X4: &str = "((_4,_8),_1):((_8,_1),_0)";
const QUAD_8X8: &str = "((_4,_8),_2):((_16,_1),_8)";
const QUAD_8X16: &str = "((_4,_8),_4):((_32,_1),_8)";
const QUAD_16X8: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";

const H: &str = "half_t";
const BF: &str = "bfloat16_t";
const F: &str = "float";
const TF: &str = "tfloat32_t";
const D64: &str = "double";
const C64: &str = "complex<double>";
const I32: &str = "int32_t";

fn fixed(
    name: impl Into<String>,
    types: [&'static str; 4],
    mnk: &'static str,
    thr: &'static str,
    abc: [&'static str; 3],
) -> Fixed {
    Fixed { name: name.into(), types, mnk, thr, a: abc[0], b: abc[1], c: abc[2] }
}

/// The signed/unsigned spelling of an integer operand type in atom names and in C++.
fn int_ty(code: &str) -> &'static str {
    match code {
        "S8" => "int8_t",
        "U8" => "uint8_t",
        "S4" => "int4b_t",
        "U4" => "uint4b_t",
        _ => "uint1b_t",
    }
}

fn fixed_table() -> &'static [Fixed] {
    static TABLE: OnceLock<Vec<Fixed>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Vec::new();
        // SM61 dot products (one thread).
        t.push(fixed(
            "SM61_DP4A",
            [I32, "int8_t", "int8_t", I32],
            "(_1,_1,_4)",
            T1,
            ["(_1,_4):(_0,_1)", "(_1,_4):(_0,_1)", "(_1,_1):(_0,_0)"],
        ));
        t.push(fixed(
            "SM61_DP2A",
            [I32, "int16_t", "int16_t", I32],
            "(_1,_1,_2)",
            T1,
            ["(_1,_2):(_0,_1)", "(_1,_2):(_0,_1)", "(_1,_1):(_0,_0)"],
        ));
        // SM70 quad-pair 8x8x4: the letters say whether A and B are row (T) or column (N) major.
        for (acc, c, ty) in [("F16F16F16F16", SM70_C_16B, H), ("F32F16F16F32", SM70_C_32B, F)] {
            for (lay, a, b) in [
                ("TN", SM70_ROW_8X4, SM70_ROW_8X4),
                ("NT", SM70_COL_8X4, SM70_COL_8X4),
                ("NN", SM70_COL_8X4, SM70_ROW_8X4),
                ("TT", SM70_ROW_8X4, SM70_COL_8X4),
            ] {
                t.push(fixed(
                    format!("SM70_8x8x4_{acc}_{lay}"),
                    [ty, H, H, ty],
                    "(_8,_8,_4)",
                    SM70_QUADPAIR,
                    [a, b, c],
                ));
            }
        }
        // SM75.
        t.push(fixed(
            "SM75_16x8x8_F32F16F16F32_TN",
            [F, H, H, F],
            "(_16,_8,_8)",
            T32,
            [QUAD_16X8, QUAD_8X8, QUAD_16X8],
        ));
        t.push(fixed(
            "SM75_8x8x16_S32S8S8S32_TN",
            [I32, "int8_t", "int8_t", I32],
            "(_8,_8,_16)",
            T32,
            [QUAD_8X16, QUAD_8X16, QUAD_8X8],
        ));
        // SM80 16-bit float.
        const A16X16: &str = "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))";
        const B8X16: &str = "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))";
        for (acc, ab) in
            [("F16F16F16F16", [H, H, H, H]), ("F32F16F16F32", [F, H, H, F]), ("F32BF16BF16F32", [F, BF, BF, F])]
        {
            t.push(fixed(format!("SM80_16x8x8_{acc}_TN"), ab, "(_16,_8,_8)", T32, [QUAD_16X8, QUAD_8X8, QUAD_16X8]));
            t.push(fixed(format!("SM80_16x8x16_{acc}_TN"), ab, "(_16,_8,_16)", T32, [A16X16, B8X16, QUAD_16X8]));
        }
        // SM80 tf32.
        t.push(fixed(
            "SM80_16x8x4_F32TF32TF32F32_TN",
            [F, TF, TF, F],
            "(_16,_8,_4)",
            T32,
            ["((_4,_8),_2):((_16,_1),_8)", QUAD_8X4, QUAD_16X8],
        ));
        t.push(fixed(
            "SM80_16x8x8_F32TF32TF32F32_TN",
            [F, TF, TF, F],
            "(_16,_8,_8)",
            T32,
            [B8X16, "((_4,_8),_2):((_8,_1),_32)", QUAD_16X8],
        ));
        // SM80 f64 and complex f64 (the Gaussian complex atom accumulates in its own type).
        t.push(fixed(
            "SM80_8x8x4_F64F64F64F64_TN",
            [D64, D64, D64, D64],
            "(_8,_8,_4)",
            T32,
            [QUAD_8X4, QUAD_8X4, QUAD_8X8],
        ));
        t.push(fixed(
            "SM80_8x8x4_C64C64C64C64_TN",
            [C64, C64, C64, C64],
            "(_8,_8,_4)",
            T32,
            [QUAD_8X4, QUAD_8X4, QUAD_8X8],
        ));
        t.push(fixed(
            "SM80_8x8x4_GC64C64C64GC64_TN",
            ["SM80_8x8x4_GC64C64C64GC64_TN::GaussComplex", C64, C64, "SM80_8x8x4_GC64C64C64GC64_TN::GaussComplex"],
            "(_8,_8,_4)",
            T32,
            [QUAD_8X4, QUAD_8X4, QUAD_8X8],
        ));
        // SM80 int8 and int4: every signedness pair, with and without saturation.
        for (a, b) in [("S8", "S8"), ("S8", "U8"), ("U8", "S8"), ("U8", "U8")] {
            for sat in ["", "_SATURATE"] {
                let ty = [I32, int_ty(a), int_ty(b), I32];
                t.push(fixed(
                    format!("SM80_8x8x16_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_8,_8,_16)",
                    T32,
                    [QUAD_8X16, QUAD_8X16, QUAD_8X8],
                ));
                t.push(fixed(
                    format!("SM80_16x8x16_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_16,_8,_16)",
                    T32,
                    ["((_4,_8),(_4,_2)):((_64,_1),(_16,_8))", QUAD_8X16, QUAD_16X8],
                ));
                t.push(fixed(
                    format!("SM80_16x8x32_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_16,_8,_32)",
                    T32,
                    [
                        "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
                        "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
                        QUAD_16X8,
                    ],
                ));
            }
        }
        for (a, b) in [("S4", "S4"), ("S4", "U4"), ("U4", "S4"), ("U4", "U4")] {
            for sat in ["", "_SATURATE"] {
                let ty = [I32, int_ty(a), int_ty(b), I32];
                t.push(fixed(
                    format!("SM80_8x8x32_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_8,_8,_32)",
                    T32,
                    ["((_4,_8),(_8)):((_64,_1),(_8))", "((_4,_8),(_8)):((_64,_1),(_8))", QUAD_8X8],
                ));
                t.push(fixed(
                    format!("SM80_16x8x32_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_16,_8,_32)",
                    T32,
                    ["((_4,_8),(_8,_2)):((_128,_1),(_16,_8))", "((_4,_8),(_8)):((_64,_1),(_8))", QUAD_16X8],
                ));
                t.push(fixed(
                    format!("SM80_16x8x64_S32{a}{b}S32_TN{sat}"),
                    ty,
                    "(_16,_8,_64)",
                    T32,
                    [
                        "((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))",
                        "((_4,_8),(_8,_2)):((_64,_1),(_8,_256))",
                        QUAD_16X8,
                    ],
                ));
            }
        }
        // SM80 single-bit (xor or and, then popcount).
        let b1 = [I32, "uint1b_t", "uint1b_t", I32];
        for op in ["XORPOPC", "ANDPOPC"] {
            t.push(fixed(
                format!("SM80_16x8x256_S32U1U1S32_TN_{op}"),
                b1,
                "(_16,_8,_256)",
                T32,
                [
                    "((_4,_8),(_32,_2,_2)):((_512,_1),(_16,_8,_2048))",
                    "((_4,_8),(_32,_2)):((_256,_1),(_8,_1024))",
                    QUAD_16X8,
                ],
            ));
            t.push(fixed(
                format!("SM80_8x8x128_S32U1U1S32_TN_{op}"),
                b1,
                "(_8,_8,_128)",
                T32,
                ["((_4,_8),_32):((_256,_1),_8)", "((_4,_8),_32):((_256,_1),_8)", QUAD_8X8],
            ));
            // CuTe declares this A layout with a stride that is not congruent to its shape; it is
            // kept as declared (it prints, but cannot be evaluated).
            t.push(fixed(
                format!("SM80_16x8x128_S32U1U1S32_TN_{op}"),
                b1,
                "(_16,_8,_128)",
                T32,
                ["((_4,_8),(_32,_2)):((_512,_1),((_16,_8)))", "((_4,_8),_32):((_256,_1),_8)", QUAD_16X8],
            ));
        }
        // SM89 fp8.
        for (d, dty) in [("F32", F), ("F16", H)] {
            for (a, aty) in [("E4M3", "float_e4m3_t"), ("E5M2", "float_e5m2_t")] {
                for (b, bty) in [("E4M3", "float_e4m3_t"), ("E5M2", "float_e5m2_t")] {
                    t.push(fixed(
                        format!("SM89_16x8x32_{d}{a}{b}{d}_TN"),
                        [dty, aty, bty, dty],
                        "(_16,_8,_32)",
                        T32,
                        [
                            "((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
                            "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))",
                            QUAD_16X8,
                        ],
                    ));
                }
            }
        }
        // SM100 vectorized FMA (FFMA2; mma_traits_sm100.hpp from 4.1, v4.7.0:3685-3715): one
        // thread, two multiply-adds along M (A and C hold two values) or along N (B and C).
        t.push(fixed(
            "SM100_2x1x1_F32F32F32F32",
            [F, F, F, F],
            "(_2,_1,_1)",
            T1,
            ["(_1,_2):(_0,_1)", "(_1,_1):(_0,_0)", "(_1,_2):(_0,_1)"],
        ));
        t.push(fixed(
            "SM100_1x2x1_F32F32F32F32",
            [F, F, F, F],
            "(_1,_2,_1)",
            T1,
            ["(_1,_1):(_0,_0)", "(_1,_2):(_0,_1)", "(_1,_2):(_0,_1)"],
        ));
        // SM90 warp-level f64 and complex f64.
        for (k, a, b) in [
            ("4", "((_4,_8),_2):((_16,_1),_8)", "((_4,_8),_1):((_8,_1),_0)"),
            ("8", "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", "((_4,_8),_2):((_8,_1),_32)"),
            ("16", "((_4,_8),(_2,_4)):((_16,_1),(_8,_64))", "((_4,_8),_4):((_8,_1),_32)"),
        ] {
            let mnk: &'static str = match k {
                "4" => "(_16,_8,_4)",
                "8" => "(_16,_8,_8)",
                _ => "(_16,_8,_16)",
            };
            t.push(fixed(format!("SM90_16x8x{k}_F64F64F64F64_TN"), [D64, D64, D64, D64], mnk, T32, [a, b, QUAD_16X8]));
            t.push(fixed(format!("SM90_16x8x{k}_C64C64C64C64_TN"), [C64, C64, C64, C64], mnk, T32, [a, b, QUAD_16X8]));
        }
        t
    })
}

/// The N of the base SM90 GMMA header (the others need CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED).
pub const GMMA_N: [i64; 8] = [8, 16, 32, 64, 96, 128, 192, 256];

/// How a GMMA family is named and templated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Targs {
    /// `<GMMA::Major, GMMA::Major[, GMMA::ScaleIn, GMMA::ScaleIn]>`.
    Majors,
    /// `<[GMMA::ScaleIn, GMMA::ScaleIn]>` (the `_TN` atoms with scale parameters).
    Scales,
    /// Not a template (the integer atoms).
    None,
}

/// One GMMA type family: the type code in the name, K, templating, and the value types.
struct GmmaFamily {
    code: String,
    k: i64,
    targs: Targs,
    /// Whether the name carries `_TN` after `SS`/`RS`.
    tn: bool,
    /// Whether a `_SATURATE` variant exists.
    saturate: bool,
    types: [&'static str; 4],
}

fn gmma_families() -> &'static [GmmaFamily] {
    static FAM: OnceLock<Vec<GmmaFamily>> = OnceLock::new();
    FAM.get_or_init(|| {
        let mut v = Vec::new();
        for (code, d, ab) in [("F16F16F16", H, H), ("F32F16F16", F, H), ("F32BF16BF16", F, BF)] {
            v.push(GmmaFamily {
                code: code.into(),
                k: 16,
                targs: Targs::Majors,
                tn: false,
                saturate: false,
                types: [d, ab, ab, d],
            });
        }
        v.push(GmmaFamily {
            code: "F32TF32TF32".into(),
            k: 8,
            targs: Targs::Scales,
            tn: true,
            saturate: false,
            types: [F, TF, TF, F],
        });
        for a in ["S8", "U8"] {
            for b in ["S8", "U8"] {
                v.push(GmmaFamily {
                    code: format!("S32{a}{b}"),
                    k: 32,
                    targs: Targs::None,
                    tn: true,
                    saturate: true,
                    types: [I32, int_ty(a), int_ty(b), I32],
                });
            }
        }
        for (d, dty) in [("F16", H), ("F32", F)] {
            for (a, aty) in [("E4M3", "float_e4m3_t"), ("E5M2", "float_e5m2_t")] {
                for (b, bty) in [("E4M3", "float_e4m3_t"), ("E5M2", "float_e5m2_t")] {
                    v.push(GmmaFamily {
                        code: format!("{d}{a}{b}"),
                        k: 32,
                        targs: Targs::Scales,
                        tn: true,
                        saturate: false,
                        types: [dty, aty, bty, dty],
                    });
                }
            }
        }
        v
    })
}

fn st(v: i64) -> IntTuple {
    IntTuple::st(v)
}
fn tup<const N: usize>(items: [IntTuple; N]) -> IntTuple {
    IntTuple::tuple(items)
}

/// `(_128,(_M,_K)):(_0,(_1,_M))`: every thread of the warpgroup sees the whole M x K (or N x K)
/// operand, read from shared memory through a descriptor.
fn gmma_smem_operand(m: i64, k: i64) -> Layout {
    Layout { shape: tup([st(128), tup([st(m), st(k)])]), stride: tup([st(0), tup([st(1), st(m)])]) }
}

/// The accumulator layout of a 64 x N GMMA (before 3.6 the 64 x 8 one had no third value mode,
/// [`GMMA_C_64X8_THIRD_MODE`]).
fn gmma_c(n: i64) -> Layout {
    if n == 8 && !GMMA_C_64X8_THIRD_MODE.on() {
        return Layout {
            shape: tup([tup([st(4), st(8), st(4)]), tup([st(2), st(2)])]),
            stride: tup([tup([st(128), st(1), st(16)]), tup([st(64), st(8)])]),
        };
    }
    Layout {
        shape: tup([tup([st(4), st(8), st(4)]), tup([st(2), st(2), st(n / 8)])]),
        stride: tup([tup([st(128), st(1), st(16)]), tup([st(64), st(8), st(512)])]),
    }
}

/// The register-sourced A layout of a 64 x K GMMA (K = 8, 16 or 32 by element width).
fn gmma_a_regs(k: i64) -> Result<Layout> {
    lit::layout(match k {
        8 => "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))",
        16 => "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
        32 => "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))",
        _ => "((_4,_8,_4),(_8,_2,_2)):((_512,_1,_16),(_64,_8,_2048))",
    })
}

/// When changed traits apply: from a release on, or with a release switch on (which
/// `release::with_switch_off` can turn off for a release diff's blame).
enum Changed {
    Since(Release),
    With(&'static crate::release::Switch),
}

impl Changed {
    fn applies(&self) -> bool {
        match self {
            Changed::Since(r) => crate::release::since(*r),
            Changed::With(s) => s.on(),
        }
    }
}

const INT4_B: Changed = Changed::With(&SM80_INT4_B_LAYOUT_ONE_TO_ONE);

/// Traits that changed between modelled releases: (atom, operand, when the change applies, the
/// layout before it), as the older release's MMA_Traits declare it.
const TRAITS_BEFORE: &[(&str, char, Changed, &str)] = &[
    (
        "SM80_16x8x256_S32U1U1S32_TN_XORPOPC",
        'A',
        Changed::Since(Release::new(3, 6, 0, 0)),
        "(_32,(_8,_4,_2,_2)):(_64,(_64,_16,_8,_2048))",
    ),
    (
        "SM80_16x8x256_S32U1U1S32_TN_XORPOPC",
        'B',
        Changed::Since(Release::new(3, 6, 0, 0)),
        "(_32,(_32,_2)):(_32,(_1,_1024))",
    ),
    ("SM80_16x8x32_S32S4S4S32_TN", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32S4S4S32_TN_SATURATE", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32S4U4S32_TN", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32S4U4S32_TN_SATURATE", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32U4S4S32_TN", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32U4S4S32_TN_SATURATE", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32U4U4S32_TN", 'B', INT4_B, INT4_B_BEFORE_4_5),
    ("SM80_16x8x32_S32U4U4S32_TN_SATURATE", 'B', INT4_B, INT4_B_BEFORE_4_5),
];

/// The int4 m16n8k32 BLayout before [`SM80_INT4_B_LAYOUT_ONE_TO_ONE`] (not one-to-one onto its tile).
const INT4_B_BEFORE_4_5: &str = "((_4,_8),(_8)):((_32,_1),(_8))";

/// Look up an MMA atom by its C++ name, e.g. `SM80_16x8x16_F32F16F16F32_TN`,
/// `SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>`, `SM90_64x64x8_F32TF32TF32_SS_TN<>`,
/// `UniversalFMA<float>`.
pub fn mma_atom(name: &str) -> Result<MmaAtom> {
    let n = AtomName::parse(name)?;
    super::check_declared(&n.base, "MMA_Traits not implemented for this MMA_Operation")?;
    if n.base == "UniversalFMA" {
        return universal_fma(&n);
    }
    if let Some(f) = fixed_table().iter().find(|f| f.name == n.base) {
        if n.targs.is_some() {
            return Err(Error::Type(format!("{} is not a template: {name}", n.base)));
        }
        let older =
            |which: char| TRAITS_BEFORE.iter().find(|t| t.0 == n.base && t.1 == which && !t.2.applies()).map(|t| t.3);
        return Ok(MmaAtom {
            name: n.canonical(),
            shape_mnk: lit::int_tuple(f.mnk)?,
            thr_id: lit::layout(f.thr)?,
            a: lit::layout(older('A').unwrap_or(f.a))?,
            b: lit::layout(older('B').unwrap_or(f.b))?,
            c: lit::layout(older('C').unwrap_or(f.c))?,
            val_types: f.types.map(String::from),
        });
    }
    if let Some(rest) = n.base.strip_prefix("SM90_64x") {
        return gmma(&n, rest);
    }
    if let Some(rest) = n.base.strip_prefix(SPARSE_GMMA) {
        return Ok(gmma_sparse(&n, rest)?.0);
    }
    let t = match super::umma::umma_traits(&n)? {
        Some(t) => Some(t),
        None => super::sm120::sm120_traits(&n)?,
    };
    if let Some(t) = t {
        return Ok(MmaAtom {
            name: n.canonical(),
            shape_mnk: t.shape_mnk.clone(),
            thr_id: t.thr_id,
            a: t.a,
            b: t.b,
            c: t.c,
            val_types: t.val_types,
        });
    }
    Err(Error::Type(format!("unknown MMA atom '{name}'")))
}

/// What `MMA_Atom<Op>{}` refuses beyond the traits (they print; the atom instantiates the
/// operation and constructs the traits): a register-sourced GMMA with an MN-major A, and the SM100
/// UMMA operations' own static_asserts ([`super::umma::check_atom`]). Call it after [`mma_atom`].
pub fn check_atom(name: &str) -> Result<()> {
    if rs_with_mn_major_a(name) {
        return Err(Error::Rejected {
            condition: "Register source operand A must have K major layout.",
            detail: name.to_string(),
        });
    }
    let n = AtomName::parse(name)?;
    super::umma::check_atom(&n)?;
    super::sm120::check_atom(&n)
}

/// `UniversalFMA<D[,A,B,C]>`: one thread, one multiply-add.
fn universal_fma(n: &AtomName) -> Result<MmaAtom> {
    let t = n.targs.clone().unwrap_or_default();
    if t.is_empty() || t.len() > 4 {
        return Err(Error::Type(format!("UniversalFMA takes <D[,A[,B[,C]]]>, got {}", n.canonical())));
    }
    for ty in &t {
        super::copy::type_bits(ty)?;
    }
    // CuTe's defaults: A = D, B = A, C = D.
    let d = t[0].clone();
    let a = t.get(1).cloned().unwrap_or_else(|| d.clone());
    let b = t.get(2).cloned().unwrap_or_else(|| a.clone());
    let c = t.get(3).cloned().unwrap_or_else(|| d.clone());
    Ok(MmaAtom {
        name: n.canonical(),
        shape_mnk: lit::int_tuple("(_1,_1,_1)")?,
        thr_id: lit::layout(T1)?,
        a: lit::layout("(_1,_1):(_0,_0)")?,
        b: lit::layout("(_1,_1):(_0,_0)")?,
        c: lit::layout("(_1,_1):(_0,_0)")?,
        val_types: [d, a, b, c],
    })
}

/// The name of a GMMA atom after its prefix, `{N}x{K}_{CODE}_{SS|RS}[_TN][_SATURATE]`, for the
/// dense atoms (`k_factor` 1) and the sparse ones (`k_factor` 2: K is twice the family's): N, K,
/// the family and the source (`SS` or `RS`), or the unknown-atom error.
fn parse_gmma_name<'a>(n: &AtomName, rest: &'a str, k_factor: i64) -> Result<(i64, i64, &'static GmmaFamily, &'a str)> {
    let unknown = || Error::Type(format!("unknown MMA atom '{}'", n.canonical()));
    let (nk, tail) = rest.split_once('_').ok_or_else(unknown)?;
    let (ns, ks) = nk.split_once('x').ok_or_else(unknown)?;
    let (nn, kk): (i64, i64) = (ns.parse().map_err(|_| unknown())?, ks.parse().map_err(|_| unknown())?);
    let parts: Vec<&str> = tail.split('_').collect();
    let (code, src) = match parts.as_slice() {
        [c, s, ..] => (*c, *s),
        _ => return Err(unknown()),
    };
    let fam = gmma_families().iter().find(|f| f.code == code).ok_or_else(unknown)?;
    if src != "SS" && src != "RS" || kk != k_factor * fam.k {
        return Err(unknown());
    }
    let mut suffix: &[&str] = &parts[2..];
    if fam.tn {
        match suffix.split_first() {
            Some((&"TN", r)) => suffix = r,
            _ => return Err(unknown()),
        }
    }
    match suffix {
        [] => {}
        ["SATURATE"] if fam.saturate => {}
        _ => return Err(unknown()),
    }
    if !(8..=256).contains(&nn) || nn % 8 != 0 {
        return Err(unknown());
    }
    Ok((nn, kk, fam, src))
}

fn gmma(n: &AtomName, rest: &str) -> Result<MmaAtom> {
    let (nn, kk, fam, src) = parse_gmma_name(n, rest, 1)?;
    // The template arguments are checked first: a name refused by a CuTe rule below still goes
    // to the oracle's C++ (so CuTe's own verdict is recorded), so its arguments must already be
    // on the allow-list.
    check_gmma_targs(n, fam.targs)?;
    if !GMMA_N.contains(&nn) {
        return Err(Error::Rejected {
            condition: "declared only when CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED is defined",
            detail: n.canonical(),
        });
    }
    let a = if src == "SS" { gmma_smem_operand(64, kk) } else { gmma_a_regs(kk)? };
    Ok(MmaAtom {
        name: n.canonical(),
        shape_mnk: tup([st(64), st(nn), st(kk)]),
        thr_id: Layout { shape: st(128), stride: st(1) },
        a,
        b: gmma_smem_operand(nn, kk),
        c: gmma_c(nn),
        val_types: fam.types.map(String::from),
    })
}

/// The namespace and prefix of the SM90 sparse GMMA atoms (cute/arch/mma_sm90_gmma_sparse.hpp).
const SPARSE_GMMA: &str = "SM90::GMMA::SPARSE::GMMA_64x";

/// An SM90 sparse GMMA atom, `SM90::GMMA::SPARSE::GMMA_64xNxK_<CODE>_{SS,RS}[_TN][_SATURATE]<...>`
/// (cute/atom/mma_traits_sm90_gmma_sparse.hpp; reachable through cute/tensor.hpp from CUTLASS
/// 3.8, where mma_traits_sm100.hpp includes it): each dense GMMA family with twice its K (2:4
/// structured-sparse A), `ValTypeA = sparse_elem<2, A>`, the dense atom's A (by K: `ABLayout<64,K>`
/// from shared memory, `ALayout_64xK` from registers), B `ABLayout<N,K>` and C `CLayout_64xN`, and
/// the metadata layout `ELayout_64xK` (K = 16, 32, 64): (thread, value) -> index of the 64 x K
/// tile of A, onto that tile. Template arguments: the dense ones and a trailing defaulted
/// `GMMA::SparseSel`; the integer atoms become templates (`<[GMMA::SparseSel]>`).
fn gmma_sparse(n: &AtomName, rest: &str) -> Result<(MmaAtom, Layout)> {
    let (nn, kk, fam, src) = parse_gmma_name(n, rest, 2)?;
    check_sparse_gmma_targs(n, fam.targs)?;
    if !GMMA_N.contains(&nn) {
        return Err(Error::Rejected {
            condition: "declared only when CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED is defined",
            detail: n.canonical(),
        });
    }
    let a = if src == "SS" { gmma_smem_operand(64, kk) } else { gmma_a_regs(kk)? };
    let e = lit::layout(match kk {
        16 => "((_2,_2,_8,_4),(_8,_2)):((_512,_0,_1,_16),(_64,_8))",
        32 => "((_2,_2,_8,_4),(_16,_2)):((_1024,_0,_1,_16),(_64,_8))",
        _ => "((_2,_2,_8,_4),(_32)):((_8,_2048,_1,_16),(_64))",
    })?;
    let [d, ta, tb, c] = fam.types;
    Ok((
        MmaAtom {
            name: n.canonical(),
            shape_mnk: tup([st(64), st(nn), st(kk)]),
            thr_id: Layout { shape: st(128), stride: st(1) },
            a,
            b: gmma_smem_operand(nn, kk),
            c: gmma_c(nn),
            val_types: [d.to_string(), format!("sparse_elem<2,{ta}>"), tb.to_string(), c.to_string()],
        },
        e,
    ))
}

/// The sparse GMMA atoms' template arguments: the dense atom's, then an optional
/// `GMMA::SparseSel::Zero|One` (after the scales, which must then be given).
fn check_sparse_gmma_targs(n: &AtomName, kind: Targs) -> Result<()> {
    let bad = |why: &str| Error::Type(format!("{}: {why}", n.canonical()));
    let t =
        n.targs.as_deref().ok_or_else(|| bad("this sparse GMMA atom is a template: write its arguments (or <>)"))?;
    let is_enum = |arg: &str, ty: &str, vals: &[&str]| {
        let parts: Vec<&str> = arg.split("::").collect();
        let parts = parts.strip_prefix(&["cute"]).unwrap_or(&parts);
        matches!(parts, ["GMMA", t, v] if *t == ty && vals.contains(v))
    };
    let scale = |a: &String| is_enum(a, "ScaleIn", &["One", "Neg"]);
    let sel = |a: &String| is_enum(a, "SparseSel", &["Zero", "One"]);
    let ok = match kind {
        Targs::None => t.is_empty() || (t.len() == 1 && sel(&t[0])),
        Targs::Scales => match t.len() {
            0 => true,
            2 => t.iter().all(scale),
            3 => t[..2].iter().all(scale) && sel(&t[2]),
            _ => false,
        },
        Targs::Majors => {
            t.len() >= 2
                && t[..2].iter().all(|a| is_enum(a, "Major", &["K", "MN"]))
                && match t.len() {
                    2 => true,
                    4 => t[2..].iter().all(scale),
                    5 => t[2..4].iter().all(scale) && sel(&t[4]),
                    _ => false,
                }
        }
    };
    if ok {
        Ok(())
    } else {
        Err(bad("expected the dense GMMA atom's arguments, then an optional GMMA::SparseSel::Zero|One"))
    }
}

/// The metadata and scale-factor layouts of an MMA atom's traits (`ELayout`, `SFALayout`,
/// `SFBLayout`): the SM90 sparse GMMA atoms' E, the SM120 sparse and block-scaled atoms'. Every
/// other atom's traits declare none of them (the SM100 UMMA atoms keep metadata and scale
/// factors in tensor memory, as fragments: no layout member), and CuTe fails to compile
/// `typename MMA_Traits<X>::ELayout`; the fields are `None` then. Call after [`mma_atom`].
pub fn mma_extra(name: &str) -> Result<super::umma::Extra> {
    let n = AtomName::parse(name)?;
    if let Some(rest) = n.base.strip_prefix(SPARSE_GMMA) {
        let (_, e) = gmma_sparse(&n, rest)?;
        return Ok(super::umma::Extra { e: Some(e), sfa: None, sfb: None });
    }
    Ok(match super::sm120::sm120_traits(&n)? {
        Some(t) => t.extra,
        None => super::umma::Extra::default(),
    })
}

/// The sparse GMMA atom names the engine lists: every family of the base header's N, both
/// sources, both majors where the atom takes them (`RS` only with K-major A).
pub fn sparse_gmma_names() -> Vec<String> {
    let mut out = Vec::new();
    for fam in gmma_families() {
        for n in GMMA_N {
            for src in ["SS", "RS"] {
                let base =
                    format!("{SPARSE_GMMA}{n}x{}_{}_{src}{}", 2 * fam.k, fam.code, if fam.tn { "_TN" } else { "" });
                match fam.targs {
                    Targs::None => {
                        out.push(format!("{base}<>"));
                        out.push(format!("{base}_SATURATE<GMMA::SparseSel::One>"));
                    }
                    Targs::Scales => out.push(format!("{base}<>")),
                    Targs::Majors => {
                        for a in ["K", "MN"] {
                            if src == "RS" && a == "MN" {
                                continue;
                            }
                            for b in ["K", "MN"] {
                                out.push(format!("{base}<GMMA::Major::{a},GMMA::Major::{b}>"));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn check_gmma_targs(n: &AtomName, kind: Targs) -> Result<()> {
    let bad = |why: &str| Error::Type(format!("{}: {why}", n.canonical()));
    // Exactly `GMMA::<ty>::<val>` or `cute::GMMA::<ty>::<val>`: the allow-list.
    let is_enum = |arg: &str, ty: &str, vals: &[&str]| {
        let parts: Vec<&str> = arg.split("::").collect();
        let parts = parts.strip_prefix(&["cute"]).unwrap_or(&parts);
        matches!(parts, ["GMMA", t, v] if *t == ty && vals.contains(v))
    };
    let scales_ok = |s: &[String]| s.iter().all(|a| is_enum(a, "ScaleIn", &["One", "Neg"]));
    match (kind, &n.targs) {
        (Targs::None, None) => Ok(()),
        (Targs::None, Some(_)) => Err(bad("this GMMA atom is not a template")),
        (_, None) => Err(bad("this GMMA atom is a template: write its arguments (or <>)")),
        (Targs::Scales, Some(t)) => {
            if (t.is_empty() || t.len() == 2) && scales_ok(t) {
                Ok(())
            } else {
                Err(bad("expected <> or <GMMA::ScaleIn::One|Neg, GMMA::ScaleIn::One|Neg>"))
            }
        }
        (Targs::Majors, Some(t)) => {
            let majors = t.len() >= 2 && t[..2].iter().all(|a| is_enum(a, "Major", &["K", "MN"]));
            if majors && (t.len() == 2 || t.len() == 4 && scales_ok(&t[2..])) {
                Ok(())
            } else {
                Err(bad("expected <GMMA::Major::K|MN, GMMA::Major::K|MN[, GMMA::ScaleIn, GMMA::ScaleIn]>"))
            }
        }
    }
}

/// Whether the GMMA atom named `name` is a register-sourced (`RS`) atom whose A is declared
/// MN-major. CuTe's traits accept such a name, but instantiating the operation fails its
/// `static_assert(tnspA == GMMA::Major::K, "Register source operand A must have K major layout.")`.
pub fn rs_with_mn_major_a(name: &str) -> bool {
    AtomName::parse(name).is_ok_and(|n| {
        (n.base.starts_with("SM90_64x") || n.base.starts_with(SPARSE_GMMA))
            && n.base.contains("_RS")
            && n.targs.as_ref().and_then(|t| t.first()).is_some_and(|a| a.ends_with("Major::MN"))
    })
}

/// Every MMA atom name the engine knows, in a stable order: the warp-level table, then the GMMA
/// atoms of the base header (both majors where the atom takes them; `RS` only with K-major A).
pub fn mma_atom_names() -> Vec<String> {
    let mut out: Vec<String> = fixed_table().iter().map(|f| f.name.clone()).collect();
    out.push("UniversalFMA<float>".into());
    out.push("UniversalFMA<half_t,half_t,half_t,half_t>".into());
    for fam in gmma_families() {
        for n in GMMA_N {
            for src in ["SS", "RS"] {
                let base = format!("SM90_64x{n}x{}_{}_{src}{}", fam.k, fam.code, if fam.tn { "_TN" } else { "" });
                match fam.targs {
                    Targs::None => {
                        out.push(base.clone());
                        out.push(format!("{base}_SATURATE"));
                    }
                    Targs::Scales => out.push(format!("{base}<>")),
                    Targs::Majors => {
                        for a in ["K", "MN"] {
                            if src == "RS" && a == "MN" {
                                continue;
                            }
                            for b in ["K", "MN"] {
                                out.push(format!("{base}<GMMA::Major::{a},GMMA::Major::{b}>"));
                            }
                        }
                    }
                }
            }
        }
    }
    out.extend(sparse_gmma_names());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chapter_sm80_layouts() {
        // The chapter's MMA lines (SM80_16x8x16_F32F16F16F32_TN).
        let a = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
        assert_eq!(a.a.to_string(), "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))");
        assert_eq!(a.b.to_string(), "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))");
        assert_eq!(a.c.to_string(), "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))");
    }

    #[test]
    fn every_listed_name_resolves() {
        for n in mma_atom_names() {
            let a = mma_atom(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(a.name, n);
        }
    }

    #[test]
    fn refusals() {
        assert!(mma_atom("SM80_16x8x16_F32F16F16F32_NT").is_err());
        assert!(mma_atom("SM80_16x8x16_F32F16F16F32_TN<>").is_err());
        assert!(mma_atom("SM90_64x64x16_F16F16F16_SS").is_err());
        assert!(mma_atom("SM90_64x64x8_F32TF32TF32_SS_TN").is_err());
        assert!(mma_atom("SM90_64x64x32_S32S8S8_SS_TN<>").is_err());
        assert!(matches!(
            mma_atom("SM90_64x24x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>"),
            Err(Error::Rejected { .. })
        ));
        assert!(mma_atom("SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::ScaleIn::One>").is_err());
        // Template arguments off the allow-list are refused as such, even where the shape alone
        // would be a CuTe-rule refusal (which the oracle writes as C++ to record CuTe's verdict).
        for bad in [
            "SM90_64x72x16_F16F16F16_SS<x,y>",
            "SM90_64x72x16_F16F16F16_SS<system,exit>",
            "SM90_64x64x16_F16F16F16_SS<evil::Major::K,GMMA::Major::K>",
            "SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,std::Major::MN>",
            "SM90_64x64x8_F32TF32TF32_SS_TN<GMMA::ScaleIn::One,x::ScaleIn::Neg>",
        ] {
            assert!(matches!(mma_atom(bad), Err(Error::Type(_))), "{bad}: {:?}", mma_atom(bad).map(|a| a.name));
        }
        assert!(mma_atom("SM90_64x64x16_F16F16F16_SS<cute::GMMA::Major::K,GMMA::Major::MN>").is_ok());
    }
}
