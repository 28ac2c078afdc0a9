//! Which CUTLASS release the engine models.
//!
//! CuTe's algebra changed between releases; the engine models each PyPI release of
//! `nvidia-cutlass` from 3.5.1.0 to 4.2.0.0, and the CUTLASS tags after it where CuTe's behaviour
//! changed (4.5.0, 4.5.1 and 4.7.0; the tags between map to the nearest older model, see [`MODELLED`]).
//! The default is 4.2.0.0. A run selects a release with
//! [`with_release`] (the CLI's and xtask's `--cutlass-version`, or the version a checkout's
//! `include/cutlass/version.h` names, through [`Release::model`]); the operations read it through
//! the named [`Switch`]es below, each with the release that introduced the change, what changed,
//! and a fixture case that shows it (fixtures/cases/releases.cases, recorded per release under
//! snapshots/versions/).
//!
//! The current release is per thread, like the definition checks' switch (`runtime`).

use std::cell::Cell;
use std::fmt;
use std::str::FromStr;

/// A CUTLASS release, `major.minor.patch.build` as the PyPI wheels number them (`4.2.0.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release(pub [u16; 4]);

impl Release {
    pub const fn new(major: u16, minor: u16, patch: u16, build: u16) -> Release {
        Release([major, minor, patch, build])
    }

    /// The modelled release that stands for `self`: itself when modelled, else the nearest older
    /// modelled one, else (a release older than every modelled one) the oldest modelled one.
    pub fn model(self) -> Option<Release> {
        MODELLED.iter().rev().find(|m| **m <= self).or(MODELLED.first()).copied()
    }

    /// Whether the engine models this release exactly.
    pub fn is_modelled(self) -> bool {
        MODELLED.contains(&self)
    }

    /// The release a CUTLASS checkout's `include/cutlass/version.h` names (`CUTLASS_MAJOR`,
    /// `CUTLASS_MINOR`, `CUTLASS_PATCH`; the build number is 0).
    pub fn from_version_h(text: &str) -> Option<Release> {
        let field = |name: &str| -> Option<u16> {
            text.lines().find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some("#define") && w.next() == Some(name)).then(|| w.next()?.parse().ok()).flatten()
            })
        };
        Some(Release::new(field("CUTLASS_MAJOR")?, field("CUTLASS_MINOR")?, field("CUTLASS_PATCH")?, 0))
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.0;
        write!(f, "{a}.{b}.{c}.{d}")
    }
}

impl FromStr for Release {
    type Err = String;
    /// `4.2.0.0`, `4.2.0` or `4.2` (missing parts are 0).
    fn from_str(s: &str) -> Result<Release, String> {
        let parts: Vec<&str> = s.trim().split('.').collect();
        if parts.is_empty() || parts.len() > 4 {
            return Err(format!("`{s}` is not a CUTLASS version like 4.2.0.0"));
        }
        let mut v = [0u16; 4];
        for (k, p) in parts.iter().enumerate() {
            v[k] = p.parse().map_err(|_| format!("`{s}` is not a CUTLASS version like 4.2.0.0"))?;
        }
        Ok(Release(v))
    }
}

/// The releases the engine models, oldest first: every `nvidia-cutlass` wheel on PyPI from 3.5.1
/// (3.3.0.0's algebra differs in more places and is not modelled: a run on it uses 3.5.1.0's model
/// and reports what differs as news), then the CUTLASS tags after 4.2.0 whose include/cute differs
/// in something the engine models (read from `git diff v4.2.0 v4.7.0 -- include/cute`):
///
/// - 4.2.1 to 4.4.3: the algebra headers changed in their copyright lines only; their SM100
///   traits grew families the engine does not model yet. Modelled as 4.2.0.0.
/// - 4.5.0: the SM80 int4 m16n8k32 BLayout fix ([`SM80_INT4_B_LAYOUT_ONE_TO_ONE`]).
/// - 4.5.1: `SM100_MMA_F8F6F4_SS` and `_2x1SM_SS` become templates
///   ([`SM100_F8F6F4_SS_TEMPLATE`]). 4.5.2 to 4.6.2 change only what the engine does not model
///   (4.6.0 moves the TMEM fragments to mma_traits_sm100_frag.hpp; `for_each` over two tuples is
///   not an operation here), and one the engine models at the next modelled release: 4.6.0's
///   pointer_flagged.hpp `slice_and_offset` of a swizzled shared-memory layout (`Sw o
///   smem_ptr_flag o L`) folds a non-zero slice offset into the layout's offset and returns `_0`
///   (4.2: the offset apart): [`SMEM_FLAG_SLICE_KEEPS_OFFSET`], since 4.7.0.0 because 4.6 is not
///   modelled (swizzled_slice.cases:16-17). Modelled as 4.5.1.0.
/// - 4.7.0: ScaledBasis equality forms the value comparison only for equal bases (a compile fix
///   for bases of incomparable value types; no operation of the expression language compares
///   ScaledBasis values, so no switch), the newest tag. Modelled so that a 4.7 checkout is judged
///   as itself, not as an older release.
///
/// No wheel of `nvidia-cutlass` exists after 4.2.0.0: 4.5.0.0 is provisioned from the pinned
/// `flashinfer-python` wheel that ships its headers ([`registry_source`]), 4.7.0.0 only from a
/// checkout (`--cutlass-dir`).
pub const MODELLED: &[Release] = &[
    Release::new(3, 5, 1, 0),
    Release::new(3, 6, 0, 0),
    Release::new(3, 7, 0, 0),
    Release::new(3, 8, 0, 0),
    Release::new(4, 2, 0, 0),
    Release::new(4, 5, 0, 0),
    Release::new(4, 5, 1, 0),
    Release::new(4, 7, 0, 0),
];

