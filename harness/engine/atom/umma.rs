//! SM100 UMMA atoms (`tcgen05.mma`) as data: the F16/BF16 and TF32 families of
//! cute/atom/mma_traits_sm100.hpp, shared-memory (`_SS`) and tensor-memory A (`_TS`) forms, on one
//! SM and on a pair of SMs (`_2x1SM_`), e.g.
//! `SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>`.
//!
//! Definition, from `MMA_Traits<SM100_MMA_F16BF16_SS<a,b,c,M,N,a_major,b_major,a_neg,b_neg>>`
//! (CUTLASS 3.8 to 4.7, the same in each; `_TS` adds `c_sat`, TF32 is the same with 32-bit types):
//! - `K = 256 / sizeof_bits<a>` ("Logical shape-K is always 256bits"), `Shape_MNK = (M,N,K)`;
//! - one SM: `ThrID = _1`, `ALayout = (_1,(M,K)):(_0,(_1,M))`, B likewise over `(N,K)`, C over
//!   `(M,N)`: the one issuing thread holds the whole tile (a shared-memory descriptor, or a TMEM
//!   address);
//! - two SMs: `ThrID = _2`, `ALayout = (_2,(M/2,K)):(M/2,(_1,M))`, B `(_2,(N/2,K)):(N/2,(_1,N))`,
//!   C `(_2,(M/2,N)):(M/2,(_1,M))`: each SM of the pair holds half of M (and of N for B);
//! - value types `(D,A,B,C) = (c,a,b,c)`.
//!
//! Refusals, where CuTe makes them:
//! - the traits (every member, so `mma_layout_a` too): `static_assert(sizeof_bits_v<a_type> ==
//!   sizeof_bits_v<b_type> && sizeof_bits_v<b_type> == 16, "SM100_MMA_F16BF16_SS supports 16bit
//!   types")` (32 for TF32), named by the variant;
//! - the atom (`MMA_Atom<Op>{}`, `make_tiled_mma`: they instantiate the operation and construct
//!   the traits) [`check_atom`]: the operation's static_asserts in cute/arch/mma_sm100_umma.hpp
//!   (M: 64 or 128 on one SM, 128 or 256 on two; N by variant and release, see
//!   [`SM100_SS_N_RELAXED`]; `_TS`: "A from TMEM can't be transposed"), then the instruction
//!   descriptor's formats (mma_sm100_desc.hpp `make_instr_desc`: A and B `half_t`/`bfloat16_t`
//!   (`tfloat32_t` for TF32), "Unknown type for UMMAFormat"; C `half_t`, `float` or `int32_t`,
//!   "Unknown type for CFormat"). The traits print for those, as CuTe's do.

use super::name::AtomName;
use crate::release::SM100_SS_N_RELAXED;
use crate::{Error, IntTuple, Layout, Result};

/// A UMMA family of this module: its code in the name, operand width and the A/B types its
/// instruction descriptor accepts.
#[derive(Debug)]
struct Family {
    code: &'static str,
    bits: u32,
    ab_types: &'static [&'static str],
}

const FAMILIES: &[Family] = &[
    Family { code: "F16BF16", bits: 16, ab_types: &["half_t", "bfloat16_t"] },
    Family { code: "TF32", bits: 32, ab_types: &["tfloat32_t"] },
];

/// The accumulator types `to_CFormat` accepts.
const C_TYPES: &[&str] = &["half_t", "float", "int32_t"];

/// A value type as C++ may spell it, without its namespace (`cutlass::half_t` is `half_t`, as the
/// CuTe tutorials write it).
fn value_type(t: &str) -> String {
    t.strip_prefix("cute::").or_else(|| t.strip_prefix("cutlass::")).unwrap_or(t).to_string()
}

/// The largest M or N the engine models (CuTe's largest valid one is 256; the traits of a larger
/// one print, but no instruction has it).
const MAX_MN: i64 = 512;

/// One parsed UMMA atom name.
#[derive(Clone, Debug)]
pub struct Umma {
    family: &'static Family,
    /// `_2x1SM_`: a pair of SMs.
    pair: bool,
    /// `_TS`: A in tensor memory.
    ts: bool,
    a: String,
    b: String,
    c: String,
    m: i64,
    n: i64,
    a_k_major: bool,
}

/// Whether `base` names an atom of this module (`SM100_MMA_{F16BF16,TF32}[_2x1SM]_{SS,TS}`).
pub fn is_umma(base: &str) -> bool {
    parse_base(base).is_some()
}

