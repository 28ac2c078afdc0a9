//! Which CUTLASS release the engine models.
//!
//! CuTe's algebra changed between releases; the engine models each PyPI release of
//! `nvidia-cutlass` from 3.5.1.0 to 4.2.0.0, 3.4.0 and 3.3.0, and the CUTLASS tags where CuTe's behaviour changed
//! (3.9.0, 4.1.0, 4.4.0, 4.5.0, 4.5.1, 4.6.0 and 4.7.0; the tags between map to the nearest older model, see [`MODELLED`]).
//! The default is 4.2.0.0. A run selects a release with
//! [`with_release`] (the CLI's and xtask's `--cutlass-version`, or the version a checkout's
//! `include/cutlass/version.h` names, through [`Release::model`]); the operations read it through
//! the named [`Switch`]es below, each with the release that introduced the change, what changed,
//! and a fixture case that shows it (fixtures/cases/releases.cases, recorded per release under
//! snapshots/versions/).
//!
//! The current release is per thread, like the definition checks' switch (`runtime`).

use std::cell::{Cell, RefCell};
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

/// The releases the engine models, oldest first: 3.3.0 and 3.4.0, every
/// `nvidia-cutlass` wheel on PyPI from 3.5.1, then
/// the CUTLASS tags whose include/cute differs in something the engine models (a tag of each model
/// from 3.9 to 4.7 recorded under snapshots/versions/ by `cargo xtask bless --cutlass-dir`, and
/// every recorded release judged by its model in tests/releases.rs):
///
/// - 3.3.0 (recorded: the 3.3.0.0 wheel, which predates tag v3.3.0's last commits) and 3.4.0
///   (recorded: tag v3.4.1; 3.4.1 changes only print(signed char) and a comment): their atom sets
///   (the SM90 int8 `_SATURATE` GMMA operations are declared without traits, refused as CuTe
///   refuses them: atom/since.rs), and the switches before 3.5.1 ([`MMA_ATOM_PRINTS_SHAPE_MNK`],
///   [`PERMUTATION_IS_THE_TILE`], [`COMPLEMENT_TAKES_A_SHAPE`], [`COALESCE_FRONT_MUST_BE_STATIC`],
///   [`COMPOSITION_COALESCES_LHS`]) and before 3.4 ([`VALUE_LAYOUT_ARGUMENT_GONE`]: 3.3's
///   ValLayoutMNK, [`MMA_ATOM_PRINT_LABELS_NARROW`], [`COUNTING_ITER_PRINTS_PARENS`],
///   [`PRODUCTS_COALESCE_BY_A_TUPLE`], [`FLAT_PRODUCT_DECLARED`],
///   [`TILED_PRODUCT_UNPACKS_THE_RESULT_RANK`], [`MAKE_TMA_ATOM_DECLARED`],
///   [`COMPLEMENT_CHECKS_INJECTIVITY`], [`INTEGER_TILER_COMPOSES_AT_STRIDE_1`]).
///   Also before 3.5.1: [`TUPLE_EQUALITY_NEEDS_EQUAL_RANKS`], [`MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER`],
///   [`ARITHMETIC_TUPLE_OF_A_NESTED_BASIS`], [`MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE`]; before 3.4:
///   [`THR_MMA_FRAGMENTS_QUALIFIED`].
/// - 3.9.0 (recorded: tag v3.9.2; no wheel of 3.9, 4.0 or 4.1): composition's weak divisibility
///   walk, the sorted inverses, upcast's own divisibility check, logical_divide's coalesced
///   complement and cosize's inner product ([`COMPOSITION_WEAK_DIVISIBILITY`] and the four after
///   it), and the SM89 FP8 and SM120 atoms.
/// - 4.0.0 (recorded: tag v4.0.0): `cute::lazy::transform` ([`LAZY_TRANSFORM_DECLARED`]).
/// - 4.1.0 (recorded from tag v4.1.0, whose version.h says 4.0.0: `bless --as-release 4.1.0.0`;
///   a checkout of it is judged by its version.h, as 4.0): the tiled MMA thread map through the
///   complement ([`TILED_MMA_THREADS_WITH_COMPLEMENT`]).
/// - 4.2.0: SM100 `_SS` atoms' smaller N ([`SM100_SS_N_RELAXED`]).
/// - 4.2.1 to 4.3.6: the algebra headers changed in their copyright lines only; their SM100
///   traits grew families the engine does not model yet. Modelled as 4.2.0.0 (tag v4.3.6
///   recorded).
/// - 4.4.0 (recorded: tag v4.4.3; 4.4.1 to 4.4.3 change nothing in include/cute): the SM100
///   `_SCALED` traits for interleaved complex operands ([`SM100_COMPLEX_SCALED_TRAITS`]) and the
///   TF32 `_TS_SCALED` and `_TS_INTERLEAVED` operations (atom/since.rs).
/// - 4.5.0: the SM80 int4 m16n8k32 BLayout fix ([`SM80_INT4_B_LAYOUT_ONE_TO_ONE`]).
/// - 4.5.1: `SM100_MMA_F8F6F4_SS` and `_2x1SM_SS` become templates
///   ([`SM100_F8F6F4_SS_TEMPLATE`]). 4.5.2 and 4.5.3 change only what the engine does not model.
/// - 4.6.0 (recorded: tag v4.6.2; 4.6.1 and 4.6.2 change nothing in include/cute): pointer_flagged.hpp's
///   `slice_and_offset` of a swizzled shared-memory layout (`Sw o smem_ptr_flag o L`) folds a
///   non-zero slice offset into the layout's offset and returns `_0` (4.2: the offset apart):
///   [`SMEM_FLAG_SLICE_KEEPS_OFFSET`] (swizzled_slice.cases:16-17). It also moves the TMEM
///   fragments to mma_traits_sm100_frag.hpp (the same layouts) and adds `for_each` over two
///   tuples, not an operation here.
/// - 4.7.0: ScaledBasis equality forms the value comparison only for equal bases (a compile fix
///   for bases of incomparable value types; no operation of the expression language compares
///   ScaledBasis values, so no switch), the newest tag. Modelled so that a 4.7 checkout is judged
///   as itself, not as an older release.
///
/// Where a wheel ships a release's headers, [`registry_source`] names it; the others come only from
/// a checkout (`--cutlass-dir`).
pub const MODELLED: &[Release] = &[
    Release::new(3, 3, 0, 0),
    Release::new(3, 4, 0, 0),
    Release::new(3, 5, 1, 0),
    Release::new(3, 6, 0, 0),
    Release::new(3, 7, 0, 0),
    Release::new(3, 8, 0, 0),
    Release::new(3, 9, 0, 0),
    Release::new(4, 0, 0, 0),
    Release::new(4, 1, 0, 0),
    Release::new(4, 2, 0, 0),
    Release::new(4, 4, 0, 0),
    Release::new(4, 5, 0, 0),
    Release::new(4, 5, 1, 0),
    Release::new(4, 6, 0, 0),
    Release::new(4, 7, 0, 0),
];

/// Modelled releases whose model is not complete yet: tests/releases.rs lists each one's remaining
/// problems per suite (`UNMODELLED`, with the reason), and the nightly conformance matrix
/// (.github/workflows/conformance.yml, checked by tests/ci_workflow.rs) leaves them out until
/// they have none.
///
/// None now: 3.3.0 was until its tile_to_shape, TMA and random-case differences were modelled
/// ([`TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY`], [`TMA_MULTICAST_SPLITS_THE_BOX`],
/// [`TUPLE_EQUALITY_NEEDS_EQUAL_RANKS`], [`COMPOSED_FLAT_DIVIDE_AND_ZIPPED_PRODUCT`]).
pub const PARTIAL: &[Release] = &[];