/// Where a release's CuTe headers come from on a package registry: `(package, version)` of a PyPI
/// wheel that ships them. `nvidia-cutlass` for its own versions (3.3.0.0 to 4.2.0.0); after it
/// only `flashinfer-python` ships CUTLASS headers (`flashinfer/data/cutlass/include`): 0.6.11's
/// version.h names CUTLASS 4.5.0, and its cute/ is tag v4.5.0's except four SM100 files
/// (arch/config.hpp, arch/copy_sm100.hpp, atom/copy_traits_sm100.hpp, atom/mma_traits_sm100.hpp:
/// a later commit's descriptor arithmetic and `SM100_MMA_F8F6F4_SS` spelling). `None`: a
/// checkout only.
pub fn registry_source(release: Release) -> Option<(&'static str, String)> {
    if release <= Release::new(4, 2, 0, 0) {
        return Some(("nvidia-cutlass", release.to_string()));
    }
    (release == Release::new(4, 5, 0, 0)).then(|| ("flashinfer-python", "0.6.11".to_string()))
}

/// The release modelled when none is selected.
pub const DEFAULT: Release = Release::new(4, 2, 0, 0);

thread_local! {
    static CURRENT: Cell<Release> = const { Cell::new(DEFAULT) };
}

/// The release the engine models on this thread.
pub fn current() -> Release {
    CURRENT.with(Cell::get)
}

/// Run `f` with the engine modelling `release` (restored afterwards, also on panic).
pub fn with_release<T>(release: Release, f: impl FnOnce() -> T) -> T {
    struct Restore(Release);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(release)));
    f()
}

/// One change of CuTe's behaviour between releases, as the engine models it.
#[derive(Debug)]
pub struct Switch {
    /// Short name, used in docs and reports.
    pub name: &'static str,
    /// The first release with the new behaviour.
    pub since: Release,
    /// What changed (old behaviour, then new).
    pub what: &'static str,
    /// A case whose CuTe output differs across the change (in fixtures/cases/releases.cases).
    pub fixture: &'static str,
}

impl Switch {
    /// Whether the modelled release has the new behaviour.
    pub fn on(&self) -> bool {
        current() >= self.since
    }
}

/// The copy operations' size checks added in 3.6: `UniversalCopy` requires `sizeof_bits >= 8` of
/// its types, and cp.async's CACHEGLOBAL variants 16-byte values only.
pub const COPY_OP_SIZE_ASSERTS: Switch = Switch {
    name: "copy operations check their value sizes",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 UniversalCopy accepted sub-byte types and SM80_CP_ASYNC_CACHEGLOBAL 4- and 8-byte values; from 3.6 both are static_assert failures",
    fixture: "tiled_copy_tv(SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>,float,(_32,_1),(_1,_1))",
};

/// The 64 x 8 GMMA accumulator layout: from 3.6 it has a third value mode `_1:_512` like every
/// other 64 x N one; before, `CLayout_64x8` had two value modes.
pub const GMMA_C_64X8_THIRD_MODE: Switch = Switch {
    name: "GMMA 64x8 accumulator with a third value mode",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 GMMA::CLayout_64x8 was ((_4,_8,_4),(_2,_2)):((_128,_1,_16),(_64,_8)); from 3.6 it is the general 64xN form with a (_1):(_512) third value mode",
    fixture: "mma_layout_c(SM90_64x8x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>)",
};