fn parse_base(base: &str) -> Option<(&'static Family, bool, bool)> {
    let rest = base.strip_prefix("SM100_MMA_")?;
    let family = FAMILIES.iter().find(|f| rest.starts_with(f.code) && rest[f.code.len()..].starts_with('_'))?;
    let (pair, src) = match &rest[family.code.len() + 1..] {
        "SS" => (false, "SS"),
        "TS" => (false, "TS"),
        "2x1SM_SS" => (true, "SS"),
        "2x1SM_TS" => (true, "TS"),
        _ => return None,
    };
    Some((family, pair, src == "TS"))
}

/// `GROUP::TYPE::VALUE` or `cute::GROUP::TYPE::VALUE` with VALUE in `vals`: the allow-list of
/// enumerator arguments.
fn enum_arg<'a>(arg: &str, ty: &str, vals: &[&'a str]) -> Option<&'a str> {
    let arg = arg.strip_prefix("cute::").unwrap_or(arg);
    let parts: Vec<&str> = arg.split("::").collect();
    match parts.as_slice() {
        ["UMMA", t, v] if *t == ty => vals.iter().find(|x| **x == *v).copied(),
        _ => None,
    }
}

impl Umma {
    fn parse(n: &AtomName) -> Result<Option<Umma>> {
        let Some((family, pair, ts)) = parse_base(&n.base) else { return Ok(None) };
        let base = &n.base;
        let form = if ts {
            "<A,B,C,M,N,UMMA::Major,UMMA::Major[,UMMA::ScaleIn,UMMA::ScaleIn[,UMMA::Saturate]]>"
        } else {
            "<A,B,C,M,N,UMMA::Major,UMMA::Major[,UMMA::ScaleIn,UMMA::ScaleIn]>"
        };
        let bad = |why: &str| Error::Type(format!("{base} takes {form}: {why} in {}", n.canonical()));
        let t = n.targs.as_deref().ok_or_else(|| bad("no template arguments"))?;
        let most = if ts { 10 } else { 9 };
        if t.len() < 7 || t.len() > most || t.len() == 8 {
            return Err(bad("wrong number of template arguments"));
        }
        for ty in &t[..3] {
            super::copy::type_bits(ty).map_err(|_| bad(&format!("unknown value type '{ty}'")))?;
        }
        let int = |s: &str| -> Result<i64> {
            match s.parse::<i64>() {
                Ok(v) if (1..=MAX_MN).contains(&v) => Ok(v),
                _ => Err(bad(&format!("M and N must be integers from 1 to {MAX_MN}, got '{s}'"))),
            }
        };
        let major =
            |s: &str| enum_arg(s, "Major", &["K", "MN"]).ok_or_else(|| bad(&format!("'{s}' is not a UMMA::Major")));
        let a_major = major(&t[5])?;
        major(&t[6])?;
        for s in t.iter().skip(7).take(2) {
            enum_arg(s, "ScaleIn", &["One", "Neg"]).ok_or_else(|| bad(&format!("'{s}' is not a UMMA::ScaleIn")))?;
        }
        if let Some(s) = t.get(9) {
            enum_arg(s, "Saturate", &["False", "True"])
                .ok_or_else(|| bad(&format!("'{s}' is not a UMMA::Saturate")))?;
        }
        Ok(Some(Umma {
            family,
            pair,
            ts,
            a: value_type(&t[0]),
            b: value_type(&t[1]),
            c: value_type(&t[2]),
            m: int(&t[3])?,
            n: int(&t[4])?,
            a_k_major: a_major == "K",
        }))
    }

    /// The traits' `static_assert`: A and B of the family's width.
    fn check_traits(&self, base: &str) -> Result<()> {
        let bits = |ty: &str| super::copy::type_bits(ty).ok();
        let w = Some(self.family.bits as usize);
        if bits(&self.a) != bits(&self.b) || bits(&self.b).map(|b| b as usize) != w {
            return Err(Error::Rejected {
                condition: traits_condition(base),
                detail: format!("A {}, B {}", self.a, self.b),
            });
        }
        Ok(())
    }
}