/// Where a release's CuTe headers come from on a package registry: `(package, version)` of a PyPI
/// wheel that ships them, pinned by sha256 in fixtures/cutlass-pins.toml. `None`: a checkout only
/// (`--cutlass-dir`).
///
/// - `nvidia-cutlass` ships its own versions: 3.3.0.0, 3.4.0.0, 3.4.1.0, 3.5.0.0, 3.5.1.0,
///   3.6.0.0, 3.7.0.0, 3.8.0.0 and 4.2.0.0 (`pip index versions nvidia-cutlass`, 2026-12-04); no
///   wheel of 3.9, 4.0 or 4.1.
/// - `flashinfer-python` ships CUTLASS's include/ under `flashinfer/data/cutlass/include` in its
///   wheels (each checked 2026-12-04 by its version.h and `diff -r` of its cute/ against the tags):
///   0.6.6 names 4.2.1 and its include/ is tag v4.2.1's; 0.6.7 to 0.6.10 name 4.4.2 and their
///   include/ is tag v4.4.2's; 0.6.11 to 0.6.18 name 4.5.0, cute/ tag v4.5.0's except four SM100
///   files (arch/config.hpp, arch/copy_sm100.hpp, atom/copy_traits_sm100.hpp,
///   atom/mma_traits_sm100.hpp: a later commit's descriptor arithmetic and `SM100_MMA_F8F6F4_SS`
///   spelling). 0.2.11 (tag v4.1.0's cute/, version.h 4.0.0 like the tag) and 0.4.0 are source
///   distributions only, which the provisioner does not build: no registry source for 4.1.
pub fn registry_source(release: Release) -> Option<(&'static str, String)> {
    const NVIDIA_CUTLASS: &[Release] = &[
        Release::new(3, 3, 0, 0),
        Release::new(3, 4, 0, 0),
        Release::new(3, 4, 1, 0),
        Release::new(3, 5, 0, 0),
        Release::new(3, 5, 1, 0),
        Release::new(3, 6, 0, 0),
        Release::new(3, 7, 0, 0),
        Release::new(3, 8, 0, 0),
        Release::new(4, 2, 0, 0),
    ];
    const FLASHINFER: &[(Release, &str)] = &[
        (Release::new(4, 2, 1, 0), "0.6.6"),
        (Release::new(4, 4, 2, 0), "0.6.10"),
        (Release::new(4, 5, 0, 0), "0.6.11"),
    ];
    if NVIDIA_CUTLASS.contains(&release) {
        return Some(("nvidia-cutlass", release.to_string()));
    }
    FLASHINFER.iter().find(|(r, _)| *r == release).map(|(_, v)| ("flashinfer-python", v.to_string()))
}

/// The release modelled when none is selected.
pub const DEFAULT: Release = Release::new(4, 2, 0, 0);