/// blocked_product / raked_product return the zipped modes as they are; before 3.8 the result
/// was coalesced mode by mode (`coalesce(zip(...), tuple_repeat<R>(_1))`).
pub const PRODUCTS_KEEP_MODES: Switch = Switch {
    name: "blocked/raked products keep their modes",
    since: Release::new(3, 8, 0, 0),
    what: "before 3.8 blocked_product and raked_product coalesced each mode of the result; from 3.8 on each mode is the pair (block mode, tiler mode) as built",
    fixture: "blocked_product(_2:_1,_3:_1)",
};

/// composition's walk: from 4.2 (the change came in 4.0 or 4.1, which have no PyPI wheels) the
/// walk takes `ceil_div` steps and checks the weak Stride / Shape Divisibility Conditions where
/// static; before, it used `shape_div` / `shape_min` and `static_assert`ed "Static shape_div
/// failure" wherever both operands of a `shape_div` were static, then coalesced the result
/// backwards.
pub const COMPOSITION_WEAK_DIVISIBILITY: Switch = Switch {
    name: "composition checks the weak divisibility conditions",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 composition divided with shape_div (static_assert \"Static shape_div failure\") and coalesced its result; from 4.2 it walks with ceil_div and checks the weak Stride/Shape Divisibility Conditions only where static",
    fixture: "composition((_6,_2):(_8,_2),_4:_4)",
};

/// right_inverse / left_inverse: from 4.2, right_inverse takes the static-stride modes sorted by
/// stride and left_inverse is its own construction (a quasi-inverse, rejecting dynamic strides);
/// before, right_inverse followed the chain of strides `_1, n0*d0, ...` through the modes
/// (`detail::inverse_seq`) and left_inverse was `right_inverse(make_layout(L, complement(L)))`.
pub const INVERSES_SORTED: Switch = Switch {
    name: "inverses by sorted strides",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 right_inverse followed the chain of static strides from _1 (inverse_seq) and left_inverse(L) was right_inverse(make_layout(L, complement(L))); from 4.2 both sort the static-stride modes, and left_inverse requires static strides",
    fixture: "left_inverse((_2,_4):(_1,_4))",
};

/// TiledMMA's thread index -> (ThrV, ThrM, ThrN, ThrK) map in get_layoutA/B/C_TV: from 4.2
/// `composition((size(VMNK),_1):(_1,_0), right_inverse(make_layout(VMNK, complement(VMNK))))`,
/// which keeps every thread of an atom whose ThrID is not compact (SM70's quad-pairs); before,
/// `right_inverse(VMNK)` alone.
pub const TILED_MMA_THREADS_WITH_COMPLEMENT: Switch = Switch {
    name: "tiled MMA thread map through the complement",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 TiledMMA's TV layouts mapped thread indices with right_inverse(ThrLayoutVMNK); from 4.2 with right_inverse of (ThrLayoutVMNK, its complement) cut to size(ThrLayoutVMNK)",
    fixture: "tiled_mma_tv_a(SM70_8x8x4_F32F16F16F32_NT)",
};

/// upcast<N> of a static stride that neither divides nor is divided by N: from 4.2 upcast
/// `static_assert`s "Divisibility condition" itself; before, the same case failed inside
/// shape_div ("Static shape_div failure").
pub const UPCAST_DIVISIBILITY_CONDITION: Switch = Switch {
    name: "upcast names its divisibility condition",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 an upcast<N> of a stride N does not divide (nor divides N) failed in shape_div with \"Static shape_div failure\"; from 4.2 upcast checks \"Divisibility condition\" itself",
    fixture: "upcast<4>((_4,_8):(_3,_8))",
};

/// logical_divide(A, B) for a layout B: from 4.2 `composition(A, (B, complement(B,
/// shape(coalesce(A)))))`; before, the complement's cotarget was `shape(A)` as it is, so a nested
/// shape made a different (smaller) rest mode.
pub const DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE: Switch = Switch {
    name: "logical_divide complements in the coalesced shape",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 logical_divide took complement(B, shape(A)); from 4.2 complement(B, shape(coalesce(A)))",
    fixture: "logical_divide(((_3,_3)):((_1,_3)),_4:_2)",
};

/// cosize / coshape: from 4.2 `coshape(L)` is `inner_product(shape - _1, abs(stride)) + _1`, static
/// when every term is; before, it was `L'(size(L') - _1) + _1` for `L'` the layout with absolute
/// strides (layout.hpp `coshape`), dynamic wherever the size is (unless a zero stride meets every
/// dynamic coordinate). The value is the same.
pub const COSHAPE_INNER_PRODUCT: Switch = Switch {
    name: "cosize by the inner product of extents and strides",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 coshape evaluated the layout with absolute strides at its last coordinate (dynamic where the size is dynamic); from 4.2 it is the inner product of (extents - _1) with the absolute strides, static where every term is",
    fixture: "cosize((4,_2):(_0,_1))",
};

/// The SM80 int4 m16n8k32 atoms' BLayout (every signedness and `_SATURATE` variant derives from
/// `MMA_Traits<SM80_16x8x32_S32S4S4S32_TN>`): before 4.5 `((_4,_8),(_8)):((_32,_1),(_8))`, which
/// names element 32 of the 8 x 32 tile twice (the atom's definition refuses it); from 4.5
/// `((_4,_8),(_8)):((_64,_1),(_8))`, one-to-one onto the tile.
pub const SM80_INT4_B_LAYOUT_ONE_TO_ONE: Switch = Switch {
    name: "SM80 int4 m16n8k32 BLayout one to one",
    since: Release::new(4, 5, 0, 0),
    what: "before 4.5 MMA_Traits<SM80_16x8x32_S32S4S4S32_TN>::BLayout was ((_4,_8),(_8)):((_32,_1),(_8)) (two registers per element of B, refused by the atom's definition); from 4.5 ((_4,_8),(_8)):((_64,_1),(_8))",
    fixture: "mma_layout_b(SM80_16x8x32_S32S4S4S32_TN)",
};

/// The N an SM100 UMMA `_SS` atom accepts (cute/arch/mma_sm100_umma.hpp, F16BF16 and TF32): from
/// 4.2 (the change came in 4.0 or 4.1, which have no wheels) a one-SM `_SS` takes any multiple of 8
/// from 8 to 256 for either M, and a two-SM `_SS` any multiple of 16 from 16; before, a one-SM
/// `_SS` with M = 128 needed a multiple of 16 (as `_TS` still does) and a two-SM `_SS` a multiple of
/// 32. The traits print either way; `MMA_Atom` refuses.
pub const SM100_SS_N_RELAXED: Switch = Switch {
    name: "SM100 UMMA SS atoms take smaller N",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 SM100_MMA_F16BF16_SS/TF32_SS with M=128 required N a multiple of 16 and the 2x1SM_SS forms N a multiple of 32; from 4.2 a multiple of 8 (one SM) or of 16 (two SMs)",
    fixture: "mma_atom(SM100_MMA_F16BF16_SS<half_t,half_t,float,128,8,UMMA::Major::K,UMMA::Major::K>)",
};

/// `SM100_MMA_F8F6F4_SS` and `SM100_MMA_F8F6F4_2x1SM_SS` (cute/arch/mma_sm100_umma.hpp): before
/// 4.5.1 plain structs whose traits take the types and shape as extra arguments
/// (`MMA_Traits<SM100_MMA_F8F6F4_SS, a, b, c, M, N, a_major, b_major, a_neg, b_neg>`), so the name
/// with template arguments does not compile; from 4.5.1 templates like every other UMMA operation,
/// their traits checking M and N (by B's major).
pub const SM100_F8F6F4_SS_TEMPLATE: Switch = Switch {
    name: "SM100 F8F6F4 SS operations are templates",
    since: Release::new(4, 5, 1, 0),
    what: "before 4.5.1 SM100_MMA_F8F6F4_SS and SM100_MMA_F8F6F4_2x1SM_SS were plain structs (their MMA_Traits took the types and shape), so SM100_MMA_F8F6F4_SS<a,b,c,M,N,...> did not compile; from 4.5.1 they are templates like the other UMMA operations",
    fixture: "mma_layout_a(SM100_MMA_F8F6F4_SS<float_e4m3_t,float_e4m3_t,float,128,64,UMMA::Major::K,UMMA::Major::K>)",
};

/// `slice_and_offset` of a shared-memory swizzled layout `Sw o smem_ptr[B] o L` (a GMMA layout):
/// from 4.6.0 (the first modelled release with it is 4.7.0.0; 4.6 is not modelled) an overload of its own (pointer_flagged.hpp) slices L alone and keeps the offset in the
/// layout, `(Sw o smem_ptr[B] o slice(c, L), _0)` when L's offset is a static 0 and `(Sw o (0 +
/// offset) o slice(c, L), _0)` otherwise; before, the swizzled slice of swizzle_layout.hpp
/// (`(Sw o _0 o slice(c, L), offset)` for a stage).
pub const SMEM_FLAG_SLICE_KEEPS_OFFSET: Switch = Switch {
    name: "smem swizzled slices keep their offset",
    since: Release::new(4, 7, 0, 0),
    what: "before 4.7 slice_and_offset(c, Sw o smem_ptr[B] o L) was swizzle_layout.hpp's (Sw o _0 o slice(c, L), offset); from 4.7 pointer_flagged.hpp's overload returns (Sw o smem_ptr[B] o slice(c, L), _0) for a static zero offset, else (Sw o offset o slice(c, L), _0)",
    fixture: "slice_and_offset((_,_,_2),tile_to_shape(GMMA::Layout_MN_SW64_Atom<float>{},make_shape(Int<64>{},Int<32>{},Int<4>{})))",
};

/// The SM100 `_SCALED` F16BF16 traits' partial specialization for interleaved complex (emulated)
/// operands, `SM100_MMA_F16BF16_{SS,TS}_SCALED<cutlass::complex<T>, cutlass::complex<T>, float,
/// ...>` (and the 2x1SM forms): from CUTLASS 4.4 (first modelled: 4.5.0) K is 256 bits of
/// `complex<T>` and T must be 16 bits ("Only supports 16bit base types"); before, only the generic
/// traits exist, which refuse a 32-bit complex<half_t> ("... supports 16bit types").
pub const SM100_COMPLEX_SCALED_TRAITS: Switch = Switch {
    name: "SM100 scaled UMMA traits take complex operands",
    since: Release::new(4, 5, 0, 0),
    what: "before 4.4 (modelled: 4.5.0) MMA_Traits<SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,...>> was the generic traits, whose static_assert refuses 32-bit A and B; from 4.4 a partial specialization for complex 16-bit types (K = 8)",
    fixture: "mma_shape(SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,128,64,UMMA::Major::K,UMMA::Major::K,0>)",
};

/// Every switch, oldest first.
pub const SWITCHES: &[&Switch] = &[
    &COPY_OP_SIZE_ASSERTS,
    &GMMA_C_64X8_THIRD_MODE,
    &PRODUCTS_KEEP_MODES,
    &COMPOSITION_WEAK_DIVISIBILITY,
    &INVERSES_SORTED,
    &TILED_MMA_THREADS_WITH_COMPLEMENT,
    &UPCAST_DIVISIBILITY_CONDITION,
    &DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE,
    &COSHAPE_INNER_PRODUCT,
    &SM100_SS_N_RELAXED,
    &SM80_INT4_B_LAYOUT_ONE_TO_ONE,
    &SM100_COMPLEX_SCALED_TRAITS,
    &SM100_F8F6F4_SS_TEMPLATE,
    &SMEM_FLAG_SLICE_KEEPS_OFFSET,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_order_and_map_to_models() {
        let r = |s: &str| s.parse::<Release>().unwrap();
        assert_eq!(r("4.2"), r("4.2.0.0"));
        assert!(r("3.5.1.0") < r("3.6.0.0") && r("3.8.0.0") < r("4.2.0.0"));
        assert_eq!(r("4.1.0").model(), Some(r("3.8.0.0")));
        assert_eq!(r("4.3.0").model(), Some(r("4.2.0.0")));
        assert_eq!(r("4.5.0").model(), Some(r("4.5.0.0")));
        assert_eq!(r("4.5.3").model(), Some(r("4.5.1.0")));
        assert_eq!(r("4.7.0").model(), Some(r("4.7.0.0")));
        assert_eq!(r("4.8.0").model(), Some(r("4.7.0.0")));
        assert_eq!(registry_source(r("4.2.0.0")), Some(("nvidia-cutlass", "4.2.0.0".to_string())));
        assert_eq!(registry_source(r("4.5.0.0")), Some(("flashinfer-python", "0.6.11".to_string())));
        assert_eq!(registry_source(r("4.7.0.0")), None);
        assert_eq!(r("3.5.1.0").model(), Some(r("3.5.1.0")));
        assert_eq!(r("3.3.0.0").model(), Some(r("3.5.1.0")));
        assert!(!r("3.3.0.0").is_modelled());
        assert!("4.x".parse::<Release>().is_err());
        let h = "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 3\n#define CUTLASS_PATCH 1\n";
        assert_eq!(Release::from_version_h(h), Some(r("4.3.1")));
    }

    #[test]
    fn the_release_is_scoped() {
        let old = Release::new(3, 7, 0, 0);
        assert!(PRODUCTS_KEEP_MODES.on());
        with_release(old, || assert!(!PRODUCTS_KEEP_MODES.on()));
        assert_eq!(current(), DEFAULT);
        for s in SWITCHES {
            assert!(s.since.is_modelled(), "{}: since {} is not a modelled release", s.name, s.since);
        }
    }
}