/// The traits' message: "`BASE` supports 16bit types" (32 for TF32).
fn traits_condition(base: &str) -> &'static str {
    match base {
        "SM100_MMA_F16BF16_SS" => "SM100_MMA_F16BF16_SS supports 16bit types",
        "SM100_MMA_F16BF16_TS" => "SM100_MMA_F16BF16_TS supports 16bit types",
        "SM100_MMA_F16BF16_2x1SM_SS" => "SM100_MMA_F16BF16_2x1SM_SS supports 16bit types",
        "SM100_MMA_F16BF16_2x1SM_TS" => "SM100_MMA_F16BF16_2x1SM_TS supports 16bit types",
        "SM100_MMA_TF32_SS" => "SM100_MMA_TF32_SS supports 32bit types",
        "SM100_MMA_TF32_TS" => "SM100_MMA_TF32_TS supports 32bit types",
        "SM100_MMA_TF32_2x1SM_SS" => "SM100_MMA_TF32_2x1SM_SS supports 32bit types",
        _ => "SM100_MMA_TF32_2x1SM_TS supports 32bit types",
    }
}

fn st(v: i64) -> IntTuple {
    IntTuple::st(v)
}

fn tup<const N: usize>(items: [IntTuple; N]) -> IntTuple {
    IntTuple::tuple(items)
}

/// `(_T,(R,K)):(R,(_1,ld))` with `T` threads (1: stride `_0`), `R` rows per thread and leading
/// dimension `ld`.
fn operand(threads: i64, rows: i64, cols: i64, ld: i64) -> Layout {
    let thread_stride = if threads == 1 { 0 } else { rows };
    Layout {
        shape: tup([st(threads), tup([st(rows), st(cols)])]),
        stride: tup([st(thread_stride), tup([st(1), st(ld)])]),
    }
}

/// A UMMA atom's `MMA_Traits` members (atom/mma.rs makes its `MmaAtom` of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UmmaTraits {
    pub shape_mnk: IntTuple,
    pub thr_id: Layout,
    pub a: Layout,
    pub b: Layout,
    pub c: Layout,
    /// `ValTypeD`, `ValTypeA`, `ValTypeB`, `ValTypeC`.
    pub val_types: [String; 4],
}

/// The traits of a UMMA atom, or `None` when `n` names none of this module's families.
pub fn umma_traits(n: &AtomName) -> Result<Option<UmmaTraits>> {
    let Some(u) = Umma::parse(n)? else { return Ok(None) };
    u.check_traits(&n.base)?;
    let k = 256 / i64::from(u.family.bits);
    let (m, nn) = (u.m, u.n);
    let (t, mh, nh) = if u.pair { (2, m / 2, nn / 2) } else { (1, m, nn) };
    Ok(Some(UmmaTraits {
        shape_mnk: tup([st(m), st(nn), st(k)]),
        thr_id: Layout { shape: st(t), stride: st(if t == 1 { 0 } else { 1 }) },
        a: operand(t, mh, k, m),
        b: operand(t, nh, k, nn),
        c: operand(t, mh, nn, m),
        val_types: [u.c.clone(), u.a.clone(), u.b.clone(), u.c.clone()],
    }))
}

