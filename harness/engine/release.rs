//! Which CUTLASS release the engine models.
//!
//! CuTe's algebra changed between releases; the engine models each PyPI release of
//! `nvidia-cutlass` from 3.3.0.0 to 4.2.0.0. The default is 4.2.0.0. A run selects a release with
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

/// The releases the engine models, oldest first (every `nvidia-cutlass` wheel on PyPI from 3.5.1;
/// 3.3.0.0's algebra differs in more places and is not modelled: a run on it uses 3.5.1.0's model
/// and reports what differs as news).
pub const MODELLED: &[Release] = &[
    Release::new(3, 5, 1, 0),
    Release::new(3, 6, 0, 0),
    Release::new(3, 7, 0, 0),
    Release::new(3, 8, 0, 0),
    Release::new(4, 2, 0, 0),
];

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