thread_local! {
    static CURRENT: Cell<Release> = const { Cell::new(DEFAULT) };
    /// The name of a switch turned off by [`with_switch_off`] on this thread.
    static OFF: Cell<Option<&'static str>> = const { Cell::new(None) };
    /// What the evaluations inside [`reading`] on this thread asked of the modelled release.
    static READS: RefCell<Option<Reads>> = const { RefCell::new(None) };
    /// Whether a [`reading`] is under way on this thread: outside one, [`since`] and [`Switch::on`]
    /// (asked on every `+` of basis values) cost one load, not a `RefCell` borrow.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

/// The release the engine models on this thread. Code that only compares it with a release reads
/// [`since`] instead, so that [`reading`] knows which releases answer alike.
pub fn current() -> Release {
    record(|r| r.release = true);
    CURRENT.with(Cell::get)
}

/// `note` on the reads of the innermost [`reading`] of this thread, if any.
fn record(note: impl FnOnce(&mut Reads)) {
    if !RECORDING.with(Cell::get) {
        return;
    }
    READS.with(|r| {
        if let Some(r) = r.borrow_mut().as_mut() {
            note(r);
        }
    });
}

/// Whether the modelled release is `first` or later (a behaviour or declaration new in `first`).
pub fn since(first: Release) -> bool {
    let on = CURRENT.with(Cell::get) >= first;
    record(|r| r.note_since(first, on));
    on
}

/// What an evaluation asked of the modelled release: each [`since`] and [`Switch::on`] with its
/// answer, and whether it read the release itself ([`current`]: then its result may differ in
/// every other release). An evaluation is deterministic given these answers, so its result holds
/// for every release that answers each of them alike ([`Reads::hold_for`]).
#[derive(Clone, Debug, Default)]
pub struct Reads {
    since: Vec<(Release, bool)>,
    switches: Vec<(&'static Switch, bool)>,
    release: bool,
}

impl Reads {
    fn note_since(&mut self, first: Release, on: bool) {
        if !self.since.contains(&(first, on)) {
            self.since.push((first, on));
        }
    }

    /// A switch is asked again and again (every `+` of basis values asks one): kept once.
    fn note_switch(&mut self, s: &'static Switch, on: bool) {
        if !self.switches.iter().any(|(x, _)| x.name == s.name) {
            self.switches.push((s, on));
        }
    }

    /// Whether `release` answers every question of these reads as the release they were made in
    /// did (the switches with this thread's [`with_switch_off`] state).
    pub fn hold_for(&self, release: Release) -> bool {
        !self.release
            && self.since.iter().all(|&(first, on)| (release >= first) == on)
            && with_release(release, || self.switches.iter().all(|&(s, on)| s.on_unread() == on))
    }
}

/// Run `f`, and what it asked of the modelled release (nested calls each see their own reads;
/// the outer one sees the inner's too; restored also on panic).
pub fn reading<T>(f: impl FnOnce() -> T) -> (T, Reads) {
    struct Restore(Option<Reads>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            RECORDING.with(|c| c.set(self.1));
            READS.with(|r| {
                let mut r = r.borrow_mut();
                let inner = r.take();
                *r = match (self.0.take(), inner) {
                    (Some(mut o), Some(i)) => {
                        i.since.into_iter().for_each(|(first, on)| o.note_since(first, on));
                        i.switches.into_iter().for_each(|(s, on)| o.note_switch(s, on));
                        o.release |= i.release;
                        Some(o)
                    }
                    (o, _) => o,
                };
            });
        }
    }
    let _restore =
        Restore(READS.with(|r| r.borrow_mut().replace(Reads::default())), RECORDING.with(|c| c.replace(true)));
    let out = f();
    let reads = READS.with(|r| r.borrow().clone()).unwrap_or_default();
    (out, reads)
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

/// Run `f` with the engine modelling the current release except that `switch` keeps its old
/// behaviour (restored afterwards, also on panic): what the release would do without that one
/// change. A release diff blames a change on the switch whose turning off brings the old output
/// back (`judge::release_blame`).
pub fn with_switch_off<T>(switch: &'static Switch, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<&'static str>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OFF.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(OFF.with(|c| c.replace(Some(switch.name))));
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
    pub fn on(&'static self) -> bool {
        let on = self.on_unread();
        record(|r| r.note_switch(self, on));
        on
    }

    fn on_unread(&self) -> bool {
        CURRENT.with(Cell::get) >= self.since && OFF.with(Cell::get) != Some(self.name)
    }
}

/// `print(MMA_Atom)` (mma_atom.hpp): from 3.5 (3.5.0; first modelled 3.5.1.0) a `Shape_MNK` line
/// after `ThrID`; before, ThrID and the three TV layouts only.
pub const MMA_ATOM_PRINTS_SHAPE_MNK: Switch = Switch {
    name: "MMA_Atom prints its Shape_MNK",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 print(MMA_Atom) printed ThrID, LayoutA_TV, LayoutB_TV and LayoutC_TV; from 3.5 a Shape_MNK line follows ThrID",
    fixture: "mma_atom(SM80_16x8x16_F32F16F16F32_TN)",
};

/// `print(MMA_Atom)`'s labels: before 3.4 padded to 15 columns (`ThrID:         `), from 3.4 to
/// 12 (`ThrID:      `).
pub const MMA_ATOM_PRINT_LABELS_NARROW: Switch = Switch {
    name: "MMA_Atom print labels padded to 12 columns",
    since: Release::new(3, 4, 0, 0),
    what: "before 3.4 print(MMA_Atom) padded ThrID:/LayoutA_TV:/LayoutB_TV:/LayoutC_TV: to 15 columns; from 3.4 to 12",
    fixture: "mma_atom(SM80_16x8x16_F32F16F16F32_TN)",
};

/// `print(counting_iterator)` (pointer_base.hpp), the iterator of a partitioned counting tensor:
/// `counting_iter_N` before 3.4, `counting_iter(N)` from 3.4.
pub const COUNTING_ITER_PRINTS_PARENS: Switch = Switch {
    name: "counting_iter prints its count in parentheses",
    since: Release::new(3, 4, 0, 0),
    what: "before 3.4 a counting iterator printed as counting_iter_N; from 3.4 as counting_iter(N)",
    fixture: "mma_partition_c(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1)),(_64,_32):(_1,_64),1)",
};

/// `ThrMMA::partition_fragment_A/B/C` (atom/mma_atom.hpp): in the 3.3.0.0 wheel (which predates
/// tag v3.3.0's last commits) they call `make_fragment_A/B/C` unqualified, a static member of
/// ThrMMA's dependent base `TiledMMA`, which two-phase lookup does not find ("'make_fragment_A' was
/// not declared in this scope"); from 3.4 (and tag v3.3.0) `TiledMMA::make_fragment_A(...)`.
pub const THR_MMA_FRAGMENTS_QUALIFIED: Switch = Switch {
    name: "ThrMMA fragments name their TiledMMA",
    since: Release::new(3, 4, 0, 0),
    what: "in the 3.3.0.0 wheel ThrMMA::partition_fragment_A/B/C called make_fragment_A/B/C unqualified (a member of a dependent base: not declared); from 3.4 TiledMMA::make_fragment_A/B/C",
    fixture: "mma_fragment_a(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2)),(_128,_64):(_64,_1),5)",
};

/// blocked_product / raked_product's coalesce profile (layout.hpp): from 3.4 `tuple_repeat<R>(_1)`,
/// a tuple for every R; in 3.3 `repeat<R>(_1)`, the integer `_1` for R = 1, so a rank-1 product is
/// coalesced whole (`blocked_product(_2:_1,_3:_1)` is `_6:_1`, not `(_6):(_1)`).
pub const PRODUCTS_COALESCE_BY_A_TUPLE: Switch = Switch {
    name: "rank-1 blocked/raked products coalesce by a tuple profile",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 a rank-1 blocked_product/raked_product was coalesced whole (profile repeat<1>(_1) = _1); from 3.4 by the tuple (_1), keeping one mode",
    fixture: "blocked_product(_2:_1,_3:_1)",
};

/// complement's injectivity check (layout.hpp `detail::complement`): from 3.4 each new extent
/// `min_stride / last_stride` is `static_assert`ed non-zero ("Non-injective Layout detected in
/// complement.", `git diff v3.3.0 v3.4.0 -- include/cute/layout.hpp`); in 3.3 the integer division
/// yields a `_0` extent and complement returns a layout of size 0 (`(_0,_12):(_2,_2)` for
/// `complement((_2,_2):(_1,_1),_24)`), which the engine then refuses as undefined (complement's
/// `@post` size bound), so logical_divide by a non-injective tiler is refused in both.
pub const COMPLEMENT_CHECKS_INJECTIVITY: Switch = Switch {
    name: "complement checks injectivity",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 complement divided each stride by the running one without a check (a non-injective layout gave a _0 extent and a result of size 0); from 3.4 a static zero extent is static_assert \"Non-injective Layout detected in complement.\"",
    fixture: "complement((_2,_2):(_1,_1),_24)",
};

/// `flat_product` (layout.hpp) is declared from 3.4 (v3.3.0 has no `flat_product`; git log -S
/// names the 3.4 release commit).
pub const FLAT_PRODUCT_DECLARED: Switch = Switch {
    name: "flat_product exists",
    since: Release::new(3, 4, 0, 0),
    what: "before 3.4 layout.hpp had no flat_product (\"'flat_product' was not declared in this scope\"); from 3.4 flat_product(A, B) flattens zipped_product's modes",
    fixture: "flat_product((_2,_2):(_1,_2),(_3,_4))",
};

/// composition(A, n) for an integer n (layout.hpp): from 3.4 `composition_impl(A, n, _1)`, the
/// layout `n:_1` even for `_1`; in 3.3 `composition(A, make_layout(n))`, `_1:_0` for `_1` (so
/// `composition((4,2):(_1,4),_1)` is `_1:_0`).
pub const INTEGER_TILER_COMPOSES_AT_STRIDE_1: Switch = Switch {
    name: "an integer composes as n:_1",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 composition(A, n) was composition(A, make_layout(n)) (_1:_0 for _1); from 3.4 composition_impl(A, n, _1)",
    fixture: "composition((4,2):(_1,4),_1)",
};

/// tiled_product (layout.hpp): from 3.4 `result(_, repeat<rank<1>(result)>(_))`, every mode of
/// the zipped product's second mode unpacked; in 3.3 `div(_, repeat<rank(tile)>(_))`, as many `_`
/// as the tiler has modes: a tiler of rank 1 (an integer, a layout or a tuple of one element) keeps
/// the second mode whole (`tiled_product(3:5,5)` is `(3,(5,1)):(5,(_1,15))`, 3.4 `(3,5,1)`), and a
/// tuple tiler of rank R > 1 over a block of more than R modes slices R underscores against more
/// modes (static_assert "Mismatched Ranks", stride.hpp).
pub const TILED_PRODUCT_UNPACKS_THE_RESULT_RANK: Switch = Switch {
    name: "tiled_product unpacks by the result's rank",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 tiled_product sliced the zipped product with repeat<rank(tile)>(_) (a rank-1 tiler kept the second mode whole; a tuple tiler of rank R over more than R modes was \"Mismatched Ranks\"); from 3.4 with repeat<rank<1>(result)>(_)",
    fixture: "tiled_product(3:5,5)",
};

/// `cute::lazy::transform` (algorithm/tensor_algorithms.hpp) and `transform_iter`
/// (pointer_base.hpp) are declared from 4.0 (tags v3.9.2 and earlier have neither; v4.0.0 adds
/// both).
pub const LAZY_TRANSFORM_DECLARED: Switch = Switch {
    name: "cute::lazy::transform exists",
    since: Release::new(4, 0, 0, 0),
    what: "before 4.0 there was no cute::lazy namespace (\"'lazy' is not a member of 'cute'\"); from 4.0 lazy::transform(t, fn) is make_tensor(make_transform_iter(fn, t.data()), t.layout())",
    fixture: "lazy_transform_elem_less(make_identity_tensor((_8,_6)),(_8,_5))",
};

/// `make_tma_atom` (atom/copy_traits_sm90_tma.hpp) is declared from 3.4 (v3.3.0 builds the TMA
/// Copy_Atom inside make_tma_copy_tiled only; 3.4 splits out make_tma_copy_atom and adds
/// make_tma_atom on it).
pub const MAKE_TMA_ATOM_DECLARED: Switch = Switch {
    name: "make_tma_atom exists",
    since: Release::new(3, 4, 0, 0),
    what: "before 3.4 copy_traits_sm90_tma.hpp had no make_tma_atom (\"'make_tma_atom' was not declared in this scope\"); from 3.4 make_tma_atom(op, gtensor, slayout, cta_tiler, cluster_size) returns the TMA Copy_Atom",
    fixture: "make_tma_atom(SM90_TMA_LOAD_MULTICAST, half_t, (1024,256):(256,_1), (_64,_64):(_64,_1), (_64,_64), _2)",
};

/// tile_to_shape's divisibility check (layout.hpp): from 3.4 `evenly_divides` (3.4, 3.5:
/// `weakly_compatible`) of the block and target shapes, checked only when the target is static
/// ("tile_to_shape: block shape does not divide the target shape."); in 3.3 `sum(transform(target,
/// block, modulus{})) == _0` static_asserted for every target ("Layout shape does not divide the
/// target shape."), so a term with a run-time value (a dynamic target or block mode, unless the
/// block mode is `_1` or the target mode `_0`) does not compile ("'value' is not a member of
/// 'bool'").
pub const TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY: Switch = Switch {
    name: "tile_to_shape checks divisibility of static targets only",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 tile_to_shape static_asserted sum(target % block) == _0 for every target (a run-time remainder did not compile) with \"Layout shape does not divide the target shape.\"; from 3.4 only a static target is checked, with \"tile_to_shape: block shape does not divide the target shape.\"",
    fixture: "tile_to_shape((_8,_64):(_64,_1),(128,64))",
};

/// make_tma_copy_tiled's multicast split (atom/copy_traits_sm90_tma.hpp): from 3.4 the whole
/// box vector makes the gbasis and the descriptor divides its box by the multicast count, last
/// modes first; in 3.3 `static_assert` "Number of active CTAs in TMA must divide domain size of
/// slayout." (`size(slayout) % cosize(cta_t_map)`), then the vector is cut to its first
/// `shape_div(size(vector), cosize(cta_t_map))` elements (`composition(tma_layout_trunc, n)`)
/// before make_tma_copy_desc builds the gbasis and the box from it; a cut to one element is
/// `_1:_0`, whose `_0` stride is no basis, and make_tma_copy_desc does not compile
/// (`basis_get(_0, stride) * sizeof_bits_v`: "no match for 'operator*'").
pub const TMA_MULTICAST_SPLITS_THE_BOX: Switch = Switch {
    name: "TMA multicast splits the descriptor's box",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 make_tma_copy_tiled static_asserted size(slayout) % cosize(cta_t_map) == 0 and cut the smem vector to its first size/cosize elements before building the descriptor (a cut to one element did not compile); from 3.4 the gbasis is the whole vector and the descriptor divides the box by the multicast count",
    fixture: "tma_desc_args(make_tma_copy(SM90_TMA_LOAD, float, (512,512):(_1,512), (_16,_16):(_1,_16), (_16,_16)))",
};

/// `flat_divide` and `zipped_product` of a `ComposedLayout` (layout_composed.hpp): declared from
/// 3.4 (acting on the inner layout and keeping the swizzle and offset, as the other divides and
/// products); v3.3.0's layout_composed.hpp has logical/zipped/tiled_divide and
/// logical/tiled/blocked/raked_product only, and layout.hpp's flat_divide and zipped_product take
/// a `Layout`: "no matching function for call to 'flat_divide(cute::ComposedLayout<...>, ...)'".
pub const COMPOSED_FLAT_DIVIDE_AND_ZIPPED_PRODUCT: Switch = Switch {
    name: "flat_divide and zipped_product of a composed layout exist",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 layout_composed.hpp had no flat_divide or zipped_product for ComposedLayout (no matching function); from 3.4 both act on the inner layout and keep the swizzle and offset",
    fixture: "flat_divide(composition(Swizzle<3,3,3>,(_8,_64):(_64,_1)),(_8,_16))",
};

/// make_tiled_mma's arguments (mma_atom.hpp): from 3.4 `(atom, thr_layout, permutations)`;
/// in 3.3 `(atom, thr_layout, val_layout, permutations)`, the third a `ValLayoutMNK` whose sizes
/// multiply the tile (`TiledShape_MNK = atom x threads x values`), and print(TiledMMA) shows
/// TiledThr, TiledVal, TiledPerm and TiledShape_MNK.
pub const VALUE_LAYOUT_ARGUMENT_GONE: Switch = Switch {
    name: "make_tiled_mma's third argument is the permutation",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 make_tiled_mma(atom, thr, val, perm) took a ValLayoutMNK third (the tile is atom x thr x val); from 3.4 the third argument is the PermutationMNK",
    fixture: "tiled_mma_tile(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1),(_32,_32,_16))",
};

/// TiledMMA's permutation (mma_atom.hpp): from 3.5 (3.5.0; first modelled 3.5.1.0)
/// `permutation_mnk<I>` is the permutation or, for `_`, the atoms' extent, and the tile is its size;
/// before, `thrfrg_X` divided by the permutation as given (`_` keeps the mode) and the tile was
/// `max(atom extent x threads, size(permutation))`.
pub const PERMUTATION_IS_THE_TILE: Switch = Switch {
    name: "a tiled MMA's permutation is its tile",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 tile_size_mnk was max(atom extent x threads, size(permutation)) and thrfrg divided by the permutation as given; from 3.5 the tile is size(permutation_mnk) (the atoms' extent for _)",
    fixture: "tiled_mma_tile(SM80_16x8x32_S32S8S8S32_TN,(_2,_2,_1),(_32,_32,_16))",
};

/// complement's cotarget (layout.hpp): from 3.5 (3.5.0; first modelled 3.5.1.0) an int tuple (a
/// shape; logical_divide passes `shape(A)`); before, an integer only (`static_assert`
/// "Expected integral codomain size in complement.") and logical_divide passed `size(A)`.
pub const COMPLEMENT_TAKES_A_SHAPE: Switch = Switch {
    name: "complement takes a shape as its cotarget",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 complement(L, cotarget) required an integral cotarget and logical_divide(A, B) took complement(B, size(A)); from 3.5 the cotarget may be a shape and logical_divide takes complement(B, shape(A))",
    fixture: "complement(_4:_2,(_4,_6))",
};

/// composition's left-hand side (layout.hpp): from 3.5 (3.5.0; first modelled 3.5.1.0)
/// `composition_impl` reads `coalesce_x(lhs, coprofile(rhs))`; before, `flatten(lhs)`, and its
/// integral-lhs shortcut (`is_integral<decltype(flat_shape)>`, a value) fired for a one-leaf lhs.
pub const COMPOSITION_COALESCES_LHS: Switch = Switch {
    name: "composition coalesces its left-hand side",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 composition walked flatten(A) (composition((_16,_8):(_1,_16),4) is (4,1):(_1,_16)); from 3.5 coalesce_x(A) (4:_1)",
    fixture: "composition((_16,_8):(_1,_16),4)",
};

/// `tuple == tuple` (container/tuple.hpp): from 3.5 (3.5.0; first modelled 3.5.1.0) tuples of
/// different sizes are `false_type` and tuples of one size the `&&` of their elements' equalities;
/// before (v3.4.1 and v3.3.0 `detail::equal_impl<I>`), the comparison walked the left tuple,
/// `true_type` where it ended and `false_type` where only the right one did, so a left tuple that
/// is a prefix of the right one compared true (`equality.rs`, definition 3; make_tma_copy's
/// "top-level shape equivalence" check reads it: a rank-2 smem layout passes against a rank-3
/// tile, fixture `tma.cases` / `releases.cases`).
pub const TUPLE_EQUALITY_NEEDS_EQUAL_RANKS: Switch = Switch {
    name: "tuple equality needs equal ranks",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 tuple == tuple compared the elements up to the end of the left tuple (true there) or of the right one (false there): (1,_2) == (1,_2,_3) was 1; from 3.5 tuples of unequal sizes are false_type (_0)",
    fixture: "equal((1,_2),(1,_2,_3))",
};

/// `make_layout_like` / `make_fragment_like` (layout.hpp): from 3.5 (3.5.0; first modelled
/// 3.5.1.0) `make_layout_like` orders the strides by `compact_order(filter_zeros(stride, shape),
/// stride)`, keeping every static `_0`, and `make_fragment_like` keeps mode 0's `_0` strides and
/// orders the other modes for any static shape; before (v3.4.1 and v3.3.0), a layout with a
/// top-level `_0` stride became column-major (its `_0`s kept), another static one
/// `make_ordered_layout(L)`, a dynamic one column-major, and `make_fragment_like` ordered only a
/// static shape *and stride*, mode 0 column-major (make_fragment_like.rs).
pub const MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER: Switch = Switch {
    name: "make_layout_like orders by compact_order",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 make_layout_like of a layout with a static-0 stride was column-major (make_layout_like((_2,_2,_2,_2):(_0,_2,_4,_1)) = (_2,_2,_2,_2):(_0,_1,_2,_4)) and make_fragment_like ordered only static strides; from 3.5 both follow compact_order of the strides, static-0 strides kept ((_2,_2,_2,_2):(_0,_2,_4,_1))",
    fixture: "make_layout_like((_2,_2,_2,_2):(_0,_2,_4,_1))",
};

/// `as_arithmetic_tuple` of a nested basis element (numeric/arithmetic_tuple.hpp), behind `+` of
/// basis elements (a layout with basis strides called at a coordinate): from 3.5 (3.5.0; first
/// modelled 3.5.1.0) it recurses into the value, so `E<0,1>` is `((_0,_1))`; before (v3.4.1,
/// v3.3.0), `ScaledBasis<ScaledBasis<T,M>,N>` became N zeros then the inner basis element itself,
/// which the element-wise sum keeps where nothing is added to it (scaled_basis.rs, definition 3).
pub const ARITHMETIC_TUPLE_OF_A_NESTED_BASIS: Switch = Switch {
    name: "arithmetic tuples of nested bases recurse",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 as_arithmetic_tuple(E<0,1>) was (_1@1), the inner basis element kept (so (_2,_3):(_1@1@0,_1@0@1)(1,2) was (1@1,2@0)); from 3.5 it converts the value too (((_0,1),(2)))",
    fixture: "(_2,_3):(_1@1@0,_1@0@1)(1,2)",
};

/// `make_fragment_like(Sw o O o L)` (swizzle_layout.hpp), the register fragment of a swizzled
/// partition: from 3.5 (3.5.0; first modelled 3.5.1.0) `make_fragment_like(L)`, a plain layout;
/// before (v3.4.1, v3.3.0), `detail::transfer_swizzle(L, make_fragment_like(L))`, the fragment
/// composed with the swizzle that carries the bits L reaches over to it (atom/partition.rs
/// `transfer_swizzle`), which `retile_S/D` then keep.
pub const MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE: Switch = Switch {
    name: "make_fragment_like drops the swizzle",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 make_fragment_like of a swizzled layout transferred the swizzle onto the fragment (Sw<1,0,-1> o _0 o ((_2,_2,_2),(_2,_2),_2):((_1,_2,_4),(_8,_16),_32)); from 3.5 the fragment is make_fragment_like(layout_b) alone",
    fixture: "mma_fragment_a(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,make_layout((_2,_2,_1)),(_32,_32,_16)),tile_to_shape(composition(Swizzle<3,3,3>,(_64,_8):(_1,_64)),(_128,_32,_3))(_,_,0),37)",
};

/// `compact_order(shape, order)` (stride.hpp), behind tile_to_shape's order (modelled there; the
/// fragments' own orders changed with make_layout_like: [`MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER`]): from 3.5 (3.5.0; first modelled 3.5.1.0) a dynamic order leaf is replaced by a static
/// one above every static leaf; before, each leaf's start stride was
/// `conditional_return(o < order, product(s), Int<1>{})`, whose two branches differ in type when
/// the comparison is dynamic, so an order with a dynamic leaf does not compile.
pub const DYNAMIC_MODE_ORDER: Switch = Switch {
    name: "a mode order may hold dynamic leaves",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 compact_order's conditional_return(o < order, product(s), _1) did not compile for a dynamic order leaf; from 3.5 dynamic leaves are ordered after every static one",
    fixture: "tile_to_shape((_8,_64):(_64,_1),(_128,_64),(_2,5))",
};

/// `AuxTmaParams` (atom/copy_traits_sm90_tma.hpp): from 3.4 it carries `TmaGmemBasis`, the TMA box
/// coordinate -> gmem mode layout (`typename decltype(make_tma_copy(...))::AuxParams::TmaGmemBasis`);
/// in 3.3 only the gmem strides and the smem swizzle, so the name does not compile.
pub const TMA_GMEM_BASIS_TYPE: Switch = Switch {
    name: "TMA AuxParams name their TmaGmemBasis",
    since: Release::new(3, 4, 0, 0),
    what: "in 3.3 AuxTmaParams had no TmaGmemBasis ('TmaGmemBasis' ... does not name a type); from 3.4 it is the static box coordinate -> gmem mode layout",
    fixture: "tma_gbasis(make_tma_copy(SM90_TMA_LOAD, half_t, ((_8,_8),64):((_1,_8),64), ((_8,_8),_4):((_1,_8),_64), ((_8,_8),_4), _1))",
};

/// `print_layout` of a shared-memory swizzled layout `Sw o smem_ptr[B] o L` (a GMMA layout atom):
/// from 3.5 (3.5.0; first modelled 3.5.1.0) pointer_flagged.hpp's overload prints it position
/// independent (the swizzle recast to elements, over a `_0` offset); before, the generic
/// print_layout drew `Sw(L(m,n))` (the byte swizzle on element offsets) under the flagged header.
pub const PRINT_LAYOUT_SMEM_POSITION_INDEPENDENT: Switch = Switch {
    name: "print_layout of a GMMA layout atom is position independent",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 print_layout(Sw o smem_ptr[B] o L) printed that header and the grid of Sw(L(m,n)); from 3.5 it prints as_position_independent_swizzle_layout (the swizzle recast to the element type over _0)",
    fixture: "print_layout(GMMA::Layout_K_SW32_Atom<half_t>)",
};

/// `make_tma_atom(op, gtensor, slayout, cta_tiler[, cluster_size])` (atom/copy_traits_sm90_tma.hpp):
/// from 3.5.1 the cluster size defaults to `Int<1>`; in 3.4 and 3.5.0 it must be given (four
/// operands after the operation: "no matching function for call to 'make_tma_atom'").
pub const MAKE_TMA_ATOM_CLUSTER_DEFAULT: Switch = Switch {
    name: "make_tma_atom's cluster size defaults to 1",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5.1 make_tma_atom took (op, gtensor, slayout, cta_tiler, cluster_size) with no default; from 3.5.1 cluster_size = Int<1> by default",
    fixture: "make_tma_atom(SM90_TMA_STORE, half_t, (256,512):(512,_1), tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>,(_64,_64)), (_64,_64))",
};

/// coalesce's backward walk (layout.hpp `bw_coalesce`): from 3.5 (3.5.0; first modelled 3.5.1.0)
/// a mode merges into the front only when the front's extent is static too; before, whenever
/// `s * d == front stride` statically (`(_2,4):(_1,_2)` coalesces to `8:_1`).
pub const COALESCE_FRONT_MUST_BE_STATIC: Switch = Switch {
    name: "coalesce merges into a static front only",
    since: Release::new(3, 5, 1, 0),
    what: "before 3.5 bw_coalesce merged a mode into the front whenever s*d equalled the front's stride statically (a dynamic front extent too); from 3.5 the front's extent must be static",
    fixture: "coalesce((_2,4):(_1,_2))",
};

/// The copy operations' size checks added in 3.6: `UniversalCopy` requires `sizeof_bits >= 8` of
/// its types, and cp.async's CACHEGLOBAL variants 16-byte values only.
pub const COPY_OP_SIZE_ASSERTS: Switch = Switch {
    name: "copy operations check their value sizes",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 UniversalCopy accepted sub-byte types and SM80_CP_ASYNC_CACHEGLOBAL 4- and 8-byte values; from 3.6 both are static_assert failures",
    fixture: "tiled_copy_tv(SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>,float,(_32,_1),(_1,_1))",
};

/// make_tma_copy's tile check (atom/copy_traits_sm90_tma.hpp `construct_tma_gbasis`): from 3.6
/// `size(slayout) == size(cta_v_map)` ("TMA requires CTA_Tile and SLayout top-level size
/// equivalence."); before, `product_each(shape(slayout)) == product_each(shape(cta_v_map))`
/// ("... top-level shape equivalence."), which also refuses equal sizes split differently.
pub const TMA_TILE_CHECKS_SIZE_ONLY: Switch = Switch {
    name: "TMA tile check compares sizes",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 construct_tma_gbasis required product_each(shape(slayout)) == product_each(shape(cta_v_map)) (\"top-level shape equivalence\"); from 3.6 only size(slayout) == size(cta_v_map) (\"top-level size equivalence\")",
    fixture: "make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(_1,1024), (_64,_32):(_1,_64), (_64,_64), _1)",
};

/// The TMA swizzle base (atom/copy_traits_sm90_tma_swizzle.hpp `get_tma_swizzle_base`, new in
/// 3.6): from 3.6 a `Swizzle<B,4,S>` shared-memory layout needs S = 3 ("Expected S = 3 when M ==
/// 4. Unsupported layout swizzle."); before, `get_tma_swizzle_bits` alone named the mode, by B.
pub const TMA_SWIZZLE_BASE_CHECKED: Switch = Switch {
    name: "TMA checks the swizzle base",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 make_tma_copy took any Swizzle<B,4,S> (B in 0..3) by its bits alone; from 3.6 get_tma_swizzle_base static_asserts S == 3",
    fixture: "make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(_1,1024), composition(Swizzle<1,4,2>,(_64,_32):(_1,_64)))",
};

/// The 64 x 8 GMMA accumulator layout: from 3.6 it has a third value mode `_1:_512` like every
/// other 64 x N one; before, `CLayout_64x8` had two value modes.
pub const GMMA_C_64X8_THIRD_MODE: Switch = Switch {
    name: "GMMA 64x8 accumulator with a third value mode",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 GMMA::CLayout_64x8 was ((_4,_8,_4),(_2,_2)):((_128,_1,_16),(_64,_8)); from 3.6 it is the general 64xN form with a (_1):(_512) third value mode",
    fixture: "mma_layout_c(SM90_64x8x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>)",
};

/// The TMA swizzle modes of a `Swizzle<2,5,2>` and a `Swizzle<2,6,S>` shared-memory layout
/// (atom/copy_traits_sm90_tma_swizzle.hpp `get_tma_swizzle_bits` / `get_tma_swizzle_base`, and
/// arch/copy_sm90_desc.hpp's `SWIZZLE_BASE_32B` / `_64B`): from 3.8 the 128B swizzles with 32B and
/// 64B atoms (`CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B` / `_64B`); before, only M == 4 had a mode and
/// every other swizzle failed `static_assert(M < 0, "Unsupported layout swizzle.")`.
pub const TMA_128B_ATOM_SWIZZLES: Switch = Switch {
    name: "TMA 128B swizzles with 32B and 64B atoms",
    since: Release::new(3, 8, 0, 0),
    what: "before 3.8 make_tma_copy of a Swizzle<B,5,S> or Swizzle<B,6,S> shared-memory layout failed \"Unsupported layout swizzle.\"; from 3.8 Swizzle<2,5,2> is SWIZZLE_128B_ATOM_32B and Swizzle<2,6,S> SWIZZLE_128B_ATOM_64B",
    fixture: "tma_desc_args(make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(_1,1024), composition(Swizzle<2,5,2>,(_64,_32):(_1,_64))))",
};

/// blocked_product / raked_product return the zipped modes as they are; before 3.8 the result
/// was coalesced mode by mode (`coalesce(zip(...), tuple_repeat<R>(_1))`).
pub const PRODUCTS_KEEP_MODES: Switch = Switch {
    name: "blocked/raked products keep their modes",
    since: Release::new(3, 8, 0, 0),
    what: "before 3.8 blocked_product and raked_product coalesced each mode of the result; from 3.8 on each mode is the pair (block mode, tiler mode) as built",
    fixture: "blocked_product(_2:_1,_3:_1)",
};

/// composition's walk: from 3.9 (tag v3.9.2 recorded; no PyPI wheel of 3.9) the
/// walk takes `ceil_div` steps and checks the weak Stride / Shape Divisibility Conditions where
/// static; before, it used `shape_div` / `shape_min` and `static_assert`ed "Static shape_div
/// failure" wherever both operands of a `shape_div` were static, then coalesced the result
/// backwards.
pub const COMPOSITION_WEAK_DIVISIBILITY: Switch = Switch {
    name: "composition checks the weak divisibility conditions",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 composition divided with shape_div (static_assert \"Static shape_div failure\") and coalesced its result; from 3.9 it walks with ceil_div and checks the weak Stride/Shape Divisibility Conditions only where static",
    fixture: "composition((_6,_2):(_8,_2),_4:_4)",
};

/// The SM100 TMEM copy operations' namespaces (cute/arch/copy_sm100.hpp): from 3.9 the UTCCP
/// operations are declared in `namespace SM100::TMEM::UTCCP` (the TMEM loads and stores in
/// `SM100::TMEM::LOAD` / `STORE`), brought into `cute` by using-declarations; in 3.8 in `cute`
/// only, so the qualified spelling does not compile.
pub const SM100_TMEM_NAMESPACES: Switch = Switch {
    name: "SM100 TMEM copy operations in SM100::TMEM namespaces",
    since: Release::new(3, 9, 0, 0),
    what: "in 3.8 SM100_UTCCP_* were declared in namespace cute only ('SM100' was not declared in this scope for SM100::TMEM::UTCCP::...); from 3.9 in namespace SM100::TMEM::UTCCP",
    fixture: "copy_traits_src(SM100::TMEM::UTCCP::SM100_UTCCP_4x32dp128bit_1cta)",
};

/// right_inverse / left_inverse: from 3.9, right_inverse takes the static-stride modes sorted by
/// stride and left_inverse is its own construction (a quasi-inverse, rejecting dynamic strides);
/// before, right_inverse followed the chain of strides `_1, n0*d0, ...` through the modes
/// (`detail::inverse_seq`) and left_inverse was `right_inverse(make_layout(L, complement(L)))`.
pub const INVERSES_SORTED: Switch = Switch {
    name: "inverses by sorted strides",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 right_inverse followed the chain of static strides from _1 (inverse_seq) and left_inverse(L) was right_inverse(make_layout(L, complement(L))); from 3.9 both sort the static-stride modes, and left_inverse requires static strides",
    fixture: "left_inverse((_2,_4):(_1,_4))",
};

/// TiledMMA's thread index -> (ThrV, ThrM, ThrN, ThrK) map in get_layoutA/B/C_TV: from 4.1
/// `composition((size(VMNK),_1):(_1,_0), right_inverse(make_layout(VMNK, complement(VMNK))))`,
/// which keeps every thread of an atom whose ThrID is not compact (SM70's quad-pairs); before,
/// `right_inverse(VMNK)` alone.
pub const TILED_MMA_THREADS_WITH_COMPLEMENT: Switch = Switch {
    name: "tiled MMA thread map through the complement",
    since: Release::new(4, 1, 0, 0),
    what: "before 4.1 TiledMMA's TV layouts mapped thread indices with right_inverse(ThrLayoutVMNK); from 4.1 with right_inverse of (ThrLayoutVMNK, its complement) cut to size(ThrLayoutVMNK)",
    fixture: "tiled_mma_tv_a(SM70_8x8x4_F32F16F16F32_NT)",
};

/// upcast<N> of a static stride that neither divides nor is divided by N: from 3.9 upcast
/// `static_assert`s "Divisibility condition" itself; before, the same case failed inside
/// shape_div ("Static shape_div failure").
pub const UPCAST_DIVISIBILITY_CONDITION: Switch = Switch {
    name: "upcast names its divisibility condition",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 an upcast<N> of a stride N does not divide (nor divides N) failed in shape_div with \"Static shape_div failure\"; from 3.9 upcast checks \"Divisibility condition\" itself",
    fixture: "upcast<4>((_4,_8):(_3,_8))",
};

/// logical_divide(A, B) for a layout B: from 3.9 `composition(A, (B, complement(B,
/// shape(coalesce(A)))))`; before, the complement's cotarget was `shape(A)` as it is, so a nested
/// shape made a different (smaller) rest mode.
pub const DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE: Switch = Switch {
    name: "logical_divide complements in the coalesced shape",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 logical_divide took complement(B, shape(A)); from 3.9 complement(B, shape(coalesce(A)))",
    fixture: "logical_divide(((_3,_3)):((_1,_3)),_4:_2)",
};

/// cosize / coshape: from 3.9 `coshape(L)` is `inner_product(shape - _1, abs(stride)) + _1`, static
/// when every term is; before, it was `L'(size(L') - _1) + _1` for `L'` the layout with absolute
/// strides (layout.hpp `coshape`), dynamic wherever the size is (unless a zero stride meets every
/// dynamic coordinate). The value is the same.
pub const COSHAPE_INNER_PRODUCT: Switch = Switch {
    name: "cosize by the inner product of extents and strides",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 coshape evaluated the layout with absolute strides at its last coordinate (dynamic where the size is dynamic); from 3.9 it is the inner product of (extents - _1) with the absolute strides, static where every term is",
    fixture: "cosize((4,_2):(_0,_1))",
};

/// `ScaledBasis<T,Ns...>` (numeric/arithmetic_tuple.hpp), flat from 4.1: a basis of several modes
/// is spelled `ScaledBasis<V,0,1>` (before, `ScaledBasis<T,N>` took one mode: the spelling is a
/// compile error, "wrong number of template arguments", and `E<0,1>` nested two), and print
/// writes `Ns` in order, outermost first (`E<0,1>` as `_1@0@1`; the nested basis before printed
/// innermost first, `_1@1@0`).
pub const FLAT_SCALED_BASIS: Switch = Switch {
    name: "flat ScaledBasis of several modes, printed outermost first",
    since: Release::new(4, 1, 0, 0),
    what: "before 4.1 ScaledBasis<T,N> took one mode (ScaledBasis<Int<2>,0,1> did not compile) and a nested basis printed innermost first (E<0,1> as _1@1@0); 4.1's flat ScaledBasis<T,Ns...> takes several and prints them in order (_1@0@1)",
    fixture: "make_identity_layout((_4,(_2,_3)))",
};

/// `print(ScaledBasis)` from 4.2: the modes in reverse (a fold over assignments), innermost first
/// again (`E<0,1>` as `_1@1@0`), undoing the print order of [`FLAT_SCALED_BASIS`].
pub const SCALED_BASIS_PRINTS_INNER_FIRST: Switch = Switch {
    name: "ScaledBasis prints its modes innermost first again",
    since: Release::new(4, 2, 0, 0),
    what: "in 4.1 print(ScaledBasis<T,Ns...>) printed Ns in order (E<0,1> as _1@0@1); from 4.2 in reverse (_1@1@0), as the nested bases before 4.1 did",
    fixture: "make_identity_layout((_4,(_2,_3)))",
};

/// `ScaledBasis == ScaledBasis` (numeric/arithmetic_tuple.hpp) from 4.7 forms the value comparison
/// only when the modes match, else `false_type`; before, `bool_constant<(N==M && ...)>{} && v == w`
/// needed `v == w` to compile even for different modes (CUTLASS PR #3427, issue #3393). See
/// `equality.rs`, definition 4.
pub const BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED: Switch = Switch {
    name: "ScaledBasis equality compares the values only when the modes match",
    since: Release::new(4, 7, 0, 0),
    what: "before 4.7 2@0 == _1/_16@1 does not compile (no operator== for int and R<1,16>, formed although the modes differ); from 4.7 it is false_type (_0)",
    fixture: "equal(2@0,_1/_16@1)",
};

/// make_cotiled_copy's validity check (copy_atom.hpp), `coalesce(composition(D, layout<1>(tv_data)))
/// == coalesce(layout<1>(atom_tv))`: from 4.2 D is `make_layout(data_layout, _1:_0)`, so an address
/// past the data's end maps to stride 0 and is refused; before, `data_layout` alone, whose last mode
/// extrapolates past the end (`make_tmem_copy` of a 16dp256b load over 4 of its 8 columns passes).
pub const COTILED_CHECK_PAST_END_STRIDE_0: Switch = Switch {
    name: "make_cotiled_copy checks past-the-end addresses at stride 0",
    since: Release::new(4, 2, 0, 0),
    what: "before 4.2 make_cotiled_copy's check composed data_layout with the atom's data coordinates (past-the-end coordinates extrapolate); from 4.2 make_layout(data_layout, _1:_0) (they go to stride 0)",
    fixture: "make_tmem_copy(SM100_TMEM_LOAD_16dp256b1x,float,(_128,_4):(_65536,_1))",
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
/// 4.2 (tags v4.0.0 and v4.1.0 refuse them: recorded atoms_sm100) a one-SM `_SS` takes any multiple of 8
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
/// from 4.6.0 (tag v4.6.2 recorded) an overload of its own (pointer_flagged.hpp) slices L alone and keeps the offset in the
/// layout, `(Sw o smem_ptr[B] o slice(c, L), _0)` when L's offset is a static 0 and `(Sw o (0 +
/// offset) o slice(c, L), _0)` otherwise; before, the swizzled slice of swizzle_layout.hpp
/// (`(Sw o _0 o slice(c, L), offset)` for a stage).
pub const SMEM_FLAG_SLICE_KEEPS_OFFSET: Switch = Switch {
    name: "smem swizzled slices keep their offset",
    since: Release::new(4, 6, 0, 0),
    what: "before 4.6 slice_and_offset(c, Sw o smem_ptr[B] o L) was swizzle_layout.hpp's (Sw o _0 o slice(c, L), offset); from 4.6 pointer_flagged.hpp's overload returns (Sw o smem_ptr[B] o slice(c, L), _0) for a static zero offset, else (Sw o offset o slice(c, L), _0)",
    fixture: "slice_and_offset((_,_,_2),tile_to_shape(GMMA::Layout_MN_SW64_Atom<float>{},make_shape(Int<64>{},Int<32>{},Int<4>{})))",
};

/// The SM100 `_SCALED` F16BF16 traits' partial specialization for interleaved complex (emulated)
/// operands, `SM100_MMA_F16BF16_{SS,TS}_SCALED<cutlass::complex<T>, cutlass::complex<T>, float,
/// ...>` (and the 2x1SM forms): from CUTLASS 4.4 (tag v4.4.3 recorded) K is 256 bits of
/// `complex<T>` and T must be 16 bits ("Only supports 16bit base types"); before, only the generic
/// traits exist, which refuse a 32-bit complex<half_t> ("... supports 16bit types").
pub const SM100_COMPLEX_SCALED_TRAITS: Switch = Switch {
    name: "SM100 scaled UMMA traits take complex operands",
    since: Release::new(4, 4, 0, 0),
    what: "before 4.4 MMA_Traits<SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,...>> was the generic traits, whose static_assert refuses 32-bit A and B; from 4.4 a partial specialization for complex 16-bit types (K = 8)",
    fixture: "mma_shape(SM100_MMA_F16BF16_SS_SCALED<cutlass::complex<half_t>,cutlass::complex<half_t>,float,128,64,UMMA::Major::K,UMMA::Major::K,0>)",
};

/// The strides a static slice of a swizzled layout decays to (swizzle_layout.hpp
/// `make_swizzle_strides`): from 3.6 (tag v3.6.0) `(Y-Z) * Int<(1 << I)>{}`; before, `(Y-Z) <<
/// Int<I>{}`, and a left shift of a negative static value is no constant expression in C++17, so the
/// shift fell back to `int`'s: each negative `(Y-Z) << I` stride (a swizzle with Z above Y, S < 0)
/// was a run-time int, and the composition with the slice could not coalesce across it.
pub const SWIZZLE_STRIDES_MULTIPLY: Switch = Switch {
    name: "swizzle slice strides stay static",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 make_swizzle_strides shifted (Y-Z) << Int<I>{}: a negative stride (S < 0) became a run-time int ((_2,_4):(-7,_18)); from 3.6 it multiplies by Int<(1 << I)>{} and stays static ((_2,_4):(_-7,_18))",
    fixture: "slice_and_offset((_1,_),composition(Swizzle<3,0,-3>,(_8,_8):(_8,_1)))",
};

/// Every switch, oldest first.
/// The descriptor makers' canonical check (mma_traits_sm90_gmma.hpp `make_gmma_desc`,
/// mma_traits_sm100.hpp `make_umma_desc`): before 3.9 `rank<0> == 2 && rank<1> == 2` of the
/// canonical layout ("No flat offset mode"), so a K-major UMMA layout whose K mode divides into a
/// nested rest (never read) was accepted; from 3.9 `congruent(canonical, ((_1,_1),(_1,_1)))`
/// ("Expected profile failure.", `git diff v3.8.0 v3.9.0` of both headers).
pub const DESC_CANONICAL_PROFILE: Switch = Switch {
    name: "descriptor makers check the canonical layout's profile",
    since: Release::new(3, 9, 0, 0),
    what: "before 3.9 make_gmma_desc/make_umma_desc checked the canonical layout's mode ranks only (a K-major UMMA layout with a nested K rest was accepted); from 3.9 its profile ((_1,_1),(_1,_1)) (\"Expected profile failure.\")",
    fixture: "make_umma_desc<UMMA::Major::K>(half_t,tile_to_shape(UMMA::Layout_K_SW128_Atom<half_t>,(_128,_128)))",
};

/// `make_gmma_desc`'s K-size checks (mma_traits_sm90_gmma.hpp): before 3.6 the dense sizes only
/// (MN-major `256/sizeof_bits<T>`, K-major 2 granules); from 3.6 also the sparse GMMA's
/// (`128|512 / sizeof_bits<T>`, 4 granules), with longer messages.
pub const GMMA_DESC_SPARSE_K: Switch = Switch {
    name: "make_gmma_desc accepts the sparse K sizes",
    since: Release::new(3, 6, 0, 0),
    what: "before 3.6 make_gmma_desc required the dense K (256/sizeof_bits<T>, or 2 granules K-major); from 3.6 also the sparse GMMA's (128|512 / sizeof_bits<T>, 4 granules)",
    fixture: "make_gmma_desc<GMMA::Major::K>(half_t,tile_to_shape(GMMA::Layout_K_SW64_Atom<half_t>,(_64,_32)))",
};

pub const SWITCHES: &[&Switch] = &[
    &MMA_ATOM_PRINT_LABELS_NARROW,
    &COUNTING_ITER_PRINTS_PARENS,
    &THR_MMA_FRAGMENTS_QUALIFIED,
    &VALUE_LAYOUT_ARGUMENT_GONE,
    &PRODUCTS_COALESCE_BY_A_TUPLE,
    &FLAT_PRODUCT_DECLARED,
    &COMPLEMENT_CHECKS_INJECTIVITY,
    &INTEGER_TILER_COMPOSES_AT_STRIDE_1,
    &TILE_TO_SHAPE_CHECKS_STATIC_TARGETS_ONLY,
    &TMA_MULTICAST_SPLITS_THE_BOX,
    &COMPOSED_FLAT_DIVIDE_AND_ZIPPED_PRODUCT,
    &TILED_PRODUCT_UNPACKS_THE_RESULT_RANK,
    &TMA_GMEM_BASIS_TYPE,
    &MAKE_TMA_ATOM_DECLARED,
    &LAZY_TRANSFORM_DECLARED,
    &PERMUTATION_IS_THE_TILE,
    &COMPLEMENT_TAKES_A_SHAPE,
    &COALESCE_FRONT_MUST_BE_STATIC,
    &COMPOSITION_COALESCES_LHS,
    &TUPLE_EQUALITY_NEEDS_EQUAL_RANKS,
    &DYNAMIC_MODE_ORDER,
    &MAKE_LAYOUT_LIKE_BY_COMPACT_ORDER,
    &ARITHMETIC_TUPLE_OF_A_NESTED_BASIS,
    &MAKE_FRAGMENT_LIKE_DROPS_THE_SWIZZLE,
    &PRINT_LAYOUT_SMEM_POSITION_INDEPENDENT,
    &MAKE_TMA_ATOM_CLUSTER_DEFAULT,
    &MMA_ATOM_PRINTS_SHAPE_MNK,
    &COPY_OP_SIZE_ASSERTS,
    &TMA_TILE_CHECKS_SIZE_ONLY,
    &TMA_SWIZZLE_BASE_CHECKED,
    &GMMA_C_64X8_THIRD_MODE,
    &SWIZZLE_STRIDES_MULTIPLY,
    &PRODUCTS_KEEP_MODES,
    &TMA_128B_ATOM_SWIZZLES,
    &COMPOSITION_WEAK_DIVISIBILITY,
    &INVERSES_SORTED,
    &SM100_TMEM_NAMESPACES,
    &TILED_MMA_THREADS_WITH_COMPLEMENT,
    &FLAT_SCALED_BASIS,
    &UPCAST_DIVISIBILITY_CONDITION,
    &DIVIDE_COMPLEMENTS_IN_COALESCED_SHAPE,
    &COSHAPE_INNER_PRODUCT,
    &SM100_SS_N_RELAXED,
    &SCALED_BASIS_PRINTS_INNER_FIRST,
    &COTILED_CHECK_PAST_END_STRIDE_0,
    &SM80_INT4_B_LAYOUT_ONE_TO_ONE,
    &SM100_COMPLEX_SCALED_TRAITS,
    &SM100_F8F6F4_SS_TEMPLATE,
    &SMEM_FLAG_SLICE_KEEPS_OFFSET,
    &BASIS_EQUALITY_FORMS_VALUES_ONLY_WHEN_MATCHED,
    &DESC_CANONICAL_PROFILE,
    &GMMA_DESC_SPARSE_K,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// What an evaluation read decides which releases its result holds for: a switch read holds
    /// where the switch answers alike (also with it turned off), a `since` where the comparison
    /// does, a read of the release itself nowhere else; nested readings are seen by the outer
    /// one; nothing is recorded outside a reading.
    #[test]
    fn reads_hold_for_the_releases_that_answer_alike() {
        let r = |s: &str| s.parse::<Release>().unwrap();
        let s = &ARITHMETIC_TUPLE_OF_A_NESTED_BASIS; // since 3.5.1
        let ((), reads) = with_release(r("4.2.0.0"), || reading(|| assert!(s.on())));
        assert!(reads.hold_for(r("3.6.0.0")) && reads.hold_for(r("3.5.1.0")) && !reads.hold_for(r("3.4.1.0")));
        assert!(!with_switch_off(s, || reads.hold_for(r("4.2.0.0"))));
        let ((), reads) = with_release(r("4.2.0.0"), || reading(|| assert!(!since(r("4.5.0.0")))));
        assert!(reads.hold_for(r("4.4.3.0")) && !reads.hold_for(r("4.5.0.0")));
        let (_, reads) = with_release(r("4.2.0.0"), || reading(current));
        assert!(!reads.hold_for(r("4.2.0.0")));
        let ((_, inner), outer) = with_release(r("4.2.0.0"), || reading(|| reading(|| since(r("3.8.0.0")))));
        assert!(inner.hold_for(r("3.9.0.0")) && outer.hold_for(r("3.9.0.0")) && !outer.hold_for(r("3.7.0.0")));
        assert!(READS.with(|x| x.borrow().is_none()));
        let ((), none) = reading(|| ());
        assert!(none.hold_for(r("3.3.0.0")));
    }

    #[test]
    fn versions_parse_order_and_map_to_models() {
        let r = |s: &str| s.parse::<Release>().unwrap();
        assert_eq!(r("4.2"), r("4.2.0.0"));
        assert!(r("3.5.1.0") < r("3.6.0.0") && r("3.8.0.0") < r("4.2.0.0"));
        assert_eq!(r("4.1.0").model(), Some(r("4.1.0.0")));
        assert_eq!(r("4.0.0").model(), Some(r("4.0.0.0")));
        assert_eq!(r("3.9.2").model(), Some(r("3.9.0.0")));
        assert_eq!(r("4.3.0").model(), Some(r("4.2.0.0")));
        assert_eq!(r("4.3.6").model(), Some(r("4.2.0.0")));
        assert_eq!(r("4.4.3").model(), Some(r("4.4.0.0")));
        assert_eq!(r("4.5.0").model(), Some(r("4.5.0.0")));
        assert_eq!(r("4.5.3").model(), Some(r("4.5.1.0")));
        assert_eq!(r("4.7.0").model(), Some(r("4.7.0.0")));
        assert_eq!(r("4.6.2").model(), Some(r("4.6.0.0")));
        assert_eq!(r("4.8.0").model(), Some(r("4.7.0.0")));
        assert_eq!(registry_source(r("4.2.0.0")), Some(("nvidia-cutlass", "4.2.0.0".to_string())));
        assert_eq!(registry_source(r("4.5.0.0")), Some(("flashinfer-python", "0.6.11".to_string())));
        assert_eq!(registry_source(r("4.7.0.0")), None);
        assert_eq!(registry_source(r("3.4.1.0")), Some(("nvidia-cutlass", "3.4.1.0".to_string())));
        assert_eq!(registry_source(r("3.9.2.0")), None, "no nvidia-cutlass wheel of 3.9");
        assert_eq!(registry_source(r("4.1.0.0")), None, "flashinfer 0.2.11 is a source distribution");
        assert_eq!(registry_source(r("4.4.2.0")), Some(("flashinfer-python", "0.6.10".to_string())));
        assert_eq!(r("3.5.1.0").model(), Some(r("3.5.1.0")));
        assert_eq!(r("3.3.0.0").model(), Some(r("3.3.0.0")));
        assert_eq!(r("3.4.1.0").model(), Some(r("3.4.0.0")));
        assert_eq!(r("3.5.0.0").model(), Some(r("3.4.0.0")));
        assert_eq!(r("3.2.0.0").model(), Some(r("3.3.0.0")), "older than every model: the oldest");
        assert!(!r("3.4.1.0").is_modelled());
        assert!("4.x".parse::<Release>().is_err());
        let h = "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 3\n#define CUTLASS_PATCH 1\n";
        assert_eq!(Release::from_version_h(h), Some(r("4.3.1")));
    }

    #[test]
    fn the_release_is_scoped() {
        let old = Release::new(3, 7, 0, 0);
        assert!(PRODUCTS_KEEP_MODES.on());
        with_release(old, || assert!(!PRODUCTS_KEEP_MODES.on()));
        with_switch_off(&PRODUCTS_KEEP_MODES, || {
            assert!(!PRODUCTS_KEEP_MODES.on());
            assert!(INVERSES_SORTED.on(), "only the named switch is off");
        });
        assert!(PRODUCTS_KEEP_MODES.on());
        assert_eq!(current(), DEFAULT);
        for s in SWITCHES {
            assert!(s.since.is_modelled(), "{}: since {} is not a modelled release", s.name, s.since);
        }
    }
}