/// The refusals of the atom (`MMA_Atom<Op>{}`), beyond its traits': the operation's static_asserts,
/// then the instruction descriptor's formats. `Ok` for a name of no UMMA family.
pub fn check_atom(n: &AtomName) -> Result<()> {
    let Some(u) = Umma::parse(n)? else { return Ok(()) };
    u.check_traits(&n.base)?;
    let rejected = |condition: &'static str| {
        Err(Error::Rejected { condition, detail: format!("{} (M {}, N {})", n.canonical(), u.m, u.n) })
    };
    let (m, nn) = (u.m, u.n);
    let f16 = u.family.code == "F16BF16";
    if u.pair {
        if m != 128 && m != 256 {
            return rejected(match (f16, u.ts) {
                (true, false) => "SM100_MMA_F16BF16_2x1SM_SS M-mode size should be 128 or 256 for 2 CTA cluster MMA.",
                (true, true) => "SM100_MMA_F16BF16_2x1SM_TS M-mode size should be 128 or 256 for 2 CTA cluster MMA.",
                (false, false) => "SM100_MMA_TF32_2x1SM_SS M-mode size should be 128 or 256 for 2 CTA cluster MMA.",
                (false, true) => "SM100_MMA_TF32_2x1SM_TS M-mode size should be 128 or 256 for 2 CTA cluster MMA.",
            });
        }
        // 2x1SM_SS: N a multiple of 16 from 16 (from 4.2; of 32 from 32 before); 2x1SM_TS: of 32.
        let step = if !u.ts && SM100_SS_N_RELAXED.on() { 16 } else { 32 };
        if nn % step != 0 || nn < step || nn > 256 {
            return rejected(match (f16, u.ts, step) {
                (true, false, 16) => {
                    "SM100_MMA_F16BF16_2x1SM_SS N-mode size should be a multiple of 16 between 16 and 256."
                }
                (true, false, _) => {
                    "SM100_MMA_F16BF16_2x1SM_SS N-mode size should be a multiple of 32 between 32 and 256."
                }
                (true, true, _) => {
                    "SM100_MMA_F16BF16_2x1SM_TS N-mode size should be a multiple of 32 between 32 and 256."
                }
                (false, false, 16) => {
                    "SM100_MMA_TF32_2x1SM_SS N-mode size should be a multiple of 16 between 16 and 256."
                }
                (false, false, _) => {
                    "SM100_MMA_TF32_2x1SM_SS N-mode size should be a multiple of 32 between 32 and 256."
                }
                (false, true, _) => {
                    "SM100_MMA_TF32_2x1SM_TS N-mode size should be a multiple of 32 between 32 and 256."
                }
            });
        }
    } else {
        if m != 64 && m != 128 {
            return rejected(if f16 {
                "SM100_MMA_F16BF16 M-mode size should be 64 or 128 for 1 CTA cluster MMA."
            } else {
                "SM100_MMA_TF32 M-mode size should be 64 or 128 for 1 CTA cluster MMA."
            });
        }
        let by_m = (m == 64 && nn % 8 == 0 && (8..=256).contains(&nn))
            || (m == 128 && nn % 16 == 0 && (16..=256).contains(&nn));
        let any_m = nn % 8 == 0 && (8..=256).contains(&nn);
        // SS: a multiple of 8 for either M (from 4.2; before, as TS); TS: by M.
        let relaxed = !u.ts && SM100_SS_N_RELAXED.on();
        if relaxed && !any_m {
            return rejected(if f16 {
                "SM100_MMA_F16BF16 N-mode size should be a multiple of 8 between 8 and 256."
            } else {
                "SM100_MMA_TF32 N-mode size should be a multiple of 8 between 8 and 256."
            });
        }
        if !relaxed && !by_m {
            return rejected(if f16 {
                "SM100_MMA_F16BF16 N-mode size should be a multiple of 8 between 8 and 256 for M=64,                 or a multiple of 16 between 16 and 256 for M=128."
            } else {
                "SM100_MMA_TF32 N-mode size should be a multiple of 8 between 8 and 256 for M=64,                 or a multiple of 16 between 16 and 256 for M=128."
            });
        }
    }
    if u.ts && !u.a_k_major {
        return rejected(match (f16, u.pair) {
            (true, false) => "SM100_MMA_F16BF16 A from TMEM can't be transposed",
            (true, true) => "SM100_MMA_F16BF16_2x1SM_TS A from TMEM can't be transposed",
            (false, false) => "SM100_MMA_TF32 A from TMEM can't be transposed",
            (false, true) => "SM100_MMA_TF32_2x1SM_TS A from TMEM can't be transposed",
        });
    }
    for ty in [&u.a, &u.b] {
        if !u.family.ab_types.contains(&ty.as_str()) {
            return rejected("Unknown type for UMMAFormat");
        }
    }
    if !C_TYPES.contains(&u.c.as_str()) {
        return rejected("Unknown type for CFormat");
    }
    Ok(())
}

/// Every UMMA atom name the engine lists (the random mix and `atom-releases` read them): each
/// family and form over the M CuTe accepts, N from a small valid set, both majors of B and, for
/// `_SS`, of A.
pub fn umma_atom_names() -> Vec<String> {
    let mut out = Vec::new();
    for f in FAMILIES {
        let ab = f.ab_types[0];
        for (pair, ms, ns) in [(false, [64, 128], [64, 256]), (true, [128, 256], [64, 256])] {
            for ts in [false, true] {
                let base = format!(
                    "SM100_MMA_{}_{}{}",
                    f.code,
                    if pair { "2x1SM_" } else { "" },
                    if ts { "TS" } else { "SS" }
                );
                for m in ms {
                    for n in ns {
                        for a in if ts { &["K"][..] } else { &["K", "MN"][..] } {
                            for b in ["K", "MN"] {
                                out.push(format!("{base}<{ab},{ab},float,{m},{n},UMMA::Major::{a},UMMA::Major::{b}>"));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::{with_release, Release};

    fn atom(s: &str) -> Result<UmmaTraits> {
        umma_traits(&AtomName::parse(s)?)?.ok_or_else(|| Error::Type("not UMMA".into()))
    }
    fn check(s: &str) -> Result<()> {
        check_atom(&AtomName::parse(s).unwrap())
    }

    #[test]
    fn one_sm_and_two_sm_traits() {
        let a = atom("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,UMMA::Major::K,UMMA::Major::K>").unwrap();
        assert_eq!(a.shape_mnk.to_string(), "(_128,_256,_16)");
        assert_eq!(a.thr_id.to_string(), "_1:_0");
        assert_eq!(a.a.to_string(), "(_1,(_128,_16)):(_0,(_1,_128))");
        assert_eq!(a.b.to_string(), "(_1,(_256,_16)):(_0,(_1,_256))");
        assert_eq!(a.c.to_string(), "(_1,(_128,_256)):(_0,(_1,_128))");
        let p = atom("SM100_MMA_F16BF16_2x1SM_TS<half_t,half_t,float,256,64,UMMA::Major::K,UMMA::Major::MN>").unwrap();
        assert_eq!(p.thr_id.to_string(), "_2:_1");
        assert_eq!(p.a.to_string(), "(_2,(_128,_16)):(_128,(_1,_256))");
        assert_eq!(p.b.to_string(), "(_2,(_32,_16)):(_32,(_1,_64))");
        assert_eq!(p.c.to_string(), "(_2,(_128,_64)):(_128,(_1,_256))");
        let t = atom("SM100_MMA_TF32_SS<tfloat32_t,tfloat32_t,float,64,8,UMMA::Major::MN,UMMA::Major::K>").unwrap();
        assert_eq!(t.shape_mnk.to_string(), "(_64,_8,_8)");
        // Every listed name is a valid atom (its definition: atom/definition.rs's tests).
        for n in umma_atom_names() {
            atom(&n).unwrap();
            check(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }

    #[test]
    fn refusals_at_the_traits_and_at_the_atom() {
        // Traits: the width of A and B.
        let e = atom("SM100_MMA_F16BF16_SS<float,float,float,128,16,UMMA::Major::K,UMMA::Major::K>").unwrap_err();
        assert!(e.to_string().starts_with("SM100_MMA_F16BF16_SS supports 16bit types"), "{e}");
        // The atom: N, M, the TMEM A's major, the descriptor's formats; the traits still print.
        let n12 = "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,12,UMMA::Major::K,UMMA::Major::K>";
        assert!(atom(n12).is_ok());
        assert!(check(n12).unwrap_err().to_string().contains("multiple of 8 between 8 and 256."));
        let m96 = "SM100_MMA_F16BF16_2x1SM_SS<half_t,half_t,float,96,64,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(m96).unwrap_err().to_string().contains("should be 128 or 256"));
        let mn = "SM100_MMA_F16BF16_TS<half_t,half_t,float,128,16,UMMA::Major::MN,UMMA::Major::K>";
        assert!(check(mn).unwrap_err().to_string().contains("A from TMEM can't be transposed"));
        let i16 = "SM100_MMA_F16BF16_SS<int16_t,int16_t,float,128,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(i16).unwrap_err().to_string().contains("Unknown type for UMMAFormat"));
        let d = "SM100_MMA_F16BF16_SS<half_t,half_t,double,128,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(d).unwrap_err().to_string().contains("Unknown type for CFormat"));
        // Malformed arguments are type errors, never a panic.
        for bad in [
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,0,16,UMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,GMMA::Major::K,UMMA::Major::K>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::One>",
            "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,16,UMMA::Major::K,UMMA::Major::K,UMMA::ScaleIn::One,UMMA::ScaleIn::One,UMMA::Saturate::False>",
            "SM100_MMA_F16BF16_SS",
        ] {
            assert!(matches!(atom(bad), Err(Error::Type(_))), "{bad}");
        }
    }

    #[test]
    fn n_rules_by_release() {
        // SS with M = 128 and N = 8: from 4.2 a multiple of 8 is enough; in 3.8 M = 128 needs 16.
        let n8 = "SM100_MMA_F16BF16_SS<half_t,half_t,float,128,8,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(n8).is_ok());
        with_release(Release::new(3, 8, 0, 0), || assert!(check(n8).unwrap_err().to_string().contains("for M=128")));
        let p16 = "SM100_MMA_F16BF16_2x1SM_SS<half_t,half_t,float,256,16,UMMA::Major::K,UMMA::Major::K>";
        assert!(check(p16).is_ok());
        with_release(Release::new(3, 8, 0, 0), || assert!(check(p16).is_err()));
    }
}
