//! `cargo xtask extract-kernel-forms`: the layouts, tiled copies, tiled MMAs and per-thread
//! partitions that CUTLASS's CuTe tutorials (`examples/cute/tutorial/**`), its SM80/SM90 collective
//! mainloops and the unit tests' default SM80 configurations build on the host, turned into a fixed
//! suite, `fixtures/cases/kernel_forms.cases`, per release: `--git-dir MIRROR --tag v4.2.0 --tag
//! v4.7.0` reads each tag of a bare NVIDIA/cutlass mirror (`--from DIR` a source tree, default the
//! provisioned 4.2 wheel's), and the suite is recorded for every release read. `--also-tag` reads
//! the other modelled releases' tags too (v3.3.0 ... v4.6.2): a form that not every `--tag` builds
//! goes to the suite of exactly the releases whose tags build it,
//! `kernel_forms_tags_<releases>.cases`, recorded for those releases only ([`take_partial`],
//! [`partial_files`], [`since_suite`]).
//!
//! Only facts are extracted, never code: each `auto NAME = EXPR;` (also `TiledCopy`, `TiledMMA`,
//! `using NAME = TYPE;` and `using NAME = decltype(EXPR);`) binds NAME to EXPR with the earlier
//! bindings of the file substituted (the `using` ones of the whole file first, as the tutorials
//! declare their value types last); a binding whose expression builds a layout, a tiled copy or a
//! tiled MMA (`make_layout`, `Layout<...>`, `tile_to_shape`, `composition`, `make_tiled_copy`,
//! `make_tiled_mma`, ...) is a case, written in CuTe's C++ spelling, which the expression language
//! reads as it is (see `harness/expr/parse.rs`, module `cpp`). A kernel a host function launches
//! (`k<<<...>>>(args)`, through a pointer or `cutlass::launch_kernel_on_cluster`) is read with its
//! parameters (and their types, for `SmemLayout{}`) bound to the launch's arguments: its
//! shared-memory tensors (`make_tensor(make_smem_ptr(..), L)`), their `partition_S/D/A/B/C`,
//! `partition_fragment_A/B/C`, `make_fragment_A/B` and `retile_S/D` by `X.get_slice(threadIdx.x)`
//! become the language's `copy_partition_s(...)`, `mma_fragment_a(...)`, `retile_D(...)` at thread
//! [`THREAD`]. A form the language or the oracle cannot express (run-time values such as
//! `int(m)`, global-memory tensors, template parameters) is listed as skipped with the reason, in
//! the case file's header, with a table of the forms found, cased and skipped per source and per
//! reason. Every case is written in both spellings (the C++ as read, then the short one).
//!
//! The collective mainloops are templates: they are read instantiated. The SM50/SM61/SM80 unit
//! tests' `DefaultGemmConfigurationToCutlass3Types<...>` are matched to the specializations of
//! default_gemm_configuration.hpp, whose `CollectiveMainloop` selects a `CollectiveMma`
//! specialization of sm70_mma_twostage.hpp / sm80_mma_multistage.hpp; the SM90 unit tests' and
//! examples 48/49's `CollectiveBuilder<Sm90, ...>` uses (one inside a class template, examples/49's
//! runner, once per instantiation main() makes: [`class_instance_uses`]; one inside a function
//! template, the blockwise FP8 test's, once per call: [`function_instance_uses`]) go through the builder's selectors
//! ([`sm90_builder`]) to sm90_mma_tma_gmma_ss_warpspecialized.hpp (its `_fp8` variant for FP8
//! inputs, its `_fp8_blockwise_scaling` variant for the blockwise-scaled schedules:
//! [`sm90_blockwise_builder`]), sm90_mma_tma_gmma_ss.hpp (KernelTma) or sm90_mma_multistage_gmma_ss_warpspecialized.hpp
//! (the cp.async schedules, and KernelScheduleAuto below 16-byte alignments), and, for tfloat32/float
//! inputs with an MN-major operand, through the register-sourced builder ([`sm90_rs_builder`]) to
//! sm90_mma_tma_gmma_rs_warpspecialized.hpp ([`rs_mainloop_bindings`]). The mainloop's body is then read
//! like a launched kernel's, its template parameters bound (see "The collective mainloops" below).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cutecheck::engine::release::Release;
use cutecheck::expr::Op;
use cutecheck::oracle::{provision, repo_root};

#[cfg(test)]
use crate::cxx_tokens::tokenize_with_chars;
use crate::cxx_tokens::{tokenize, Tok};

/// The operations whose presence makes a binding a case (besides the type `Layout<...>`).
const BUILDERS: &[Op] = &[
    Op::MakeLayout,
    Op::MakeTmemCopy,
    Op::TileToShape,
    Op::TileToMmaShape,
    Op::Composition,
    Op::MakeTiledCopy,
    Op::MakeTiledCopyA,
    Op::MakeTiledCopyB,
    Op::MakeTiledCopyC,
    Op::MakeTiledMma,
    Op::LogicalDivide,
    Op::ZippedDivide,
    Op::TiledDivide,
    Op::BlockedProduct,
    Op::RakedProduct,
    Op::RightInverse,
    Op::LocalTile,
    Op::LocalPartition,
];

fn builds(w: &str) -> bool {
    w == "Layout" || Op::by_name(w).is_some_and(|o| BUILDERS.contains(&o))
}

/// The keywords that start a binding.
const BINDERS: &[&str] =
    &["auto", "TiledCopy", "TiledMMA", "using", "Tensor", "ThrCopy", "ThrMMA", "Layout", "Copy_Atom"];

/// The files read besides the tutorials (examples/cute/tutorial/**): the SM80 and SM90 collective
/// mainloops and the unit tests' default SM80 configurations (their `using X = decltype(...)`).
const MAINLOOPS: &[&str] = &["test/unit/gemm/device/default_gemm_configuration.hpp"];

/// The thread whose partitions the kernel forms take (`threadIdx.x` in the kernels).
const THREAD: i64 = 37;

#[derive(clap::Args, Clone)]
pub struct KernelFormsArgs {
    /// A CUTLASS source tree (holding examples/cute/tutorial); default the provisioned 4.2 wheel's.
    #[arg(long, value_name = "DIR", conflicts_with = "tag")]
    pub from: Option<PathBuf>,
    /// Release tags of a bare CUTLASS mirror to read instead (`git show TAG:path`), e.g. v4.2.0
    /// and v4.7.0 (repeatable): each release is extracted and the suite is recorded for each; the
    /// forms only some of them build go to the file of the same name ending in `_since.cases`,
    /// recorded for those releases only.
    #[arg(long, value_name = "TAG", requires = "git_dir")]
    pub tag: Vec<String>,
    /// Release tags read besides the `--tag`s (repeatable; every other modelled release's, e.g.
    /// v3.3.0 ... v4.6.2): their forms that every `--tag` builds stay in the suites above, and
    /// each form some `--tag` does not build goes to the file of the releases whose tags build it
    /// (`kernel_forms_tags_<releases>.cases`, recorded for those releases).
    #[arg(long, value_name = "TAG", requires = "tag")]
    pub also_tag: Vec<String>,
    /// Read as `--also-tag` the tag of every other release the suite is recorded for (the
    /// `# recorded-for:` line of the existing --out file: 3.3.0.0 is v3.3.0).
    #[arg(long, requires = "tag")]
    pub also_recorded: bool,
    /// The mirror's git directory (the `fetch` of github:NVIDIA/cutlass).
    #[arg(long, value_name = "DIR")]
    pub git_dir: Option<PathBuf>,
    /// Where to write the cases (default fixtures/cases/kernel_forms.cases; the forms the SM90 TMA
    /// mainloops' Params TMA copies make go to the file of the same name ending in `_tma.cases`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Compile each SM90 builder use whose stage count carves out the epilogue's shared storage
    /// with g++ against the tag's headers ($CUTECHECK_DIR/cutlass-TAG/include) and record the
    /// stage count CUTLASS computes in fixtures/kernel_forms_stages.txt (kernel_stages.rs).
    #[arg(long, requires = "git_dir")]
    pub probe_stages: bool,
}

/// The release a tag names, as the suites spell releases: v4.7.0 -> 4.7.0.0.
fn release_of(tag: &str) -> String {
    format!("{}.0", tag.trim_start_matches('v'))
}

/// The tag of a release as the suites spell it: 4.7.0.0 -> v4.7.0 ([`release_of`]'s inverse).
fn tag_of(release: &str) -> String {
    format!("v{}", release.strip_suffix(".0").unwrap_or(release))
}

/// Where the sources come from: a directory tree or a tag of a bare git mirror.
enum Source {
    Dir(PathBuf),
    Git(PathBuf, String),
}

impl Source {
    /// The files under `prefix` (relative paths), or the one file `prefix` names.
    fn list(&self, prefix: &str) -> Result<Vec<String>> {
        match self {
            Source::Dir(d) => {
                let p = d.join(prefix);
                let mut files = Vec::new();
                if p.is_dir() {
                    collect(&p, &mut files)?;
                } else if p.is_file() {
                    files.push(p);
                }
                Ok(files.iter().map(|f| f.strip_prefix(d).unwrap_or(f).display().to_string()).collect())
            }
            Source::Git(g, tag) => {
                let out = std::process::Command::new("git")
                    .arg("--git-dir")
                    .arg(g)
                    .args(["ls-tree", "-r", "--name-only", tag, "--", prefix])
                    .output()
                    .context("running git ls-tree")?;
                if !out.status.success() {
                    bail!("git ls-tree {tag} {prefix}: {}", String::from_utf8_lossy(&out.stderr));
                }
                Ok(String::from_utf8(out.stdout)?.lines().map(str::to_string).collect())
            }
        }
    }
    fn read(&self, rel: &str) -> Result<String> {
        match self {
            Source::Dir(d) => std::fs::read_to_string(d.join(rel)).with_context(|| format!("reading {rel}")),
            Source::Git(g, tag) => {
                let out = std::process::Command::new("git")
                    .arg("--git-dir")
                    .arg(g)
                    .args(["show", &format!("{tag}:{rel}")])
                    .output()
                    .context("running git show")?;
                if !out.status.success() {
                    bail!("git show {tag}:{rel}: {}", String::from_utf8_lossy(&out.stderr));
                }
                Ok(String::from_utf8(out.stdout)?)
            }
        }
    }
    fn describe(&self) -> String {
        match self {
            Source::Dir(d) => d.display().to_string(),
            Source::Git(_, tag) => format!("the NVIDIA/cutlass mirror at {tag}"),
        }
    }
}

/// The header of kernel_forms.cases.
const KERNEL_FORMS_INTRO: &str =
        "# The layouts, tiled copies, tiled MMAs and per-thread partitions that CUTLASS's CuTe tutorials\n\
         # (examples/cute/tutorial/**) build on the host, and those of its SM70/SM80 collective mainloops\n\
         # (sm70_mma_twostage.hpp, sm80_mma_multistage.hpp) instantiated for every concrete configuration\n\
         # the SM50/SM61/SM80 unit tests name (DefaultGemmConfigurationToCutlass3Types of\n\
         # test/unit/gemm/device/default_gemm_configuration.hpp) and of the SM90 SS mainloops (TMA\n\
         # warp-specialized, its FP8, FP8 blockwise-scaled and pointer-array variants, KernelTma, cp.async\n\
         # warp-specialized) and\n\
         # the RS one (TMA warp-specialized, tfloat32/float with an MN-major operand; sm90_mma_*.hpp) for\n\
         # every SM90 CollectiveBuilder use of the\n\
         # sm90_gemm_* unit tests and examples 48/49 (the builder's selectors: xtask/src/kernel_forms.rs; a\n\
         # use inside a class or function template once per instantiation the file makes):\n\
         # the smem layout atoms tile_to_shape'd to the CTA tile with its stages, the TiledMma, the gmem\n\
         # TiledCopy, the smem copy atoms' tiled copies, and the partitions of the smem tiles at thread 37.\n\
         # Each file's bindings are substituted (a kernel's parameters bound to its launch's arguments, a\n\
         # host function's to what main() passes it when run without arguments (a host function only its\n\
         # argv dispatch reaches, gemm_tn: with the transposes' characters that reach it), blockIdx to 0, a\n\
         # mainloop's template parameters to the configuration's, a SIMT operand struct's Element to each\n\
         # element type the configurations instantiate it with); global-memory tensors are their layouts\n\
         # (run-time extents as dynamic integers; a cp.async mainloop's gmem tiles, operator() arguments,\n\
         # those of an M = N = K = 4096 problem at the first CTA and k tile 0; the forms a TMA mainloop's\n\
         # Params TMA copies make are in kernel_forms_tma.cases), identity tensors CuTe's;\n\
         # make_tmem_copy(op, tCtAcc) of the UMMA accumulator (or of its divide or slice) takes its ValTypeC;\n\
         # cute::lazy::transform(C, [&](auto c){ return elem_less(c, S); }) is lazy_transform_elem_less(C, S); an SM90 stage count that carves\n\
         # out the epilogue's storage is the one real CUTLASS computes (fixtures/kernel_forms_stages.txt,\n\
         # `--probe-stages`). Each form is written twice: in CuTe's\n\
         # C++ spelling as read, then in the language's short spelling of the same expression.\n\
         # Written by `cargo xtask extract-kernel-forms` (xtask/src/kernel_forms.rs); do not edit by hand.\n\
         # Expected output: recorded from real CuTe of each release by `cargo xtask bless`.\n";

/// The header of kernel_forms_tma.cases (the forms the TMA stand-ins add: [`tma_stand_ins`]).
const KERNEL_FORMS_TMA_INTRO: &str =
    "# The forms of CUTLASS's SM90 TMA collective mainloops (sm90_mma_tma_gmma_ss.hpp (KernelTma),\n\
         # sm90_mma_tma_gmma_ss_warpspecialized.hpp, its FP8 and FP8 blockwise-scaled variants,\n\
         # sm90_mma_tma_gmma_rs_warpspecialized.hpp)\n\
         # that only their Params TMA copies make, for every SM90 CollectiveBuilder use that\n\
         # kernel_forms.cases reads: the Params' make_tma_copy of an M = N = K = 4096, L = 1 problem's\n\
         # tensor (the unit tests' packed strides), its get_tma_tensor, the gmem tiles (local_tile of the\n\
         # TMA coordinate tensor at the first CTA, sliced by cluster rank 0) and the TMA partitions of the\n\
         # gmem and smem tiles (partition_S/D of the copy's slice for the CTA's rank in the multicast);\n\
         # for the FP8 blockwise-scaled mainloop also its scale-factor tensors, made from the layouts\n\
         # the host passes for that problem (ScaleConfig::tile_atom_to_shape_SFA/SFB, run-time extents):\n\
         # load_init's tensors (the TMA coordinate tensor of the scale factors' Params TMA copy where\n\
         # IsTmaLoadSFA/SFB, else the global-memory tensor), their identity tensors, tiles and partitions.\n\
         # The other forms of these mainloops (smem layouts, tiled MMAs, GMMA fragments) are in\n\
         # kernel_forms.cases; the skipped list below is that of the whole read. Each form is written\n\
         # twice: in CuTe's C++ spelling as read, then in the language's short spelling.\n\
         # Written by `cargo xtask extract-kernel-forms` (xtask/src/kernel_forms.rs); do not edit by hand.\n\
         # Expected output: recorded from real CuTe of each release by `cargo xtask bless`.\n";

/// The header of kernel_forms_residue.cases (the forms [`RESIDUE_PROBLEM`]'s stand-ins change).
const KERNEL_FORMS_RESIDUE_INTRO: &str =
    "# The forms of CUTLASS's SM90 collective mainloops (the cp.async and TMA ones, with the FP8\n\
         # blockwise-scaled mainloop's scale factors) read as kernel_forms.cases and kernel_forms_tma.cases\n\
         # are, for every builder use, but with the stand-ins of a second run-time problem: M = 1040, N = 784,\n\
         # K = 528, L = 2 (extents that no CTA tile or scale-factor granularity divides, each a multiple of\n\
         # 16 elements so that every TMA stride is 16-byte aligned; the unit tests' packed strides, a batch\n\
         # stride of M*K or N*K) at the CTA m = 1, n = 2 of batch 1 (cluster rank 0, k tile 0): the gmem\n\
         # tiles, the Params' TMA copies and their partitions, the scale-factor layouts the host passes\n\
         # (ScaleConfig::tile_atom_to_shape_SFA/SFB of that problem) and what load_init makes of them. Only\n\
         # the forms that differ from the first problem's (M = N = K = 4096, L = 1, the first CTA) are here;\n\
         # read from the tags of CUTLASS 4.2 and 4.7 (the extractor's --tag) and recorded for those.\n\
         # Each form is written twice: in CuTe's C++ spelling as read, then in the language's short spelling.\n\
         # Written by `cargo xtask extract-kernel-forms` (xtask/src/kernel_forms.rs); do not edit by hand.\n\
         # Expected output: recorded from real CuTe of each release by `cargo xtask bless`.\n";

pub fn run(args: &KernelFormsArgs) -> Result<bool> {
    let root = repo_root();
    let out = args.out.clone().unwrap_or_else(|| root.join("fixtures/cases/kernel_forms.cases"));
    let mut also_tag = args.also_tag.clone();
    if args.also_recorded {
        let text = std::fs::read_to_string(&out).with_context(|| format!("reading {}", out.display()))?;
        for r in recorded_for_union(Some(&text), &[]) {
            let t = tag_of(&r);
            if !args.tag.contains(&t) && !also_tag.contains(&t) {
                also_tag.push(t);
            }
        }
    }
    let args = &KernelFormsArgs { also_tag, out: Some(out.clone()), also_recorded: false, ..args.clone() };
    let sources: Vec<(Source, String)> = match (&args.from, &args.git_dir) {
        (_, Some(g)) if !args.tag.is_empty() => {
            args.tag.iter().chain(&args.also_tag).map(|t| (Source::Git(g.clone(), t.clone()), release_of(t))).collect()
        }
        (Some(d), _) => vec![(Source::Dir(d.clone()), provision::DEFAULT_CUTLASS.to_string())],
        _ => {
            let prov = provision::Provisioner::new()?;
            let h = prov.cutlass(provision::DEFAULT_CUTLASS)?;
            let d = h.include_dir.parent().context("the wheel's include directory has no parent")?.to_path_buf();
            vec![(Source::Dir(d), provision::DEFAULT_CUTLASS.to_string())]
        }
    };
    // The carveout stage counts: probed with real CUTLASS (--probe-stages), else as recorded.
    if args.probe_stages {
        let mut all = Vec::new();
        for (src, release) in &sources {
            let Source::Git(git_dir, tag) = src else { bail!("--probe-stages needs --git-dir and --tag") };
            let (uses, includes) = builder_uses(src)?;
            let probes: Vec<_> = uses.into_iter().filter_map(|u| u.2).collect();
            let t0 = std::time::Instant::now();
            let mut got = crate::kernel_stages::run_probes(tag, &includes, &probes)?;
            // Those whose declarations do not compile alone: in their own translation units.
            let alone_failed: Vec<&crate::kernel_stages::Probe> =
                probes.iter().zip(&got).filter(|(_, g)| g.1.is_err()).map(|(p, _)| p).collect();
            let in_unit = crate::kernel_stages::run_unit_probes(git_dir, tag, &alone_failed)?;
            for g in &mut got {
                if let Some(r) = in_unit.get(&g.0) {
                    g.1 = r.clone();
                }
            }
            let n = got.iter().filter(|g| g.1.is_ok()).count();
            println!("{release}: {n} of {} carveout stage counts from nvcc in {:.0?}", got.len(), t0.elapsed());
            all.push((release.clone(), got));
        }
        let tags: Vec<String> = args
            .tag
            .iter()
            .map(|t| format!("--tag {t}"))
            .chain(args.also_tag.iter().map(|t| format!("--also-tag {t}")))
            .collect();
        let command = format!("cargo xtask extract-kernel-forms --probe-stages --git-dir MIRROR {}", tags.join(" "));
        crate::kernel_stages::write(&root, &all, &command)?;
    }
    let stage_facts: HashMap<String, HashMap<String, crate::kernel_stages::Stages>> =
        sources.iter().map(|(_, r)| (r.clone(), crate::kernel_stages::recorded(&root, r))).collect();
    let main_tags = sources.len() - args.also_tag.len();
    let mut per_release = Vec::new();
    let mut per_release_tma = Vec::new();
    let mut per_release_residue = Vec::new();
    for (k, (src, release)) in sources.iter().enumerate() {
        let plain = extract(src, &stage_facts[release], false)?;
        let with = extract(src, &stage_facts[release], true)?;
        // The --tags are read again with the stand-ins of a second problem: the forms it changes.
        if k < main_tags {
            let residue = with_problem(RESIDUE_PROBLEM, || extract(src, &stage_facts[release], true))?;
            per_release_residue.push((release.clone(), src.describe(), not_in(&[&plain, &with], residue)));
        }
        let tma = tma_only(&plain, with);
        per_release.push((release.clone(), src.describe(), plain));
        per_release_tma.push((release.clone(), src.describe(), tma));
    }
    // The forms some `--tag` does not build go to the file of the releases whose tags build them,
    // recorded for those releases only; the others stay in the files every release is recorded for.
    let mut partial = take_partial(&mut per_release, main_tags);
    for f in take_partial(&mut per_release_tma, main_tags) {
        if !partial.iter().any(|p| p.canon == f.canon) {
            partial.push(f);
        }
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).context("the --out file has no name")?.to_string();
    write_suite(&out, KERNEL_FORMS_INTRO, &per_release, main_tags)?;
    write_suite(&out.with_file_name(format!("{stem}_tma.cases")), KERNEL_FORMS_TMA_INTRO, &per_release_tma, main_tags)?;
    // The second problem's forms: those every --tag builds (the others are named, not recorded).
    for p in take_partial(&mut per_release_residue, main_tags) {
        println!("the second problem's form read from {} only is not written: {}", p.releases.join(" "), p.text);
    }
    write_suite(
        &out.with_file_name(format!("{stem}_residue.cases")),
        KERNEL_FORMS_RESIDUE_INTRO,
        &per_release_residue,
        main_tags,
    )?;
    let releases: Vec<(String, String)> = per_release.iter().map(|(r, d, _)| (r.clone(), d.clone())).collect();
    let mut written = Vec::new();
    for (name, group) in partial_files(&stem, &releases, partial) {
        let path = out.with_file_name(format!("{name}.cases"));
        let existing = std::fs::read_to_string(&path).ok();
        let body = since_suite(existing.as_deref(), &releases, &group)?;
        std::fs::write(&path, body).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {} ({} cases, for {})", path.display(), group.len(), group[0].releases.join(" "));
        written.push(path);
    }
    if written.is_empty() {
        println!("every form was read from every --tag: no {stem}_tags_*.cases written");
    }
    // The files of an earlier extraction whose set of releases no form has now.
    let dir = out.parent().context("the --out file has no directory")?;
    for e in std::fs::read_dir(dir)?.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stale = name == format!("{stem}_since.cases")
            || (name.starts_with(&format!("{stem}_tags_")) && name.ends_with(".cases") && !written.contains(&p));
        if stale {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            println!(
                "removed {} (no form is read from its releases now; `cargo xtask bless` drops its snapshots)",
                p.display()
            );
        }
    }
    Ok(true)
}

/// The forms some `--tag` does not build, one group per set of releases building them (in the
/// order first found), each with its file's name: `{stem}_tags_` and the releases, a run of
/// consecutive releases read as its first and last (`kernel_forms_tags_v4_3_6_to_v4_7_0`).
fn partial_files(stem: &str, releases: &[(String, String)], partial: Vec<Partial>) -> Vec<(String, Vec<Partial>)> {
    let mut read: Vec<&str> = releases.iter().map(|(r, _)| r.as_str()).collect();
    read.sort_by_key(|r| release_order(r));
    let tag = |r: &str| tag_of(r).replace('.', "_");
    let mut groups: Vec<(String, Vec<Partial>)> = Vec::new();
    for mut p in partial {
        p.releases.sort_by_key(|r| release_order(r));
        let at: Vec<usize> = p.releases.iter().filter_map(|r| read.iter().position(|x| x == r)).collect();
        let run = at.windows(2).all(|w| w[1] == w[0] + 1);
        let name = match (p.releases.first(), p.releases.last()) {
            (Some(a), Some(b)) if a == b => format!("{stem}_tags_{}", tag(a)),
            (Some(a), Some(b)) if run => format!("{stem}_tags_{}_to_{}", tag(a), tag(b)),
            _ => format!("{stem}_tags_{}", p.releases.iter().map(|r| tag(r)).collect::<Vec<_>>().join("_")),
        };
        match groups.iter_mut().find(|g| g.0 == name) {
            Some(g) => g.1.push(p),
            None => groups.push((name, vec![p])),
        }
    }
    groups
}

/// The header of a kernel_forms_tags_*.cases file (forms that some `--tag` does not build).
const KERNEL_FORMS_SINCE_INTRO: &str =
    "# Kernel forms that not every release's CUTLASS builds, read from each modelled release's tag as\n\
         # kernel_forms.cases and kernel_forms_tma.cases are (with the TMA stand-ins). A form that the\n\
         # tags of CUTLASS 4.2 and 4.7 (the extractor's --tag) both build is in those files, recorded for\n\
         # every release; any other form is in the file of exactly the releases whose tags build it, named\n\
         # after them (kernel_forms_tags_<first>_to_<last>.cases for consecutive releases), and recorded\n\
         # for those. Its `# recorded-for:` line names them (and any release a re-extraction found it\n\
         # already recorded for); above each form are the releases and where it was found. Each form is\n\
         # written twice: in CuTe's C++ spelling as read, then in the language's short spelling.\n\
         # Written by `cargo xtask extract-kernel-forms` (xtask/src/kernel_forms.rs); do not edit by hand.\n\
         # Expected output: recorded from real CuTe of each release by `cargo xtask bless`.\n";

/// A case that not every release read holds: its canonical and C++ texts, where it was found (in
/// the first release holding it) and the releases holding it, in the order read.
struct Partial {
    canon: String,
    text: String,
    from: Vec<String>,
    releases: Vec<String>,
}

/// Takes out of each release's extraction the cases one of the first `main` releases' (the
/// `--tag`s') does not hold (its table counts the cases left), and returns them, each with the
/// releases holding it (of all read), in the order first found (release by release).
fn take_partial(per_release: &mut [(String, String, Extraction)], main: usize) -> Vec<Partial> {
    let on: Vec<HashSet<String>> =
        per_release[..main].iter().map(|(_, _, e)| e.cases.iter().map(|c| c.0.clone()).collect()).collect();
    let mut partial: Vec<Partial> = Vec::new();
    for (release, _, e) in per_release.iter_mut() {
        let (all, some): (Vec<_>, Vec<_>) =
            std::mem::take(&mut e.cases).into_iter().partition(|c| on.iter().all(|s| s.contains(&c.0)));
        e.cases = all;
        for (canon, text, from) in some {
            if let Some(at) = from.first() {
                e.groups[group_of(at)].1 -= 1;
            }
            match partial.iter_mut().find(|p| p.canon == canon) {
                Some(p) => p.releases.push(release.clone()),
                None => partial.push(Partial { canon, text, from, releases: vec![release.clone()] }),
            }
        }
    }
    partial
}

/// The text of the case file of the forms not every release read holds (`releases`: each release
/// read and where from; `existing`: the file as it was, whose `# recorded-for:` releases are kept).
/// All its forms must be held by the same releases (one `# recorded-for:` line serves the file).
fn since_suite(existing: Option<&str>, releases: &[(String, String)], partial: &[Partial]) -> Result<String> {
    let holders = &partial[0].releases;
    if let Some(p) = partial.iter().find(|p| p.releases != *holders) {
        bail!(
            "the kernel forms read from only some releases are not all read from the same ones ({} from {}, {} from {}): \
             extract them into one case file per set of releases",
            partial[0].text,
            holders.join(" "),
            p.text,
            p.releases.join(" ")
        );
    }
    let mut body = String::from(KERNEL_FORMS_SINCE_INTRO);
    let held: Vec<&str> = holders.iter().map(String::as_str).collect();
    let _ = writeln!(body, "# recorded-for: {}", recorded_for_union(existing, &held).join(" "));
    let describe = |want: bool| -> Vec<String> {
        releases.iter().filter(|(r, _)| holders.contains(r) == want).map(|(r, d)| format!("{r} ({d})")).collect()
    };
    let _ = writeln!(
        body,
        "# {} cases (each in both spellings: {} lines), each read from {}; not from {}.",
        partial.len(),
        partial.iter().map(|p| 1 + usize::from(p.canon != p.text)).sum::<usize>(),
        describe(true).join(", "),
        describe(false).join(", ")
    );
    for p in partial {
        let more = if p.from.len() > 3 { format!(" (and {} more)", p.from.len() - 3) } else { String::new() };
        let _ = writeln!(body, "\n# {}: {}{more}", p.releases.join(" "), p.from[..p.from.len().min(3)].join(", "));
        body.push_str(&p.text);
        body.push('\n');
        if p.canon != p.text {
            body.push_str(&p.canon);
            body.push('\n');
        }
    }
    Ok(body)
}

/// The cases of `with` (read with the TMA stand-ins) that `plain` (read without) does not hold,
/// with every form `with` skipped, counted by source group.
fn tma_only(plain: &Extraction, with: Extraction) -> Extraction {
    not_in(&[plain], with)
}

/// The cases of `with` that none of `known` holds, with every form `with` skipped, counted by
/// source group.
fn not_in(known: &[&Extraction], with: Extraction) -> Extraction {
    let known: HashSet<&str> = known.iter().flat_map(|e| e.cases.iter().map(|c| c.0.as_str())).collect();
    let cases: Vec<_> = with.cases.into_iter().filter(|c| !known.contains(c.0.as_str())).collect();
    let mut groups: Vec<(&'static str, usize, usize)> = with.groups.iter().map(|g| (g.0, 0, g.2)).collect();
    for c in &cases {
        if let Some(at) = c.2.first() {
            groups[group_of(at)].1 += 1;
        }
    }
    Extraction { cases, skipped: with.skipped, groups, files: with.files, missing: with.missing }
}

/// Writes one case file: `intro`, its `# recorded-for:` line, each release's table of what was
/// found and skipped, and the cases: those of the first release, which each of the first `main`
/// (the `--tag`s) holds too ([`take_partial`] takes out those one of them does not hold).
fn write_suite(out: &Path, intro: &str, per_release: &[(String, String, Extraction)], main: usize) -> Result<()> {
    let (_, _, first) = &per_release[0];
    // The `--tag`s hold the same cases ([`take_partial`]), maybe in another order (a mainloop's
    // bindings reordered between releases): the file keeps the first one's order.
    let texts = |e: &Extraction| e.cases.iter().map(|c| c.0.clone()).collect::<HashSet<_>>();
    for (release, _, e) in &per_release[1..main] {
        if texts(e) != texts(first) {
            bail!("the kernel forms of {release} and {} are not the same cases", per_release[0].0);
        }
    }
    let releases: Vec<&str> = per_release.iter().map(|(r, _, _)| r.as_str()).collect();
    let mut body = String::from(intro);
    // The releases recorded for the suite are facts of snapshots/versions/, not only of the
    // extraction: a re-extraction keeps every release the file's `# recorded-for:` line already
    // names (the forms of the extracted tags recorded on other releases too) and adds the
    // extracted ones.
    let recorded_for = recorded_for_union(std::fs::read_to_string(out).ok().as_deref(), &releases);
    let _ = writeln!(body, "# recorded-for: {}", recorded_for.join(" "));
    for (release, from, e) in per_release {
        let _ = writeln!(
            body,
            "# {release} ({from}): {} cases from {} files; {} forms skipped:",
            e.cases.len(),
            e.files,
            e.skipped.len()
        );
        for m in &e.missing {
            let _ = writeln!(body, "#   not in this release: {m}");
        }
        let _ = writeln!(body, "#   | source | forms found | cases | skipped |");
        let _ = writeln!(body, "#   |---|---:|---:|---:|");
        for (g, c, k) in &e.groups {
            let _ = writeln!(body, "#   | {g} | {} | {c} | {k} |", c + k);
        }
        let (c, k) = (e.cases.len(), e.skipped.len());
        let _ = writeln!(
            body,
            "#   | total | {} | {c} (each in both spellings: {} lines) | {k} |",
            c + k,
            e.cases.iter().map(|(a, b, _)| 1 + usize::from(a != b)).sum::<usize>()
        );
        let mut by_reason: Vec<(&str, usize)> = Vec::new();
        for s in &e.skipped {
            let r = reason_class(s);
            match by_reason.iter_mut().find(|(x, _)| *x == r) {
                Some((_, n)) => *n += 1,
                None => by_reason.push((r, 1)),
            }
        }
        by_reason.sort_by_key(|r| std::cmp::Reverse(r.1));
        let _ = writeln!(body, "#   | skipped because | forms |");
        let _ = writeln!(body, "#   |---|---:|");
        for (r, n) in by_reason {
            let _ = writeln!(body, "#   | {r} | {n} |");
        }
        for s in &e.skipped {
            let _ = writeln!(body, "#   skipped {s}");
        }
    }
    // Each form in both spellings: as the C++ reads (what a kernel writer pastes) and as the
    // language's short spelling of the same expression (the parser's canonical text).
    for (canon, text, from) in &first.cases {
        // Where the form was found (a mainloop's line with each configuration): the first three.
        let more = if from.len() > 3 { format!(" (and {} more)", from.len() - 3) } else { String::new() };
        let _ = writeln!(body, "\n# {}{more}", from[..from.len().min(3)].join(", "));
        body.push_str(text);
        body.push('\n');
        if canon != text {
            body.push_str(canon);
            body.push('\n');
        }
    }
    std::fs::write(out, &body).with_context(|| format!("writing {}", out.display()))?;
    println!(
        "wrote {} ({} cases, {} skipped, for {})",
        out.display(),
        first.cases.len(),
        first.skipped.len(),
        releases.join(" ")
    );
    Ok(())
}

/// The releases of an existing case file's `# recorded-for:` line together with `extracted`,
/// oldest first (releases compare by their numbers: 4.10 after 4.9).
fn recorded_for_union(existing: Option<&str>, extracted: &[&str]) -> Vec<String> {
    let old = existing.and_then(|t| t.lines().find_map(|l| l.trim().strip_prefix("# recorded-for:"))).unwrap_or("");
    let mut all: Vec<String> = old.split_whitespace().chain(extracted.iter().copied()).map(str::to_string).collect();
    all.sort_by_key(|r| release_order(r));
    all.dedup();
    all
}

/// A release as the suites spell it (`4.10.0.0`), ordered by its numbers (4.10 after 4.9).
fn release_order(release: &str) -> Option<Release> {
    release.parse().ok()
}

/// What one release's sources hold: the cases (canonical text, text as written first, where
/// found), the skipped forms with their reasons, the number of files read and the files missing.
struct Extraction {
    cases: Vec<(String, String, Vec<String>)>,
    skipped: Vec<String>,
    /// Per source group: (cases first found there, forms skipped there).
    groups: Vec<(&'static str, usize, usize)>,
    files: usize,
    missing: Vec<&'static str>,
}

/// `tma_stand_ins`: `--tma-stand-ins` (see [`tma_stand_ins`]).
fn extract(
    src: &Source,
    stages: &HashMap<String, crate::kernel_stages::Stages>,
    tma_stand_ins: bool,
) -> Result<Extraction> {
    let mut files: Vec<String> =
        src.list("examples/cute/tutorial")?.into_iter().filter(|f| f.ends_with(".cu") || f.ends_with(".hpp")).collect();
    if files.is_empty() {
        bail!("{} has no examples/cute/tutorial: pass --from a CUTLASS source tree", src.describe());
    }
    files.sort();
    let mut missing = Vec::new();
    for m in MAINLOOPS {
        match src.list(m) {
            Ok(v) if !v.is_empty() => files.extend(v),
            _ => missing.push(*m),
        }
    }
    // Every form with where it was found (the configuration too) and where a skip is listed.
    let mut all: Vec<(String, String, Form)> = Vec::new();
    for rel in &files {
        let text = src.read(rel)?;
        let element_of = if rel == CONFIGURATIONS { operand_elements(src, &text)? } else { HashMap::new() };
        for (line, form) in forms(&text) {
            // An operand struct's form naming its `Element` parameter: once per element type the
            // unit tests' configurations instantiate that struct with.
            if let (Form::Case(t), Some(elements)) = (&form, element_of.get(&line)) {
                if tokenize(t).iter().any(|(w, _)| *w == Tok::Word("Element".into())) {
                    for e in elements {
                        let bound = rebind_word(t, "Element", e);
                        all.push((format!("{rel}:{line} [Element = {e}]"), format!("{rel}:{line}"), Form::Case(bound)));
                    }
                    continue;
                }
            }
            all.push((format!("{rel}:{line}"), format!("{rel}:{line}"), form));
        }
    }
    for m in COLLECTIVES {
        if !src.list(m).is_ok_and(|v| !v.is_empty()) {
            missing.push(*m);
        }
    }
    for (at, _, form) in collective_forms(src, stages, tma_stand_ins)? {
        let listed = at.split(" [").next().unwrap_or(&at).to_string();
        all.push((at, listed, form));
    }
    let mut cases: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut groups: Vec<(&'static str, usize, usize)> = GROUPS.iter().map(|g| (*g, 0, 0)).collect();
    let mut admitted_before: HashMap<String, std::result::Result<String, String>> = HashMap::new();
    for (at, listed, form) in all {
        let g = group_of(&at);
        let before = (cases.len(), skipped.len());
        let admitted = match form {
            Form::Case(text) => {
                // The same form comes from many builder uses: evaluated once.
                let verdict = admitted_before.entry(text.clone()).or_insert_with(|| admit(&text)).clone();
                verdict.map(|c| (c, text.clone())).map_err(|why| (why, Some(text)))
            }
            Form::Skip(why) => Err((why, None)),
        };
        match admitted {
            Ok((canon, text)) => match cases.iter_mut().find(|(c, _, _)| *c == canon) {
                Some((_, _, from)) => {
                    if !from.contains(&at) {
                        from.push(at);
                    }
                }
                None => cases.push((canon, text, vec![at])),
            },
            Err((why, text)) => {
                if let (Some(text), true) = (text, std::env::var_os("CUTECHECK_KERNEL_FORMS_DEBUG").is_some()) {
                    eprintln!("{at}: {text}");
                }
                skipped.push(format!("{listed}: {why}"))
            }
        }
        groups[g].1 += cases.len() - before.0;
        // (A skip listed twice, as the same kernel launched twice, is counted once below.)
        if skipped.len() > before.1 && skipped[..before.1].contains(skipped.last().expect("pushed")) {
            skipped.pop();
        }
        groups[g].2 += skipped.len() - before.1;
    }
    // A kernel launched twice skips its forms twice.
    let mut seen = HashSet::new();
    skipped.retain(|s| seen.insert(s.clone()));
    Ok(Extraction { cases, skipped, groups, files: files.len(), missing })
}

/// `text` with each whole word `name` (not one qualified by `::` or `.`) replaced by `value`.
fn rebind_word(text: &str, name: &str, value: &str) -> String {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = String::with_capacity(text.len());
    let mut k = 0;
    while k < text.len() {
        let here = text[k..].starts_with(name)
            && (k == 0 || (!ident(b[k - 1]) && b[k - 1] != b':' && b[k - 1] != b'.'))
            && b.get(k + name.len()).is_none_or(|&c| !ident(c));
        if here {
            out.push_str(value);
            k += name.len();
        } else {
            let c = text[k..].chars().next().expect("in bounds");
            out.push(c);
            k += c.len_utf8();
        }
    }
    out
}

/// For the configurations file's operand structs whose `Element` is a template parameter
/// (`template <typename Element> struct DefaultGemm_Simt_OperandA<Element, layout::ColumnMajor,
/// ...>`): each line of such a struct's body -> the element types that the unit tests'
/// configurations instantiate it with (their `DefaultOperandA` / `DefaultOperandB` members, a
/// B operand's struct through its base class), in the order first met.
fn operand_elements(src: &Source, text: &str) -> Result<HashMap<usize, Vec<String>>> {
    let toks = tokenize(text);
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let defs = struct_defs(&toks);
    // Each struct with `Element` among its parameters: (its index, the element types).
    let mut found: Vec<(usize, Vec<String>)> = Vec::new();
    for (_, args) in test_configurations(src)? {
        let Some((d, bind)) = specialization(&defs, "DefaultGemmConfigurationToCutlass3Types", &args) else {
            continue;
        };
        let m = members(&defs, &plain, d, bind, 0);
        for operand in ["DefaultOperandA", "DefaultOperandB"] {
            let Some((mut head, mut targs)) = m.get(operand).and_then(|t| template_id(t)) else { continue };
            // The struct the operand resolves to, then its bases.
            for _ in 0..4 {
                let Some((od, ob)) = specialization(&defs, &head, &targs) else { break };
                let idx = defs.iter().position(|x| std::ptr::eq(x, od)).expect("a def of defs");
                if let Some(e) = ob.get("Element").filter(|_| od.params.iter().any(|p| p == "Element")) {
                    let e = render(e);
                    match found.iter_mut().find(|(i, _)| *i == idx) {
                        Some((_, v)) if !v.contains(&e) => v.push(e),
                        Some(_) => {}
                        None => found.push((idx, vec![e])),
                    }
                }
                let Some(b) = &od.base else { break };
                let Some((h, a)) = template_id(&substitute(b, &ob)) else { break };
                (head, targs) = (h, a);
            }
        }
    }
    let mut out = HashMap::new();
    for (idx, elements) in found {
        for k in defs[idx].body.clone() {
            out.insert(toks[k].1, elements.clone());
        }
    }
    Ok(out)
}

/// The source groups of the header's table.
const GROUPS: &[&str] = &[
    "CuTe tutorials (examples/cute/tutorial/**)",
    "default_gemm_configuration.hpp, its operand structs read alone",
    "SM70/SM80 mainloops x the SM50/SM61/SM80 unit tests' configurations",
    "SM90 mainloops (SS: TMA WS, FP8, FP8FastAccum, FP8 blockwise-scaled, pointer-array, KernelTma, cp.async WS; RS: TMA WS) x the SM90 builder uses (sm90_gemm_* tests, examples 48/49)",
];

fn group_of(at: &str) -> usize {
    if at.starts_with("examples/cute/tutorial") {
        0
    } else if at.starts_with(CONFIGURATIONS) {
        1
    } else if at.contains("sm90") || at.starts_with("examples/4") {
        3
    } else {
        2
    }
}

/// The class of a skip's reason, for the header's table.
fn reason_class(why: &str) -> &'static str {
    const SCALE_FACTORS: &str = "the FP8 blockwise mainloop's scale-factor tensors and what load_init returns beside them (get<I>(load_inputs): a lambda's result, made at run time from mainloop_params.layout_SFA/SFB; read with the stand-ins of a 4096 problem, ScaleConfig::tile_atom_to_shape_SFA/SFB, into kernel_forms_tma.cases)";
    const CLASSES: &[(&str, &str)] = &[
        ("load_inputs", SCALE_FACTORS),
        ("mainloop_params.layout_SF", SCALE_FACTORS),
        ("cSF", SCALE_FACTORS),
        (
            "make_tmem_copy takes",
            "a TMEM copy of a tensor other than a UMMA accumulator fragment (make_tmem_copy(op, tmem tensor) is read as make_tmem_copy(op, ValTypeC, fragment) only for ThrMMA::make_fragment_C)",
        ),
        (
            "does not call",
            "a global-memory tensor of a host function main() does not reach (without arguments, nor with the characters its argv parsing reads)",
        ),
        (
            "operator() argument",
            "the SM90 TMA mainloop's global-memory tile (an operator() argument: a TMA coordinate tile of the run-time problem tensor; read with the stand-ins of a 4096 problem into kernel_forms_tma.cases)",
        ),
        ("not bound from main()", "a global-memory tensor whose extents main() does not bind"),
        (
            "shared_storage.tensor_s",
            "a SharedStorage member tensor (tensor_sA(): make_tensor(make_smem_ptr(..), ASmemLayout{}) of the Blackwell tutorials) and the UMMA fragments of it: its layout, UMMA::tile_to_mma_shape of an SM100 smem atom, and ThrMMA::make_fragment_A/B of an already partitioned smem tensor (UMMA descriptors) are not in the language",
        ),
        (
            "a tensor the extractor does not read",
            "a tensor built by a member call (the Blackwell tutorials' TMA coordinate tensors, tma_atom.get_tma_tensor(shape), and their tiles): get_tma_tensor, make_tma_atom(op, gmem tensor, ...) and its UMMA::tile_to_mma_shape smem layout are not read",
        ),
        (
            "identity (coordinate) tensor",
            "a TMA coordinate tensor's tile the language does not take yet (zipped_divide of a coordinate tensor, ThrMMA::make_fragment_C / make_tmem_copy of its partition)",
        ),
        (
            "of an identity tensor is not modelled",
            "a TMA coordinate tensor's tile the language does not take yet (zipped_divide of a coordinate tensor, ThrMMA::make_fragment_C / make_tmem_copy of its partition)",
        ),
        ("found a partitioned tensor", "make_fragment_like or a `_` slice of a partitioned tensor: not in the language"),
        (
            "a slice with an offset other than _0",
            "a `_` slice of a partition that keeps its swizzle with a MixedBits offset (Sw o M_0|(a&b) o L, an SM80 mainloop's tCsA(_,_,_,pipe)): not modelled",
        ),
        ("a register tensor", "a register tensor shaped by a partition's modes (size<I> of a partition): no C++ in the oracle"),
        ("a tensor expression the language cannot write", "a tensor expression the language cannot write (cute::lazy::transform of a lambda)"),
        ("identity tensor", "an identity tensor's partition (ArithTuple iterator, E<i> strides): not modelled"),
        ("position-independent swizzle", "a position-independent swizzle tensor's partition: not modelled"),
        ("MixedBits", "a swizzled partition keeping the swizzle with a MixedBits offset: not modelled"),
        (
            "not in the expression language",
            "an expression the language cannot read: template code read uninstantiated, a member type (`typename X::M`), run-time sizes",
        ),
        (
            "unknown function or name 'tma_load_",
            "a partition by the mainloop's TMA copy (Params::tma_load_a/b, made on the host from the run-time problem tensor): not read",
        ),
        ("unknown", "a template parameter or run-time value (unbound name)"),
        ("schedule", "an SM90 builder schedule whose mainloop is not read (the pointer-array FP8 blockwise-scaled ones, a template parameter no instantiation binds)"),
        ("capacity less its tensor maps", "an SM90 pointer-array StageCountAuto (the builder's capacity less its tensor maps): not modelled"),
        ("stage count", "an SM90 stage count carving out an epilogue's shared storage that real CUTLASS gives neither from the use's declarations alone nor from its own translation unit (which includes a header the provisioned CUDA wheels lack)"),
        ("value types", "SM90 value types not read"),
        (
            "MN-major operand",
            "SM90 MN-major inputs the register-sourced (RS) builder read does not take (8-bit inputs, the cp.async RS builder)",
        ),
        ("mixed inputs", "SM90 mixed inputs (the register-sourced mainloop, not read)"),
    ];
    CLASSES.iter().find(|(k, _)| why.contains(k)).map_or("other", |(_, c)| c)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// Whether the case is one the suite can hold: it parses, the engine knows every name in it, and
/// the oracle can write it as C++. The canonical text (for de-duplication), or why not.
fn admit(text: &str) -> std::result::Result<String, String> {
    let e = cutecheck::expr::parse(text).map_err(|e| format!("not in the expression language ({e})"))?;
    if let Err(err) = cutecheck::expr::eval_str(text) {
        let m = err.to_string();
        if m.contains("unknown function or name") || m.contains("type error") {
            return Err(m);
        }
    }
    cutecheck::oracle::codegen::case_body(&e).map_err(|e| format!("the oracle has no C++ for it ({e})"))?;
    Ok(e.to_string())
}

/// The tokens as text: words apart by a space where two meet, punctuation joined.
fn render(toks: &[Tok]) -> String {
    let mut s = String::new();
    let mut last_word = false;
    for t in toks {
        match t {
            Tok::Word(w) => {
                if last_word {
                    s.push(' ');
                }
                s.push_str(w);
                last_word = true;
            }
            Tok::Punct(c) => {
                s.push(*c);
                if *c == ',' {
                    s.push(' ');
                }
                last_word = false;
            }
        }
    }
    s
}

/// A declaration `Copy_Atom<...> NAME;` or `MMA_Atom<...> NAME;` at `i`: the name, its value
/// (`TYPE{}`) and where the declaration ends.
fn atom_declaration(toks: &[(Tok, usize)], i: usize) -> Option<(String, Vec<Tok>, usize)> {
    let Tok::Word(t) = &toks[i].0 else { return None };
    if !(t == "Copy_Atom" || t == "MMA_Atom") || toks.get(i + 1)?.0 != Tok::Punct('<') {
        return None;
    }
    let (mut j, mut depth) = (i + 1, 0i32);
    loop {
        match toks.get(j)?.0 {
            Tok::Punct('<') => depth += 1,
            Tok::Punct('>') => depth -= 1,
            Tok::Punct(';' | '(' | ')' | '{' | '}') => return None,
            _ => {}
        }
        j += 1;
        if depth == 0 {
            break;
        }
    }
    let Tok::Word(name) = &toks.get(j)?.0 else { return None };
    if toks.get(j + 1)?.0 != Tok::Punct(';') {
        return None;
    }
    let mut v: Vec<Tok> = toks[i..j].iter().map(|t| t.0.clone()).collect();
    v.extend([Tok::Punct('{'), Tok::Punct('}')]);
    Some((name.clone(), v, j + 1))
}

/// One binding: (token index, line, keyword, name, right-hand side tokens).
struct Binding {
    pos: usize,
    line: usize,
    keyword: String,
    name: String,
    rhs: Vec<Tok>,
}

/// The bindings of a file, in order.
fn bindings(toks: &[(Tok, usize)]) -> Vec<Binding> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < toks.len() {
        if let Some((name, v, next)) = atom_declaration(toks, i) {
            out.push(Binding { pos: i, line: toks[i].1, keyword: "auto".into(), name, rhs: v });
            i = next;
            continue;
        }
        let (Tok::Word(k), line) = &toks[i] else {
            i += 1;
            continue;
        };
        let (Tok::Word(name), Tok::Punct('=')) = (&toks[i + 1].0, &toks[i + 2].0) else {
            i += 1;
            continue;
        };
        // `int NAME = 512;` (a host function's run-time size, e.g. the Blackwell tutorials'
        // `int Gemm_M = 512;` in main): bound to the literal, a dynamic integer as in CuTe. Not a
        // for-loop's counter (`for (int k = 0; ...)`).
        // Also `constexpr int NAME = EXPR;` (folded to its value where the engine evaluates it,
        // see [`fold_int`]: the SM90 mainloop's `MmaWarpGroups = size(TiledMma{}) / 128`).
        let int_literal = k == "int"
            && i > 0
            && toks[i - 1].0 != Tok::Punct('(')
            && (toks[i - 1].0 == Tok::Word("constexpr".into())
                || (matches!(toks.get(i + 3).map(|t| &t.0), Some(Tok::Word(v)) if v.parse::<i64>().is_ok())
                    && toks.get(i + 4).map(|t| &t.0) == Some(&Tok::Punct(';'))));
        if !BINDERS.contains(&k.as_str()) && !int_literal {
            i += 1;
            continue;
        }
        // The right-hand side: up to the `;` outside parentheses and braces.
        let (mut j, mut depth) = (i + 3, 0i32);
        let mut rhs = Vec::new();
        while j < toks.len() {
            match &toks[j].0 {
                Tok::Punct('(' | '{' | '[') => depth += 1,
                Tok::Punct(')' | '}' | ']') => depth -= 1,
                Tok::Punct(';') if depth <= 0 => break,
                _ => {}
            }
            if depth < 0 {
                break;
            }
            rhs.push(toks[j].0.clone());
            j += 1;
        }
        out.push(Binding { pos: i, line: *line, keyword: k.clone(), name: name.clone(), rhs });
        i = j;
    }
    out
}

/// `rhs` with the bound names replaced by their (already substituted) tokens.
fn substitute(rhs: &[Tok], env: &HashMap<String, Vec<Tok>>) -> Vec<Tok> {
    let mut out = Vec::with_capacity(rhs.len());
    for (k, t) in rhs.iter().enumerate() {
        let qualified = k > 0 && matches!(rhs[k - 1], Tok::Punct(':' | '.'));
        let qualifies = matches!(rhs.get(k + 1), Some(Tok::Punct(':')));
        match t {
            // A bound name; one that qualifies (`DispatchPolicy::Stages`) only where it stands for
            // a template-id, whose members `normalize` knows.
            Tok::Word(w) if !qualified => match env.get(w) {
                Some(v)
                    if !qualifies
                        || v.last() == Some(&Tok::Punct('>'))
                        || (v.first() == Some(&Tok::Word("decltype".into()))
                            && matches!(rhs.get(k + 3), Some(Tok::Word(m)) if m == "AtomThrID")) =>
                {
                    out.extend(v.iter().cloned())
                }
                _ => out.push(t.clone()),
            },
            _ => out.push(t.clone()),
        }
    }
    normalize(&out)
}

/// What the extractor makes of one binding: a case, or a form it skips and why.
#[derive(Debug, PartialEq)]
enum Form {
    Case(String),
    Skip(String),
}

/// The index of the token closing the bracket opened at `i`.
fn closing(toks: &[Tok], i: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t {
            Tok::Punct('(' | '{' | '[') => depth += 1,
            Tok::Punct(')' | '}' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The parameter names of a template parameter list (the tokens between `template <` and its
/// `>`): each parameter's last word before its default (`class T = int` -> `T`).
fn template_param_names(list: &[Tok]) -> Vec<String> {
    split_commas(list)
        .iter()
        .filter_map(|p| {
            let until = p.iter().position(|t| *t == Tok::Punct('=')).unwrap_or(p.len());
            p[..until].iter().rev().find_map(|t| match t {
                Tok::Word(w) => Some(w.clone()),
                _ => None,
            })
        })
        .collect()
}

/// The comma-separated pieces of `toks` (outside brackets, template argument lists included: a
/// parameter or argument list holds no comparisons).
fn split_commas(toks: &[Tok]) -> Vec<Vec<Tok>> {
    let (mut out, mut cur, mut depth) = (Vec::new(), Vec::new(), 0i32);
    for t in toks {
        match t {
            Tok::Punct('(' | '{' | '[' | '<') => depth += 1,
            Tok::Punct(')' | '}' | ']' | '>') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(t.clone());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A kernel launch `NAME<<<...>>>(args)`: (token index, name, arguments).
fn launches(toks: &[Tok]) -> Vec<(usize, String, Vec<Vec<Tok>>)> {
    let mut out = Vec::new();
    for i in 0..toks.len().saturating_sub(4) {
        let Tok::Word(name) = &toks[i] else { continue };
        if toks[i + 1..i + 4].iter().all(|t| *t == Tok::Punct('<')) {
            let Some(end) =
                (i + 4..toks.len().saturating_sub(3)).find(|&j| toks[j..j + 3].iter().all(|t| *t == Tok::Punct('>')))
            else {
                continue;
            };
            if toks.get(end + 3) != Some(&Tok::Punct('(')) {
                continue;
            }
            let Some(close) = closing(toks, end + 3) else { continue };
            out.push((i, name.clone(), split_commas(&toks[end + 4..close])));
        }
        // cutlass::launch_kernel_on_cluster(params, (void const*) KERNEL, args...)
        if name == "launch_kernel_on_cluster" && toks[i + 1] == Tok::Punct('(') {
            let Some(close) = closing(toks, i + 1) else { continue };
            let mut args = split_commas(&toks[i + 2..close]);
            if args.len() < 2 {
                continue;
            }
            let Some(Tok::Word(k)) = args[1].last().cloned() else { continue };
            args.drain(..2);
            out.push((i, k, args));
        }
    }
    out
}

/// A kernel's definition `NAME(params) { body }`: its parameters' names and its body's token range.
/// A kernel's parameters as (type, name) and its body's token range.
type Kernel = (Vec<(String, String)>, std::ops::Range<usize>);

fn kernel(toks: &[Tok], name: &str) -> Option<Kernel> {
    for i in 0..toks.len().saturating_sub(2) {
        if toks[i] != Tok::Word(name.to_string()) || toks[i + 1] != Tok::Punct('(') {
            continue;
        }
        let close = closing(toks, i + 1)?;
        if toks.get(close + 1) != Some(&Tok::Punct('{')) {
            continue;
        }
        let end = closing(toks, close + 1)?;
        // Each parameter as (type, name): its first and last words before a default argument
        // (`cudaStream_t stream = 0` is `stream`).
        let params = split_commas(&toks[i + 2..close])
            .iter()
            .map(|p| {
                let until = p.iter().position(|t| *t == Tok::Punct('=')).unwrap_or(p.len());
                let words: Vec<String> = p[..until]
                    .iter()
                    .filter_map(|t| match t {
                        Tok::Word(w) => Some(w.clone()),
                        _ => None,
                    })
                    .collect();
                (words.first().cloned().unwrap_or_default(), words.last().cloned().unwrap_or_default())
            })
            .collect();
        return Some((params, close + 1..end));
    }
    None
}

/// Where a kernel's definition `NAME(params) {` starts.
fn kernel_position(toks: &[Tok], name: &str) -> Option<usize> {
    (0..toks.len().saturating_sub(2)).find(|&i| {
        toks[i] == Tok::Word(name.to_string())
            && toks[i + 1] == Tok::Punct('(')
            && closing(toks, i + 1).is_some_and(|c| toks.get(c + 1) == Some(&Tok::Punct('{')))
    })
}

/// The template parameters' names of the declaration ending at `pos` (`template <class A, int B>
/// ... NAME`): none when no `template <...>` heads it.
fn template_params_before(toks: &[Tok], pos: usize) -> Vec<String> {
    let mut k = pos;
    while k > 0 {
        k -= 1;
        match &toks[k] {
            // Skip a parenthesized attribute (`__launch_bounds__(size(TiledMma{}))`).
            Tok::Punct(')') => {
                let mut depth = 0i32;
                while k > 0 {
                    match toks[k] {
                        Tok::Punct(')') => depth += 1,
                        Tok::Punct('(') => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    k -= 1;
                }
            }
            Tok::Punct(';' | '{' | '}') => return Vec::new(),
            Tok::Word(w) if w == "template" && toks.get(k + 1) == Some(&Tok::Punct('<')) => {
                let Some(c) = angle_close(toks, k + 1) else { return Vec::new() };
                return template_param_names(&toks[k + 2..c]);
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The per-thread forms a kernel body builds (with `env` holding its parameters' arguments):
/// `OBJ.get_slice(threadIdx.x)` slices, shared-memory tensors `make_tensor(make_smem_ptr(..), L)`,
/// and their `partition_S/D/A/B/C`, `partition_fragment_A/B/C`, `retile_S/D` as the language's
/// operations at thread [`THREAD`].
fn kernel_forms(
    body: &[Binding],
    mut env: HashMap<String, Vec<Tok>>,
    types: &HashMap<String, Vec<Tok>>,
    gmem: HashMap<String, Vec<Tok>>,
    gmem_why: &str,
    out: &mut Vec<(usize, Form)>,
) {
    let mut slices: HashMap<String, Vec<Tok>> = HashMap::new();
    let mut slice_thr: HashMap<String, i64> = HashMap::new();
    // The tensors as their layouts: shared-memory tiles, the global-memory tensors (a kernel's
    // parameters bound to the host's `make_tensor(make_gmem_ptr(p), ...)`, with run-time extents
    // as dynamic integers), their tiles, partitions and fragments.
    let mut tensors: HashMap<String, Vec<Tok>> = gmem;
    // The tensors whose layout cannot be written, with why.
    let mut unknown: HashMap<String, String> = HashMap::new();
    // The MMA partitions of shared-memory tensors: name -> (operand, the tensor's layout).
    let mut partitions: HashMap<String, (char, Vec<Tok>)> = HashMap::new();
    let mut independent = std::collections::HashSet::new();
    // The SharedStorage member tensors (already in the MMA's partitioned shape).
    let mut smem_members = std::collections::HashSet::new();
    let word = |t: &Tok, w: &str| matches!(t, Tok::Word(x) if x == w);
    for b in body {
        let r = &bind_indices(&b.rhs);
        // With stand-in tiles, `*k_tile_iter` is the first k tile, 0 (the mainloops' prologue
        // reads `tAgA(_,_,_,*k_tile_iter)` with k_tile_iter = make_coord_iterator(... 0 ...)).
        let first_k;
        let r = if env.contains_key(STAND_IN)
            && r.windows(2).any(|w| w == [Tok::Punct('*'), Tok::Word("k_tile_iter".into())])
        {
            let mut o: Vec<Tok> = Vec::with_capacity(r.len());
            let mut k = 0;
            while k < r.len() {
                if r[k] == Tok::Punct('*')
                    && r.get(k + 1) == Some(&Tok::Word("k_tile_iter".into()))
                    && matches!(o.last(), Some(Tok::Punct(',' | '(')))
                {
                    o.push(Tok::Word("0".into()));
                    k += 2;
                    continue;
                }
                o.push(r[k].clone());
                k += 1;
            }
            first_k = o;
            &first_k
        } else {
            r
        };
        // `ThreadLayout{}` of a kernel's parameter type is the launch's argument.
        let typed;
        let r = if r.windows(3).any(|w| {
            matches!(&w[0], Tok::Word(t) if types.contains_key(t)) && w[1] == Tok::Punct('{') && w[2] == Tok::Punct('}')
        }) && b.keyword == "Tensor"
        {
            let mut o = Vec::new();
            let mut k = 0;
            while k < r.len() {
                if let (Tok::Word(t), Some(Tok::Punct('{')), Some(Tok::Punct('}'))) =
                    (&r[k], r.get(k + 1), r.get(k + 2))
                {
                    if let Some(v) = types.get(t) {
                        o.extend(v.iter().cloned());
                        k += 3;
                        continue;
                    }
                }
                o.push(r[k].clone());
                k += 1;
            }
            typed = o;
            &typed
        } else {
            r
        };
        // A TMA mainloop's stand-in Params TMA copy (see [`tma_stand_ins`]): a case, and bound.
        if b.keyword == TMA_COPY {
            let v = substitute(r, &env);
            out.push((b.line, Form::Case(render(&v))));
            env.insert(b.name.clone(), v);
            continue;
        }
        // OBJ.get_slice(...) / OBJ.get_thread_slice(...)
        if r.len() >= 4
            && r[1] == Tok::Punct('.')
            && (word(&r[2], "get_slice") || word(&r[2], "get_thread_slice"))
            && r[3] == Tok::Punct('(')
        {
            // The slice's index: a value the body binds (the Blackwell tutorials' peer-CTA index
            // `mma_v`, 0 at the first CTA; `threadIdx.x` is THREAD), else THREAD (a mainloop's
            // run-time `thread_idx`).
            let thr = closing(r, 3).and_then(|c| fold_int(&substitute(&r[4..c], &env))).unwrap_or(THREAD);
            slices.insert(b.name.clone(), substitute(&r[..1], &env));
            slice_thr.insert(b.name.clone(), thr);
            continue;
        }
        if let Some(text) = lazy_transform_form(r, &tensors, &env) {
            out.push((b.line, Form::Case(text.clone())));
            tensors.insert(b.name.clone(), tokenize(&text).into_iter().map(|t| t.0).collect());
            continue;
        }
        if r.first().is_some_and(|t| word(t, "as_position_independent_swizzle_tensor")) {
            if let Some(text) = position_independent(r, &tensors) {
                out.push((b.line, Form::Case(text.clone())));
                tensors.insert(b.name.clone(), tokenize(&text).into_iter().map(|t| t.0).collect());
            } else {
                independent.insert(b.name.clone());
            }
            continue;
        }
        // `shared_storage.tensor_sA()`: a SharedStorage member tensor (see [`member_tensors`]).
        if let [Tok::Word(_), Tok::Punct('.'), Tok::Word(m), Tok::Punct('('), Tok::Punct(')')] = r.as_slice() {
            if let Some(l) = tensors.get(&format!(".{m}")).cloned() {
                tensors.insert(b.name.clone(), l);
                smem_members.insert(b.name.clone());
                continue;
            }
        }
        // make_tensor(make_smem_ptr(...), L)
        if r.len() > 4 && word(&r[0], "make_tensor") && word(&r[2], "make_smem_ptr") {
            if let Some(args) = closing(r, 1).map(|c| split_commas(&r[2..c])) {
                if args.len() == 2 {
                    let l = match args[1].as_slice() {
                        [Tok::Word(t), Tok::Punct('{'), Tok::Punct('}')] if types.contains_key(t) => types[t].clone(),
                        l => substitute(l, &env),
                    };
                    tensors.insert(b.name.clone(), l);
                    continue;
                }
            }
        }
        // S.method(ARG)
        if let (Some(Tok::Word(s)), Some(Tok::Punct('.')), Some(Tok::Word(m)), Some(Tok::Punct('('))) =
            (r.first(), r.get(1), r.get(2), r.get(3))
        {
            if let Some(obj) = slices.get(s) {
                // A slice of a copy or MMA the extractor could not write.
                if let Some(why) = obj.iter().find_map(|t| match t {
                    Tok::Word(w) => unknown.get(w).cloned(),
                    _ => None,
                }) {
                    let arg = closing(r, 3).map(|c| render(&r[4..c])).unwrap_or_default();
                    out.push((b.line, Form::Skip(format!("{}.{m}({arg}): {why}", b.name))));
                    unknown.insert(b.name.clone(), why);
                    continue;
                }
                let thread = slice_thr.get(s).copied().unwrap_or(THREAD);
                // The ThrCopy/ThrMMA method and the operation that says it.
                let op = match (m.strip_prefix("partition_fragment_"), m.strip_prefix("partition_")) {
                    (Some("A"), _) => Some(Op::MmaFragmentA),
                    (Some("B"), _) => Some(Op::MmaFragmentB),
                    (Some("C"), _) => Some(Op::MmaFragmentC),
                    (_, Some("S")) => Some(Op::CopyPartitionS),
                    (_, Some("D")) => Some(Op::CopyPartitionD),
                    (_, Some("A")) => Some(Op::MmaPartitionA),
                    (_, Some("B")) => Some(Op::MmaPartitionB),
                    (_, Some("C")) => Some(Op::MmaPartitionC),
                    _ => [Op::RetileS, Op::RetileD].into_iter().find(|o| o.name() == m),
                };
                let Some(close) = closing(r, 3) else { continue };
                let arg = &r[4..close];
                // ThrMMA::make_fragment_A/B(partition_A/B(T)) is partition_fragment_A/B(T).
                if let Some(x) = m.strip_prefix("make_fragment_") {
                    let inline; // `make_fragment_A(thr_mma.partition_A(sA))`
                    let known = match arg {
                        [Tok::Word(p)] => partitions.get(p).filter(|(w, _)| w.to_string() == x.to_lowercase()),
                        [Tok::Word(s2), Tok::Punct('.'), Tok::Word(pm), Tok::Punct('('), Tok::Word(t), Tok::Punct(')')]
                            if slices.contains_key(s2)
                                && *pm == format!("partition_{x}")
                                && tensors.contains_key(t) =>
                        {
                            inline = (x.to_lowercase().chars().next().unwrap_or('c'), tensors[t].clone());
                            Some(&inline)
                        }
                        _ => None,
                    };
                    let why = match arg.first() {
                        Some(Tok::Word(t)) if unknown.contains_key(t) => unknown[t].clone(),
                        _ => UNBOUND_TENSOR.to_string(),
                    };
                    // ThrMMA::make_fragment_A/B of a SharedStorage member tensor: the descriptor tensor.
                    if let ([Tok::Word(t)], "A" | "B") = (arg, x) {
                        if smem_members.contains(t) {
                            let op = if x == "A" { Op::MmaMakeFragmentA } else { Op::MmaMakeFragmentB };
                            let text = format!("{}({}, {})", op.name(), render(obj), render(&tensors[t]));
                            out.push((b.line, Form::Case(text)));
                            continue;
                        }
                    }
                    let form = match known {
                        Some((w, l)) => {
                            let op = match w {
                                'a' => Op::MmaFragmentA,
                                'b' => Op::MmaFragmentB,
                                _ => Op::MmaFragmentC,
                            };
                            let text = format!("{}({}, {}, {thread})", op.name(), render(obj), render(l));
                            tensors.insert(b.name.clone(), tokenize(&text).into_iter().map(|t| t.0).collect());
                            Form::Case(text)
                        }
                        None => {
                            unknown.insert(b.name.clone(), why.clone());
                            Form::Skip(format!("{}.{m}({}): {why}", b.name, render(arg)))
                        }
                    };
                    out.push((b.line, form));
                    continue;
                }
                let Some(op) = op else { continue };
                let tensor = match arg.first() {
                    Some(Tok::Word(t)) => tensors.get(t).map(|l| {
                        let mut l = l.clone();
                        l.extend(arg[1..].iter().cloned());
                        l
                    }),
                    _ => None,
                };
                let Some(layout) = tensor else {
                    let why = match arg.first() {
                                Some(Tok::Word(t)) if independent.contains(t) => {
                                    "a position-independent swizzle tensor (as_position_independent_swizzle_tensor) is not modelled".to_string()
                                }
                                Some(Tok::Word(t)) if unknown.contains_key(t) => unknown[t].clone(),
                                _ => UNBOUND_TENSOR.to_string(),
                    };
                    out.push((b.line, Form::Skip(format!("{}.{m}({}): {why}", b.name, render(arg)))));
                    unknown.insert(b.name.clone(), why);
                    continue;
                };
                let retile = matches!(op, Op::RetileS | Op::RetileD);
                let thr = if retile { String::new() } else { format!(", {thread}") };
                let text = format!("{}({}, {}{thr})", op.name(), render(obj), render(&layout));
                tensors.insert(b.name.clone(), tokenize(&text).into_iter().map(|t| t.0).collect());
                let operand = match op {
                    Op::MmaPartitionA => Some('a'),
                    Op::MmaPartitionB => Some('b'),
                    Op::MmaPartitionC => Some('c'),
                    _ => None,
                };
                if let Some(w) = operand {
                    partitions.insert(b.name.clone(), (w, layout.clone()));
                }
                out.push((b.line, Form::Case(text)));
                continue;
            }
        }
        if b.keyword == "Tensor" {
            // `domain_offset(make_coord(0, get<2>(residue_mnk), 0), gA_in)` of a stand-in tile
            // (see [`gmem_stand_ins`]): the K residue of a problem whose K the tile divides is 0,
            // and a domain_offset by the zero coordinate is the tensor itself.
            if word(&r[0], "domain_offset") && r.iter().any(|t| word(t, "residue_mnk")) {
                if let Some(Tok::Word(x)) = r.get(r.len().wrapping_sub(2)) {
                    if let (Some(l), true) = (tensors.get(x).cloned(), env.contains_key(STAND_IN)) {
                        tensors.insert(b.name.clone(), l);
                        continue;
                    }
                }
            }
            let mut with_tensors = env.clone();
            with_tensors.extend(tensors.iter().map(|(k, v)| (k.clone(), v.clone())));
            let names = tensors.keys().cloned().collect();
            let form = tensor_form(r, &with_tensors, &names, &unknown, gmem_why);
            let form_derived = matches!(&form, Some(Err(w)) if w.starts_with(DERIVED));
            if form.is_none() {
                // `domain_offset(c, gA_in)` of a mainloop's operator() argument (sm90 cp.async WS).
                let why = if word(&r[0], "domain_offset") {
                    UNBOUND_TENSOR.to_string()
                } else {
                    format!("{} is `{}`, a tensor the extractor does not read", b.name, render(r))
                };
                unknown.insert(b.name.clone(), why);
            }
            if let Some(form) = form {
                match form {
                    Ok(l) => {
                        out.push((b.line, Form::Case(render(&l))));
                        tensors.insert(b.name.clone(), l);
                    }
                    Err(why) => {
                        let why = why.trim_start_matches(DERIVED).to_string();
                        if !why.is_empty() && !form_derived {
                            out.push((b.line, Form::Skip(format!("{} = {}: {why}", b.name, render(r)))));
                        }
                        unknown.insert(b.name.clone(), why);
                    }
                }
            }
            continue;
        }
        if b.keyword == "ThrCopy" || b.keyword == "ThrMMA" || b.keyword == "Copy_Atom" {
            continue;
        }
        // A binding of a tensor the extractor could not write (`make_tmem_copy(ATOM{},
        // tAcc_epi(_,_0{}))` of a tile of a TMA coordinate tensor) is skipped with that tensor's reason.
        if let Some(t) = r.iter().find_map(|t| match t {
            Tok::Word(w) if unknown.contains_key(w) && !tensors.contains_key(w) => Some(w),
            _ => None,
        }) {
            if r.iter().any(|t| matches!(t, Tok::Word(w) if builds(w))) {
                out.push((b.line, Form::Skip(format!("{} = {}: {}", b.name, render(r), unknown[t]))));
            }
            // Its partitions (`t2r_copy.get_slice(i).partition_D(sC)`) are skipped for the same reason.
            let why = unknown[t].clone();
            unknown.insert(b.name.clone(), why);
            continue;
        }
        // A binding of a tensor (`make_tmem_copy(ATOM{}, tCtAcc)`) reads the tensor's layout.
        let v = if r.iter().any(|t| matches!(t, Tok::Word(w) if tensors.contains_key(w))) {
            let mut with_tensors = env.clone();
            with_tensors.extend(tensors.iter().map(|(k, v)| (k.clone(), v.clone())));
            substitute(r, &with_tensors)
        } else {
            substitute(r, &env)
        };
        let v = tmem_copy_typed(&v).unwrap_or(v);
        if b.keyword == "int" {
            if let Some(n) = fold_int(&v) {
                env.insert(b.name.clone(), vec![Tok::Word(n.to_string())]);
            }
            continue;
        }
        // A declaration `TiledMma tiled_mma;` of a mainloop is a case when its type builds one.
        let declared = b.keyword == "declared" && v.iter().any(|t| matches!(t, Tok::Word(w) if builds(w)));
        if (declared || r.iter().any(|t| matches!(t, Tok::Word(w) if builds(w)))) && !v.is_empty() {
            out.push((b.line, Form::Case(render(decltype_inner(&v).unwrap_or(&v)))));
        }
        env.insert(b.name.clone(), v);
    }
}

/// `make_tmem_copy(OP{}, T)` of the TMEM accumulator `T = mma_fragment_c(MMA, ...)` (the
/// kernels' `make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{}, tCtAcc)` of `ThrMMA::make_fragment_C`) as
/// the language's `make_tmem_copy(OP{}, V, T)`: copy_traits_sm100.hpp's two-argument
/// `make_tmem_copy(CopyOp, Tensor)` is `make_tmem_copy(Copy_Atom<CopyOp, value_type>{}, tmem)`,
/// and a UMMA accumulator fragment's value type is the MMA's `ValTypeC`; the co-tiled copy reads
/// only the tensor's layout and value type (`make_cotiled_copy(atom, ..., tmem.layout())`).
/// None when `v` is not such a call.
fn tmem_copy_typed(v: &[Tok]) -> Option<Vec<Tok>> {
    use cutecheck::expr::{AtomValue, Value};
    if !(matches!(v.first(), Some(Tok::Word(w)) if w == "make_tmem_copy") && v.get(1) == Some(&Tok::Punct('('))) {
        return None;
    }
    if closing(v, 1) != Some(v.len() - 1) {
        return None;
    }
    let args = split_commas(&v[2..v.len() - 1]);
    let [op, t] = args.as_slice() else { return None };
    let mma = accumulator_mma(t)?;
    let Ok(Value::Atom(AtomValue::TiledMma(m))) = cutecheck::expr::eval_str(&render(&mma)) else { return None };
    let mut out = vec![Tok::Word("make_tmem_copy".into()), Tok::Punct('(')];
    out.extend(op.iter().cloned());
    out.push(Tok::Punct(','));
    out.extend(tokenize(&m.atom.val_types[3]).into_iter().map(|t| t.0));
    out.push(Tok::Punct(','));
    out.extend(t.iter().cloned());
    out.push(Tok::Punct(')'));
    Some(out)
}

/// `cute::lazy::transform(C, [&](auto c) { return elem_less(c, S); })` of a tensor C the body built
/// (the tiled_copy_if tutorial's predicate tensor `P`) as the language's
/// `lazy_transform_elem_less(C, S)`, `S` substituted; None for any other form (another lambda
/// cannot be written).
fn lazy_transform_form(
    r: &[Tok],
    tensors: &HashMap<String, Vec<Tok>>,
    env: &HashMap<String, Vec<Tok>>,
) -> Option<String> {
    let w = |k: usize, s: &str| matches!(r.get(k), Some(Tok::Word(x)) if x == s);
    let colons = |k: usize| r.get(k) == Some(&Tok::Punct(':')) && r.get(k + 1) == Some(&Tok::Punct(':'));
    let start = if w(0, "cute") && colons(1) { 3 } else { 0 };
    if !(w(start, "lazy")
        && colons(start + 1)
        && w(start + 3, "transform")
        && r.get(start + 4) == Some(&Tok::Punct('(')))
    {
        return None;
    }
    let open = start + 4;
    if closing(r, open)? != r.len() - 1 {
        return None;
    }
    let args = split_commas(&r[open + 1..r.len() - 1]);
    let [c, lambda] = args.as_slice() else { return None };
    let [Tok::Word(c)] = c.as_slice() else { return None };
    let layout = tensors.get(c)?;
    // `[..](auto PARAM) { return elem_less(PARAM, S); }`
    let close_capture = lambda.iter().position(|t| *t == Tok::Punct(']'))?;
    let params_close = close_capture + 1 + lambda[close_capture + 1..].iter().position(|t| *t == Tok::Punct(')'))?;
    let Some(Tok::Word(param)) = lambda[..params_close].last() else { return None };
    let body = &lambda[params_close + 1..];
    let [Tok::Punct('{'), Tok::Word(ret), Tok::Word(f), Tok::Punct('('), inner @ .., Tok::Punct(')'), Tok::Punct(';'), Tok::Punct('}')] =
        body
    else {
        return None;
    };
    if ret != "return" || f != "elem_less" {
        return None;
    }
    let pred = split_commas(inner);
    let [x, shape] = pred.as_slice() else { return None };
    if x.as_slice() != [Tok::Word(param.clone())] {
        return None;
    }
    Some(format!("lazy_transform_elem_less({}, {})", render(layout), render(&substitute(shape, env))))
}

/// `as_position_independent_swizzle_tensor(sA)` of a shared-memory tensor the body built
/// (`make_tensor(make_smem_ptr(...), L)`, read as its layout L) as the language's operation of
/// the same name on L (the wgmma_sm90 tutorial's `sA_`); None for any other argument.
fn position_independent(r: &[Tok], tensors: &HashMap<String, Vec<Tok>>) -> Option<String> {
    let [_, Tok::Punct('('), Tok::Word(t), Tok::Punct(')')] = r else { return None };
    let l = tensors.get(t)?;
    Some(format!("as_position_independent_swizzle_tensor({})", render(l)))
}

/// The MMA of the UMMA accumulator `t` is a view of: `mma_fragment_c(MMA, ...)` itself, a divide
/// of it (`zipped_divide(tCtAcc, epi_tiler)`: tensor_impl.hpp's divides keep the tensor's engine,
/// so its value type) or a slice of one (`tAcc_epi(_, _0{})`). None for any other tensor.
fn accumulator_mma(t: &[Tok]) -> Option<Vec<Tok>> {
    let (Some(Tok::Word(f)), Some(Tok::Punct('('))) = (t.first(), t.get(1)) else { return None };
    let c = closing(t, 1)?;
    if c + 1 < t.len() {
        // A slice `X(coord)` of a view X.
        return (t[c + 1] == Tok::Punct('(') && closing(t, c + 1) == Some(t.len() - 1))
            .then(|| accumulator_mma(&t[..=c]))
            .flatten();
    }
    let first = split_commas(&t[2..c]).into_iter().next()?;
    match f.as_str() {
        "mma_fragment_c" => Some(first),
        "zipped_divide" | "logical_divide" | "tiled_divide" | "flat_divide" => accumulator_mma(&first),
        _ => None,
    }
}

/// Why a partition of a tensor that no binding of the body built is skipped: it is a parameter
/// (a collective mainloop's operator() takes its global-memory tiles at run time).
const UNBOUND_TENSOR: &str =
    "a global-memory tensor passed in at run time (a mainloop's operator() argument: its extents are the problem size)";

/// The prefix of why a tensor derived from one that cannot be written cannot be: no skip line of
/// its own (its source's is listed once, at the partition that uses it).
const DERIVED: &str = "\u{1}";

/// Why a global-memory tensor's layout cannot be written.
const GMEM_WHY: &str = "a global-memory tensor whose extents are run-time values not bound from main()";

/// `blockIdx.x/y/z` as 0 (the first CTA) and `threadIdx.x` as [`THREAD`].
fn bind_indices(r: &[Tok]) -> Vec<Tok> {
    let mut out = Vec::with_capacity(r.len());
    let mut k = 0;
    while k < r.len() {
        if let (Tok::Word(v), Some(Tok::Punct('.')), Some(Tok::Word(c))) = (&r[k], r.get(k + 1), r.get(k + 2)) {
            if (v == "blockIdx" || v == "threadIdx") && ["x", "y", "z"].contains(&c.as_str()) {
                let n = if v == "blockIdx" { 0 } else { THREAD };
                out.push(Tok::Word(n.to_string()));
                k += 3;
                continue;
            }
        }
        out.push(r[k].clone());
        k += 1;
    }
    out
}

/// The layout of the tensor a `Tensor NAME = r;` binding builds, as the language writes it, or why
/// it cannot be written; None when `r` builds no tensor the extractor reads. `env` holds the
/// bindings and the known tensors' layouts.
/// - `make_tensor(make_gmem_ptr(p), L)` is L and `make_tensor(make_gmem_ptr(p), S, D)` is
///   `make_layout(S, D)` (a global-memory tensor: the pointer is dropped, its run-time extents and
///   strides bound from the host's launch are dynamic integers);
/// - `make_tensor<T>(args...)` (an owning, register tensor) is `make_layout(args...)`
///   (tensor_impl.hpp: make_tensor<T> allocates an ArrayEngine for make_layout(args...));
/// - `make_tensor_like(X)` and `make_tensor_like<T>(X)` are `make_layout_like(X)` (tensor_impl.hpp) and `make_fragment_like(X)`,
///   `local_tile(X, ...)`, `local_partition(X, ...)`, `X(coord)`, `make_identity_tensor(S)` are
///   the language's operations of the same names on the layouts.
fn tensor_form(
    r: &[Tok],
    env: &HashMap<String, Vec<Tok>>,
    tensors: &std::collections::HashSet<String>,
    unknown: &HashMap<String, String>,
    gmem_why: &str,
) -> Option<std::result::Result<Vec<Tok>, String>> {
    let word = |k: usize, s: &str| matches!(r.get(k), Some(Tok::Word(w)) if w == s);
    let check = |l: Vec<Tok>, what: &str| match admit(&render(&l)) {
        Ok(_) => Ok(l),
        Err(why) => Err(format!("{what} ({why})")),
    };
    if word(0, "make_tensor") && word(2, "make_gmem_ptr") {
        let c = closing(r, 1)?;
        let args = split_commas(&r[2..c]);
        let l = match args.as_slice() {
            // `make_tensor(ptr, shape)` is `make_tensor(ptr, make_layout(shape))` (tensor_impl.hpp).
            [_, l] => {
                let l = substitute(l, env);
                match cutecheck::expr::eval_str(&render(&l)) {
                    Ok(cutecheck::expr::Value::Int(_) | cutecheck::expr::Value::Tuple(_)) => {
                        let mut w = vec![Tok::Word("make_layout".into()), Tok::Punct('(')];
                        w.extend(l);
                        w.push(Tok::Punct(')'));
                        w
                    }
                    _ => l,
                }
            }
            [_, s, d] => {
                let mut l = tokenize("make_layout(").into_iter().map(|t| t.0).collect::<Vec<_>>();
                l.extend(substitute(s, env));
                l.push(Tok::Punct(','));
                l.extend(substitute(d, env));
                l.push(Tok::Punct(')'));
                l
            }
            _ => return None,
        };
        return Some(check(l, gmem_why));
    }
    if let Some(t) = r.iter().find_map(|t| match t {
        Tok::Word(w) if unknown.contains_key(w) => Some(w),
        _ => None,
    }) {
        return Some(Err(format!("{DERIVED}{}", unknown[t])));
    }
    // A member call (`tma.get_tma_tensor(...)`, `block_tma_a.partition_D(sA)`) is not read.
    if r.windows(3).any(|w| w[0] == Tok::Punct('.') && matches!(w[1], Tok::Word(_)) && w[2] == Tok::Punct('(')) {
        return None;
    }
    if word(0, "make_tensor") && r.get(1) == Some(&Tok::Punct('<')) {
        let a = angle_close(r, 1)?;
        let c = closing(r, a + 1)?;
        let mut l = vec![Tok::Word("make_layout".into())];
        l.extend(substitute(&r[a + 1..=c], env));
        return Some(check(l, "a register tensor"));
    }
    let names_tensor = r.iter().any(|t| matches!(t, Tok::Word(w) if tensors.contains(w)));
    if !names_tensor && !word(0, "make_identity_tensor") && !word(0, "get_tma_tensor") {
        return None;
    }
    let mut r = r.to_vec();
    if word(0, "make_tensor_like") {
        r[0] = Tok::Word("make_layout_like".into());
        // `make_tensor_like<T>(X)`: the element type changes the register tensor's values, not
        // its layout (tensor_impl.hpp: make_tensor<T>(make_layout_like(X.layout()))).
        if r.get(1) == Some(&Tok::Punct('<')) {
            let a = angle_close(&r, 1)?;
            r.drain(1..=a);
        }
    }
    Some(check(substitute(&r, env), "a tensor expression the language cannot write"))
}

/// The member tensors of a struct template instantiated by `v` (`SharedStorage<TypeA, TypeB,
/// decltype(sA_layout), ...>`, a kernel's template argument): each member function `tensor_sX()
/// { return make_tensor(make_smem_ptr(...), P{}); }` with `P` a template parameter, as (name, the
/// layout `P` is bound to, `decltype(E)` read as `E`).
fn member_tensors(structs: &[StructDef], toks: &[Tok], v: &[Tok]) -> Vec<(String, Vec<Tok>)> {
    // The arguments as written (qualified: `UMMA::Layout_K_SW128_Atom<...>`).
    let Some((name, _)) = template_id(v) else { return Vec::new() };
    let Some(open) = v.iter().position(|t| *t == Tok::Punct('<')) else { return Vec::new() };
    let Some(close) = angle_close(v, open) else { return Vec::new() };
    let args = split_commas(&v[open + 1..close]);
    let Some(def) = structs.iter().find(|d| d.name == name && d.pattern.is_none() && d.params.len() == args.len())
    else {
        return Vec::new();
    };
    let body = &toks[def.body.clone()];
    let mut out = Vec::new();
    for i in 0..body.len().saturating_sub(4) {
        let Tok::Word(m) = &body[i] else { continue };
        if !m.starts_with("tensor_") || body[i + 1] != Tok::Punct('(') || body[i + 2] != Tok::Punct(')') {
            continue;
        }
        let Some(open) = (i + 3..body.len()).find(|&j| body[j] == Tok::Punct('{')) else { continue };
        let Some(close) = closing(body, open) else { continue };
        let f = &body[open + 1..close];
        let Some(mt) = f.iter().position(|t| *t == Tok::Word("make_tensor".into())) else { continue };
        if f.get(mt + 2) != Some(&Tok::Word("make_smem_ptr".into())) {
            continue;
        }
        let Some(c) = closing(f, mt + 1) else { continue };
        let margs = split_commas(&f[mt + 2..c]);
        let Some([Tok::Word(p), Tok::Punct('{'), Tok::Punct('}')]) = margs.get(1).map(Vec::as_slice) else { continue };
        let Some(k) = def.params.iter().position(|q| q == p) else { continue };
        let a = &args[k];
        out.push((m.clone(), decltype_inner(a).unwrap_or(a).to_vec()));
    }
    out
}

/// The TMA makers whose second argument is the global-memory tensor (copy_traits_sm90_tma.hpp
/// `make_tma_atom(CopyOp, Tensor gtensor, SLayout, CTA_Tiler[, ClusterSize])`,
/// atom/copy_traits_sm100_tma.hpp `make_tma_atom_A/B_sm100(CopyOp, Tensor gtensor, SLayout,
/// MMA_Tiler, TiledMMA, ClusterShapeVMNK)`): the language writes the tensor as its element type
/// and layout.
const TMA_MAKERS: &[&str] = &["make_tma_atom", "make_tma_atom_A_sm100", "make_tma_atom_B_sm100"];

/// `MAKER(OP{}, mA, rest...)` of a host gmem tensor `mA` (element type `elem[mA]`, layout
/// `env[mA]`) as the language's `MAKER(OP{}, T, L, rest...)`; None when `rhs` is not such a call.
fn tma_maker(rhs: &[Tok], env: &HashMap<String, Vec<Tok>>, elem: &HashMap<String, Vec<Tok>>) -> Option<Vec<Tok>> {
    let Some(Tok::Word(maker)) = rhs.first() else { return None };
    if !TMA_MAKERS.contains(&maker.as_str())
        || rhs.get(1) != Some(&Tok::Punct('('))
        || closing(rhs, 1)? != rhs.len() - 1
    {
        return None;
    }
    let args = split_commas(&rhs[2..rhs.len() - 1]);
    let [Tok::Word(t)] = args.get(1)?.as_slice() else { return None };
    let (ty, layout) = (elem.get(t)?, env.get(t)?);
    let mut out = vec![Tok::Word(maker.clone()), Tok::Punct('(')];
    out.extend(substitute(&args[0], env));
    for a in [ty.clone(), layout.clone()].into_iter().chain(args[2..].iter().map(|a| substitute(a, env))) {
        out.push(Tok::Punct(','));
        out.extend(a);
    }
    out.push(Tok::Punct(')'));
    Some(out)
}

/// `X.get_tma_tensor(S)` of a TMA atom `X` bound to a [`TMA_MAKERS`] call as the language's
/// `get_tma_tensor(X, S)` (copy_traits_sm90_tma.hpp: `make_coord_tensor(make_layout(S,
/// aux_params_.g_stride_))`); None otherwise.
fn tma_tensor(rhs: &[Tok], env: &HashMap<String, Vec<Tok>>) -> Option<Vec<Tok>> {
    let [Tok::Word(x), Tok::Punct('.'), Tok::Word(m), Tok::Punct('('), ..] = rhs else { return None };
    if m != "get_tma_tensor" || closing(rhs, 3)? != rhs.len() - 1 {
        return None;
    }
    let atom = env.get(x)?;
    if !matches!(atom.first(), Some(Tok::Word(w)) if TMA_MAKERS.contains(&w.as_str())) {
        return None;
    }
    let mut out = vec![Tok::Word("get_tma_tensor".into()), Tok::Punct('(')];
    out.extend(atom.iter().cloned());
    out.push(Tok::Punct(','));
    out.extend(substitute(&rhs[4..rhs.len() - 1], env));
    out.push(Tok::Punct(')'));
    Some(out)
}

/// The value of an `int` binding's expression: a literal, an expression the engine evaluates to
/// an integer (`size(make_tiled_mma(...))`), or the C++ quotient `A / B` of two such.
fn fold_int(v: &[Tok]) -> Option<i64> {
    let value = |t: &[Tok]| -> Option<i64> {
        let text = render(t);
        if let Ok(n) = text.trim().parse::<i64>() {
            return Some(n);
        }
        use cutecheck::expr::{AtomValue, Value};
        // `size(TiledMma{})` (mma_atom.hpp): the size of its ThrLayoutVMNK, the thread count.
        if let Some(inner) = text.strip_prefix("size(").and_then(|x| x.strip_suffix(')')) {
            if let Ok(Value::Atom(AtomValue::TiledMma(m))) = cutecheck::expr::eval_str(inner) {
                return m.thr_layout_vmnk.size().ok().map(|n| n.value);
            }
        }
        match cutecheck::expr::eval_str(&text).ok()? {
            Value::Int(i) => Some(i.value),
            _ => None,
        }
    };
    let mut depth = 0i32;
    let mut slash = None;
    for (k, t) in v.iter().enumerate() {
        match t {
            Tok::Punct('(' | '<' | '{') => depth += 1,
            Tok::Punct(')' | '>' | '}') => depth -= 1,
            Tok::Punct('/') if depth == 0 => {
                if slash.is_some() {
                    return None;
                }
                slash = Some(k);
            }
            _ => {}
        }
    }
    match slash {
        Some(k) => {
            let (a, b) = (value(&v[..k])?, value(&v[k + 1..])?);
            (b != 0).then(|| a / b)
        }
        None => value(v),
    }
}

/// A host `auto` value that is a static integer the language cannot write, folded to `Int<N>{}`:
/// `tile_size<I>(make_tiled_mma(ARGS))` (mma_atom.hpp: the size of mode I of the TiledMMA's tile,
/// which the language's `tiled_mma_tile(ARGS)` is), and the product `A * B` of two static integers (the Blackwell
/// tutorials' `tile_size<2>(tiled_mma) * Int<4>{}`).
fn fold_static(v: &[Tok]) -> Option<Vec<Tok>> {
    use cutecheck::expr::{eval_str, Value};
    let stat = |t: &[Tok]| -> Option<i64> {
        let text = render(t);
        let text = match (text.strip_prefix("tile_size<"), t.get(2), t.get(3), t.get(4)) {
            (Some(_), Some(Tok::Word(i)), Some(Tok::Punct('>')), Some(Tok::Punct('('))) => {
                // tile_size<I>(make_tiled_mma(ARGS)): tiled_mma_tile takes make_tiled_mma's arguments.
                let c = closing(t, 4)?;
                let inner = (t.get(5) == Some(&Tok::Word("make_tiled_mma".into()))).then(|| closing(t, 6)).flatten()?;
                (c == t.len() - 1 && inner + 1 == c)
                    .then(|| format!("size(get(tiled_mma_tile({}), {i}))", render(&t[7..inner])))?
            }
            _ => text,
        };
        match eval_str(&text).ok()? {
            Value::Int(i) if i.is_static => Some(i.value),
            _ => None,
        }
    };
    let product = |t: &[Tok]| -> Option<i64> {
        let mut depth = 0i32;
        let mut parts = vec![Vec::new()];
        for x in t {
            match x {
                Tok::Punct('(' | '<' | '{') => depth += 1,
                Tok::Punct(')' | '>' | '}') => depth -= 1,
                Tok::Punct('*') if depth == 0 => {
                    parts.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(p) = parts.last_mut() {
                p.push(x.clone());
            }
        }
        parts.iter().map(|p| stat(p)).product()
    };
    // The C++ quotient `A / B` of two static integers (05_mma_tma_epi_sm100.cu's
    // `size<0,1>(mma_shape_C) / Int<4>{}`): Int<a>{} / Int<b>{} is Int<a/b>{} (integral_constant.hpp).
    let quotient = |t: &[Tok]| -> Option<i64> {
        let mut depth = 0i32;
        let mut at = None;
        for (k, x) in t.iter().enumerate() {
            match x {
                Tok::Punct('(' | '<' | '{') => depth += 1,
                Tok::Punct(')' | '>' | '}') => depth -= 1,
                Tok::Punct('/') if depth == 0 => {
                    if at.is_some() {
                        return None;
                    }
                    at = Some(k);
                }
                _ => {}
            }
        }
        let k = at?;
        let (a, b) = (product(&t[..k])?, product(&t[k + 1..])?);
        (b != 0).then(|| a / b)
    };
    let int = |n: i64| tokenize(&format!("Int<{n}>{{}}")).into_iter().map(|t| t.0).collect::<Vec<_>>();
    // `make_tile(A, B / C)`: each argument with a quotient folded.
    if let (Some(Tok::Word(f)), Some(Tok::Punct('('))) = (v.first(), v.get(1)) {
        if (f == "make_tile" || f == "make_shape") && closing(v, 1) == Some(v.len() - 1) {
            let args = split_commas(&v[2..v.len() - 1]);
            if args.iter().any(|a| a.contains(&Tok::Punct('/'))) {
                let mut out = vec![v[0].clone(), Tok::Punct('(')];
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        out.push(Tok::Punct(','));
                    }
                    match a.contains(&Tok::Punct('/')).then(|| quotient(a)).flatten() {
                        Some(n) => out.extend(int(n)),
                        None if a.contains(&Tok::Punct('/')) => return None,
                        None => out.extend(a.iter().cloned()),
                    }
                }
                out.push(Tok::Punct(')'));
                return Some(out);
            }
        }
    }
    let named = v.iter().any(|t| matches!(t, Tok::Word(w) if w == "tile_size")) || v.contains(&Tok::Punct('*'));
    if !named {
        return None;
    }
    let n = product(v)?;
    Some(int(n))
}

/// `E` of `decltype(E)`.
fn decltype_inner(v: &[Tok]) -> Option<&[Tok]> {
    let is = matches!(v.first(), Some(Tok::Word(w)) if w == "decltype") && v.get(1) == Some(&Tok::Punct('('));
    (is && closing(v, 1) == Some(v.len() - 1)).then(|| &v[2..v.len() - 1])
}

/// The cases of one file: (line, form) of each binding that builds a layout or an object, each
/// `using X = decltype(...)` of one, and the per-thread forms of each kernel a host function
/// launches (its parameters bound to the launch's arguments).
fn forms(text: &str) -> Vec<(usize, Form)> {
    let toks = tokenize(text);
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let all = bindings(&toks);
    let launched = launches(&plain);
    let mut kernels: HashMap<String, Kernel> = HashMap::new();
    let mut explicit: HashMap<String, Vec<(String, Vec<Tok>)>> = HashMap::new();
    for (_, name, _) in &launched {
        // A launch through a pointer (`auto kernel_fptr = gemm_device<...>;`) launches its kernel.
        // ... or `kernel_ptr = reinterpret_cast<void const*>(&gemm_device<...>)`: the first name
        // up to the `;` that a definition in the file has.
        // Its explicit template arguments (`&gemm_device<decltype(sA), ...>`) bind the kernel's
        // template parameters (`SmemLayoutA{}` in its body).
        let alias = (0..plain.len().saturating_sub(3)).rev().find_map(|i| {
            if plain[i] != Tok::Word(name.clone()) || plain[i + 1] != Tok::Punct('=') {
                return None;
            }
            let end = (i + 2..plain.len()).find(|&j| plain[j] == Tok::Punct(';')).unwrap_or(plain.len());
            (i + 2..end).find_map(|j| match &plain[j] {
                Tok::Word(w) => kernel(&plain, w).map(|k| {
                    let args = match (plain.get(j + 1), angle_close(&plain, j + 1)) {
                        (Some(Tok::Punct('<')), Some(c)) => split_commas(&plain[j + 2..c]),
                        _ => Vec::new(),
                    };
                    let params =
                        kernel_position(&plain, w).map(|d| template_params_before(&plain, d)).unwrap_or_default();
                    (k, params.into_iter().zip(args).collect::<Vec<_>>())
                }),
                _ => None,
            })
        });
        match (kernel(&plain, name), alias) {
            (Some(k), _) => {
                kernels.insert(name.clone(), k);
            }
            (None, Some((k, targs))) => {
                kernels.insert(name.clone(), k);
                explicit.insert(name.clone(), targs);
            }
            _ => {}
        }
    }
    let in_kernel = |pos: usize| kernels.values().any(|(_, r)| r.contains(&pos));
    let structs = struct_defs(&toks);
    let mut env: HashMap<String, Vec<Tok>> = HashMap::new();
    // `using` bindings (types) hold for the whole file.
    for b in &all {
        if b.keyword == "using" {
            let v = substitute(&b.rhs, &env);
            env.insert(b.name.clone(), v);
        }
    }
    let mut out = Vec::new();
    let mut next_launch = 0;
    // The host functions' parameters, bound to what main() passes them (unbound where main()
    // does not reach the function).
    let host = host_bindings(text);
    let defs = function_defs(&plain);
    // The host's global-memory tensors (`Tensor mA = make_tensor(make_gmem_ptr(p), ...)`), bound
    // in env to their layouts.
    let mut host_tensors = std::collections::HashSet::new();
    // Their element types (the host function's pointer parameter's type).
    let mut host_elem: HashMap<String, Vec<Tok>> = HashMap::new();
    let mut launch = |upto: usize,
                      env: &HashMap<String, Vec<Tok>>,
                      host_tensors: &std::collections::HashSet<String>,
                      out: &mut Vec<(usize, Form)>| {
        while next_launch < launched.len() && launched[next_launch].0 < upto {
            let (_, name, args) = &launched[next_launch];
            next_launch += 1;
            let Some((params, body)) = kernels.get(name) else { continue };
            let mut kenv = env.clone();
            for (p, a) in explicit.get(name).into_iter().flatten() {
                kenv.insert(p.clone(), substitute(a, env));
            }
            // A parameter's type names its argument's type too: `ASmemLayout{}` is the argument.
            let mut types = HashMap::new();
            let mut gmem = HashMap::new();
            for ((ty, p), a) in params.iter().zip(args) {
                if let [Tok::Word(t)] = a.as_slice() {
                    if host_tensors.contains(t) {
                        gmem.insert(p.clone(), env[t].clone());
                    }
                }
                let a = substitute(a, env);
                types.insert(ty.clone(), a.clone());
                // A TiledMMA's type (`typename TiledMMA::AtomThrID{}`) is its argument's decltype.
                if a.first() == Some(&Tok::Word("make_tiled_mma".into())) && !kenv.contains_key(ty) {
                    let mut d = vec![Tok::Word("decltype".into()), Tok::Punct('(')];
                    d.extend(a.iter().cloned());
                    d.push(Tok::Punct(')'));
                    kenv.insert(ty.clone(), d);
                }
                kenv.insert(p.clone(), a);
            }
            // A SharedStorage template argument's member tensors (`shared_storage.tensor_sA()`),
            // keyed `VAR.tensor_sA` for any VAR: their layouts.
            for v in kenv.values() {
                for (m, l) in member_tensors(&structs, &plain, v) {
                    gmem.insert(format!(".{m}"), l);
                }
            }
            let inside: Vec<Binding> = all
                .iter()
                .filter(|b| body.contains(&b.pos))
                .map(|b| Binding {
                    pos: b.pos,
                    line: b.line,
                    keyword: b.keyword.clone(),
                    name: b.name.clone(),
                    rhs: b.rhs.clone(),
                })
                .collect();
            // The host function that launches it, when main() does not reach it (run without
            // arguments nor with any characters its argv parsing reads): its sizes are unknown.
            let host_fn = defs.iter().find(|(_, (_, r))| r.contains(&launched[next_launch - 1].0)).map(|d| &d.0);
            let why = match host_fn {
                Some(f) if f != "main" && !host.contains_key(f) => format!(
                    "a global-memory tensor whose extents are run-time values: {f}() launches it, and main() does not \
                     call {f}() (run without arguments, nor with the characters its argv parsing reads)"
                ),
                _ => GMEM_WHY.to_string(),
            };
            kernel_forms(&inside, kenv, &types, gmem, &why, out);
        }
    };
    let mut current: Option<usize> = None;
    for b in &all {
        if in_kernel(b.pos) {
            continue;
        }
        // The launches before this binding, with the environment of the function they are in.
        launch(b.pos, &env, &host_tensors, &mut out);
        let within = defs.iter().position(|(_, (_, r))| r.contains(&b.pos));
        if within != current {
            current = within;
            if let Some((name, (params, _))) = within.map(|k| &defs[k]) {
                for (_, p) in params {
                    match host.get(name).and_then(|h| h.get(p)) {
                        Some(v) => env.insert(p.clone(), v.clone()),
                        None => env.remove(p),
                    };
                }
            }
        }
        if b.keyword == "using" {
            // using X = decltype(EXPR): EXPR is a case when it builds one.
            if b.rhs.len() > 3 && b.rhs[0] == Tok::Word("decltype".into()) && b.rhs[1] == Tok::Punct('(') {
                let inner = &b.rhs[2..b.rhs.len() - 1];
                if inner.iter().any(|t| matches!(t, Tok::Word(w) if builds(w))) {
                    out.push((b.line, Form::Case(render(&substitute(inner, &env)))));
                }
            }
            // Read again in order: an alias of a value bound before it (`sizeof(T) * size(val_layout)`).
            let v = substitute(&b.rhs, &env);
            env.insert(b.name.clone(), v);
            continue;
        }
        if b.keyword == "Copy_Atom" {
            // `Copy_Atom X = make_tma_atom(OP{}, mA, SMEM, ...)` of a host gmem tensor.
            if let Some(v) = tma_maker(&b.rhs, &env, &host_elem) {
                out.push((b.line, Form::Case(render(&v))));
                env.insert(b.name.clone(), v);
            }
            continue;
        }
        if b.keyword == "Tensor" {
            // `Tensor mA_tma = X.get_tma_tensor(shape)` of a TMA atom made above.
            if let Some(l) = tma_tensor(&b.rhs, &env) {
                out.push((b.line, Form::Case(render(&l))));
                env.insert(b.name.clone(), l);
                host_tensors.insert(b.name.clone());
                continue;
            }
            // The element type of a gmem tensor `make_tensor(make_gmem_ptr(p), ...)` whose
            // pointer `p` is a parameter `T const* p` of the host function.
            if let (Some(Tok::Word(m)), Some(Tok::Word(g)), Some(Tok::Word(ptr))) =
                (b.rhs.first(), b.rhs.get(2), b.rhs.get(4))
            {
                if m == "make_tensor" && g == "make_gmem_ptr" {
                    let ty = within.and_then(|k| defs[k].1 .0.iter().find(|(_, n)| n == ptr)).map(|(t, _)| t.clone());
                    if let Some(t) = ty {
                        host_elem.insert(b.name.clone(), substitute(&[Tok::Word(t)], &env));
                    }
                }
            }
            let names = host_tensors.clone();
            if let Some(form) = tensor_form(&b.rhs, &env, &names, &HashMap::new(), GMEM_WHY) {
                match form {
                    Ok(l) => {
                        out.push((b.line, Form::Case(render(&l))));
                        env.insert(b.name.clone(), l);
                        host_tensors.insert(b.name.clone());
                    }
                    Err(why) => out.push((b.line, Form::Skip(format!("{} = {}: {why}", b.name, render(&b.rhs))))),
                }
            }
            continue;
        }
        if matches!(b.keyword.as_str(), "ThrCopy" | "ThrMMA") {
            continue;
        }
        let v = substitute(&b.rhs, &env);
        if b.keyword == "int" {
            if let Some(n) = fold_int(&v) {
                env.insert(b.name.clone(), vec![Tok::Word(n.to_string())]);
            }
            continue;
        }
        let case = b.rhs.iter().any(|t| matches!(t, Tok::Word(w) if builds(w)));
        if case && !v.is_empty() {
            out.push((b.line, Form::Case(render(&v))));
        }
        let v = fold_static(&v).unwrap_or(v);
        env.insert(b.name.clone(), v);
    }
    launch(usize::MAX, &env, &host_tensors, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// The collective mainloops, instantiated for the unit tests' concrete configurations.
//
// `test/unit/gemm/device/sm{50,61,80}_gemm_*.cu` name their configurations as
// `DefaultGemmConfigurationToCutlass3Types<OpClass, Arch, ElementA, LayoutA, ..., ElementAccumulator>`;
// default_gemm_configuration.hpp holds the (partial) specializations of that struct, whose
// `CollectiveMainloop` is a `CollectiveMma<DispatchPolicy, TileShape, ..., SmemCopyAtomB, TransformB>`;
// the mainloop headers hold the `CollectiveMma` specializations (per dispatch policy), whose
// bodies build the shared-memory layouts (`tile_to_shape` of the atom to the CTA tile with its
// stages) and partition them (`partition_D`, `partition_fragment_A`, `make_tiled_copy_A`,
// `partition_S`, `retile_D`). The extractor matches each configuration to its most specialized
// struct (C++'s partial ordering, approximated by the number of fixed arguments), evaluates its
// `using` members (members of other specializations, e.g. `typename DefaultOperandA::SmemLayoutAtom`,
// by the same matching, a base class's members first), and reads the matching mainloop's body with
// its template parameters bound, exactly as a launched kernel's body is read.

/// The mainloop headers whose `CollectiveMma` specializations the configurations instantiate.
const COLLECTIVES: &[&str] = &[
    "include/cutlass/gemm/collective/sm70_mma_twostage.hpp",
    "include/cutlass/gemm/collective/sm80_mma_multistage.hpp",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss.hpp",
    "include/cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp",
    "include/cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized.hpp",
    "include/cutlass/gemm/collective/sm90_mma_array_tma_gmma_ss_warpspecialized_fp8.hpp",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized.hpp",
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp",
];

/// The configurations' struct file.
const CONFIGURATIONS: &str = "test/unit/gemm/device/default_gemm_configuration.hpp";

/// Template parameters bound to their arguments' tokens.
type Bound = HashMap<String, Vec<Tok>>;

/// A template's arguments, each as tokens.
type Args = Vec<Vec<Tok>>;

/// A struct template's definition or specialization.
struct StructDef {
    name: String,
    /// Its template parameters' names.
    params: Vec<String>,
    /// A specialization's arguments (None: the primary template).
    pattern: Option<Vec<Vec<Tok>>>,
    /// A base class `: Base<args>`.
    base: Option<Vec<Tok>>,
    /// Its body's token range (inside the braces).
    body: std::ops::Range<usize>,
}

/// The index of the `>` closing the `<` at `i` (angle brackets only, parentheses skipped).
fn angle_close(toks: &[Tok], i: usize) -> Option<usize> {
    let (mut depth, mut paren) = (0i32, 0i32);
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t {
            Tok::Punct('(') => paren += 1,
            Tok::Punct(')') => paren -= 1,
            Tok::Punct('<') if paren == 0 => depth += 1,
            Tok::Punct('>') if paren == 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            Tok::Punct(';' | '{') if paren == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The struct templates (and their specializations) of a file.
fn struct_defs(toks: &[(Tok, usize)]) -> Vec<StructDef> {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < plain.len() {
        let is_template = plain[i] == Tok::Word("template".into()) && plain[i + 1] == Tok::Punct('<');
        if !is_template {
            i += 1;
            continue;
        }
        let Some(pc) = angle_close(&plain, i + 1) else {
            i += 1;
            continue;
        };
        let params = template_param_names(&plain[i + 2..pc]);
        let mut j = pc + 1;
        if !matches!(plain.get(j), Some(Tok::Word(w)) if w == "struct" || w == "class") {
            i = pc + 1;
            continue;
        }
        j += 1;
        let Some(Tok::Word(name)) = plain.get(j).cloned() else {
            i = j;
            continue;
        };
        j += 1;
        let mut pattern = None;
        if plain.get(j) == Some(&Tok::Punct('<')) {
            let Some(c) = angle_close(&plain, j) else {
                i = j;
                continue;
            };
            pattern = Some(split_commas(&plain[j + 1..c]));
            j = c + 1;
        }
        let mut base = None;
        if plain.get(j) == Some(&Tok::Punct(':')) {
            let open = (j..plain.len()).find(|&k| matches!(plain[k], Tok::Punct('{' | ';')));
            let Some(open) = open else { break };
            let b: Vec<Tok> =
                plain[j + 1..open].iter().filter(|t| !matches!(t, Tok::Word(w) if w == "public")).cloned().collect();
            base = Some(b);
            j = open;
        }
        if plain.get(j) != Some(&Tok::Punct('{')) {
            i = j;
            continue;
        }
        let Some(end) = closing(&plain, j) else { break };
        out.push(StructDef { name, params, pattern, base, body: j + 1..end });
        // Nested templates (member functions) are inside the body: keep scanning after the head.
        i = j + 1;
    }
    out
}

/// A name without its namespace qualifiers and `typename`/`class` keywords: `cutlass::layout::RowMajor`
/// -> `RowMajor`.
fn unqualified(toks: &[Tok]) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        if let Tok::Word(w) = &toks[k] {
            if w == "typename" || w == "struct" || w == "class" {
                k += 1;
                continue;
            }
            if toks.get(k + 1) == Some(&Tok::Punct(':')) && toks.get(k + 2) == Some(&Tok::Punct(':')) {
                k += 3;
                continue;
            }
        }
        if toks[k] == Tok::Punct(':') && toks.get(k + 1) == Some(&Tok::Punct(':')) {
            k += 2;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// A template-id `Head<args>` as (head, args).
fn template_id(toks: &[Tok]) -> Option<(String, Vec<Vec<Tok>>)> {
    let t = unqualified(toks);
    let Some(Tok::Word(h)) = t.first() else { return None };
    if t.len() == 1 {
        return Some((h.clone(), Vec::new()));
    }
    if t.get(1) != Some(&Tok::Punct('<')) || angle_close(&t, 1)? != t.len() - 1 {
        return None;
    }
    Some((h.clone(), split_commas(&t[2..t.len() - 1])))
}

/// Whether `arg` matches `pat` (template parameters `params` bound in `bind`); the number of fixed
/// tokens matched (how specialized the match is), or None.
fn match_arg(pat: &[Tok], arg: &[Tok], params: &[String], bind: &mut HashMap<String, Vec<Tok>>) -> Option<usize> {
    let (p, a) = (unqualified(pat), unqualified(arg));
    if let [Tok::Word(w)] = p.as_slice() {
        if params.contains(w) {
            return match bind.get(w) {
                Some(b) if unqualified(b) != a => None,
                _ => {
                    bind.insert(w.clone(), arg.to_vec());
                    Some(0)
                }
            };
        }
    }
    if p == a {
        return Some(p.len());
    }
    let ((ph, pa), (ah, aa)) = (template_id(&p)?, template_id(&a)?);
    if ph != ah || pa.len() < aa.len() {
        return None;
    }
    let mut n = 1;
    for (k, pk) in pa.iter().enumerate() {
        match aa.get(k) {
            Some(ak) => n += match_arg(pk, ak, params, bind)?,
            // A defaulted parameter the argument list leaves out.
            None if matches!(unqualified(pk).as_slice(), [Tok::Word(w)] if params.contains(w)) => {}
            None => return None,
        }
    }
    Some(n)
}

/// The most specialized struct `head` matching `args`, with its parameters bound.
fn specialization<'a>(
    defs: &'a [StructDef],
    head: &str,
    args: &[Vec<Tok>],
) -> Option<(&'a StructDef, HashMap<String, Vec<Tok>>)> {
    let mut best: Option<(usize, &StructDef, Bound)> = None;
    for d in defs.iter().filter(|d| d.name == head) {
        let Some(pat) = &d.pattern else { continue };
        if pat.len() != args.len() {
            continue;
        }
        let mut bind = HashMap::new();
        let score: Option<usize> =
            pat.iter().zip(args).map(|(p, a)| match_arg(p, a, &d.params, &mut bind)).sum::<Option<usize>>();
        if let Some(s) = score {
            if best.as_ref().is_none_or(|(b, _, _)| s > *b) {
                best = Some((s, d, bind));
            }
        }
    }
    best.map(|(_, d, b)| (d, b))
}

/// The `using` members (and `static constexpr` integers) of a struct instantiated with `bind`,
/// a base class's first; `typename X::M` resolved through the specializations of X's template.
fn members(
    defs: &[StructDef],
    toks: &[Tok],
    d: &StructDef,
    bind: HashMap<String, Vec<Tok>>,
    depth: usize,
) -> HashMap<String, Vec<Tok>> {
    let mut env = bind;
    if depth > 8 {
        return env;
    }
    if let Some(b) = &d.base {
        if let Some((h, args)) = template_id(&substitute(b, &env)) {
            if let Some((bd, bb)) = specialization(defs, &h, &args) {
                for (k, v) in members(defs, toks, bd, bb, depth + 1) {
                    env.entry(k).or_insert(v);
                }
            }
        }
    }
    let body = &toks[d.body.clone()];
    let mut k = 0;
    let mut level = 0i32;
    while k < body.len() {
        match &body[k] {
            Tok::Punct('{') => level += 1,
            Tok::Punct('}') => level -= 1,
            _ => {}
        }
        // Only the struct's own members (not those of nested structs or functions).
        let member = level == 0 && (k == 0 || matches!(body[k - 1], Tok::Punct(';' | '{' | '}' | ':')));
        let using = member && body[k] == Tok::Word("using".into());
        let constexpr =
            member && body[k] == Tok::Word("static".into()) && body.get(k + 1) == Some(&Tok::Word("constexpr".into()));
        if !(using || constexpr) {
            k += 1;
            continue;
        }
        let end = (k..body.len()).find(|&e| body[e] == Tok::Punct(';')).unwrap_or(body.len());
        let stmt = &body[k..end];
        k = end + 1;
        let Some(eq) = stmt.iter().position(|t| *t == Tok::Punct('=')) else { continue };
        let Some(Tok::Word(name)) = stmt[..eq].last().cloned() else { continue };
        let rhs = &stmt[eq + 1..];
        // `typename X::M`: a member of another instantiation.
        let un = unqualified(rhs);
        let member_of = match (rhs.iter().rposition(|t| *t == Tok::Punct(':')), un.last()) {
            (Some(c), Some(Tok::Word(m))) if c + 2 == rhs.len() && c >= 2 => {
                let owner: Vec<Tok> =
                    rhs[..c - 1].iter().filter(|t| !matches!(t, Tok::Word(w) if w == "typename")).cloned().collect();
                let owner = substitute(&owner, &env);
                template_id(&owner)
                    .and_then(|(h, a)| specialization(defs, &h, &a))
                    .and_then(|(od, ob)| members(defs, toks, od, ob, depth + 1).remove(m))
            }
            _ => None,
        };
        let v = match member_of {
            Some(v) => v,
            None => normalize(&substitute(rhs, &env)),
        };
        env.insert(name, v);
    }
    env
}

/// Rewrites of substituted tokens into the language's forms, each CuTe's definition of the form:
/// - `decltype(E){}` is `E`;
/// - `shape<N>(Shape<a0,a1,...>{})` and `get<N>(...)` are `aN`;
/// - `P<S, C, ...>::Stages` of a mainloop dispatch policy `P` is its first argument `S`, and
///   `P<S, C, ...>::ClusterShape` its second `C`;
/// - `TiledMMA<MMA_Atom<OP>, L, P>{}` is `make_tiled_mma(OP{}, L{}, P{})` (CuTe's make_tiled_mma
///   appends nothing to a rank-3 atom layout and a rank-3 permutation, so it builds that type);
/// - `conditional_t<is_major<0,StrideX>(), T, F>{}` is `T{}` where operand X's layout tag makes its
///   mode 0 (M or N) the unit-stride one (A `ColumnMajor`, B `RowMajor`), else `F{}`.
fn normalize(toks: &[Tok]) -> Vec<Tok> {
    let mut t = toks.to_vec();
    loop {
        let before = t.len();
        t = normalize_once(&t);
        if t.len() == before {
            break;
        }
    }
    // The language's names of `partition_shape_A/B/C(tiled_mma, shape)` (ThrMMA-free
    // mma_atom.hpp functions) and of `UMMA::tile_to_mma_shape` (mma_traits_sm100.hpp).
    let mut out = Vec::with_capacity(t.len());
    let mut k = 0;
    while k < t.len() {
        if let (Tok::Word(ns), Some(Tok::Punct(':')), Some(Tok::Punct(':')), Some(Tok::Word(f))) =
            (&t[k], t.get(k + 1), t.get(k + 2), t.get(k + 3))
        {
            if ns == "UMMA" && f == "tile_to_mma_shape" {
                out.push(t[k + 3].clone());
                k += 4;
                continue;
            }
        }
        // `size<I,J,...>(X)` (a nested mode's size) is `size(get(X, I, J, ...))`: the language's
        // `get(X, i, j)` is CuTe's `get<i,j>(X)`.
        if let (Tok::Word(f), Some(Tok::Punct('<'))) = (&t[k], t.get(k + 1)) {
            if f == "size" {
                if let Some(a) = angle_close(&t, k + 1) {
                    let idx = split_commas(&t[k + 2..a]);
                    let all_ints = idx.len() > 1
                        && idx.iter().all(|i| matches!(i.as_slice(), [Tok::Word(n)] if n.parse::<u32>().is_ok()));
                    if let (true, Some(Tok::Punct('(')), Some(c)) = (all_ints, t.get(a + 1), closing(&t, a + 1)) {
                        out.extend([
                            Tok::Word("size".into()),
                            Tok::Punct('('),
                            Tok::Word("get".into()),
                            Tok::Punct('('),
                        ]);
                        out.extend(normalize(&t[a + 2..c]));
                        for i in &idx {
                            out.push(Tok::Punct(','));
                            out.extend(i.iter().cloned());
                        }
                        out.extend([Tok::Punct(')'), Tok::Punct(')')]);
                        k = c + 1;
                        continue;
                    }
                }
            }
        }
        match &t[k] {
            Tok::Word(w) if matches!(w.as_str(), "partition_shape_A" | "partition_shape_B" | "partition_shape_C") => {
                out.push(Tok::Word(w.to_lowercase()))
            }
            x => out.push(x.clone()),
        }
        k += 1;
    }
    out
}

fn normalize_once(t: &[Tok]) -> Vec<Tok> {
    let w = |k: usize, s: &str| matches!(t.get(k), Some(Tok::Word(x)) if x == s);
    let p = |k: usize, c: char| t.get(k) == Some(&Tok::Punct(c));
    let splice = |a: usize, b: usize, mid: Vec<Tok>| {
        let mut out = t[..a].to_vec();
        out.extend(mid);
        out.extend(t[b..].iter().cloned());
        out
    };
    for i in 0..t.len() {
        // `typename decltype(make_tiled_mma(ATOM{}, ...))::AtomThrID{}` (the Blackwell tutorials'
        // cluster layout, mma_atom.hpp: TiledMMA::AtomThrID is the atom's ThrID) is
        // `mma_thr_id(ATOM)`.
        if w(i, "typename") && w(i + 1, "decltype") && p(i + 2, '(') && w(i + 3, "make_tiled_mma") && p(i + 4, '(') {
            if let (Some(c), Some(e)) = (closing(t, i + 2), closing(t, i + 4)) {
                let atom_end = t[i + 5..e].iter().position(|x| *x == Tok::Punct('{')).map(|k| i + 5 + k);
                if let Some(a) = atom_end {
                    let member =
                        p(c + 1, ':') && p(c + 2, ':') && w(c + 3, "AtomThrID") && p(c + 4, '{') && p(c + 5, '}');
                    if member && p(a + 1, '}') {
                        let mut v = vec![Tok::Word("mma_thr_id".into()), Tok::Punct('(')];
                        v.extend(t[i + 5..a].iter().cloned());
                        v.push(Tok::Punct(')'));
                        return splice(i, c + 6, v);
                    }
                }
            }
        }
        // static_cast<int>(E) is E; sizeof(T) of a value type is its bytes.
        if w(i, "static_cast") && p(i + 1, '<') {
            if let Some(c) = angle_close(t, i + 1) {
                if p(c + 1, '(') {
                    if let Some(e) = closing(t, c + 1) {
                        let mut v = vec![Tok::Punct('(')];
                        v.extend(t[c + 2..e].iter().cloned());
                        v.push(Tok::Punct(')'));
                        return splice(i, e + 1, v);
                    }
                }
            }
        }
        if w(i, "sizeof") && p(i + 1, '(') {
            if let Some(c) = closing(t, i + 1) {
                let ty = render(&unqualified(&t[i + 2..c]));
                if let Some(b) = type_bytes(&ty) {
                    return splice(i, c + 1, vec![Tok::Word(b.to_string())]);
                }
            }
        }
        // Integer arithmetic on literals: (a), a*b, a+b.
        if p(i, '(') && p(i + 2, ')') {
            if let Some(Tok::Word(a)) = t.get(i + 1) {
                if a.parse::<i64>().is_ok() {
                    return splice(i, i + 3, vec![Tok::Word(a.clone())]);
                }
            }
        }
        if let (Some(Tok::Word(a)), Some(Tok::Punct(op @ ('*' | '+'))), Some(Tok::Word(b))) =
            (t.get(i), t.get(i + 1), t.get(i + 2))
        {
            let before_ok = i == 0 || matches!(t[i - 1], Tok::Punct('<' | ',' | '('));
            let after_ok = matches!(t.get(i + 3), Some(Tok::Punct('>' | ',' | ')')));
            if let (Ok(x), Ok(y), true, true) = (a.parse::<i64>(), b.parse::<i64>(), before_ok, after_ok) {
                let v = if *op == '*' { x * y } else { x + y };
                return splice(i, i + 3, vec![Tok::Word(v.to_string())]);
            }
        }
        // size(make_layout(make_shape(Int<a>{}, Int<b>{}, ...))) is a*b*...
        if w(i, "size")
            && p(i + 1, '(')
            && w(i + 2, "make_layout")
            && p(i + 3, '(')
            && w(i + 4, "make_shape")
            && p(i + 5, '(')
        {
            if let Some(c) = closing(t, i + 1) {
                let inner = closing(t, i + 5).filter(|&e| e + 2 == c && p(e + 1, ')'));
                let leaves = inner.map(|e| split_commas(&t[i + 6..e]));
                let value = leaves.and_then(|ls| {
                    ls.iter()
                        .map(|l| match l.as_slice() {
                            [Tok::Word(int), Tok::Punct('<'), Tok::Word(n), Tok::Punct('>'), Tok::Punct('{'), Tok::Punct('}')]
                                if int == "Int" =>
                            {
                                n.parse::<i64>().ok()
                            }
                            _ => None,
                        })
                        .product::<Option<i64>>()
                });
                if let Some(v) = value {
                    return splice(i, c + 1, vec![Tok::Word(v.to_string())]);
                }
            }
        }
        // uint_byte_t<N> is the unsigned type of N bytes.
        if w(i, "uint_byte_t") && p(i + 1, '<') && p(i + 3, '>') {
            let ty = match t.get(i + 2) {
                Some(Tok::Word(n)) => match n.as_str() {
                    "1" => Some("uint8_t"),
                    "2" => Some("uint16_t"),
                    "4" => Some("uint32_t"),
                    "8" => Some("uint64_t"),
                    "16" => Some("uint128_t"),
                    _ => None,
                },
                _ => None,
            };
            if let Some(ty) = ty {
                let start = if i >= 3 && w(i - 3, "cute") && p(i - 2, ':') { i - 3 } else { i };
                return splice(start, i + 4, vec![Tok::Word(ty.into())]);
            }
        }
        // decltype(E){}
        if w(i, "decltype") && p(i + 1, '(') {
            if let Some(c) = closing(t, i + 1) {
                if p(c + 1, '{') && p(c + 2, '}') {
                    return splice(i, c + 3, t[i + 2..c].to_vec());
                }
            }
        }
        // shape<N>(Shape<...>{}) / get<N>(...)
        if (w(i, "shape") || w(i, "get")) && p(i + 1, '<') && p(i + 3, '>') && p(i + 4, '(') {
            if let (Some(Tok::Word(n)), Some(c)) = (t.get(i + 2), closing(t, i + 4)) {
                let inner = &t[i + 5..c];
                let n: usize = match n.parse() {
                    Ok(n) => n,
                    Err(_) => continue,
                };
                let value = if inner.ends_with(&[Tok::Punct('{'), Tok::Punct('}')]) {
                    template_id(&inner[..inner.len() - 2]).filter(|(h, _)| h == "Shape" || h == "Tile")
                } else {
                    None
                };
                if let Some((_, args)) = value {
                    if let Some(a) = args.get(n) {
                        let mut v = a.clone();
                        v.extend([Tok::Punct('{'), Tok::Punct('}')]);
                        return splice(i, c + 1, v);
                    }
                }
            }
        }
        // Policy<S, ...>::Stages
        if let Some(Tok::Word(h)) = t.get(i) {
            if h.starts_with("Mainloop") && p(i + 1, '<') {
                if let Some(c) = angle_close(t, i + 1) {
                    if p(c + 1, ':') && p(c + 2, ':') && w(c + 3, "ClusterShape") {
                        if let Some(s) = split_commas(&t[i + 2..c]).into_iter().nth(1) {
                            let start = if i >= 1 && w(i - 1, "typename") { i - 1 } else { i };
                            return splice(start, c + 4, s);
                        }
                    }
                    if p(c + 1, ':') && p(c + 2, ':') && w(c + 3, "Stages") {
                        if let Some(s) = split_commas(&t[i + 2..c]).into_iter().next() {
                            return splice(i, c + 4, s);
                        }
                    }
                }
            }
        }
        // TiledMMA<MMA_Atom<OP>, L, P>{}
        if w(i, "TiledMMA") && p(i + 1, '<') {
            if let Some(c) = angle_close(t, i + 1) {
                if p(c + 1, '{') && p(c + 2, '}') {
                    let args = split_commas(&t[i + 2..c]);
                    let atom = args.first().and_then(|a| template_id(a)).filter(|(h, _)| h == "MMA_Atom");
                    if let Some((_, op)) = atom {
                        if let [op] = op.as_slice() {
                            let mut v = vec![Tok::Word("make_tiled_mma".into()), Tok::Punct('(')];
                            for (k, a) in std::iter::once(op).chain(&args[1..]).enumerate() {
                                if k > 0 {
                                    v.push(Tok::Punct(','));
                                }
                                v.extend(a.iter().cloned());
                                v.extend([Tok::Punct('{'), Tok::Punct('}')]);
                            }
                            v.push(Tok::Punct(')'));
                            let start = if i >= 3 && w(i - 3, "cute") && p(i - 2, ':') { i - 3 } else { i };
                            return splice(start, c + 3, v);
                        }
                    }
                }
            }
        }
        // `int(N)` of a literal (the tutorials' `auto M = int(m);`) is N.
        let num = |k: usize| matches!(t.get(k), Some(Tok::Word(x)) if x.parse::<i64>().is_ok());
        if w(i, "int") && p(i + 1, '(') && num(i + 2) && p(i + 3, ')') && !(i > 0 && p(i - 1, '<')) {
            return splice(i, i + 4, vec![t[i + 2].clone()]);
        }
        // `0 % X` and `0 / X` as an argument (`blockIdx.x % size<0>(cluster_layout_vmnk)` at the
        // first CTA) are 0.
        if i > 0 && (p(i - 1, '(') || p(i - 1, ',')) && w(i, "0") && (p(i + 1, '%') || p(i + 1, '/')) {
            let (mut k, mut depth) = (i + 2, 0i32);
            while k < t.len() {
                match t[k] {
                    Tok::Punct('(' | '<' | '{') => depth += 1,
                    Tok::Punct(')' | '>' | '}') if depth > 0 => depth -= 1,
                    Tok::Punct(')' | ',') if depth == 0 => break,
                    _ => {}
                }
                k += 1;
            }
            return splice(i + 1, k, Vec::new());
        }
        // `select<I...>(make_X(a0, a1, ...))` (cute/container/tuple.hpp's select) is `make_X(aI...)`.
        // `get<I>(make_X(a0, a1, ...))` is aI.
        if w(i, "get") && p(i + 1, '<') && num(i + 2) && p(i + 3, '>') && p(i + 4, '(') && !(i > 0 && p(i - 1, '.')) {
            let maker = ["make_shape", "make_coord", "make_stride", "make_tuple"].iter().any(|m| w(i + 5, m));
            if let (true, true, Some(e), Some(ie)) = (maker, p(i + 6, '('), closing(t, i + 4), closing(t, i + 6)) {
                let args = split_commas(&t[i + 7..ie]);
                let k: usize = render(&t[i + 2..i + 3]).parse().unwrap_or(usize::MAX);
                if ie + 1 == e && k < args.len() {
                    return splice(i, e + 1, args[k].clone());
                }
            }
        }
        if w(i, "select") && p(i + 1, '<') && !(i > 0 && p(i - 1, '.')) {
            if let Some(c) = angle_close(t, i + 1) {
                let idx: Option<Vec<usize>> =
                    split_commas(&t[i + 2..c]).iter().map(|a| render(a).trim().parse().ok()).collect();
                let maker = ["make_shape", "make_coord", "make_stride", "make_tuple"].iter().any(|m| w(c + 2, m));
                if let (Some(idx), true, true, true) = (idx, p(c + 1, '('), maker, p(c + 3, '(')) {
                    if let (Some(e), Some(ie)) = (closing(t, c + 1), closing(t, c + 3)) {
                        let args = split_commas(&t[c + 4..ie]);
                        if ie + 1 == e && idx.iter().all(|&k| k < args.len()) {
                            let mut mid = vec![t[c + 2].clone(), Tok::Punct('(')];
                            for (n, &k) in idx.iter().enumerate() {
                                if n > 0 {
                                    mid.push(Tok::Punct(','));
                                }
                                mid.extend(args[k].iter().cloned());
                            }
                            mid.push(Tok::Punct(')'));
                            return splice(i, e + 1, mid);
                        }
                    }
                }
            }
        }
        // conditional_t<is_major<0,Stride>(), T, F>{}
        if w(i, "conditional_t") && p(i + 1, '<') {
            if let Some(c) = angle_close(t, i + 1) {
                let args = split_commas(&t[i + 2..c]);
                if let [cond, yes, no] = args.as_slice() {
                    let cond = unqualified(cond);
                    let major0 = if cond.first() == Some(&Tok::Word("is_major".into())) {
                        let text = render(&cond);
                        match (text.contains("TagToStrideA"), text.contains("TagToStrideB")) {
                            (true, _) => Some(text.contains("ColumnMajor")),
                            (_, true) => Some(text.contains("RowMajor")),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    if let Some(m) = major0 {
                        let start = if i >= 3 && w(i - 3, "cute") && p(i - 2, ':') { i - 3 } else { i };
                        return splice(start, c + 1, if m { yes.clone() } else { no.clone() });
                    }
                }
            }
        }
    }
    t.to_vec()
}

/// The bytes of a value type (`sizeof`), for the ones the configurations use.
fn type_bytes(ty: &str) -> Option<usize> {
    Some(match ty {
        "int8_t" | "uint8_t" => 1,
        "half_t" | "bfloat16_t" | "int16_t" | "uint16_t" => 2,
        "float" | "tfloat32_t" | "int32_t" | "uint32_t" | "int" => 4,
        "double" | "int64_t" | "uint64_t" => 8,
        "uint128_t" => 16,
        _ => return None,
    })
}

/// The concrete configurations the unit tests instantiate: (where, the struct's arguments).
fn test_configurations(src: &Source) -> Result<Vec<(String, Vec<Vec<Tok>>)>> {
    let mut out: Vec<(String, Vec<Vec<Tok>>)> = Vec::new();
    let files = match src.list("test/unit/gemm/device") {
        Ok(f) => f,
        Err(_) => return Ok(out),
    };
    for f in files {
        let name = f.rsplit('/').next().unwrap_or(&f);
        if !(name.ends_with(".cu")
            && ["sm50_gemm_", "sm61_gemm_", "sm70_gemm_", "sm80_gemm_"].iter().any(|p| name.starts_with(p)))
        {
            continue;
        }
        let toks = tokenize(&src.read(&f)?);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        for i in 0..plain.len() {
            if plain[i] != Tok::Word("DefaultGemmConfigurationToCutlass3Types".into())
                || plain.get(i + 1) != Some(&Tok::Punct('<'))
            {
                continue;
            }
            let Some(c) = angle_close(&plain, i + 1) else { continue };
            let args = split_commas(&plain[i + 2..c]);
            if !out.iter().any(|(_, a)| unqualified_all(a) == unqualified_all(&args)) {
                out.push((format!("{f}:{}", toks[i].1), args));
            }
        }
    }
    Ok(out)
}

fn unqualified_all(a: &[Vec<Tok>]) -> Vec<Vec<Tok>> {
    a.iter().map(|x| unqualified(x)).collect()
}

/// The forms of each configuration's mainloop: the configuration resolved in CONFIGURATIONS, its
/// `CollectiveMainloop` matched to a `CollectiveMma` specialization of COLLECTIVES, whose body is
/// read with its parameters bound. Each form is attributed to `mainloop:line [configuration]`.
fn collective_forms(
    src: &Source,
    stages: &HashMap<String, crate::kernel_stages::Stages>,
    tma_stand_ins: bool,
) -> Result<Vec<(String, usize, Form)>> {
    let mut out = Vec::new();
    let mut mainloops = Vec::new();
    for m in COLLECTIVES {
        if let Ok(text) = src.read(m) {
            let toks = tokenize(&text);
            let defs = struct_defs(&toks);
            mainloops.push((*m, toks, defs));
        }
    }
    // Each configuration: (where, the arguments of its CollectiveMma) or why none.
    let mut configs: Vec<(String, std::result::Result<Args, String>)> = Vec::new();
    if let Ok(conf_text) = src.read(CONFIGURATIONS) {
        let conf_toks = tokenize(&conf_text);
        let conf_plain: Vec<Tok> = conf_toks.iter().map(|t| t.0.clone()).collect();
        let conf_defs = struct_defs(&conf_toks);
        for (at, args) in test_configurations(src)? {
            let margs = match specialization(&conf_defs, "DefaultGemmConfigurationToCutlass3Types", &args) {
                None => Err(format!(
                    "no DefaultGemmConfigurationToCutlass3Types specialization matches {}",
                    render(&args.concat())
                )),
                Some((d, bind)) => members(&conf_defs, &conf_plain, d, bind, 0)
                    .get("CollectiveMainloop")
                    .and_then(|ml| template_id(ml))
                    .map(|(_, a)| a)
                    .ok_or_else(|| "the configuration has no CollectiveMainloop".to_string()),
            };
            configs.push((at, margs));
        }
    }
    let mut seen: Vec<Vec<Vec<Tok>>> = Vec::new();
    for (at, args, probe) in builder_uses(src)?.0 {
        // A carveout's stage count as real CUTLASS computed it (kernel_stages::FACTS): one per
        // instantiation of the function template or generic lambda that holds the use.
        let each: Vec<Vec<Vec<Tok>>> = match (&probe, stages.get(&at)) {
            (Some(_), Some(Ok(ns))) => ns
                .iter()
                .map(|n| {
                    let mut a = args.clone();
                    a[11] = tokenize(&format!("StageCount<{n}>")).into_iter().map(|t| t.0).collect();
                    a
                })
                .collect(),
            (Some(_), Some(Err(why))) => {
                out.push((at, 0, Form::Skip(format!("stage count {}: {why}", render(&args[11])))));
                continue;
            }
            _ => vec![args],
        };
        for args in each {
            if seen.contains(&unqualified_all(&args)) {
                continue;
            }
            seen.push(unqualified_all(&args));
            configs.push((at.clone(), sm90_builder(&args)));
        }
    }
    for (at, margs) in configs {
        let margs = match margs {
            Ok(m) => m,
            Err(why) => {
                out.push((at, 0, Form::Skip(why)));
                continue;
            }
        };
        let short = at.rsplit('/').next().unwrap_or(&at).to_string();
        let mut found = false;
        for (file, toks, defs) in &mainloops {
            let Some((md, mbind)) = specialization(defs, "CollectiveMma", &margs) else { continue };
            found = true;
            for (line, f) in mainloop_forms(toks, md, mbind, tma_stand_ins) {
                out.push((format!("{file}:{line} [{short}]"), line, f));
            }
        }
        for (line, f) in rs_transpose_forms(src, &margs) {
            out.push((format!("{RS_TRANSPOSE}:{line} [{short}]"), line, f));
        }
        if !found {
            out.push((
                at.clone(),
                0,
                Form::Skip(format!(
                    "no CollectiveMma specialization of {} matches {}",
                    COLLECTIVES.join(", "),
                    render(&margs[0])
                )),
            ));
        }
    }
    Ok(out)
}

/// The forms of one `CollectiveMma` specialization's body, its template parameters bound.
fn mainloop_forms(
    toks: &[(Tok, usize)],
    md: &StructDef,
    mbind: HashMap<String, Vec<Tok>>,
    with_tma_stand_ins: bool,
) -> Vec<(usize, Form)> {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let mut inside: Vec<Binding> = bindings(toks).into_iter().filter(|b| md.body.contains(&b.pos)).collect();
    // `TYPE NAME;` declarations of the body whose type is a member: `TiledMma tiled_mma;`.
    for k in md.body.clone() {
        if let (Some(Tok::Word(ty)), Some(Tok::Word(n)), Some(Tok::Punct(';'))) =
            (plain.get(k), plain.get(k + 1), plain.get(k + 2))
        {
            let known = ["TiledMma", "GmemTiledCopyA", "GmemTiledCopyB"].contains(&ty.as_str());
            if known && matches!(plain.get(k.wrapping_sub(1)), Some(Tok::Punct(';' | '{' | '}'))) {
                inside.push(Binding {
                    pos: k,
                    line: toks[k].1,
                    keyword: "declared".into(),
                    name: n.clone(),
                    rhs: vec![Tok::Word(ty.clone()), Tok::Punct('{'), Tok::Punct('}')],
                });
            }
        }
    }
    inside.sort_by_key(|b| b.pos);
    rs_mainloop_bindings(&plain, md, &mbind, &mut inside);
    blockwise_mainloop_bindings(&plain, md, &mbind, &mut inside);
    blockwise_split_bindings(&plain, md, &mbind, &mut inside);
    let mut forms = Vec::new();
    // cutlass/cutlass.h: `static const int NumThreadsPerWarpGroup = 128;`.
    let mut mbind = mbind;
    mbind.entry("NumThreadsPerWarpGroup".into()).or_insert_with(|| vec![Tok::Word("128".into())]);
    // A TMA mainloop's global-memory tiles are TMA coordinate tiles (see [`tma_stand_ins`]).
    let tma = md.body.clone().any(|k| matches!(plain.get(k), Some(Tok::Word(w)) if w == "tma_load_a"));
    if tma && with_tma_stand_ins {
        tma_stand_ins(toks, md, &mut mbind, &mut inside);
        blockwise_scale_stand_ins(toks, md, &mut mbind, &mut inside);
    }
    let mut gmem = if tma { HashMap::new() } else { gmem_stand_ins(&mbind) };
    if !gmem.is_empty() {
        mbind.insert(STAND_IN.into(), Vec::new());
    }
    gmem.extend(accumulators(&mbind));
    kernel_forms(&inside, mbind, &HashMap::new(), gmem, GMEM_WHY, &mut forms);
    forms
}

/// The accumulators a mainloop's `mma()` takes (`FrgTensorC& accum`), as the SM90 GEMM kernels
/// make them: `partition_fragment_C(tiled_mma, take<0,2>(blk_shape))` (a register fragment of the
/// CTA tile; gemm/kernel/sm90_gemm_tma_warpspecialized*.hpp), written with the configuration's
/// TiledMma and TileShape. Read by 4.7's blockwise mainloop (`tiled_divide(accum, cute::tuple<_1,
/// NumSplitsM>{})`); empty where either is not bound.
fn accumulators(mbind: &HashMap<String, Vec<Tok>>) -> HashMap<String, Vec<Tok>> {
    let (Some(mma), Some(tile)) = (mbind.get("TiledMma_"), mbind.get("TileShape_")) else { return HashMap::new() };
    let (m, t) = (render(mma), render(tile));
    let text = format!("partition_fragment_C({m}{{}}, make_shape(size<0>({t}{{}}), size<1>({t}{{}})))");
    HashMap::from([("accum".to_string(), tokenize(&text).into_iter().map(|t| t.0).collect())])
}

/// The env key that marks a mainloop read with stand-in global-memory tiles.
const STAND_IN: &str = "\u{1}stand-in";

/// The run-time GEMM problem the mainloops' stand-ins are made for (dynamic integers), and the
/// CTA whose tiles they take (cluster rank 0, k tile 0).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Problem {
    m: i64,
    n: i64,
    k: i64,
    l: i64,
    m_coord: i64,
    n_coord: i64,
    l_coord: i64,
}

/// The problem of kernel_forms.cases and kernel_forms_tma.cases: M = N = K = 4096, L = 1, the
/// first CTA.
const FIRST_PROBLEM: Problem = Problem { m: 4096, n: 4096, k: 4096, l: 1, m_coord: 0, n_coord: 0, l_coord: 0 };

/// The problem of kernel_forms_residue.cases: extents no CTA tile (64-256) or scale-factor
/// granularity (128) divides, each a multiple of 16 elements so that every TMA stride is 16-byte
/// aligned for 1-, 2- and 4-byte elements (CuTe's make_tma_copy requires it), two batches (a
/// nonzero batch stride) and the CTA (1, 2) of batch 1 (nonzero coordinates in every tile).
const RESIDUE_PROBLEM: Problem = Problem { m: 1040, n: 784, k: 528, l: 2, m_coord: 1, n_coord: 2, l_coord: 1 };

thread_local! {
    static PROBLEM: std::cell::Cell<Problem> = const { std::cell::Cell::new(FIRST_PROBLEM) };
}

/// The problem the stand-ins are made for on this thread (see [`with_problem`]).
fn problem() -> Problem {
    PROBLEM.with(std::cell::Cell::get)
}

/// Run `f` with the stand-ins made for `p` (restored afterwards).
fn with_problem<T>(p: Problem, f: impl FnOnce() -> T) -> T {
    let old = PROBLEM.with(|c| c.replace(p));
    let out = f();
    PROBLEM.with(|c| c.set(old));
    out
}

impl Problem {
    /// The batch stride of `make_cute_packed_stride` for an operand of `mn` rows: `mn * K` for
    /// several batches, else 0.
    fn batch_stride(&self, mn: i64) -> i64 {
        if self.l > 1 {
            mn * self.k
        } else {
            0
        }
    }
}

/// The global-memory tiles a cp.async mainloop's operator() (or load()) takes at run time, `gA`
/// (BLK_M,BLK_K,k) and `gB` (BLK_N,BLK_K,k), stood in by those of an M = N = K =
/// [`FIRST_PROBLEM`] problem (dynamic extents and leading dimensions, as the kernels' `mA_mkl`
/// has) at the first CTA: `local_tile(make_layout(make_shape(M, K), stride), (BLK_M, BLK_K),
/// make_coord(0, _))`, the stride of the configuration's `StrideA` (`TagToStrideA_t<RowMajor>` is
/// K-major `(K, _1)`, `<ColumnMajor>` M-major `(_1, M)`; for B, `TagToStrideB_t<ColumnMajor>` is
/// K-major and `<RowMajor>` N-major: cutlass/gemm/gemm.h TagToStrideA/B). Also named `gA_in`/
/// `gB_in` (the SM90 cp.async mainloop's load()). Empty where the strides are not such tags.
fn gmem_stand_ins(mbind: &HashMap<String, Vec<Tok>>) -> HashMap<String, Vec<Tok>> {
    let mut out = HashMap::new();
    let Some(tile) = mbind.get("TileShape_") else { return out };
    let pr = problem();
    for (names, stride, modes, k_major_tag, mn, coord) in [
        (["gA", "gA_in"], "StrideA_", "0, 2", "RowMajor", pr.m, pr.m_coord),
        (["gB", "gB_in"], "StrideB_", "1, 2", "ColumnMajor", pr.n, pr.n_coord),
    ] {
        let k = pr.k;
        let Some(s) = mbind.get(stride) else { continue };
        let tag = s.iter().find_map(|t| match t {
            Tok::Word(w) if w == "RowMajor" || w == "ColumnMajor" => Some(w.as_str()),
            _ => None,
        });
        let d = match tag {
            Some(t) if t == k_major_tag => format!("make_stride({k}, Int<1>{{}})"),
            Some(_) => format!("make_stride(Int<1>{{}}, {mn})"),
            None => continue,
        };
        let (m0, m1) = modes.split_once(", ").unwrap_or(("0", "2"));
        let t = render(tile);
        let text = format!(
            "local_tile(make_layout(make_shape({mn}, {k}), {d}), make_shape(size<{m0}>({t}{{}}), size<{m1}>({t}{{}})), make_coord({coord}, _))"
        );
        let l: Vec<Tok> = tokenize(&text).into_iter().map(|t| t.0).collect();
        for name in names {
            out.insert(name.to_string(), l.clone());
        }
    }
    out
}

/// The keyword of a TMA mainloop's stand-in Params TMA copy binding (see [`tma_stand_ins`]).
const TMA_COPY: &str = "\u{1}tma-copy";

/// The SM90 TMA mainloops (sm90_mma_tma_gmma_ss.hpp, KernelTma; ..._warpspecialized.hpp and its
/// FP8 variant) read with what they compute from the run-time problem of an M = N = K =
/// [`FIRST_PROBLEM`], L = 1 GEMM (the unit tests' `make_cute_packed_stride`: K-major A
/// `(K, _1, 0)`, M-major `(_1, M, 0)`, a batch stride of 0 for L = 1) at the first CTA and cluster
/// rank 0:
/// - the Params' TMA copies, bound where to_underlying_arguments makes them: `tma_load_a =
///   make_tma_copy(GmemTiledCopyA{}, tensor_a, SmemLayoutA{}(_,_,Int<0>{}), make_shape(BLK_M,
///   BLK_K), size<1>(ClusterShape{}))` with `tensor_a = make_tensor(ptr_A, make_layout(make_shape(M,
///   K, L), dA))` written as its element type (that of `ptr_A`'s `reinterpret_cast`: the
///   mainloop's InternalElementA, `uint_bit_t` of the element's width or tfloat32_t for float, or
///   ElementA) and layout; `make_tma_copy_A_sm90(op, t, s, TileShape, Cluster)` is that call
///   (copy_traits_sm90_tma.hpp: `remove<1>(cta_tiler)` and `size<1>(cluster_size)`, the same
///   `make_tma_copy_tiled`), likewise B with the tile's N and `size<0>` of the cluster;
/// - `M`, `N`, `K`, `L` of `auto [M,N,K,L] = problem_shape_MNKL` and the block coordinates of
///   `auto [m_coord, n_coord, k_coord, l_coord] = blk_coord` (0: the first CTA);
/// - `X.tma_load_a` is `tma_load_a`, `tma_load_a.get_tma_tensor(S)` the language's
///   `get_tma_tensor(tma_load_a, S)`, `cluster_local_block_id.x/y` 0 (block rank 0 in the
///   cluster), `get<i>(load_inputs)` the i-th tensor load_init returns;
/// - KernelTma's operator() arguments `gA`/`gB`, which its kernel (sm90_gemm_tma.hpp) makes as
///   `local_tile(tma_load_a.get_tma_tensor(make_shape(M,K,L)), TileShape{}, make_coord(_,_,_),
///   Step<_1,X,_1>{})(_,_,m_coord,_,l_coord)`, bound to that at the first CTA.
///
/// The pointer-array mainloop (per-group tensor maps) is left as it was (not read).
fn tma_stand_ins(toks: &[(Tok, usize)], md: &StructDef, mbind: &mut Bound, inside: &mut Vec<Binding>) {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let w = |k: usize, s: &str| matches!(plain.get(k), Some(Tok::Word(x)) if x == s);
    let p = |k: usize, c: char| plain.get(k) == Some(&Tok::Punct(c));
    if md.body.clone().any(|k| w(k, "tensormaps")) {
        return;
    }
    let pr = problem();
    // The RS mainloop's SwapAB: its A is the problem's B (N x K, B's stride) and its B the
    // problem's A, and the kernel gives it the problem with M and N swapped.
    let swapped = rs_swap_transpose(&plain, md, mbind).is_some_and(|(swap, _)| swap);
    let (pm, pn) = if swapped { (pr.n, pr.m) } else { (pr.m, pr.n) };
    for (name, v) in [("M", pm), ("N", pn), ("K", pr.k), ("L", pr.l)] {
        mbind.insert(name.into(), vec![Tok::Word(v.to_string())]);
    }
    for (c, v) in [("m_coord", pr.m_coord), ("n_coord", pr.n_coord), ("k_coord", 0), ("l_coord", pr.l_coord)] {
        mbind.insert(c.into(), vec![Tok::Word(v.to_string())]);
    }
    let text = |s: &str| -> Vec<Tok> { tokenize(s).into_iter().map(|t| t.0).collect() };
    // The names load_init returns (`return cute::make_tuple(gA_mkl, gB_nkl);`).
    let mut returned: Vec<String> = Vec::new();
    if let Some(li) = md.body.clone().find(|&k| w(k, "load_init") && p(k + 1, '(')) {
        // The `return` of a make_tuple (the blockwise mainloop's lambdas return first).
        let tuple_at = |r: usize| (r..r + 6).find(|&k| w(k, "make_tuple") && p(k + 1, '('));
        if let Some(r) = (li..md.body.end).find(|&k| w(k, "return") && tuple_at(k).is_some()) {
            if let Some(mt) = tuple_at(r) {
                if let Some(c) = closing(&plain, mt + 1) {
                    returned = split_commas(&plain[mt + 2..c])
                        .iter()
                        .filter_map(|a| match a.as_slice() {
                            [Tok::Word(x)] => Some(x.clone()),
                            _ => None,
                        })
                        .collect();
                }
            }
        }
    }
    // The token rewrites, on every binding of the body.
    for b in inside.iter_mut() {
        let r = &b.rhs;
        let mut o: Vec<Tok> = Vec::with_capacity(r.len());
        let mut k = 0;
        while k < r.len() {
            let at = |j: usize| r.get(k + j);
            let is = |j: usize, s: &str| matches!(at(j), Some(Tok::Word(x)) if x == s);
            let tma = |j: usize| is(j, "tma_load_a") || is(j, "tma_load_b");
            // `mainloop_params.tma_load_a` -> `tma_load_a`
            if matches!(at(0), Some(Tok::Word(_))) && at(1) == Some(&Tok::Punct('.')) && tma(2) {
                k += 2;
                continue;
            }
            // `tma_load_a.get_tma_tensor(S)` -> `get_tma_tensor(tma_load_a, S)`
            if tma(0) && at(1) == Some(&Tok::Punct('.')) && is(2, "get_tma_tensor") && at(3) == Some(&Tok::Punct('(')) {
                o.extend([Tok::Word("get_tma_tensor".into()), Tok::Punct('('), r[k].clone(), Tok::Punct(',')]);
                k += 4;
                continue;
            }
            // `cluster_local_block_id.x` -> `0`
            if is(0, "cluster_local_block_id") && at(1) == Some(&Tok::Punct('.')) && (is(2, "x") || is(2, "y")) {
                o.push(Tok::Word("0".into()));
                k += 3;
                continue;
            }
            // `get<i>(load_inputs)` -> the i-th tensor load_init returns
            if is(0, "get")
                && at(1) == Some(&Tok::Punct('<'))
                && is(5, "load_inputs")
                && at(6) == Some(&Tok::Punct(')'))
            {
                let i = match at(2) {
                    Some(Tok::Word(i)) => i.parse::<usize>().ok(),
                    _ => None,
                };
                if let Some(x) = i.and_then(|i| returned.get(i)) {
                    o.push(Tok::Word(x.clone()));
                    k += 7;
                    continue;
                }
            }
            o.push(r[k].clone());
            k += 1;
        }
        b.rhs = o;
    }
    // The Params' TMA copies, where to_underlying_arguments makes them.
    let word_of = |key: &str| mbind.get(key).map(|v| render(&unqualified(v))).unwrap_or_default();
    let tags = |key: &str| {
        mbind.get(key).and_then(|s| {
            s.iter().find_map(|t| match t {
                Tok::Word(x) if x == "RowMajor" || x == "ColumnMajor" => Some(x.clone()),
                _ => None,
            })
        })
    };
    let (a_stride, b_stride) = if swapped {
        (("StrideB_", "ColumnMajor"), ("StrideA_", "RowMajor"))
    } else {
        (("StrideA_", "RowMajor"), ("StrideB_", "ColumnMajor"))
    };
    let ops = [("a", "A", a_stride, ("0", "M"), "1"), ("b", "B", b_stride, ("1", "N"), "0")];
    for (x, big, (stride, k_major_tag), (tile_mode, mn), cluster_mode) in ops {
        let name = format!("tma_load_{x}");
        let Some(pos) = md.body.clone().find(|&k| w(k, &name) && p(k + 1, '=')) else { continue };
        // The blockwise-scaled mainloop takes (stride, scale-factor layout) pairs: its stride's tag.
        let Some(tag) = tags(stride).or_else(|| tags(&format!("StridePair{big}_"))) else { continue };
        // The element type of `ptr_A = reinterpret_cast<T const*>(args.ptr_A)`.
        let ptr = format!("ptr_{big}");
        let cast = md
            .body
            .clone()
            .find(|&k| w(k, &ptr) && p(k + 1, '=') && w(k + 2, "reinterpret_cast") && p(k + 3, '<'))
            .and_then(|k| match plain.get(k + 4) {
                Some(Tok::Word(t)) => Some(t.clone()),
                _ => None,
            });
        let element = word_of(&format!("Element{big}_"));
        let ty = match cast.as_deref() {
            Some(t) if t == format!("InternalElement{big}") => match element.as_str() {
                "float" => "tfloat32_t".to_string(),
                e => match type_bytes(e).map(|b| 8 * b).or(if e.starts_with("float_e") { Some(8) } else { None }) {
                    Some(bits) => format!("uint{bits}_t"),
                    None => continue,
                },
            },
            Some(t) if t == format!("Element{big}") => element.clone(),
            _ => continue,
        };
        let extent = if x == "a" { pm } else { pn };
        let batch = pr.batch_stride(extent);
        let d = if tag == k_major_tag {
            format!("make_stride({}, Int<1>{{}}, {batch})", pr.k)
        } else {
            format!("make_stride(Int<1>{{}}, {extent}, {batch})")
        };
        let rhs = format!(
            "make_tma_copy(GmemTiledCopy{big}{{}}, {ty}, make_layout(make_shape({mn}, K, L), {d}), SmemLayout{big}{{}}(_, _, Int<0>{{}}), make_shape(size<{tile_mode}>(TileShape{{}}), size<2>(TileShape{{}})), size<{cluster_mode}>(ClusterShape{{}}))"
        );
        inside.push(Binding { pos, line: toks[pos].1, keyword: TMA_COPY.into(), name: name.clone(), rhs: text(&rhs) });
        // KernelTma's operator() argument `gA`: its kernel's TMA coordinate tile.
        let g = format!("g{big}");
        let bound = inside.iter().any(|b| b.name == g);
        let arg = md.body.clone().find(|&k| w(k, &g) && (p(k + 1, ',') || p(k + 1, ')')) && p(k.wrapping_sub(1), '&'));
        if let (false, Some(at)) = (bound, arg) {
            let step = if x == "a" { "Step<_1, X, _1>" } else { "Step<X, _1, _1>" };
            let mk = format!("m{big}_mkl");
            let rank = if x == "a" { "M" } else { "N" };
            for (nm, rhs) in [
                (mk.clone(), format!("get_tma_tensor({name}, make_shape({rank}, K, L))")),
                (
                    g.clone(),
                    format!(
                        "local_tile({mk}, TileShape{{}}, make_coord(_, _, _), {step}{{}})(_, _, {}, _, {})",
                        if x == "a" { pr.m_coord } else { pr.n_coord },
                        pr.l_coord
                    ),
                ),
            ] {
                inside.push(Binding { pos: at, line: toks[at].1, keyword: "Tensor".into(), name: nm, rhs: text(&rhs) });
            }
        }
    }
    inside.sort_by_key(|b| b.pos);
}

/// The scale-factor layout `ScaleConfig::tile_atom_to_shape_SFA/SFB(make_shape(M, N, K, L))`
/// (cutlass/detail/blockwise_scale_layout.hpp, Sm1xxBlockwiseScaleConfig, which
/// Sm90BlockwiseScaleConfig is, the same in 4.2 and 4.7) of an M = N = K = [`FIRST_PROBLEM`],
/// L = 1 problem, as the language writes it with run-time extents (dynamic integers):
/// `((G, ceil(MN/G)), (GK, ceil(K/GK)), L)` with strides `((_0, _1), (_0, ceil(MN/G)), S)` for
/// an MN-major scale-factor tensor, `((_0, ceil(K/GK)), (_0, _1), S)` for a K-major one, `S` the
/// size of the (M|N, K) part without its zero strides, `size(filter_zeros(mk_layout))`. `g` is
/// the M (or N) granularity, `gk` K's.
fn scale_layout_stand_in(g: i64, gk: i64, mn_major: bool, extent: i64) -> Option<String> {
    if g <= 0 || gk <= 0 {
        return None;
    }
    let pr = problem();
    let (mn, k) = ((extent + g - 1) / g, (pr.k + gk - 1) / gk);
    let stride = if mn_major {
        format!("make_stride(make_stride(_0{{}}, _1{{}}), make_stride(_0{{}}, {mn}), {})", mn * k)
    } else {
        format!("make_stride(make_stride(_0{{}}, {k}), make_stride(_0{{}}, _1{{}}), {})", mn * k)
    };
    Some(format!(
        "make_layout(make_shape(make_shape(Int<{g}>{{}}, {mn}), make_shape(Int<{gk}>{{}}, {k}), {}), {stride})",
        pr.l
    ))
}

/// The value of an `if constexpr` condition over boolean `flags`: a flag, `!C`, `(C)`, `A && B`,
/// `A || B`; None where a word is not a flag.
fn flag_condition(c: &[Tok], flags: &HashMap<&str, bool>) -> Option<bool> {
    let split = |op: char| -> Vec<&[Tok]> {
        let (mut out, mut depth, mut start, mut k) = (Vec::new(), 0i32, 0, 0);
        while k < c.len() {
            match &c[k] {
                Tok::Punct('(') => depth += 1,
                Tok::Punct(')') => depth -= 1,
                Tok::Punct(x) if *x == op && depth == 0 && c.get(k + 1) == Some(&Tok::Punct(op)) => {
                    out.push(&c[start..k]);
                    start = k + 2;
                    k += 2;
                    continue;
                }
                _ => {}
            }
            k += 1;
        }
        out.push(&c[start..]);
        out
    };
    for (op, any) in [('|', true), ('&', false)] {
        let parts = split(op);
        if parts.len() > 1 {
            let v = parts.iter().map(|x| flag_condition(x, flags)).collect::<Option<Vec<bool>>>()?;
            return Some(if any { v.contains(&true) } else { !v.contains(&false) });
        }
    }
    match c {
        [Tok::Word(f)] => flags.get(f.as_str()).copied(),
        [Tok::Punct('!'), rest @ ..] => flag_condition(rest, flags).map(|v| !v),
        [Tok::Punct('('), .., Tok::Punct(')')] if closing(c, 0) == Some(c.len() - 1) => {
            flag_condition(&c[1..c.len() - 1], flags)
        }
        _ => None,
    }
}

/// The FP8 blockwise-scaled mainloop read with the TMA stand-ins (after [`tma_stand_ins`]): its
/// scale-factor tensors, made at run time from `Params::layout_SFA/SFB`, stood in by what the
/// host passes for the same problem (`ScaleConfig::tile_atom_to_shape_SFA/SFB(make_shape(M, N,
/// K, L))`, the unit test's and examples 67/68's; see [`scale_layout_stand_in`]), the granularities
/// and majors those of the use's ScaleConfig (the LayoutSFA/SFB of its StridePairA_/B_):
/// - `X.layout_SFA` is that layout (`layout_SFA`, bound), `X.tma_load_sfa` is `tma_load_sfa`,
///   `tma_load_sfa.get_tma_tensor(S)` the language's `get_tma_tensor(tma_load_sfa, S)`;
/// - `IsTmaLoadSFA = ScaleMsPerTile >= 32 && ScaleNsPerTile < 32 && MMajorSFA` (and B's mirror;
///   `MMajorSFA` is `size<0,1>(LayoutSFA{}.stride()) == 1`: an MN-major layout's `_1`) decides
///   each `if constexpr (IsTmaLoadSFA ...)`: the bindings of the branch not taken are dropped (not
///   instantiated), and load_init's `auto mSFA_mkl = [&]() { if constexpr (..) { return E; } else
///   { return F; } }();` is the tensor of the branch taken: the TMA coordinate tensor
///   `get_tma_tensor(tma_load_sfa, shape(filter_zeros(layout_SFA)))` or the global-memory tensor
///   `make_tensor(make_gmem_ptr(ptr_SFA), layout_SFA)` (its layout);
/// - where the TMA path is taken, the Params' `tma_load_sfa = make_tma_copy(GmemTiledCopyScaleTMA{},
///   tensor_sfa, smem, tile, _1{})` of to_underlying_arguments, `tensor_sfa = make_tensor(ptr_SFA,
///   filter_zeros(args.layout_SFA))` written as its element type (`ptr_SFA`'s reinterpret_cast,
///   ElementBlockScale) and layout;
/// - `*k_tile_iter` (load_auxiliary's k loop) is the first k tile, 0.
fn blockwise_scale_stand_ins(toks: &[(Tok, usize)], md: &StructDef, mbind: &mut Bound, inside: &mut Vec<Binding>) {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let w = |k: usize, s: &str| matches!(plain.get(k), Some(Tok::Word(x)) if x == s);
    let p = |k: usize, c: char| plain.get(k) == Some(&Tok::Punct(c));
    if !md.body.clone().any(|k| w(k, "IsTmaLoadSFA")) {
        return;
    }
    let pair = |key: &str| mbind.get(key).and_then(|v| tuple_pair(v)).and_then(|(_, sf)| scale_config(&sf));
    let (Some(([gm, _, gk], [major_a, _])), Some(([_, gn, _], [_, major_b]))) =
        (pair("StridePairA_"), pair("StridePairB_"))
    else {
        return;
    };
    let tile = static_tile(mbind);
    let [tm, tn, _] = tile[..] else { return };
    let (Some(sfa), Some(sfb)) = (
        scale_layout_stand_in(gm, gk, major_a == "MN", problem().m),
        scale_layout_stand_in(gn, gk, major_b == "MN", problem().n),
    ) else {
        return;
    };
    let (ms, ns) = (tm / gm, tn / gn);
    let tma_a = ms >= 32 && ns < 32 && major_a == "MN";
    let tma_b = ns >= 32 && ms < 32 && major_b == "MN";
    let flags: HashMap<&str, bool> = [("IsTmaLoadSFA", tma_a), ("IsTmaLoadSFB", tma_b)].into_iter().collect();
    let text = |s: &str| -> Vec<Tok> { tokenize(s).into_iter().map(|t| t.0).collect() };
    mbind.insert("layout_SFA".into(), text(&sfa));
    mbind.insert("layout_SFB".into(), text(&sfb));
    // The branches of `if constexpr (C)` over the flags that are not taken.
    let mut dropped: Vec<std::ops::Range<usize>> = Vec::new();
    for k in md.body.clone() {
        if !(w(k, "if") && w(k + 1, "constexpr") && p(k + 2, '(')) {
            continue;
        }
        let Some(c) = closing(&plain, k + 2) else { continue };
        let Some(v) = flag_condition(&plain[k + 3..c], &flags) else { continue };
        let then_end = statement_end(&plain, c + 1);
        let else_range = if w(then_end, "else") { then_end + 1..statement_end(&plain, then_end + 1) } else { 0..0 };
        dropped.push(if v { else_range } else { c + 1..then_end });
    }
    inside.retain(|b| !dropped.iter().any(|r| r.contains(&b.pos)));
    // The Params' scale-factor TMA copies, where to_underlying_arguments makes them.
    for (x, big, taken) in [("a", "A", tma_a), ("b", "B", tma_b)] {
        let name = format!("tma_load_sf{x}");
        if !taken {
            continue;
        }
        let Some(k) = md.body.clone().find(|&k| w(k, &name) && p(k + 1, '=') && w(k + 2, "make_tma_copy")) else {
            continue;
        };
        let Some(c) = closing(&plain, k + 3) else { continue };
        let args = split_commas(&plain[k + 4..c]);
        let tensor = match args.get(1).map(Vec::as_slice) {
            Some([Tok::Word(t)]) => t.clone(),
            _ => continue,
        };
        // `Tensor tensor_sfa = make_tensor(ptr_SFA, L)` and `ptr_SFA = reinterpret_cast<T const*>(..)`.
        let Some(made) = inside.iter().find(|b| b.name == tensor && b.pos < k) else { continue };
        let r = &made.rhs;
        if !(matches!(r.first(), Some(Tok::Word(m)) if m == "make_tensor") && closing(r, 1) == Some(r.len() - 1)) {
            continue;
        }
        let margs = split_commas(&r[2..r.len() - 1]);
        let [Tok::Word(ptr)] = margs[0].as_slice() else { continue };
        let Some(layout) = margs.get(1).filter(|_| margs.len() == 2) else { continue };
        let Some(elem) = md
            .body
            .clone()
            .find(|&j| w(j, ptr) && p(j + 1, '=') && w(j + 2, "reinterpret_cast") && p(j + 3, '<'))
            .and_then(|j| plain.get(j + 4).cloned())
        else {
            continue;
        };
        let mut rhs = vec![Tok::Word("make_tma_copy".into()), Tok::Punct('(')];
        rhs.extend(args[0].iter().cloned());
        for a in [vec![elem], layout.clone()].into_iter().chain(args[2..].iter().cloned()) {
            rhs.push(Tok::Punct(','));
            rhs.extend(a);
        }
        rhs.push(Tok::Punct(')'));
        let _ = big;
        inside.push(Binding { pos: k, line: toks[k].1, keyword: TMA_COPY.into(), name, rhs: unqualified(&rhs) });
    }
    for b in inside.iter_mut() {
        // load_init's `[&]() { if constexpr (C) { return E; } else { return F; } }()`: the tensor taken.
        if let [Tok::Punct('['), Tok::Punct('&'), Tok::Punct(']'), Tok::Punct('('), Tok::Punct(')'), Tok::Punct('{'), ..] =
            b.rhs.as_slice()
        {
            let r = &b.rhs;
            let chosen = (|| {
                let [Tok::Word(i), Tok::Word(ce), Tok::Punct('(')] = r.get(6..9)? else { return None };
                if i != "if" || ce != "constexpr" {
                    return None;
                }
                let c = closing(r, 8)?;
                let v = flag_condition(&r[9..c], &flags)?;
                let then_end = closing(r, c + 1)?;
                let block = if v {
                    c + 1..then_end
                } else {
                    let e = then_end + 1;
                    if !matches!(r.get(e), Some(Tok::Word(x)) if x == "else") {
                        return None;
                    }
                    e + 1..closing(r, e + 1)?
                };
                match &r[block.start + 1..block.end] {
                    [Tok::Word(ret), e @ .., Tok::Punct(';')] if ret == "return" => Some(e.to_vec()),
                    _ => None,
                }
            })();
            if let Some(e) = chosen {
                b.rhs = e;
                b.keyword = "Tensor".into();
            }
        }
        let r = &b.rhs;
        let mut o: Vec<Tok> = Vec::with_capacity(r.len());
        let mut k = 0;
        while k < r.len() {
            let at = |j: usize| r.get(k + j);
            let is = |j: usize, s: &str| matches!(at(j), Some(Tok::Word(x)) if x == s);
            let member =
                |j: usize| ["tma_load_sfa", "tma_load_sfb", "layout_SFA", "layout_SFB"].iter().any(|m| is(j, m));
            // `mainloop_params.layout_SFA` -> `layout_SFA`, `mainloop_params.tma_load_sfa` -> `tma_load_sfa`
            if matches!(at(0), Some(Tok::Word(_))) && at(1) == Some(&Tok::Punct('.')) && member(2) {
                k += 2;
                continue;
            }
            // `tma_load_sfa.get_tma_tensor(S)` -> `get_tma_tensor(tma_load_sfa, S)`
            if (is(0, "tma_load_sfa") || is(0, "tma_load_sfb"))
                && at(1) == Some(&Tok::Punct('.'))
                && is(2, "get_tma_tensor")
                && at(3) == Some(&Tok::Punct('('))
            {
                o.extend([Tok::Word("get_tma_tensor".into()), Tok::Punct('('), r[k].clone(), Tok::Punct(',')]);
                k += 4;
                continue;
            }
            // `T(_,_,_,*k_tile_iter)` -> `T(_,_,_,0)`
            if at(0) == Some(&Tok::Punct('*'))
                && is(1, "k_tile_iter")
                && matches!(o.last(), Some(Tok::Punct(',' | '(')))
            {
                o.push(Tok::Word("0".into()));
                k += 2;
                continue;
            }
            o.push(r[k].clone());
            k += 1;
        }
        b.rhs = o;
    }
    inside.sort_by_key(|b| b.pos);
}

// ---------------------------------------------------------------------------------------------
// The SM90 collective builder, for its SS mainloops (sm90_gmma_builder.inl: GMMA_TMA_WS_SS with
// MainloopSm90TmaGmmaWarpSpecialized or, for FP8 inputs, ...FP8; GMMA_TMA_SS (KernelTma) with
// MainloopSm90TmaGmma<Stages, ClusterShape> and make_tiled_mma(op) alone; GMMA_CpAsync_WS_SS with
// MainloopSm90CpAsyncGmmaWarpSpecialized, a Cooperative atom layout of 2x1x1 only for a tile M of
// 128 or more, and gmem tiled copies of detail::make_simt_gmem_tiled_copy).
//
// `CollectiveBuilder<Sm90, OpClassTensorOp, EA, LayoutA, AlignA, EB, LayoutB, AlignB, EAcc, TileShape,
// ClusterShape, StageCount, Schedule>::CollectiveOp` (sm90_gmma_builder.inl, its first
// specialization: KernelTmaWarpSpecialized / Pingpong / Cooperative, A not from registers) builds
// `CollectiveMma<MainloopSm90TmaGmmaWarpSpecialized<Stages, ClusterShape, Schedule>, TileShape, EA,
// TagToStrideA_t<LayoutA>, EB, TagToStrideB_t<LayoutB>, TiledMma, ..., SmemLayoutAtomA, ...>` with
// - the operand majors from the layout tags (A RowMajor and B ColumnMajor are K-major);
// - `TiledMma = make_tiled_mma(ss_op_selector<EAMma, EBMma, EAcc, TileShape, MajorA, MajorB>(),
//   Layout<Shape<_2,_1,_1>> for Cooperative, else <_1,_1,_1>)`, float read as tfloat32_t, the
//   selector's N the largest of 256, 192, 128, 96, 64, 32, 16, 8 dividing the tile's N (the shapes
//   it has without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED);
// - `SmemLayoutAtomA = ss_smem_selector<MajorA, EAMma, BLK_M, BLK_K>()` (sm90_common.inl): the
//   widest of the SW128, SW64, SW32, INTER atoms whose extent along the major mode divides the tile's;
// - Stages from compute_stage_count_or_override: `StageCount<N>` is N; `StageCountAuto` (carveout 0)
//   is `(232448 / 128 * 128) / (round_up(bytes(A tile) + bytes(B tile), 128) + 16)` (16 bytes: the
//   two 8-byte barriers of PipelineTmaAsync<1>::SharedStorage).

/// The 13 arguments of an SM90 builder use, as the mainloop's `CollectiveMma` arguments, or why not.
fn sm90_builder(args: &[Vec<Tok>]) -> std::result::Result<Vec<Vec<Tok>>, String> {
    let word = |a: &Vec<Tok>| match unqualified(a).as_slice() {
        [Tok::Word(w)] => w.clone(),
        other => render(other),
    };
    if args.len() != 13 {
        return Err(format!("a builder of {} arguments (13 read)", args.len()));
    }
    if word(&args[0]) != "Sm90" || word(&args[1]) != "OpClassTensorOp" {
        return Err(format!("{} / {}: only the SM90 tensor-op builder is read", word(&args[0]), word(&args[1])));
    }
    let mut schedule = word(&args[12]);
    let (ea, eb) = (word(&args[2]), word(&args[5]));
    let fp8 = |t: &str| ["float_e4m3_t", "float_e5m2_t"].contains(&t);
    let bits = |t: &str| if fp8(t) { Some(8) } else { type_bytes(t).map(|b| 8 * b as i64) };
    let (Some(abits), Some(bbits)) = (bits(&ea), bits(&eb)) else {
        return Err(format!(
            "value types {ea} x {eb}: not one of the types read (16/32/8-bit integers, FP8, half, bfloat16, float)"
        ));
    };
    let is_fp8 = fp8(&ea) && fp8(&eb);
    let tile_m = template_id(&args[9]).and_then(|(_, a)| a.first().and_then(|x| static_extent(x)));
    let (al_a, al_b) = (alignment(&args[4]), alignment(&args[7]));
    if schedule == "KernelScheduleAuto" {
        // The KernelScheduleAuto builder (CUDA >= 12.1): TMA warp-specialized, Pingpong for a tile
        // M of 64, else Cooperative, where both alignments are whole 16-byte TMA units; else
        // KernelCpAsyncWarpSpecialized (non-persistent).
        let tma = [(al_a, abits), (al_b, bbits)].iter().all(|(al, b)| matches!(al, Some(a) if a * b % 128 == 0));
        schedule = match (tma, tile_m) {
            (true, Some(64)) => "KernelTmaWarpSpecializedPingpong".into(),
            (true, Some(_)) => "KernelTmaWarpSpecializedCooperative".into(),
            (false, _) if al_a.is_some() && al_b.is_some() => "KernelCpAsyncWarpSpecialized".into(),
            _ => return Err("schedule KernelScheduleAuto: alignments not read".into()),
        };
    }
    // The builder specializations read: GMMA_TMA_WS_SS (its FP8 mainloop for FP8 inputs),
    // GMMA_TMA_SS (KernelTma), GMMA_CpAsync_WS_SS.
    // GMMA_TMA_WS_FP8_FAST_ACCUM_SS (FP8 inputs): the TMA warp-specialized builder with the
    // plain (not the FP8) mainloop, MainloopSm90TmaGmmaWarpSpecialized<Stages, Cluster, Schedule>;
    // its pointer-array schedules are not read.
    let fast_accum = schedule.ends_with("FP8FastAccum") && !schedule.contains("PtrArray") && is_fp8;
    // The pointer-array schedules of GMMA_TMA_WS_SS: MainloopSm90ArrayTmaGmmaWarpSpecialized (its
    // FP8 variant for FP8 inputs) with the TMA warp-specialized atom layouts; a stage count from
    // the builder's capacity less its tensor maps (and a pointer stride's scheduler pipeline) is
    // read only as CUTLASS printed it (a carveout, kernel_stages.rs).
    let ptr_array = ["KernelPtrArrayTmaWarpSpecializedCooperative", "KernelPtrArrayTmaWarpSpecializedPingpong"]
        .contains(&schedule.as_str());
    let tma_ws =
        ["KernelTmaWarpSpecialized", "KernelTmaWarpSpecializedPingpong", "KernelTmaWarpSpecializedCooperative"]
            .contains(&schedule.as_str())
            || fast_accum
            || ptr_array;
    let cp_async = [
        "KernelCpAsyncWarpSpecialized",
        "KernelCpAsyncWarpSpecializedPingpong",
        "KernelCpAsyncWarpSpecializedCooperative",
    ]
    .contains(&schedule.as_str());
    let kernel_tma = schedule == "KernelTma";
    if let Some(base) = blockwise_base_schedule(&schedule) {
        return sm90_blockwise_builder(args, &schedule, base);
    }
    if !(tma_ws || cp_async || kernel_tma) {
        return Err(format!(
            "schedule {schedule}: not read (read are the TMA warp-specialized (FP8FastAccum, pointer-array and FP8 blockwise-scaled too), KernelTma and cp.async warp-specialized SS builders)"
        ));
    }
    let acc = word(&args[8]);
    if abits != bbits || (ea != eb && !is_fp8) {
        return Err(format!("mixed inputs {ea} x {eb}: the register-sourced (RS) mixed-input builder is not read"));
    }
    // A pointer-array use's layout tags may be pointers (`LayoutA *`: one stride per group).
    let tag = |a: &Vec<Tok>| {
        let w = word(a);
        let base = w.trim_end_matches(|c: char| c == '*' || c.is_whitespace()).to_string();
        (base.clone(), if base.len() < w.len() { format!("{base} *") } else { base })
    };
    let ((la, la_stride), (lb, lb_stride)) = (tag(&args[3]), tag(&args[6]));
    if (la_stride != la || lb_stride != lb) && !ptr_array {
        return Err(format!(
            "layout tags {la_stride} / {lb_stride}: pointer strides outside the pointer-array builder"
        ));
    }
    let major = |tag: &str, k_tag: &str| if tag == k_tag { "K" } else { "MN" };
    let (ma, mb) = (major(&la, "RowMajor"), major(&lb, "ColumnMajor"));
    if !["RowMajor", "ColumnMajor"].contains(&la.as_str()) || !["RowMajor", "ColumnMajor"].contains(&lb.as_str()) {
        return Err(format!("layout tags {la} / {lb}: only RowMajor and ColumnMajor are read"));
    }
    // detail::is_use_rmem_A: inputs not 2 bytes wide and not both K-major: the RS builder.
    if abits != 16 && (ma == "MN" || mb == "MN") {
        return sm90_rs_builder(args, &schedule);
    }
    let tile = template_id(&args[9]).filter(|(h, _)| h == "Shape").map(|(_, a)| a).unwrap_or_default();
    let ext: Vec<i64> = tile.iter().filter_map(|a| static_extent(a)).collect();
    let [m, n, k] = ext[..] else {
        return Err(format!("tile shape {}: not a static Shape<_M,_N,_K>", render(&args[9])));
    };
    let emma = if ea == "float" { "tfloat32_t".to_string() } else { ea.clone() };
    let ebmma = if eb == "float" { "tfloat32_t".to_string() } else { eb.clone() };
    let stages = match template_id(&args[11]).map(|(h, a)| (h, a.iter().map(word).collect::<Vec<_>>())) {
        Some((h, _)) if h == "StageCountAuto" && ptr_array => {
            return Err(format!(
                "stage count {}: the pointer-array builder's capacity less its tensor maps is not modelled (only a stage count CUTLASS printed is read)",
                render(&args[11])
            ))
        }
        Some((h, a)) if h == "StageCountAuto" && a.is_empty() => {
            let bytes = abits * m * k / 8 + bbits * n * k / 8;
            let stage = (bytes + 127) / 128 * 128 + 16;
            (232448 / 128 * 128) / stage
        }
        Some((h, a)) if (h == "StageCount" || h == "Int") && a.len() == 1 => {
            a[0].parse().map_err(|_| format!("stage count {}: not an integer", a[0]))?
        }
        // `cute::Int<N>` spelled `_N` (compute_stage_count_or_override's `cute::Int<stages>`
        // overload, sm90_gmma_builder.inl).
        Some((h, a)) if a.is_empty() && h.strip_prefix('_').is_some_and(|n| n.parse::<i64>().is_ok()) => {
            h[1..].parse().map_err(|_| format!("stage count {h}: not an integer"))?
        }
        _ => {
            return Err(format!(
                "stage count {}: a carveout of the epilogue's shared storage, and no stage count recorded from CUTLASS for it (fixtures/kernel_forms_stages.txt)",
                render(&args[11])
            ))
        }
    };
    // ss_op_selector.
    let fp8_name = |t: &str| if t == "float_e4m3_t" { "E4M3" } else { "E5M2" };
    let (shape, kind, tn) = match (emma.as_str(), acc.as_str()) {
        ("half_t", "half_t") => (16, "F16F16F16".to_string(), false),
        ("half_t", "float") => (16, "F32F16F16".to_string(), false),
        ("bfloat16_t", "float") => (16, "F32BF16BF16".to_string(), false),
        ("tfloat32_t", "float") => (8, "F32TF32TF32".to_string(), true),
        ("int8_t", "int32_t") => (32, "S32S8S8".to_string(), true),
        (_, "float" | "half_t") if is_fp8 => {
            let c = if acc == "float" { "F32" } else { "F16" };
            (32, format!("{c}{}{}", fp8_name(&emma), fp8_name(&ebmma)), true)
        }
        _ => return Err(format!("{ea} x {eb} -> {acc}: not one of the selector's cases read here")),
    };
    let Some(atom_n) = [256, 192, 128, 96, 64, 32, 16, 8].into_iter().find(|a| n % a == 0) else {
        return Err(format!("tile N {n}: no GMMA N divides it"));
    };
    if m % 64 != 0 || k % shape != 0 {
        return Err(format!("tile {m}x{n}x{k}: the selector's static_asserts (M % 64, K % {shape})"));
    }
    let op = match (kind.as_str(), tn) {
        ("S32S8S8", _) => format!("SM90_64x{atom_n}x{shape}_{kind}_SS_TN"),
        (_, true) => format!("SM90_64x{atom_n}x{shape}_{kind}_SS_TN<>"),
        _ => format!("SM90_64x{atom_n}x{shape}_{kind}_SS<GMMA::Major::{ma}, GMMA::Major::{mb}>"),
    };
    // The atom layouts: TMA Cooperative 2x1x1; cp.async Cooperative 2x1x1 for a tile M of 128 or
    // more, else 1x1x1; KernelTma make_tiled_mma(op) alone.
    let tiled_mma = match (schedule.as_str(), m) {
        (_, _) if kernel_tma => format!("decltype(make_tiled_mma({op}{{}}))"),
        (
            "KernelTmaWarpSpecializedCooperative"
            | "KernelTmaWarpSpecializedCooperativeFP8FastAccum"
            | "KernelPtrArrayTmaWarpSpecializedCooperative",
            _,
        ) => {
            format!("decltype(make_tiled_mma({op}{{}}, Layout<Shape<_2,_1,_1>>{{}}))")
        }
        ("KernelCpAsyncWarpSpecializedCooperative", m) if m >= 128 => {
            format!("decltype(make_tiled_mma({op}{{}}, Layout<Shape<_2,_1,_1>>{{}}))")
        }
        _ => format!("decltype(make_tiled_mma({op}{{}}, Layout<Shape<_1,_1,_1>>{{}}))"),
    };
    // ss_smem_selector.
    let smem = |major: &str, mn: i64| -> std::result::Result<String, String> {
        let along = if major == "K" { k } else { mn };
        ["SW128", "SW64", "SW32", "INTER"]
            .iter()
            .zip([1024, 512, 256, 128])
            .find(|(_, w)| along % (w / abits) == 0)
            .map(|(sw, _)| format!("GMMA::Layout_{major}_{sw}_Atom<{emma}>"))
            .ok_or_else(|| format!("tile extent {along}: no GMMA atom divides it"))
    };
    let (sa, sb) = (smem(ma, m)?, smem(mb, n)?);
    let text = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
    let cluster = render(&args[10]);
    let policy = if kernel_tma {
        format!("MainloopSm90TmaGmma<{stages}, {cluster}, 1>")
    } else if cp_async {
        format!("MainloopSm90CpAsyncGmmaWarpSpecialized<{stages}, {cluster}, {schedule}>")
    } else if ptr_array && is_fp8 {
        format!("MainloopSm90ArrayTmaGmmaWarpSpecializedFP8<{stages}, {cluster}, {schedule}>")
    } else if ptr_array {
        format!("MainloopSm90ArrayTmaGmmaWarpSpecialized<{stages}, {cluster}, {schedule}>")
    } else if is_fp8 && !fast_accum {
        format!("MainloopSm90TmaGmmaWarpSpecializedFP8<{stages}, {cluster}, {schedule}>")
    } else {
        format!("MainloopSm90TmaGmmaWarpSpecialized<{stages}, {cluster}, {schedule}>")
    };
    // The gmem tiled copies: TMA atoms, or for cp.async detail::make_simt_gmem_tiled_copy
    // (sm90_common.inl) of Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint_byte_t<sizeof(E) *
    // Alignment>>, E> with 128 threads per load warp group (two for KernelCpAsyncWarpSpecialized),
    // the most threads along the major mode that the tile allows.
    // detail::sm90_cluster_shape_to_tma_atom (sm90_common.inl): A's TMA multicasts along the
    // cluster's N, B's along its M.
    let cluster_ext: Vec<i64> =
        template_id(&args[10]).map(|(_, a)| a.iter().filter_map(|x| static_extent(x)).collect()).unwrap_or_default();
    let gmem = |e: &str,
                al: Option<i64>,
                bits: i64,
                major: &str,
                mn: i64,
                along: usize|
     -> std::result::Result<String, String> {
        if !cp_async {
            return Ok(match cluster_ext.get(along) {
                Some(1) => "SM90_TMA_LOAD".into(),
                _ => "SM90_TMA_LOAD_MULTICAST".into(),
            });
        }
        let al = al.ok_or_else(|| format!("alignment of {e}: not read"))?;
        let unit = match bits * al / 8 {
            1 => "uint8_t",
            2 => "uint16_t",
            4 => "uint32_t",
            8 => "uint64_t",
            16 => "uint128_t",
            b => return Err(format!("a {b}-byte cp.async unit: no uint_byte_t")),
        };
        let threads = if schedule == "KernelCpAsyncWarpSpecialized" { 256 } else { 128 };
        let along = if major == "K" { k } else { mn };
        let tmajor = if threads >= along / al { along / al } else { threads };
        if tmajor <= 0 || threads % tmajor != 0 {
            return Err(format!("{threads} threads over {along}/{al}: the copy builder's static_asserts"));
        }
        let tminor = threads / tmajor;
        let (thr, val) = if major == "K" {
            (format!("Layout<Shape<_{tminor},_{tmajor}>, Stride<_{tmajor},_1>>"), format!("Layout<Shape<_1,_{al}>>"))
        } else {
            (format!("Layout<Shape<_{tmajor},_{tminor}>, Stride<_1,_{tmajor}>>"), format!("Layout<Shape<_{al},_1>>"))
        };
        Ok(format!(
            "decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<{unit}>, {e}>{{}}, {thr}{{}}, {val}{{}}))"
        ))
    };
    let (ga, gb) = (gmem(&ea, al_a, abits, ma, m, 1)?, gmem(&eb, al_b, bbits, mb, n, 0)?);
    Ok(vec![
        text(&policy),
        args[9].clone(),
        args[2].clone(),
        text(&format!("TagToStrideA_t<cutlass::layout::{la_stride}>")),
        args[5].clone(),
        text(&format!("TagToStrideB_t<cutlass::layout::{lb_stride}>")),
        text(&tiled_mma),
        text(&ga),
        text(&sa),
        text("void"),
        text("cute::identity"),
        text(&gb),
        text(&sb),
        text("void"),
        text("cute::identity"),
    ])
}

// ---------------------------------------------------------------------------------------------
// The SM90 FP8 blockwise-scaled builder and mainloop. sm90_gmma_builder.inl's "GMMA_TMA_WS_SS
// (BlockScaled Builders)" specialization (KernelTmaWarpSpecializedCooperativeFP8Blockwise /
// ...PingpongFP8Blockwise, also spelled ...FP8BlockScaledAccum, dispatch_policy.hpp; the same in
// v4.2.0 and v4.7.0 but for compute_stage_count's parameter order) takes each operand's layout as a
// pair `cute::tuple<LayoutTag, LayoutSF>` and builds `CollectiveMma<
// MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8<Stages, ClusterShape, Schedule>, TileShape, EA,
// cute::tuple<TagToStrideA_t<LayoutA>, TagToStrideA_t<LayoutSFA>>, EB, cute::tuple<...B...>,
// TiledMma, GmemTiledCopyA, SmemLayoutAtomA, void, identity, GmemTiledCopyB, SmemLayoutAtomB, void,
// identity>` with the TiledMma, TMA atoms and smem atoms of the plain TMA warp-specialized builder
// (ss_op_selector with the Cooperative 2x1x1 / Pingpong 1x1x1 atom layout, sm90_cluster_shape_to_tma_atom,
// ss_smem_selector; FP8 inputs, not is_use_rmem_A) and a stage count from
// compute_stage_count_with_blockwise_scale, whose only overload is a carveout's: read as real
// CUTLASS computed it (kernel_stages.rs) or from `StageCount<N>`.
//
// The mainloop (sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp) reads its scale
// factors' granularities off the layouts (`size<0,0>(LayoutSFA{})`, `size<1,0>`) and builds
// `ScaleConfig = Sm90BlockwiseScaleConfig<GM, GN, GK, MajorSFA, MajorSFB>` (an alias of
// cutlass/detail/blockwise_scale_layout.hpp's Sm1xxBlockwiseScaleConfig), whose
// `smem_atom_layoutSFA(TileShape{})` is `make_layout(((GM, ceil(TM/GM)), (GK, ceil(TK/GK))),
// ((_0, _1), (_0, ceil(TM/GM))))` for an MN-major SFA and `((_0, ceil(TK/GK)), (_0, _1))` for a
// K-major one, and `smem_atom_layoutSFB` the same over N, its strides chosen by **majorSFA** (as the
// header has it); `SmemLayoutSFA = make_layout(append(shape(Atom), Stages), append(stride(Atom),
// size(filter_zeros(Atom))))`, which for the rank-2 atom is `make_layout(get<0>(Atom), get<1>(Atom),
// make_layout(Stages, size(filter_zeros(Atom))))` (the language has no `append`).

/// The plain TMA warp-specialized schedule a blockwise-scaled one derives from, or None.
fn blockwise_base_schedule(schedule: &str) -> Option<&'static str> {
    match schedule {
        "KernelTmaWarpSpecializedCooperativeFP8Blockwise"
        | "KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum" => Some("KernelTmaWarpSpecializedCooperative"),
        "KernelTmaWarpSpecializedPingpongFP8Blockwise" | "KernelTmaWarpSpecializedPingpongFP8BlockScaledAccum" => {
            Some("KernelTmaWarpSpecializedPingpong")
        }
        _ => None,
    }
}

/// An SM90 builder use of a blockwise-scaled schedule (see above), as its mainloop's
/// `CollectiveMma` arguments, or why not.
fn sm90_blockwise_builder(args: &[Vec<Tok>], schedule: &str, base: &str) -> std::result::Result<Vec<Vec<Tok>>, String> {
    let text = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
    // Each operand's `cute::tuple<LayoutTag, LayoutSF>`.
    let pair = |a: &Vec<Tok>| {
        tuple_pair(a).ok_or_else(|| format!("layout {}: not a (tag, scale-factor layout) pair", render(a)))
    };
    let ((tag_a, sf_a), (tag_b, sf_b)) = (pair(&args[3])?, pair(&args[6])?);
    if scale_config(&sf_a).is_none() || scale_config(&sf_b).is_none() {
        return Err(format!(
            "scale-factor layouts {} / {}: not a Sm90BlockwiseScaleConfig's deduce_layoutSFA/SFB() (not read)",
            render(&sf_a),
            render(&sf_b)
        ));
    }
    let stages = match template_id(&args[11]) {
        Some((h, a)) if h == "StageCount" && a.len() == 1 => render(&a[0]),
        _ => {
            return Err(format!(
                "stage count {}: a carveout of the epilogue's shared storage (compute_stage_count_with_blockwise_scale), and no stage count recorded from CUTLASS for it (fixtures/kernel_forms_stages.txt)",
                render(&args[11])
            ))
        }
    };
    let mut plain = args.to_vec();
    plain[3] = tag_a.clone();
    plain[6] = tag_b.clone();
    plain[12] = text(base);
    let mut m = sm90_builder(&plain)?;
    let canonical = schedule.replace("BlockScaledAccum", "Blockwise");
    m[0] =
        text(&format!("MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8<{stages}, {}, {canonical}>", render(&args[10])));
    m[3] = text(&format!("cute::tuple<{}, TagToStrideA_t<{}>>", render(&m[3]), render(&sf_a)));
    m[5] = text(&format!("cute::tuple<{}, TagToStrideB_t<{}>>", render(&m[5]), render(&sf_b)));
    Ok(m)
}

/// The static extents of the configuration's `TileShape_` (`Shape<_128, _128, _64>`: [128, 128,
/// 64]), in order; empty where it is not bound.
fn static_tile(mbind: &Bound) -> Vec<i64> {
    mbind
        .get("TileShape_")
        .and_then(|t| template_id(t))
        .map(|(_, a)| a.iter().filter_map(|x| static_extent(x)).collect())
        .unwrap_or_default()
}

/// The value of a static integer `_N` (also `cute::_N`).
fn static_extent(x: &[Tok]) -> Option<i64> {
    render(&unqualified(x)).strip_prefix('_')?.parse().ok()
}

/// The two elements of `[cute::]tuple<X, Y>`.
fn tuple_pair(a: &[Tok]) -> Option<(Vec<Tok>, Vec<Tok>)> {
    let mut t = a.strip_prefix(&[Tok::Punct(':'), Tok::Punct(':')]).unwrap_or(a);
    while let [Tok::Word(w), Tok::Punct(':'), Tok::Punct(':'), rest @ ..] = t {
        if w != "cute" && w != "std" {
            break;
        }
        t = rest;
    }
    let is_tuple = matches!(t.first(), Some(Tok::Word(w)) if w == "tuple") && t.get(1) == Some(&Tok::Punct('<'));
    if !is_tuple || angle_close(t, 1)? != t.len() - 1 {
        return None;
    }
    match split_commas(&t[2..t.len() - 1]).as_slice() {
        [x, y] => Some((x.clone(), y.clone())),
        _ => None,
    }
}

/// The granularities and majors `[GM, GN, GK]`, `[MajorSFA, MajorSFB]` ("MN" or "K") of a
/// scale-factor layout `decltype(...Sm90BlockwiseScaleConfig<GM, GN, GK, MajorA, MajorB>::deduce_layoutSF?())`.
fn scale_config(sf: &[Tok]) -> Option<([i64; 3], [String; 2])> {
    let t = unqualified(sf);
    let at = t.iter().position(|x| matches!(x, Tok::Word(w) if w == "Sm90BlockwiseScaleConfig"))?;
    let c = angle_close(&t, at + 1)?;
    if !t[c + 1..].iter().any(|x| matches!(x, Tok::Word(w) if w == "deduce_layoutSFA" || w == "deduce_layoutSFB")) {
        return None;
    }
    let a = split_commas(&t[at + 2..c]);
    let int = |v: &Vec<Tok>| match v.as_slice() {
        [Tok::Word(n)] => n.parse::<i64>().ok(),
        _ => None,
    };
    let major = |v: &Vec<Tok>| match v.as_slice() {
        [.., Tok::Word(m)] if m == "MN" || m == "K" => Some(m.clone()),
        _ => None,
    };
    match a.as_slice() {
        [m, n, k, ma, mb] => Some(([int(m)?, int(n)?, int(k)?], [major(ma)?, major(mb)?])),
        // The defaults of Sm1xxBlockwiseScaleConfig's majors: MN.
        [m, n, k] => Some(([int(m)?, int(n)?, int(k)?], ["MN".into(), "MN".into()])),
        _ => None,
    }
}

/// The FP8 blockwise-scaled mainloop's bindings (see above) that the extractor computes: the
/// operands' strides and scale-factor layouts (`tuple_element_t` of the pairs), the
/// granularities and scales per tile, the scale factors' element (the accumulator's, float for
/// the F32 accumulators the builder selects), `SmemLayoutAtomSFA/SFB` as smem_atom_layoutSFA/SFB
/// build them, and `SmemLayoutSFA/SFB` without `append`; `cute::make_smem_ptr` read as
/// `make_smem_ptr`; a chained `X.get_slice(i).partition_C(T)` read as its slice, then the partition.
fn blockwise_mainloop_bindings(plain: &[Tok], md: &StructDef, mbind: &Bound, inside: &mut Vec<Binding>) {
    if !md.body.clone().any(|k| matches!(plain.get(k), Some(Tok::Word(w)) if w == "SmemLayoutAtomSFA")) {
        return;
    }
    // `tiled_mma.get_slice(thread_idx).partition_C(sSFA)` (the scale factors' partitions, mma())
    // is the slice bound first, `NAME_slice = tiled_mma.get_slice(thread_idx)`, then its
    // `partition_C`, as the other mainloops write it.
    let mut k = 0;
    while k < inside.len() {
        let r = inside[k].rhs.clone();
        let is = |j: usize, w: &str| matches!(r.get(j), Some(Tok::Word(x)) if x == w);
        if matches!(r.first(), Some(Tok::Word(_))) && r.get(1) == Some(&Tok::Punct('.')) && is(2, "get_slice") {
            if let Some(c) = closing(&r, 3).filter(|&c| r.get(c + 1) == Some(&Tok::Punct('.'))) {
                let slice = format!("{}_slice", inside[k].name);
                let b = &inside[k];
                let bound = Binding {
                    pos: b.pos,
                    line: b.line,
                    keyword: "auto".into(),
                    name: slice.clone(),
                    rhs: r[..=c].to_vec(),
                };
                let mut rhs = vec![Tok::Word(slice)];
                rhs.extend(r[c + 1..].iter().cloned());
                inside[k].rhs = rhs;
                inside.insert(k, bound);
                k += 1;
            }
        }
        k += 1;
    }
    let elems = |key: &str| mbind.get(key).and_then(|v| tuple_pair(v));
    let (Some((stride_a, sf_a)), Some((stride_b, sf_b))) = (elems("StridePairA_"), elems("StridePairB_")) else {
        return;
    };
    let (Some(([gm, _, gk], [major_a, _])), Some(([_, gn, _], [_, major_b]))) =
        (scale_config(&sf_a), scale_config(&sf_b))
    else {
        return;
    };
    let tile = static_tile(mbind);
    let [tm, tn, tk] = tile[..] else { return };
    if gm <= 0 || gn <= 0 || gk <= 0 {
        return;
    }
    let ceil = |a: i64, b: i64| (a + b - 1) / b;
    let (sm, sn, sk) = (ceil(tm, gm), ceil(tn, gn), ceil(tk, gk));
    let atom = |g: i64, s: i64| {
        let stride = if major_a == "MN" {
            format!("make_stride(make_stride(_0{{}}, _1{{}}), make_stride(_0{{}}, Int<{s}>{{}}))")
        } else {
            format!("make_stride(make_stride(_0{{}}, Int<{sk}>{{}}), make_stride(_0{{}}, _1{{}}))")
        };
        format!(
            "decltype(make_layout(make_shape(make_shape(Int<{g}>{{}}, Int<{s}>{{}}), make_shape(Int<{gk}>{{}}, Int<{sk}>{{}})), {stride}))"
        )
    };
    let stacked = |a: &str| {
        format!(
            "decltype(make_layout(get<0>({a}{{}}), get<1>({a}{{}}), make_layout(Int<DispatchPolicy::Stages>{{}}, size(filter_zeros({a}{{}})))))"
        )
    };
    let _ = major_b;
    let words = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
    let accumulates_f32 = mbind
        .get("TiledMma_")
        .is_some_and(|t| t.iter().any(|x| matches!(x, Tok::Word(w) if w.starts_with("SM90_") && w.contains("_F32"))));
    for b in inside.iter_mut() {
        // `cute::make_smem_ptr` (this mainloop's scale-factor tensors) is `make_smem_ptr`.
        let mut k = 0;
        while k + 3 < b.rhs.len() {
            if b.rhs[k] == Tok::Word("cute".into())
                && b.rhs[k + 1] == Tok::Punct(':')
                && b.rhs[k + 2] == Tok::Punct(':')
                && b.rhs[k + 3] == Tok::Word("make_smem_ptr".into())
            {
                b.rhs.drain(k..k + 3);
            }
            k += 1;
        }
        let rhs = match b.name.as_str() {
            "StrideA" => stride_a.clone(),
            "StrideB" => stride_b.clone(),
            "LayoutSFA" => sf_a.clone(),
            "LayoutSFB" => sf_b.clone(),
            "ScaleGranularityM" => words(&gm.to_string()),
            "ScaleGranularityN" => words(&gn.to_string()),
            "ScaleGranularityK" => words(&gk.to_string()),
            "ScaleMsPerTile" if tm % gm == 0 => words(&(tm / gm).to_string()),
            "ScaleNsPerTile" if tn % gn == 0 => words(&(tn / gn).to_string()),
            "ElementAccumulator" | "ElementBlockScale" if accumulates_f32 => words("float"),
            "SmemLayoutAtomSFA" => words(&atom(gm, sm)),
            "SmemLayoutAtomSFB" => words(&atom(gn, sn)),
            "SmemLayoutSFA" => words(&stacked("SmemLayoutAtomSFA")),
            "SmemLayoutSFB" => words(&stacked("SmemLayoutAtomSFB")),
            _ => continue,
        };
        b.rhs = rhs;
    }
}

/// 4.7's FP8 blockwise mainloop splits the tile's M for its mma() (`using NumSplitsM =
/// cute::C<get<0>(TileShape_{}) / 128>;`, a member, and `using NumSplitsM_Scale =
/// cute::conditional_t<ScaleMsPerTile == 1, _1, NumSplitsM>;` in mma()): such member types are
/// evaluated from the configuration, `C<E>` (cute/numeric/integral_constant.hpp: `C<v>` is
/// `integral_constant<decltype(v), v>`, printed and used as `_v`) as `Int<v>` with `E` folded
/// ([`fold_int`]) after the template parameters and the member constants already folded (the
/// `static constexpr int`s [`blockwise_mainloop_bindings`] computes) are bound, and
/// `conditional_t<C, X, Y>` as its arm where `C` so bound is a comparison of integers
/// ([`condition`]).
fn blockwise_split_bindings(plain: &[Tok], md: &StructDef, mbind: &Bound, inside: &mut [Binding]) {
    if !md.body.clone().any(|k| matches!(plain.get(k), Some(Tok::Word(w)) if w == "SmemLayoutAtomSFA")) {
        return;
    }
    let mut env: Bound = mbind.clone();
    for b in inside.iter_mut() {
        let r = unqualified(&b.rhs);
        let int_word = |v: &[Tok]| matches!(v, [Tok::Word(n)] if n.parse::<i64>().is_ok());
        if int_word(&r) {
            env.insert(b.name.clone(), r);
            continue;
        }
        if b.keyword != "using" {
            continue;
        }
        let head = |h: &str| matches!(r.first(), Some(Tok::Word(w)) if w == h) && r.get(1) == Some(&Tok::Punct('<'));
        let Some(close) = angle_close(&r, 1).filter(|&c| c == r.len() - 1 && r.len() > 3) else { continue };
        let inner = &r[2..close];
        if head("C") {
            if let Some(n) = fold_int(&substitute(inner, &env)) {
                b.rhs = tokenize(&format!("Int<{n}>")).into_iter().map(|t| t.0).collect();
                env.insert(b.name.clone(), b.rhs.clone());
            }
        } else if head("conditional_t") {
            if let [c, yes, no] = split_commas(inner).as_slice() {
                if let Some(v) = condition(&substitute(c, &env)) {
                    b.rhs = if v { yes.clone() } else { no.clone() };
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The SM90 register-sourced (RS) builder and mainloop, for inputs not 2 bytes wide with an
// MN-major operand (detail::is_use_rmem_A). sm90_gmma_builder.inl's "GMMA_TMA_WS_RS"
// specialization (the same in v4.2.0 and v4.7.0 but for the order of compute_stage_count_or_override's
// template parameters, which gives the same count) builds, for equal-width inputs,
// `CollectiveMma<MainloopSm90TmaGmmaRmemAWarpSpecialized<Stages, ClusterShape, Schedule>, TileShape,
// EA, TagToStrideA_t<LayoutA>, EB, TagToStrideB_t<LayoutB>, TiledMma, GmemTiledCopyA,
// SmemLayoutAtomA, SmemCopyAtomA, identity, GmemTiledCopyB, SmemLayoutAtomB, SmemCopyAtomB, identity>`:
// - GmmaMajorA/B from the tags (gmma_rs_tag_to_major_A/B: A ColumnMajor, B RowMajor are MN-major);
//   SwapAB (is_swapAB) when A is K-major and B MN-major; IsWarpSpecializedTransposeB
//   (is_warpspecialized_transpose_B) when both are MN-major (every TMA warp-specialized schedule);
// - `TiledMma = make_tiled_mma(rs_op_selector<EAMma, EBMma, EAcc, TileShape, K, K>(), AtomLayout)`,
//   float read as tfloat32_t, AtomLayout 2x1x1 for Cooperative (else 1x1x1); for tfloat32_t the
//   selector's `SM90_64xNx8_F32TF32TF32_RS_TN`, N the largest of 256, 192, 128, 96, 64, 32, 16, 8
//   dividing the tile's N (cute/arch/mma_sm90.hpp rs_op_selector, without
//   CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED), M % 64 and K % 8 asserted;
// - `GmemTiledCopyA/B = sm90_cluster_shape_to_tma_atom(shape<1>/<0>(ClusterShape))`: SM90_TMA_LOAD
//   for a cluster extent of 1, else SM90_TMA_LOAD_MULTICAST (sm90_common.inl);
// - `SmemLayoutAtomA/B = rs_smem_selector<GmmaMajor, EMma, BLK_MN, BLK_K, IsWarpSpecializedTransposeB>()`
//   (sm90_common.inl): K-major the widest of the SW128, SW64, SW32, INTER atoms whose K extent
//   divides BLK_K; MN-major for a whole-word type SW32 where its MN extent (8 for 32 bits) divides
//   BLK_MN, else INTER (4), INTER not where B is transposed;
// - `SmemCopyAtomA = SwapAB ? void : Copy_Atom<AutoVectorizingCopy, EA>`, `SmemCopyAtomB` the other way;
// - Stages: `StageCount<N>` is N; `StageCountAuto` is compute_stage_count_or_override with the
//   alignment `SmemAlignment = max(alignment_for_swizzle(SmemLayoutAtomA), ...B)` (cutlass/detail/
//   layout.hpp: `1 << (B + M + |S|)` bytes of the atom's Swizzle<B,M,S>: 1024 for SW128, 512 SW64,
//   256 SW32, 128 INTER): `(232448 / al * al) / (round_up(bytes(A tile) + bytes(B tile), al) + 16)`;
//   a carveout's count is the one CUTLASS printed (kernel_stages.rs).

/// An SM90 builder use that takes the RS builder (see above), as its mainloop's `CollectiveMma`
/// arguments, or why not; `schedule` is the use's schedule with KernelScheduleAuto resolved.
fn sm90_rs_builder(args: &[Vec<Tok>], schedule: &str) -> std::result::Result<Vec<Vec<Tok>>, String> {
    let word = |a: &Vec<Tok>| match unqualified(a).as_slice() {
        [Tok::Word(w)] => w.clone(),
        other => render(other),
    };
    let (ea, eb, acc) = (word(&args[2]), word(&args[5]), word(&args[8]));
    let tf32 = |t: &str| matches!(t, "float" | "tfloat32_t");
    if !(tf32(&ea) && tf32(&eb) && acc == "float") {
        return Err(format!(
            "{ea} x {eb} -> {acc} with an MN-major operand: the register-sourced (RS) builder is read for tfloat32_t / float inputs only"
        ));
    }
    let tma_ws =
        ["KernelTmaWarpSpecialized", "KernelTmaWarpSpecializedPingpong", "KernelTmaWarpSpecializedCooperative"];
    if !tma_ws.contains(&schedule) {
        return Err(format!(
            "{ea} with an MN-major operand under {schedule}: of the register-sourced (RS) builders only the TMA warp-specialized one is read"
        ));
    }
    let (la, lb) = (word(&args[3]), word(&args[6]));
    let (a_k, b_k) = (la == "RowMajor", lb == "ColumnMajor");
    let swap = a_k && !b_k;
    let ints = |a: &Vec<Tok>| -> Vec<i64> {
        let t = template_id(a).filter(|(h, _)| h == "Shape").map(|(_, a)| a).unwrap_or_default();
        t.iter().filter_map(|x| static_extent(x)).collect()
    };
    let [m, n, k] = ints(&args[9])[..] else {
        return Err(format!("tile shape {}: not a static Shape<_M,_N,_K>", render(&args[9])));
    };
    let [cm, cn, _] = ints(&args[10])[..] else {
        return Err(format!("cluster shape {}: not a static Shape<_M,_N,_K>", render(&args[10])));
    };
    let Some(atom_n) = [256, 192, 128, 96, 64, 32, 16, 8].into_iter().find(|a| n % a == 0) else {
        return Err(format!("tile N {n}: no GMMA N divides it"));
    };
    if m % 64 != 0 || k % 8 != 0 {
        return Err(format!("tile {m}x{n}x{k}: rs_op_selector's static_asserts (M % 64, K % 8)"));
    }
    let op = format!("SM90_64x{atom_n}x8_F32TF32TF32_RS_TN<>");
    let atoms = if schedule == "KernelTmaWarpSpecializedCooperative" { "_2,_1,_1" } else { "_1,_1,_1" };
    let tiled_mma = format!("decltype(make_tiled_mma({op}{{}}, Layout<Shape<{atoms}>>{{}}))");
    // rs_smem_selector for a 32-bit type: (the atom, its alignment_for_swizzle in bytes).
    let smem = |k_major: bool, mn: i64| -> std::result::Result<(String, i64), String> {
        if mn % 8 != 0 || k % 8 != 0 {
            return Err(format!("tile {mn}x{k}: rs_smem_selector's static_asserts (BLK_MN0 % 8, BLK_K0 % 8)"));
        }
        let (major, sw, al) = if k_major {
            let (sw, _, al) = [("SW128", 32, 1024), ("SW64", 16, 512), ("SW32", 8, 256), ("INTER", 4, 128)]
                .into_iter()
                .find(|(_, w, _)| k % w == 0)
                .ok_or_else(|| format!("tile K {k}: no GMMA K-major atom divides it"))?;
            ("K", sw, al)
        } else {
            // BLK_MN0 % 8 == 0 was asserted: the SW32 atom's 8 elements divide it.
            ("MN", "SW32", 256)
        };
        Ok((format!("GMMA::Layout_{major}_{sw}_Atom<tfloat32_t>"), al))
    };
    let ((sa, al_a), (sb, al_b)) = (smem(a_k, m)?, smem(b_k, n)?);
    let align = al_a.max(al_b);
    let stages = match template_id(&args[11]).map(|(h, a)| (h, a.iter().map(word).collect::<Vec<_>>())) {
        Some((h, a)) if h == "StageCountAuto" && a.is_empty() => {
            let bytes = 4 * m * k + 4 * n * k;
            let stage = (bytes + align - 1) / align * align + 16;
            (232448 / align * align) / stage
        }
        Some((h, a)) if h == "StageCount" && a.len() == 1 => {
            a[0].parse().map_err(|_| format!("stage count {}: not an integer", a[0]))?
        }
        _ => {
            return Err(format!(
                "stage count {}: a carveout of the epilogue's shared storage, and no stage count recorded from CUTLASS for it (fixtures/kernel_forms_stages.txt)",
                render(&args[11])
            ))
        }
    };
    let tma = |extent: i64| if extent == 1 { "SM90_TMA_LOAD" } else { "SM90_TMA_LOAD_MULTICAST" };
    let copy =
        |rmem: bool, e: &str| if rmem { format!("Copy_Atom<cute::AutoVectorizingCopy, {e}>") } else { "void".into() };
    let text = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
    let cluster = render(&args[10]);
    Ok(vec![
        text(&format!("MainloopSm90TmaGmmaRmemAWarpSpecialized<{stages}, {cluster}, {schedule}>")),
        args[9].clone(),
        args[2].clone(),
        text(&format!("TagToStrideA_t<cutlass::layout::{la}>")),
        args[5].clone(),
        text(&format!("TagToStrideB_t<cutlass::layout::{lb}>")),
        text(&tiled_mma),
        text(tma(cn)),
        text(&sa),
        text(&copy(!swap, &ea)),
        text("cute::identity"),
        text(tma(cm)),
        text(&sb),
        text(&copy(swap, &eb)),
        text("cute::identity"),
    ])
}

/// The RS mainloop's (sm90_mma_tma_gmma_rs_warpspecialized.hpp) members that its `static constexpr
/// bool`s select, resolved in its body's bindings; a no-op for any other mainloop. The mainloop
/// swaps A and B (`SwapAB`) where A is K-major (`StrideToLayoutTagA_t<StrideA>` RowMajor) and B
/// MN-major (`StrideToLayoutTagB_t<StrideB>` RowMajor), and transposes B in shared memory
/// (`TransposeB`) where both are MN-major (A ColumnMajor, B RowMajor), both only for inputs not 2
/// bytes wide: `conditional_t<!SwapAB, X, Y>` (the Internal* operands), `conditional_t<TransposeB,
/// ...>` and `conditional_t<ConvertF32toTF32A/B, tfloat32_t, ...>` (`is_same_v<float, ElementA/B>`)
/// are their chosen arm, `GmmaSmemLayoutAtomB`
/// (sm90_wgmma_transpose.hpp gmma_smem_transpose_or_passthrough) is the K-major atom of B's swizzle
/// where B is transposed, else InternalSmemLayoutAtomB; `TransposeOperandB` (the transposition's
/// device-side functor type) is not a layout and is dropped.
fn rs_mainloop_bindings(plain: &[Tok], md: &StructDef, mbind: &HashMap<String, Vec<Tok>>, inside: &mut Vec<Binding>) {
    let Some((swap, transpose)) = rs_swap_transpose(plain, md, mbind) else { return };
    let text = |n: &str| mbind.get(n).map(|v| render(&unqualified(v))).unwrap_or_default();
    let (ea, eb) = (text("ElementA_"), text("ElementB_"));
    let flags: HashMap<&str, bool> = [
        ("SwapAB", swap),
        ("TransposeB", transpose),
        ("ConvertF32toTF32A", ea == "float"),
        ("ConvertF32toTF32B", eb == "float"),
    ]
    .into_iter()
    .collect();
    inside.retain(|b| b.name != "TransposeOperandB");
    for b in inside.iter_mut() {
        if b.name == "GmmaSmemLayoutAtomB" {
            b.rhs = match (transpose, mbind.get("SmemLayoutAtomB_")) {
                (true, Some(atom)) => atom
                    .iter()
                    .map(|t| match t {
                        Tok::Word(w) if w.starts_with("Layout_MN_") => {
                            Tok::Word(w.replacen("Layout_MN_", "Layout_K_", 1))
                        }
                        t => t.clone(),
                    })
                    .collect(),
                _ => vec![Tok::Word("InternalSmemLayoutAtomB".into())],
            };
            continue;
        }
        b.rhs = resolve_flags(&b.rhs, &flags);
    }
}

/// The RS mainloop's `SwapAB` and `TransposeB` (see [`rs_mainloop_bindings`]); None for a mainloop
/// without them.
fn rs_swap_transpose(plain: &[Tok], md: &StructDef, mbind: &HashMap<String, Vec<Tok>>) -> Option<(bool, bool)> {
    if !md.body.clone().any(|k| matches!(plain.get(k), Some(Tok::Word(w)) if w == "SwapAB")) {
        return None;
    }
    let text = |n: &str| mbind.get(n).map(|v| render(&unqualified(v))).unwrap_or_default();
    let (sa, sb, ea, eb) = (text("StrideA_"), text("StrideB_"), text("ElementA_"), text("ElementB_"));
    let two_bytes = type_bytes(&ea) == Some(2) && type_bytes(&eb) == Some(2);
    let (a_row, a_col, b_row) = (sa.contains("RowMajor"), sa.contains("ColumnMajor"), sb.contains("RowMajor"));
    Some((!two_bytes && a_row && b_row, !two_bytes && a_col && b_row))
}

/// `[cute::]conditional_t<C, X, Y>` with C a flag of `flags` (or its negation `!F`) as its arm.
fn resolve_flags(toks: &[Tok], flags: &HashMap<&str, bool>) -> Vec<Tok> {
    let mut t = toks.to_vec();
    'again: loop {
        for i in 0..t.len() {
            if !(t[i] == Tok::Word("conditional_t".into()) && t.get(i + 1) == Some(&Tok::Punct('<'))) {
                continue;
            }
            let Some(c) = angle_close(&t, i + 1) else { continue };
            let args = split_commas(&t[i + 2..c]);
            let [cond, yes, no] = args.as_slice() else { continue };
            let value = match cond.as_slice() {
                [Tok::Word(f)] => flags.get(f.as_str()).copied(),
                [Tok::Punct('!'), Tok::Word(f)] => flags.get(f.as_str()).map(|v| !v),
                _ => None,
            };
            let Some(v) = value else { continue };
            let cute = i >= 3 && t[i - 3] == Tok::Word("cute".into()) && t[i - 2] == Tok::Punct(':');
            let start = if cute { i - 3 } else { i };
            let mut out = t[..start].to_vec();
            out.extend(if v { yes.clone() } else { no.clone() });
            out.extend(t[c + 1..].iter().cloned());
            t = out;
            continue 'again;
        }
        return t;
    }
}

/// The B transposition of the RS mainloop (`TransposeB`: both operands MN-major).
const RS_TRANSPOSE: &str = "include/cutlass/transform/collective/sm90_wgmma_transpose.hpp";

/// The forms of the functor the RS mainloop transposes B with in shared memory (`TransposeOperandB
/// transpose = make_transpose_operand_b(warp_idx, thread, TiledMma{}, SmemLayoutB{},
/// InternalSmemLayoutAtomB{}, InternalElementB{}, bool_constant<TransposeB>{})`, called
/// `transpose(sB, gmma_sB, read_stage, k_block)` in its mma()), instantiated as
/// [`RS_TRANSPOSE`]'s make_transpose_operand_b picks it: none without TransposeB
/// (NoTranspositionOperandB), else UniversalTranspositionOperandB where
/// use_universal_transposition (4-byte B on an SW64 or INTER atom, 1-byte B not on SW128),
/// AsyncTranspositionOperandB_1BElementB for 1-byte B, else AsyncTranspositionOperandB; its
/// parameters bound to the mainloop's TiledMma, SmemLayoutB (B's atom tile_to_shape'd to
/// (BLK_N, BLK_K, Stages), `Step<_2,_1,_3>` as B is N-major), B's atom and InternalElementB
/// (ConvertedElementB: tfloat32_t for float, else the unsigned integer of its width), and
/// NumThreadsPerWarp 32 (cutlass/cutlass.h). Its operator()'s tensors are tiles of the
/// position-independent swizzle tensors sB / gmma_sB it is passed: skipped as those.
fn rs_transpose_forms(src: &Source, margs: &[Vec<Tok>]) -> Vec<(usize, Form)> {
    let word = |a: &[Tok]| render(&unqualified(a));
    let rs = margs.first().and_then(|p| template_id(p)).filter(|(h, _)| h == "MainloopSm90TmaGmmaRmemAWarpSpecialized");
    let Some((_, policy)) = rs else { return Vec::new() };
    if margs.len() != 15 {
        return Vec::new();
    }
    let (sa, sb, ea, eb) = (render(&margs[3]), render(&margs[5]), word(&margs[2]), word(&margs[4]));
    let two_bytes = type_bytes(&ea) == Some(2) && type_bytes(&eb) == Some(2);
    if two_bytes || !(sa.contains("ColumnMajor") && sb.contains("RowMajor")) {
        return Vec::new();
    }
    let Some(bytes) = type_bytes(&eb) else { return Vec::new() };
    let element = if eb == "float" { "tfloat32_t".to_string() } else { format!("uint{}_t", 8 * bytes) };
    let atom = render(&margs[12]);
    let universal = (bytes == 4 && (atom.contains("_SW64_") || atom.contains("_INTER_")))
        || (bytes == 1 && !atom.contains("_SW128_"));
    let class = match (universal, bytes) {
        (true, _) => "UniversalTranspositionOperandB",
        (false, 1) => "AsyncTranspositionOperandB_1BElementB",
        _ => "AsyncTranspositionOperandB",
    };
    let tile = template_id(&margs[1]).map(|(_, a)| a).unwrap_or_default();
    let (Some(n), Some(k), Some(stages)) = (tile.get(1), tile.get(2), policy.first()) else { return Vec::new() };
    let smem_b = format!(
        "decltype(tile_to_shape({atom}{{}}, make_shape({}{{}}, {}{{}}, Int<{}>{{}}), Step<_2,_1,_3>{{}}))",
        render(n),
        render(k),
        render(stages)
    );
    let Ok(text) = src.read(RS_TRANSPOSE) else { return Vec::new() };
    let toks = tokenize(&text);
    let defs = struct_defs(&toks);
    let Some(d) = defs.iter().find(|d| d.name == class && d.pattern.is_none()) else { return Vec::new() };
    let toks_of = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
    let values = [margs[6].clone(), toks_of(&smem_b), margs[12].clone(), toks_of(&element)];
    let mut bind: HashMap<String, Vec<Tok>> = d.params.iter().cloned().zip(values).collect();
    bind.insert("NumThreadsPerWarp".into(), toks_of("32"));
    // The tensors the mainloop passes (sm90_mma_tma_gmma_rs_warpspecialized.hpp `transpose(sB,
    // gmma_sB, read_stage, k_block)`): the position-independent swizzle tensors of SmemLayoutB and
    // of GmmaSmemLayoutB (B's K-major atom tile_to_shape'd as SmemLayoutB is).
    let gmma_atom = atom.replacen("Layout_MN_", "Layout_K_", 1);
    let stage = |a: &str| {
        format!(
            "as_position_independent_swizzle_tensor(tile_to_shape({a}{{}}, make_shape({}{{}}, {}{{}}, Int<{}>{{}}), Step<_2,_1,_3>{{}}))",
            render(n),
            render(k),
            render(stages)
        )
    };
    let given: HashMap<String, Vec<Tok>> =
        [("sB".to_string(), toks_of(&stage(&atom))), ("gmma_sB".to_string(), toks_of(&stage(&gmma_atom)))]
            .into_iter()
            .collect();
    let k_extent =
        render(k).trim_start_matches("Int<").trim_start_matches('_').trim_end_matches('>').parse::<i64>().ok();
    rs_transpose_body_forms(&toks, d, bind, given, k_extent)
        .into_iter()
        .map(|(line, f)| match f {
            // The functor's tensors are the parameters sB / gmma_sB, which the extractor sees unbound.
            Form::Skip(why) if why.contains(UNBOUND_TENSOR) => {
                (line, Form::Skip(why.replace(UNBOUND_TENSOR, RS_TRANSPOSE_WHY)))
            }
            f => (line, f),
        })
        .collect()
}

/// The forms of the transposition functor `d`'s body with its tensor parameters `given` (sB,
/// gmma_sB) bound, and its run-time integers at a representative value: `read_stage` (the
/// pipeline stage read) 1, and the warp tile coordinate `warp_tile_coord[warp_tile]` (n, k) =
/// (1, 0), warp 1's first tile of step 0 in [`RS_TRANSPOSE`]'s coordinate table (inside every
/// (BLK_N/8, BLK_K/8) grid of 8x8 warp tiles), both as run-time (dynamic) integers, and the lane
/// `warp_group_thread_idx % NumThreadsPerWarp` that of the thread index the mainloops use. The
/// functor's `WarpTileSize` (`WarpgroupTileSize / NumWarpTilePerWarpgroupTile`: size<1>(SmemLayoutB)
/// = BLK_K over NumWarpsPerWarpGroup = 128 / 32 = 4 warp tiles, twice as many where `Steps == 8`)
/// is computed from `k_extent` (BLK_K) and its `Steps`.
fn rs_transpose_body_forms(
    toks: &[(Tok, usize)],
    d: &StructDef,
    bind: HashMap<String, Vec<Tok>>,
    given: HashMap<String, Vec<Tok>>,
    k_extent: Option<i64>,
) -> Vec<(usize, Form)> {
    let w = |s: &str| Tok::Word(s.into());
    let coord = |i: &str| {
        vec![
            w("warp_tile_coord"),
            Tok::Punct('['),
            w("warp_tile"),
            Tok::Punct(']'),
            Tok::Punct('['),
            w(i),
            Tok::Punct(']'),
        ]
    };
    let (n, k) = (coord("0"), coord("1"));
    // The lane `warp_group_thread_idx % NumThreadsPerWarp`: the functor's warp_group_thread_idx is
    // the mainloop's thread index modulo the warp group.
    let lane = [w("warp_group_thread_idx"), Tok::Punct('%'), w("NumThreadsPerWarp")];
    let mut inside: Vec<Binding> = bindings(toks).into_iter().filter(|b| d.body.contains(&b.pos)).collect();
    for b in inside.iter_mut() {
        let mut out = Vec::with_capacity(b.rhs.len());
        let mut i = 0;
        while i < b.rhs.len() {
            if b.rhs[i..].starts_with(&n) || b.rhs[i..].starts_with(&k) {
                out.push(w(if b.rhs[i..].starts_with(&n) { "1" } else { "0" }));
                i += n.len();
                continue;
            }
            if b.rhs[i..].starts_with(&lane) {
                out.push(w(&(THREAD % 128 % 32).to_string()));
                i += lane.len();
                continue;
            }
            out.push(if b.rhs[i] == w("read_stage") { w("1") } else { b.rhs[i].clone() });
            i += 1;
        }
        b.rhs = out;
    }
    // `thr_copy.partition_S(flatten(T(...)))`: the flattened tile is a tensor binding of its own
    // (`tensor_form` reads it), then partitioned by name.
    let mut split = Vec::with_capacity(inside.len());
    for mut b in inside {
        let r = &b.rhs;
        let part = matches!(r.get(2), Some(Tok::Word(m)) if m == "partition_S" || m == "partition_D");
        if part && r.get(1) == Some(&Tok::Punct('.')) && r.get(4) == Some(&w("flatten")) {
            if let Some(close) = closing(r, 3).filter(|&c| c + 1 == r.len()) {
                let name = format!("{}_flattened", b.name);
                split.push(Binding {
                    pos: b.pos,
                    line: b.line,
                    keyword: "Tensor".into(),
                    name: name.clone(),
                    rhs: r[4..close].to_vec(),
                });
                b.rhs = [r[..4].to_vec(), vec![w(&name), Tok::Punct(')')]].concat();
            }
        }
        split.push(b);
    }
    let mut inside = split;
    let mut bind = bind;
    bind.entry("NumThreadsPerWarpGroup".into()).or_insert_with(|| vec![w("128")]);
    let steps = inside.iter().find(|b| b.name == "Steps").and_then(|b| match b.rhs.as_slice() {
        [Tok::Word(v)] => v.parse::<i64>().ok(),
        _ => None,
    });
    if let (Some(steps), Some(k)) = (steps, k_extent) {
        let tile = k / (4 * if steps == 8 { 2 } else { 1 });
        inside.retain(|b| b.name != "WarpTileSize");
        bind.insert("WarpTileSize".into(), vec![w(&tile.to_string())]);
    }
    let mut forms = Vec::new();
    kernel_forms(&inside, bind, &HashMap::new(), given, RS_TRANSPOSE_WHY, &mut forms);
    forms
}

/// Why the transposition's tensors are not read.
const RS_TRANSPOSE_WHY: &str = "a tile of sB / gmma_sB, the position-independent swizzle tensors (as_position_independent_swizzle_tensor) the RS mainloop passes its B transposition: not modelled";

/// An alignment argument: an integer, `BITS / sizeof_bits<T>::value` or `BYTES / sizeof(T)`.
fn alignment(a: &[Tok]) -> Option<i64> {
    let t = unqualified(a);
    match t.as_slice() {
        [Tok::Word(n)] => n.parse().ok(),
        [Tok::Word(n), Tok::Punct('/'), Tok::Word(sb), Tok::Punct('<'), ty @ .., Tok::Punct('>'), Tok::Word(v)]
            if sb == "sizeof_bits" && v == "value" =>
        {
            let bits = 8 * type_bytes(&render(ty))? as i64;
            Some(n.parse::<i64>().ok()? / bits)
        }
        // `BYTES / sizeof(T)` (examples/49's `16 / sizeof(ElementA)`), its `sizeof` already the
        // value type's bytes (`normalize`).
        [Tok::Word(n), Tok::Punct('/'), Tok::Word(d)] => {
            let (n, d) = (n.parse::<i64>().ok()?, d.parse::<i64>().ok()?);
            (d > 0 && n % d == 0).then(|| n / d)
        }
        _ => None,
    }
}

/// The SM90 builder uses of the SM90 unit tests and the Hopper examples: (where, arguments with the
/// file's `using` aliases before the use substituted).
type BuilderUse = (String, Vec<Vec<Tok>>, Option<crate::kernel_stages::Probe>);

fn builder_uses(src: &Source) -> Result<(Vec<BuilderUse>, Vec<String>)> {
    let mut files = Vec::new();
    for dir in [
        "test/unit/gemm/device",
        "examples/48_hopper_warp_specialized_gemm",
        "examples/49_hopper_gemm_with_collective_builder",
    ] {
        if let Ok(v) = src.list(dir) {
            files.extend(v.into_iter().filter(|f| {
                let name = f.rsplit('/').next().unwrap_or(f);
                name.ends_with(".cu") && (!f.starts_with("test/") || name.starts_with("sm90_gemm_"))
            }));
        }
    }
    files.sort();
    let mut out = Vec::new();
    let mut includes: Vec<String> = Vec::new();
    for f in files {
        let text = src.read(&f)?;
        let toks = tokenize(&text);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let lines: Vec<&str> = text.lines().collect();
        let tok_lines: Vec<usize> = toks.iter().map(|t| t.1).collect();
        let mut probed = false;
        let usings = bindings(&toks);
        for i in 0..plain.len() {
            if plain[i] != Tok::Word("CollectiveBuilder".into()) || plain.get(i + 1) != Some(&Tok::Punct('<')) {
                continue;
            }
            // The GEMM builder (gemm::collective), not the epilogue's.
            let mut q = i;
            let mut epilogue = false;
            while q >= 3 && plain[q - 1] == Tok::Punct(':') && plain[q - 2] == Tok::Punct(':') {
                epilogue |= plain[q - 3] == Tok::Word("epilogue".into());
                q -= 3;
            }
            if epilogue {
                continue;
            }
            let Some(c) = angle_close(&plain, i + 1) else { continue };
            let mut env: HashMap<String, Vec<Tok>> = HashMap::new();
            for b in usings.iter().filter(|b| b.pos < i && (b.keyword == "using" || b.keyword == "auto")) {
                let v = substitute(&b.rhs, &env);
                env.insert(b.name.clone(), v);
            }
            // `constexpr int NAME = EXPR;` (the examples' alignments).
            for k in 0..i.saturating_sub(3) {
                if let (Tok::Word(c), Tok::Word(ty), Tok::Word(n), Tok::Punct('=')) =
                    (&plain[k], &plain[k + 1], &plain[k + 2], &plain[k + 3])
                {
                    if c == "constexpr" && ty == "int" {
                        let end = (k + 4..i).find(|&e| plain[e] == Tok::Punct(';')).unwrap_or(i);
                        let v = substitute(&plain[k + 4..end], &env);
                        env.insert(n.clone(), v);
                    }
                }
            }
            // `constexpr int AlignmentA = ...;` and other non-type arguments stay as written.
            let args: Vec<Vec<Tok>> = split_commas(&plain[i + 2..c]).iter().map(|a| substitute(a, &env)).collect();
            if !args.iter().any(|a| a.iter().any(|t| matches!(t, Tok::Word(w) if w == "Sm90"))) {
                continue;
            }
            let at = format!("{f}:{}", toks[i].1);
            // A use inside a class template whose arguments name its parameters: one use per
            // instantiation the file makes (see [`class_instance_uses`]).
            if let Some(uses) =
                class_instance_uses(&at, &toks, i, &args).or_else(|| function_instance_uses(&at, &toks, i, &args))
            {
                for (at, args, instance) in uses {
                    let probe = args
                        .get(11)
                        .filter(|a| a.iter().any(|t| matches!(t, Tok::Word(w) if w == "StageCountAutoCarveout")))
                        .and_then(|_| crate::kernel_stages::probe(&at, &plain, &tok_lines, &lines, i))
                        .map(|p| crate::kernel_stages::Probe { instance: Some(instance), ..p });
                    probed |= probe.is_some();
                    out.push((at, args, probe));
                }
                continue;
            }
            // A stage count carving out the epilogue's storage: what real CUTLASS computes
            // (kernel_stages.rs).
            let probe = args
                .get(11)
                .filter(|a| a.iter().any(|t| matches!(t, Tok::Word(w) if w == "StageCountAutoCarveout")))
                .and_then(|_| crate::kernel_stages::probe(&at, &plain, &tok_lines, &lines, i));
            probed |= probe.is_some();
            out.push((at, args, probe));
        }
        if probed {
            for l in &lines {
                let l = l.trim();
                let header = l.starts_with("#include \"cutlass/") || l.starts_with("#include \"cute/");
                if header && !l.contains("cutlass/util/") && !includes.iter().any(|x| x == l) {
                    includes.push(l.to_string());
                }
            }
        }
    }
    Ok((out, includes))
}

/// An instantiation a file makes of a class template: where, the type as written
/// (`ExampleRunner<cutlass::gemm::KernelTma>`), and each template parameter bound to its argument
/// or, past the written ones, its default.
struct ClassInstance {
    line: usize,
    written: String,
    bind: Bound,
}

/// A template's parameters with their defaults (`class P = D`).
type TemplateParams = Vec<(String, Option<Vec<Tok>>)>;

/// A builder use of one instantiation: where (`FILE:LINE@INSTANCE_LINE`), its arguments, and the
/// instantiation's line and type as written (for the stage probe, kernel_stages::Probe::instance).
type InstanceUse = (String, Args, (usize, crate::kernel_stages::Ask));

/// The class template (`template <...> struct NAME {`) whose body holds token `i`, innermost
/// first: its name and its parameters with their defaults (`class P = D`).
fn enclosing_class_template(plain: &[Tok], i: usize) -> Option<(String, TemplateParams)> {
    // Not a class template's body: look further out.
    enclosing_template_heads(plain, i).find_map(|(head, c)| {
        let kw = head[c..].iter().position(|t| matches!(t, Tok::Word(w) if w == "struct" || w == "class"));
        let Some(Tok::Word(name)) = kw.and_then(|kw| head.get(c + kw + 1)) else { return None };
        let params = template_params(&head[2..c]).into_iter().map(|(n, default, _)| (n, default)).collect();
        Some((name.clone(), params))
    })
}

/// The heads `template <...> ...` of the braces enclosing token `i`, innermost first, each with
/// where its template parameter list's `>` is.
fn enclosing_template_heads(plain: &[Tok], i: usize) -> impl Iterator<Item = (&[Tok], usize)> {
    let mut depth = 0i32;
    (0..i).rev().filter_map(move |k| match &plain[k] {
        Tok::Punct('}') => {
            depth += 1;
            None
        }
        Tok::Punct('{') if depth > 0 => {
            depth -= 1;
            None
        }
        Tok::Punct('{') => {
            // The head before this brace, from the last `;`, `{` or `}`.
            let head_start =
                (0..k).rev().find(|&h| matches!(plain[h], Tok::Punct(';' | '{' | '}'))).map_or(0, |h| h + 1);
            let head = &plain[head_start..k];
            let templ = matches!(head.first(), Some(Tok::Word(t)) if t == "template");
            match (templ, angle_close(head, 1)) {
                (true, Some(c)) => Some((head, c)),
                _ => None,
            }
        }
        _ => None,
    })
}

/// A template parameter list's parameters: name, default (`class P = D`), whether a type parameter.
fn template_params(list: &[Tok]) -> Vec<(String, Option<Vec<Tok>>, bool)> {
    split_commas(list)
        .iter()
        .filter_map(|p| {
            let eq = p.iter().position(|t| *t == Tok::Punct('='));
            let n = p[..eq.unwrap_or(p.len())].iter().rev().find_map(|t| match t {
                Tok::Word(w) => Some(w.clone()),
                _ => None,
            })?;
            let is_type = matches!(p.first(), Some(Tok::Word(w)) if w == "class" || w == "typename");
            Some((n, eq.map(|e| p[e + 1..].to_vec()), is_type))
        })
        .collect()
}

/// The instantiations `NAME<args> variable;` (also `NAME<> variable;`) that a file's tokens make
/// of the class template `name` with `params`, each bound with the defaults past its arguments.
fn class_instances(toks: &[(Tok, usize)], name: &str, params: &[(String, Option<Vec<Tok>>)]) -> Vec<ClassInstance> {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let mut out = Vec::new();
    for k in 0..plain.len() {
        if !matches!(&plain[k], Tok::Word(w) if w == name) || plain.get(k + 1) != Some(&Tok::Punct('<')) {
            continue;
        }
        let Some(c) = angle_close(&plain, k + 1) else { continue };
        let (Some(Tok::Word(_)), Some(Tok::Punct(';'))) = (plain.get(c + 1), plain.get(c + 2)) else { continue };
        let args = split_commas(&plain[k + 2..c]);
        if args.len() > params.len() {
            continue;
        }
        let mut bind = Bound::new();
        let mut complete = true;
        for (n, (p, default)) in params.iter().enumerate() {
            match (args.get(n), default) {
                (Some(a), _) => _ = bind.insert(p.clone(), a.clone()),
                (None, Some(d)) => _ = bind.insert(p.clone(), substitute(d, &bind)),
                (None, None) => complete = false,
            }
        }
        if complete {
            out.push(ClassInstance { line: toks[k].1, written: render(&plain[k..=c]), bind });
        }
    }
    out
}

/// `[cute::|std::]conditional_t<[cute::|std::]is_same_v<A, B>, X, Y>` with A and B written out: X
/// where they name the same type (namespaces aside), else Y; anything else as it is.
fn fold_is_same(toks: &[Tok]) -> Vec<Tok> {
    let mut t = toks.to_vec();
    'again: loop {
        for i in 0..t.len() {
            if t[i] != Tok::Word("conditional_t".into()) || t.get(i + 1) != Some(&Tok::Punct('<')) {
                continue;
            }
            let Some(c) = angle_close(&t, i + 1) else { continue };
            let args = split_commas(&t[i + 2..c]);
            let [cond, yes, no] = args.as_slice() else { continue };
            let Some(("is_same_v", ab)) = template_id(cond).as_ref().map(|(h, a)| (h.as_str(), a.clone())) else {
                continue;
            };
            let [a, b] = ab.as_slice() else { continue };
            let mut start = i;
            while start >= 3 && t[start - 1] == Tok::Punct(':') && t[start - 2] == Tok::Punct(':') {
                start -= 3;
            }
            let mut out = t[..start].to_vec();
            out.extend(if unqualified(a) == unqualified(b) { yes.clone() } else { no.clone() });
            out.extend(t[c + 1..].iter().cloned());
            t = out;
            continue 'again;
        }
        return t;
    }
}

/// A function template's name, template parameters (name, whether a type parameter) and
/// function parameters' types.
type FunctionTemplate = (String, Vec<(String, bool)>, Args);

/// The function template (`template <...> RET NAME(PARAMS) {`) whose body holds token `i`: its
/// name, its template parameters (name, whether a type parameter) and its function parameters'
/// types.
fn enclosing_function_template(plain: &[Tok], i: usize) -> Option<FunctionTemplate> {
    // The innermost template head ending in `)`: a function's (no further out).
    let (head, c) = enclosing_template_heads(plain, i).find(|(head, _)| head.last() == Some(&Tok::Punct(')')))?;
    let name_at = (c + 1..head.len().saturating_sub(1)).find(|&j| {
        matches!(head[j], Tok::Word(_))
            && head[j + 1] == Tok::Punct('(')
            && closing(head, j + 1) == Some(head.len() - 1)
    })?;
    let Tok::Word(name) = &head[name_at] else { return None };
    let tparams = template_params(&head[2..c]).into_iter().map(|(n, _, is_type)| (n, is_type)).collect();
    let fparams = split_commas(&head[name_at + 2..head.len() - 1]);
    Some((name.clone(), tparams, fparams))
}

/// Binds the template parameters `params` that the parameter type `pat` names to the parts of the
/// argument type `arg` (`Int<ScaleGranularityM>` against `Int<1>`: ScaleGranularityM = 1; `LayoutA`
/// against `cutlass::layout::RowMajor`); false where they do not match.
fn deduce(pat: &[Tok], arg: &[Tok], params: &[String], bind: &mut Bound) -> bool {
    if let [Tok::Word(p)] = pat {
        if params.contains(p) {
            return match bind.get(p) {
                Some(v) => unqualified(v) == unqualified(arg),
                None => {
                    bind.insert(p.clone(), arg.to_vec());
                    true
                }
            };
        }
    }
    match (template_id(pat), template_id(arg)) {
        (Some((hp, ap)), Some((ha, aa))) if hp == ha && ap.len() == aa.len() => {
            ap.iter().zip(&aa).all(|(p, a)| deduce(p, a, params, bind))
        }
        _ => unqualified(pat) == unqualified(arg),
    }
}

/// A builder use inside a function template whose arguments name its parameters (the blockwise
/// FP8 unit test's `groupwise_test<SFAMajor, SFBMajor>(Int<1>{}, ..., Shape<_128,_128,_128>{},
/// Shape<_1,_1,_1>{})`): one use per call the file makes, the explicit template arguments bound
/// in order and the others deduced from the call's arguments (each a `TYPE{}` temporary), named
/// `FILE:LINE@CALL_LINE`. Its carveout stage count is probed per call (kernel_stages::Ask::When).
/// None where the use is in no function template, names none of its parameters, or no call binds
/// them all.
fn function_instance_uses(at: &str, toks: &[(Tok, usize)], i: usize, args: &[Vec<Tok>]) -> Option<Vec<InstanceUse>> {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let (name, tparams, fparams) = enclosing_function_template(&plain, i)?;
    let names: Vec<String> = tparams.iter().map(|p| p.0.clone()).collect();
    if !args.iter().any(|a| a.iter().any(|t| matches!(t, Tok::Word(w) if names.contains(w)))) {
        return None;
    }
    let mut out = Vec::new();
    for k in 0..plain.len() {
        if !matches!(&plain[k], Tok::Word(w) if *w == name) || (k > 0 && plain[k - 1] == Tok::Punct('.')) {
            continue;
        }
        let (explicit, open) = match plain.get(k + 1) {
            Some(Tok::Punct('<')) => match angle_close(&plain, k + 1) {
                Some(c) => (split_commas(&plain[k + 2..c]), c + 1),
                None => continue,
            },
            _ => (Vec::new(), k + 1),
        };
        if plain.get(open) != Some(&Tok::Punct('(')) {
            continue;
        }
        let Some(close) = closing(&plain, open) else { continue };
        // Not the definition itself (its parameters are types, followed by its body).
        if plain.get(close + 1) == Some(&Tok::Punct('{')) {
            continue;
        }
        let call = split_commas(&plain[open + 1..close]);
        let mut bind = Bound::new();
        for (p, a) in names.iter().zip(&explicit) {
            bind.insert(p.clone(), a.clone());
        }
        let temporaries = call.iter().map(|a| a.strip_suffix(&[Tok::Punct('{'), Tok::Punct('}')]));
        let deduced = call.len() == fparams.len()
            && fparams.iter().zip(temporaries).all(|(p, a)| a.is_some_and(|a| deduce(p, a, &names, &mut bind)));
        if !deduced || names.iter().any(|n| !bind.contains_key(n)) {
            continue;
        }
        // The condition that holds in this instantiation only (non-type parameters as cute::C<V>).
        let wrap = |is_type: bool, v: String| if is_type { v } else { format!("cute::C<{v}>") };
        let ps: Vec<String> = tparams.iter().map(|(n, t)| wrap(*t, n.clone())).collect();
        let vs: Vec<String> = tparams.iter().map(|(n, t)| wrap(*t, render(&bind[n]))).collect();
        let cond = format!("cute::is_same_v<cute::tuple<{}>, cute::tuple<{}>>", ps.join(", "), vs.join(", "));
        let line = toks[k].1;
        let args = args.iter().map(|a| fold_is_same(&substitute(a, &bind))).collect();
        out.push((format!("{at}@{line}"), args, (line, crate::kernel_stages::Ask::When(cond))));
    }
    (!out.is_empty()).then_some(out)
}

/// A builder use inside a class template whose arguments name the template's parameters
/// (examples/49's `ExampleRunner<MainloopScheduleType, EpilogueScheduleType, StageCountType, ...>`
/// builds its mainloop with `MainloopScheduleType` and a stage count `conditional_t<is_same_v<
/// StageCountType, StageCountAuto>, StageCountAutoCarveout<...>, StageCountType>`): one use per
/// instantiation the file makes (`ExampleRunner<cutlass::gemm::KernelTma, ...> runner;` in main()),
/// the parameters bound to its arguments and defaults and such `conditional_t`s folded, named
/// `FILE:LINE@INSTANCE_LINE` (the instantiation's line). None when the use is in no class template
/// or names none of its parameters, or when the file never instantiates it.
fn class_instance_uses(at: &str, toks: &[(Tok, usize)], i: usize, args: &[Vec<Tok>]) -> Option<Vec<InstanceUse>> {
    let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
    let (name, params) = enclosing_class_template(&plain, i)?;
    let names = |a: &Vec<Tok>| a.iter().any(|t| matches!(t, Tok::Word(w) if params.iter().any(|(p, _)| p == w)));
    if !args.iter().any(names) {
        return None;
    }
    let uses: Vec<_> = class_instances(toks, &name, &params)
        .into_iter()
        .map(|c| {
            let args = args.iter().map(|a| fold_is_same(&substitute(a, &c.bind))).collect();
            (format!("{at}@{}", c.line), args, (c.line, crate::kernel_stages::Ask::Type(c.written)))
        })
        .collect();
    (!uses.is_empty()).then_some(uses)
}

// ---------------------------------------------------------------------------------------------
// Host-side binding: the values a tutorial's main() passes down to the host function that
// launches a kernel (`int m = 5120;`, `char transA = 'N';`, `ldA = m;` under `if (transA == 'N')`,
// then `gemm(transA, transB, m, n, k, ...)` -> `gemm_nt(m, n, k, ...)`). main() runs as the program
// runs without arguments (`argc` is 1, so `if (argc >= 2) sscanf(...)` keeps the default), then
// with arguments for the functions only its argv dispatch reaches (see [`host_bindings`]); an `if`
// whose condition is not a comparison of known integers or characters is not entered. Only the
// statements that bind values are read: declarations with an initializer, assignments, if/else
// chains, blocks and calls of the file's functions (a function's parameters bound to its call's
// arguments, the first call that reaches it).

/// The top-level function definitions `NAME(params) {` of a file: name -> (params, body range).
fn function_defs(toks: &[Tok]) -> Vec<(String, Kernel)> {
    let mut out = Vec::new();
    let (mut i, mut depth) = (0, 0i32);
    while i + 1 < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Word(w) if depth == 0 && toks[i + 1] == Tok::Punct('(') => {
                if let Some(c) = closing(toks, i + 1) {
                    if toks.get(c + 1) == Some(&Tok::Punct('{')) {
                        if let Some((params, body)) = kernel(&toks[i..], w) {
                            let body = body.start + i..body.end + i;
                            i = body.end + 1;
                            out.push((w.clone(), (params, body)));
                            continue;
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The value of a condition over known integers and characters, or None.
fn condition(c: &[Tok]) -> Option<bool> {
    let split = |c: &[Tok], op: char| -> Vec<Vec<Tok>> {
        let (mut out, mut cur, mut depth, mut k) = (Vec::new(), Vec::new(), 0i32, 0);
        while k < c.len() {
            match &c[k] {
                Tok::Punct('(') => depth += 1,
                Tok::Punct(')') => depth -= 1,
                Tok::Punct(x) if *x == op && depth == 0 && c.get(k + 1) == Some(&Tok::Punct(op)) => {
                    out.push(std::mem::take(&mut cur));
                    k += 2;
                    continue;
                }
                _ => {}
            }
            cur.push(c[k].clone());
            k += 1;
        }
        out.push(cur);
        out
    };
    let ors = split(c, '|');
    if ors.len() > 1 {
        let v: Vec<Option<bool>> = ors.iter().map(|x| condition(x)).collect();
        return if v.contains(&Some(true)) { Some(true) } else { v.into_iter().try_fold(false, |a, x| Some(a || x?)) };
    }
    let ands = split(c, '&');
    if ands.len() > 1 {
        let v: Vec<Option<bool>> = ands.iter().map(|x| condition(x)).collect();
        return if v.contains(&Some(false)) { Some(false) } else { v.into_iter().try_fold(true, |a, x| Some(a && x?)) };
    }
    if c.first() == Some(&Tok::Punct('(')) && closing(c, 0) == Some(c.len() - 1) {
        return condition(&c[1..c.len() - 1]);
    }
    let value = |t: &[Tok]| -> Option<i64> {
        match t {
            [Tok::Word(w)] if w.starts_with('\'') => w.chars().nth(1).map(|ch| ch as i64),
            [Tok::Word(w)] => w.parse().ok(),
            _ => None,
        }
    };
    // `A op B` with op one of == != >= <= < >.
    for k in 0..c.len() {
        let (op, len) = match (&c[k], c.get(k + 1)) {
            (Tok::Punct('='), Some(Tok::Punct('='))) => ("==", 2),
            (Tok::Punct('!'), Some(Tok::Punct('='))) => ("!=", 2),
            (Tok::Punct('>'), Some(Tok::Punct('='))) => (">=", 2),
            (Tok::Punct('<'), Some(Tok::Punct('='))) => ("<=", 2),
            (Tok::Punct('>'), _) => (">", 1),
            (Tok::Punct('<'), _) => ("<", 1),
            _ => continue,
        };
        let (a, b) = (value(&c[..k])?, value(&c[k + len..])?);
        return Some(match op {
            "==" => a == b,
            "!=" => a != b,
            ">=" => a >= b,
            "<=" => a <= b,
            ">" => a > b,
            _ => a < b,
        });
    }
    None
}

/// The end (one past) of the statement starting at `i`: a block, an if/else chain, or up to `;`.
fn statement_end(t: &[Tok], i: usize) -> usize {
    let word = |k: usize, s: &str| matches!(t.get(k), Some(Tok::Word(w)) if w == s);
    if t.get(i) == Some(&Tok::Punct('{')) {
        return closing(t, i).map_or(t.len(), |c| c + 1);
    }
    if (word(i, "if") || word(i, "for") || word(i, "while") || word(i, "switch"))
        && t.get(i + 1) == Some(&Tok::Punct('('))
    {
        let Some(c) = closing(t, i + 1) else { return t.len() };
        let end = statement_end(t, c + 1);
        return if word(i, "if") && word(end, "else") { statement_end(t, end + 1) } else { end };
    }
    let mut depth = 0i32;
    for (k, x) in t.iter().enumerate().skip(i) {
        match x {
            Tok::Punct('(' | '{' | '[') => depth += 1,
            Tok::Punct(')' | '}' | ']') => depth -= 1,
            Tok::Punct(';') if depth <= 0 => return k + 1,
            _ => {}
        }
    }
    t.len()
}

/// What main() passes down: each reached function's parameters bound to their values.
struct HostRun<'a> {
    toks: &'a [Tok],
    defs: HashMap<String, Kernel>,
    reached: HashMap<String, HashMap<String, Vec<Tok>>>,
    /// The characters this run's argv gives the variables main()'s argv parsing assigns
    /// (`sscanf(argv[4], "%c", &transA)`), as literals (`'T'`); empty for the run without arguments.
    argv: HashMap<String, String>,
    /// The character variables an argv parsing `sscanf(argv[i], FMT, &NAME)` assigns (those whose
    /// value there is a character literal): the ones a run with arguments varies.
    scanned: Vec<String>,
}

impl HostRun<'_> {
    /// Runs the statements of `range`; true when a `return` ended them.
    fn exec(&mut self, range: std::ops::Range<usize>, vars: &mut HashMap<String, Vec<Tok>>, depth: usize) -> bool {
        let t = self.toks;
        let word = |k: usize, s: &str| matches!(t.get(k), Some(Tok::Word(w)) if w == s);
        let mut i = range.start;
        while i < range.end {
            let end = statement_end(t, i);
            if t[i] == Tok::Punct('{') {
                if self.exec(i + 1..end - 1, vars, depth) {
                    return true;
                }
            } else if word(i, "if") {
                // The chain's branches in order; the first whose condition holds runs.
                let mut k = i;
                while let Some(c) = closing(t, k + 1) {
                    let body_end = statement_end(t, c + 1);
                    match condition(&substitute(&t[k + 2..c], vars)) {
                        Some(true) => {
                            if self.exec(c + 1..body_end, vars, depth) {
                                return true;
                            }
                            break;
                        }
                        Some(false) if word(body_end, "else") && word(body_end + 1, "if") => k = body_end + 1,
                        Some(false) if word(body_end, "else") => {
                            let e = statement_end(t, body_end + 1);
                            if self.exec(body_end + 1..e, vars, depth) {
                                return true;
                            }
                            break;
                        }
                        _ => break,
                    }
                }
            } else if ["for", "while", "switch", "do"].iter().any(|w| word(i, w)) {
                // Loops are not run.
            } else {
                let ret = word(i, "return");
                self.statement(&t[i + usize::from(ret)..end], vars, depth);
                if ret {
                    return true;
                }
            }
            i = end;
        }
        false
    }

    /// A declaration or assignment binds its names; a call of a file function runs it.
    fn statement(&mut self, s: &[Tok], vars: &mut HashMap<String, Vec<Tok>>, depth: usize) {
        let s = s.strip_suffix(&[Tok::Punct(';')]).unwrap_or(s);
        // `sscanf(argv[i], "%c", &NAME)` (the format string is not a token): a character
        // variable takes this run's argument; any other (a size, `%d`) keeps its default.
        if let [Tok::Word(f), Tok::Punct('('), ..] = s {
            if f == "sscanf" && closing(s, 1) == Some(s.len() - 1) {
                let args = split_commas(&s[2..s.len() - 1]);
                let from_argv = args.first().is_some_and(|a| a.first() == Some(&Tok::Word("argv".into())));
                if let (true, Some([Tok::Punct('&'), Tok::Word(name)])) = (from_argv, args.last().map(Vec::as_slice)) {
                    let is_char =
                        matches!(vars.get(name).map(Vec::as_slice), Some([Tok::Word(v)]) if v.starts_with('\''));
                    if is_char {
                        if !self.scanned.contains(name) {
                            self.scanned.push(name.clone());
                        }
                        if let Some(c) = self.argv.get(name) {
                            vars.insert(name.clone(), vec![Tok::Word(c.clone())]);
                        }
                    }
                }
                return;
            }
        }
        let pieces = split_commas(s);
        for (n, piece) in pieces.iter().enumerate() {
            // `TYPE NAME = EXPR` (or `NAME = EXPR` after the first, or an assignment).
            let eq = (1..piece.len()).find(|&k| {
                piece[k] == Tok::Punct('=')
                    && piece.get(k + 1) != Some(&Tok::Punct('='))
                    && !matches!(piece[k - 1], Tok::Punct('=' | '!' | '<' | '>' | '+' | '-' | '*' | '/'))
            });
            let Some(eq) = eq else {
                if n == 0 {
                    self.calls(piece, vars, depth);
                }
                continue;
            };
            let Some(Tok::Word(name)) = piece.get(eq - 1) else { continue };
            let declared = eq >= 2 && matches!(piece[eq - 2], Tok::Word(_) | Tok::Punct('>' | '*' | '&'));
            if eq - 1 != 0 && !declared {
                continue; // `a.b = c`, `x[i] = c`
            }
            let v = substitute(&piece[eq + 1..], vars);
            self.calls(&piece[eq + 1..], vars, depth);
            let v = fold_int(&v).map_or(v, |n| vec![Tok::Word(n.to_string())]);
            vars.insert(name.clone(), v);
        }
    }

    /// Runs each call `F(args)` in `s` of a function F the file defines.
    fn calls(&mut self, s: &[Tok], vars: &HashMap<String, Vec<Tok>>, depth: usize) {
        if depth > 8 {
            return;
        }
        for k in 0..s.len().saturating_sub(1) {
            let Tok::Word(f) = &s[k] else { continue };
            if s[k + 1] != Tok::Punct('(') || (k > 0 && s[k - 1] == Tok::Punct('.')) || f == "main" {
                continue;
            }
            let Some((params, body)) = self.defs.get(f).cloned() else { continue };
            if self.reached.contains_key(f) {
                continue;
            }
            let Some(c) = closing(s, k + 1) else { continue };
            let args = split_commas(&s[k + 2..c]);
            let mut bound = HashMap::new();
            for ((_, p), a) in params.iter().zip(args) {
                bound.insert(p.clone(), substitute(&a, vars));
            }
            self.reached.insert(f.clone(), bound.clone());
            self.exec(body, &mut bound, depth + 1);
        }
    }
}

/// The most runs with arguments tried per file (the product of the character choices).
const ARGV_RUNS: usize = 64;

/// The parameters' values of each function that main() reaches: run without arguments first,
/// then, for a function only an argv-driven dispatch reaches (`gemm(transA, transB, ...)` ->
/// `gemm_tn` for `T N`), run with arguments: each character variable its argv parsing assigns
/// (`sscanf(argv[4], "%c", &transA)`) given each character literal the file compares with `==`
/// (`'N'`, `'T'`), every combination; the sizes (`%d`) keep their defaults, as a user who
/// passes only the transposes' characters would. A function keeps the bindings of the first run
/// that reaches it (the run without arguments first).
fn host_bindings(text: &str) -> HashMap<String, HashMap<String, Vec<Tok>>> {
    let toks: Vec<Tok> = crate::cxx_tokens::tokenize_with_chars(text).into_iter().map(|t| t.0).collect();
    let defs: HashMap<String, Kernel> = function_defs(&toks).into_iter().rev().collect();
    let Some((_, main)) = defs.get("main").cloned() else { return HashMap::new() };
    let run = |argc: i64, argv: HashMap<String, String>| {
        let mut run = HostRun { toks: &toks, defs: defs.clone(), reached: HashMap::new(), argv, scanned: Vec::new() };
        let mut vars = HashMap::from([("argc".to_string(), vec![Tok::Word(argc.to_string())])]);
        run.exec(main.clone(), &mut vars, 0);
        (run.reached, run.scanned)
    };
    // Without arguments, then with all of them (argc past every `argc >= N`) to learn which
    // character variables the parsing assigns.
    let (mut reached, _) = run(1, HashMap::new());
    let (_, scanned) = run(i64::MAX, HashMap::new());
    // The character literals compared with `==` anywhere in the file.
    let mut chars: Vec<String> = Vec::new();
    for k in 1..toks.len().saturating_sub(1) {
        let eq =
            (toks[k] == Tok::Punct('=') && toks[k - 1] == Tok::Punct('=')).then(|| toks.get(k + 1)).flatten().or_else(
                || (toks[k] == Tok::Punct('=') && toks[k + 1] == Tok::Punct('=')).then(|| toks.get(k - 1)).flatten(),
            );
        if let Some(Tok::Word(c)) = eq {
            if c.starts_with('\'') && !chars.contains(c) {
                chars.push(c.clone());
            }
        }
    }
    if scanned.is_empty() || chars.is_empty() {
        return reached;
    }
    let runs = chars.len().checked_pow(scanned.len() as u32).unwrap_or(usize::MAX).min(ARGV_RUNS);
    for r in 0..runs {
        let mut argv = HashMap::new();
        let mut x = r;
        for v in &scanned {
            argv.insert(v.clone(), chars[x % chars.len()].clone());
            x /= chars.len();
        }
        for (f, b) in run(i64::MAX, argv).0 {
            reached.entry(f).or_insert(b);
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases and the skips of `forms(src)`, as texts.
    fn cases_and_skips(src: &str) -> (Vec<String>, Vec<String>) {
        let (mut cases, mut skips) = (Vec::new(), Vec::new());
        for (_, f) in forms(src) {
            match f {
                Form::Case(t) => cases.push(t),
                Form::Skip(t) => skips.push(t),
            }
        }
        (cases, skips)
    }

    /// Each form of `forms(src)` as its text (a case's expression, a skip's reason), in order.
    fn form_texts(src: &str) -> Vec<String> {
        forms(src)
            .into_iter()
            .map(|(_, f)| match f {
                Form::Case(t) | Form::Skip(t) => t,
            })
            .collect()
    }

    #[test]
    fn re_extraction_keeps_the_releases_already_recorded() {
        let file = "# header\n# recorded-for: 4.2.0.0 4.6.2.0 4.7.0.0\nsize(_4:_1)\n";
        assert_eq!(
            recorded_for_union(Some(file), &["4.10.0.0", "4.2.0.0", "4.7.0.0"]),
            ["4.2.0.0", "4.6.2.0", "4.7.0.0", "4.10.0.0"]
        );
        assert_eq!(recorded_for_union(None, &["4.7.0.0", "4.2.0.0"]), ["4.2.0.0", "4.7.0.0"]);
    }

    /// An extraction holding `cases` (canonical text = C++ text), found at `at`.
    fn extraction(cases: &[(&str, &str)]) -> Extraction {
        let mut groups: Vec<(&'static str, usize, usize)> = GROUPS.iter().map(|g| (*g, 0, 0)).collect();
        for (_, at) in cases {
            groups[group_of(at)].1 += 1;
        }
        let cases = cases.iter().map(|(c, at)| (c.to_string(), c.to_string(), vec![at.to_string()])).collect();
        Extraction { cases, skipped: vec![], groups, files: 1, missing: vec![] }
    }

    #[test]
    fn the_tags_a_form_is_read_from_decide_its_file() {
        const SM90: &str =
            "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp:869";
        const TUTORIAL: &str = "examples/cute/tutorial/sgemm_1.cu:10";
        let mut per_release = vec![
            ("4.2.0.0".to_string(), "v4.2.0".to_string(), extraction(&[("_4:_1", TUTORIAL), ("_8:_1", SM90)])),
            (
                "4.7.0.0".to_string(),
                "v4.7.0".to_string(),
                extraction(&[("_4:_1", TUTORIAL), ("tiled_divide(_8:_1, _2)", SM90), ("_8:_1", SM90)]),
            ),
        ];
        let partial = take_partial(&mut per_release, 2);
        // Forms on every tag stay, in their order, and are counted in their group's row.
        for (_, _, e) in &per_release {
            assert_eq!(e.cases.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), ["_4:_1", "_8:_1"]);
            assert_eq!((e.groups[0].1, e.groups[3].1), (1, 1));
        }
        // The form read from v4.7.0 only leaves 4.7's extraction for the file of its releases.
        assert_eq!(partial.len(), 1);
        assert_eq!(
            (partial[0].canon.as_str(), partial[0].releases.clone()),
            ("tiled_divide(_8:_1, _2)", vec!["4.7.0.0".to_string()])
        );
        let releases: Vec<(String, String)> = per_release.iter().map(|(r, d, _)| (r.clone(), d.clone())).collect();
        let text = since_suite(None, &releases, &partial).unwrap();
        let recorded: Vec<&str> = text.lines().filter(|l| l.starts_with("# recorded-for:")).collect();
        assert_eq!(recorded, ["# recorded-for: 4.7.0.0"]);
        assert!(text.contains("each read from 4.7.0.0 (v4.7.0); not from 4.2.0.0 (v4.2.0)."), "{text}");
        assert!(text.contains(&format!("\n# 4.7.0.0: {SM90}\ntiled_divide(_8:_1, _2)\n")), "{text}");
        // A re-extraction keeps the releases the file was already recorded for.
        let again = since_suite(Some(&text.replace("4.7.0.0\n", "4.6.2.0 4.7.0.0\n")), &releases, &partial).unwrap();
        assert!(again.contains("# recorded-for: 4.6.2.0 4.7.0.0\n"), "{again}");
        // A form on 4.2 only (taken out in 4.7) goes to another file than the 4.7-only forms.
        let mut per_release = vec![
            ("4.2.0.0".to_string(), "v4.2.0".to_string(), extraction(&[("_2:_1", SM90), ("_4:_1", TUTORIAL)])),
            ("4.7.0.0".to_string(), "v4.7.0".to_string(), extraction(&[("_4:_1", TUTORIAL), ("_8:_1", SM90)])),
        ];
        let partial = take_partial(&mut per_release, 2);
        assert_eq!(partial.iter().map(|p| p.releases.join(" ")).collect::<Vec<_>>(), ["4.2.0.0", "4.7.0.0"]);
        assert_eq!(per_release[0].2.cases.len(), 1);
        let err = since_suite(None, &releases, &partial).unwrap_err().to_string();
        assert!(err.contains("_2:_1 from 4.2.0.0, _8:_1 from 4.7.0.0"), "{err}");
        let files = partial_files("kf", &releases, partial);
        assert_eq!(files.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), ["kf_tags_v4_2_0", "kf_tags_v4_7_0"]);
        // `--also-recorded` reads the tag of each release of the `# recorded-for:` line.
        assert_eq!((tag_of("4.7.0.0"), tag_of("4.10.0.0")), ("v4.7.0".to_string(), "v4.10.0".to_string()));
        assert!(["3.3.0.0", "4.5.1.0"].iter().all(|r| release_of(&tag_of(r)) == *r));
        // The other releases' tags (--also-tag): a form both --tags build stays; one of theirs that
        // a --tag does not build goes to the file of the releases building it, consecutive ones
        // named as a run, others one by one.
        let mut per_release = vec![
            ("4.2.0.0".to_string(), "v4.2.0".to_string(), extraction(&[("_4:_1", TUTORIAL)])),
            ("4.7.0.0".to_string(), "v4.7.0".to_string(), extraction(&[("_4:_1", TUTORIAL), ("_8:_1", SM90)])),
            ("3.3.0.0".to_string(), "v3.3.0".to_string(), extraction(&[("_4:_1", TUTORIAL), ("_3:_1", TUTORIAL)])),
            ("4.3.6.0".to_string(), "v4.3.6".to_string(), extraction(&[("_8:_1", SM90), ("_4:_1", TUTORIAL)])),
            ("4.0.0.0".to_string(), "v4.0.0".to_string(), extraction(&[("_3:_1", TUTORIAL)])),
            ("3.5.1.0".to_string(), "v3.5.1".to_string(), extraction(&[("_4:_1", TUTORIAL)])),
        ];
        let partial = take_partial(&mut per_release, 2);
        assert_eq!(per_release.iter().map(|r| r.2.cases.len()).collect::<Vec<_>>(), [1, 1, 1, 1, 0, 1]);
        let releases: Vec<(String, String)> = per_release.iter().map(|(r, d, _)| (r.clone(), d.clone())).collect();
        let files = partial_files("kf", &releases, partial);
        let names: Vec<(&str, Vec<&str>)> =
            files.iter().map(|f| (f.0.as_str(), f.1.iter().map(|p| p.canon.as_str()).collect())).collect();
        assert_eq!(names, [("kf_tags_v4_3_6_to_v4_7_0", vec!["_8:_1"]), ("kf_tags_v3_3_0_v4_0_0", vec!["_3:_1"])]);
        let text = since_suite(None, &releases, &files[0].1).unwrap();
        assert!(text.contains("# recorded-for: 4.3.6.0 4.7.0.0\n"), "{text}");
        // Every tag reading the same forms: nothing is taken out.
        let mut same = vec![
            ("4.2.0.0".to_string(), String::new(), extraction(&[("_4:_1", TUTORIAL)])),
            ("4.7.0.0".to_string(), String::new(), extraction(&[("_4:_1", TUTORIAL)])),
        ];
        assert!(take_partial(&mut same, 2).is_empty());
        assert_eq!(same[1].2.cases.len(), 1);
    }

    #[test]
    fn main_binds_the_host_function_it_reaches_and_gmem_tensors_become_layouts() {
        // main() run without arguments: `argc >= 2` is false, transA stays 'N', ldA = m; gemm()
        // dispatches to gemm_nt only, so gemm_tn's tensors stay run-time values.
        let src = "template <class S, class D, class T>\n__global__ void k(S shape_MNK, D dA, T tA) {\n\
                   Tensor mA = make_tensor(make_gmem_ptr(A), select<0,2>(shape_MNK), dA);\n\
                   Tensor gA = local_tile(mA, make_shape(Int<128>{}, Int<8>{}), make_coord(blockIdx.x, _));\n\
                   Tensor tAgA = local_partition(gA, tA, threadIdx.x);\n\
                   Tensor tCrC = make_tensor_like(tAgA);\n\
                   Tensor tCrS = make_tensor_like<float>(tAgA(_, 0));\n\
                   Tensor tCpS = make_tensor<bool>(shape(filter_zeros(tAgA(_, 0))));\n}\n\
                   void gemm_nt(int m, int n, int k, int ldA) {\n  auto M = int(m);\n\
                   auto prob = make_shape(M, int(n), int(k));\n  auto dA = make_stride(Int<1>{}, ldA);\n\
                   k<<<1, 256>>>(prob, dA, make_layout(make_shape(Int<32>{}, Int<8>{})));\n}\n\
                   void gemm_tn(int m, int n, int k, int ldA) {\n  auto prob = make_shape(int(m), int(n), int(k));\n\
                   auto dA = make_stride(ldA, Int<1>{});\n  k<<<1, 256>>>(prob, dA, make_layout(make_shape(Int<32>{}, Int<8>{})));\n}\n\
                   void gemm(char tA, int m, int n, int k, int ldA) {\n\
                   if (tA == 'N') { return gemm_nt(m, n, k, ldA); }\n  else if (tA == 'T') { return gemm_tn(m, n, k, ldA); }\n}\n\
                   int main(int argc, char** argv) {\n  int m = 5120;\n  if (argc >= 2) sscanf(argv[1], \"%d\", &m);\n\
                   int n = 256; int k = 4096;\n  char transA = 'N';\n  int ldA = 0, ldB = 0;\n\
                   if (transA == 'N') { ldA = m; } else if (transA == 'T') { ldA = k; }\n\
                   gemm(transA, m, n, k, ldA);\n}\n";
        let h = host_bindings(src);
        assert!(!h.contains_key("gemm_tn"), "{:?}", h.keys());
        assert_eq!(render(&h["gemm_nt"]["ldA"]), "5120");
        assert_eq!(render(&h["gemm_nt"]["k"]), "4096");
        let (cases, skips) = cases_and_skips(src);
        let cases: Vec<&str> = cases.iter().map(String::as_str).collect();
        let m_a = "make_layout(make_shape(5120, 4096), make_stride(Int<1>{}, 5120))";
        assert!(cases.contains(&m_a), "{cases:?}");
        let g = format!("local_tile({m_a}, make_shape(Int<128>{{}}, Int<8>{{}}), make_coord(0, _))");
        assert!(cases.contains(&g.as_str()), "{cases:?}");
        let p = format!("local_partition({g}, make_layout(make_shape(Int<32>{{}}, Int<8>{{}})), 37)");
        assert!(cases.contains(&p.as_str()), "{cases:?}");
        assert!(cases.contains(&format!("make_layout_like({p})").as_str()), "{cases:?}");
        // make_tensor_like<T>: T is the values' type, the layout is make_layout_like's.
        assert!(cases.contains(&format!("make_layout_like({p}(_, 0))").as_str()), "{cases:?}");
        assert!(cases.contains(&format!("make_layout(shape(filter_zeros({p}(_, 0))))").as_str()), "{cases:?}");
        assert!(skips.iter().any(|s| s.contains("does not call gemm_tn()")), "{skips:?}");
        assert_eq!(
            condition(&tokenize_with_chars("'N' == 'N' && 1 >= 2").into_iter().map(|t| t.0).collect::<Vec<_>>()),
            Some(false)
        );
    }

    #[test]
    fn a_tma_atoms_coordinate_tensor_and_a_shared_storage_tensor_are_read() {
        // The Blackwell tutorials' shape: make_tma_atom of a host gmem tensor, its get_tma_tensor
        // passed to the kernel, a SharedStorage member tensor and its UMMA fragment.
        let src = "template <class TA, class L>\nstruct SharedStorage {\n  ArrayEngine<TA, cosize_v<L>> A;\n\
                   CUTE_DEVICE constexpr auto tensor_sA() { return make_tensor(make_smem_ptr(A.begin()), L{}); }\n};\n\
                   template <class SS, class ATensor, class MMA>\n__global__ void k(ATensor mA, MMA tiled_mma) {\n\
                   Tensor gA = local_tile(mA, make_shape(Int<128>{}, Int<64>{}), make_coord(0, _));\n\
                   extern __shared__ char smem[];\n  SS& shared_storage = *reinterpret_cast<SS*>(smem);\n\
                   Tensor tCsA = shared_storage.tensor_sA();\n  ThrMMA cta_mma = tiled_mma.get_slice(0);\n\
                   Tensor tCrA = cta_mma.make_fragment_A(tCsA);\n}\n\
                   template <class TypeA>\nvoid host(TypeA const* ptr_A, int m) {\n\
                   Tensor mA = make_tensor(make_gmem_ptr(ptr_A), make_layout(make_shape(m, 256), make_stride(256, Int<1>{})));\n\
                   TiledMMA tiled_mma = make_tiled_mma(SM100_MMA_F16BF16_SS<TypeA, TypeA, float, 128, 256, UMMA::Major::K, UMMA::Major::K>{});\n\
                   auto sA = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<TypeA>{}, partition_shape_A(tiled_mma, make_shape(Int<128>{}, Int<64>{})));\n\
                   using SMEM = SharedStorage<TypeA, decltype(sA)>;\n\
                   Copy_Atom tma_atom_A = make_tma_atom(SM90_TMA_LOAD{}, mA, sA, make_shape(Int<128>{}, Int<64>{}));\n\
                   Tensor mA_tma = tma_atom_A.get_tma_tensor(shape(mA));\n\
                   auto* kp = &k<SMEM, decltype(mA_tma), decltype(tiled_mma)>;\n\
                   cutlass::launch_kernel_on_cluster(params, (void const*) kp, mA_tma, tiled_mma);\n}\n\
                   int main() {\n  using TypeA = cutlass::half_t;\n  host(0, 512);\n}\n";
        let (cases, skips) = cases_and_skips(src);
        let tma = cases
            .iter()
            .find(|c| c.starts_with("make_tma_atom(SM90_TMA_LOAD{}, cutlass::half_t, make_layout("))
            .expect("the atom");
        let t = cases.iter().find(|c| c.starts_with("get_tma_tensor(")).expect("the TMA tensor");
        assert!(t.starts_with(&format!("get_tma_tensor({tma}, shape(")), "{t}");
        assert!(cases.iter().any(|c| c.starts_with(&format!("local_tile({t}"))), "{cases:?}");
        assert!(
            cases.iter().any(|c| c.starts_with("mma_make_fragment_a(make_tiled_mma(") && c.contains("tile_to_mma_shape(UMMA::")),
            "{cases:?} {skips:?}"
        );
    }

    #[test]
    fn a_host_function_only_argv_reaches_is_run_with_the_characters_that_reach_it() {
        // gemm_tn is reached only for `T N`: main()'s argv parsing assigns transA and transB
        // (`sscanf(argv[4], "%c", &transA)`), the file compares with 'N' and 'T', and the run with
        // `T N` binds gemm_tn's parameters (ldA = k under `transA == 'T'`); sizes keep defaults.
        // gemm_tt, which no characters reach, stays unbound.
        let src = "template <class S, class D>\n__global__ void k(S shape_MNK, D dA) {\n\
                   Tensor mA = make_tensor(make_gmem_ptr(A), select<0,2>(shape_MNK), dA);\n}\n\
                   void gemm_nt(int m, int k, int ldA) {\n  auto dA = make_stride(Int<1>{}, ldA);\n\
                   k<<<1, 256>>>(make_shape(int(m), 8, int(k)), dA);\n}\n\
                   void gemm_tn(int m, int k, int ldA) {\n  auto dA = make_stride(ldA, Int<1>{});\n\
                   k<<<1, 256>>>(make_shape(int(m), 8, int(k)), dA);\n}\n\
                   void gemm_tt(int m, int k, int ldA) {\n  auto dA = make_stride(ldA, Int<1>{});\n\
                   k<<<1, 256>>>(make_shape(int(m), 8, int(k)), dA);\n}\n\
                   void gemm(char tA, char tB, int m, int k, int ldA) {\n\
                   if (tA == 'N' && tB == 'T') { return gemm_nt(m, k, ldA); }\n\
                   else if (tA == 'T' && tB == 'N') { return gemm_tn(m, k, ldA); }\n}\n\
                   int main(int argc, char** argv) {\n  int m = 5120;\n  if (argc >= 2) sscanf(argv[1], \"%d\", &m);\n\
                   int k = 4096;\n  char transA = 'N';\n  if (argc >= 3) sscanf(argv[2], \"%c\", &transA);\n\
                   char transB = 'T';\n  if (argc >= 4) sscanf(argv[3], \"%c\", &transB);\n  int ldA = 0;\n\
                   if (transA == 'N') { ldA = m; } else if (transA == 'T') { ldA = k; }\n\
                   gemm(transA, transB, m, k, ldA);\n}\n";
        let h = host_bindings(src);
        assert_eq!(render(&h["gemm_nt"]["ldA"]), "5120");
        assert_eq!(render(&h["gemm_tn"]["ldA"]), "4096");
        assert_eq!(render(&h["gemm_tn"]["m"]), "5120");
        assert!(!h.contains_key("gemm_tt"), "{:?}", h.keys());
        let (cases, skips) = cases_and_skips(src);
        for want in [
            "make_layout(make_shape(5120, 4096), make_stride(Int<1>{}, 5120))",
            "make_layout(make_shape(5120, 4096), make_stride(4096, Int<1>{}))",
        ] {
            assert!(cases.iter().any(|c| c == want), "{want} not in {cases:#?}");
        }
        assert_eq!(skips.len(), 1, "{skips:?}");
        assert!(skips[0].contains("does not call gemm_tt()"), "{skips:?}");
    }

    #[test]
    fn a_tmem_copy_of_the_accumulator_fragment_takes_its_value_type() {
        // `make_tmem_copy(OP{}, tCtAcc)` with tCtAcc = cta_mma.make_fragment_C(tCgC): the
        // fragment's value type is the UMMA's ValTypeC (float); its partitions, of the TMEM
        // fragment and of the C partition, are cases the engine evaluates.
        let mma =
            "make_tiled_mma(SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::K>{})";
        let c =
            format!("mma_partition_c({mma}, make_layout(make_shape(Int<128>{{}}, Int<256>{{}}), LayoutRight{{}}), 0)");
        let frag =
            format!("mma_fragment_c({mma}, make_layout(make_shape(Int<128>{{}}, Int<256>{{}}), LayoutRight{{}}), 0)");
        let call = format!("make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{{}}, {frag})");
        let toks: Vec<Tok> = tokenize(&call).into_iter().map(|t| t.0).collect();
        let typed = render(&tmem_copy_typed(&toks).expect("a TMEM copy of the fragment"));
        assert_eq!(typed, format!("make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{{}}, float, {frag})"));
        for case in [
            typed.clone(),
            format!("copy_partition_s({typed}, {frag}, 37)"),
            format!("copy_partition_d({typed}, {c}, 37)"),
            format!("make_fragment_like(copy_partition_d({typed}, {c}, 37))"),
            format!("make_layout(shape(copy_partition_d({typed}, {c}, 37)))"),
        ] {
            assert!(admit(&case).is_ok(), "{case}: {:?}", admit(&case));
        }
        // Not the fragment of an MMA: left as written (the arity error names it).
        let other: Vec<Tok> =
            tokenize("make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{}, tAcc)").into_iter().map(|t| t.0).collect();
        assert!(tmem_copy_typed(&other).is_none());
    }

    #[test]
    fn the_epilogue_the_position_independent_tile_and_the_predicate_tensor_are_read() {
        let toks = |s: &str| -> Vec<Tok> { tokenize(s).into_iter().map(|t| t.0).collect() };
        // make_tmem_copy of a slice of a divide of the accumulator takes its ValTypeC.
        let mma =
            "make_tiled_mma(SM100_MMA_F16BF16_SS<half_t, half_t, float, 128, 256, UMMA::Major::K, UMMA::Major::K>{})";
        let frag = format!("mma_fragment_c({mma}, make_identity_tensor(make_shape(Int<128>{{}}, Int<256>{{}})), 0)");
        let epi = format!("zipped_divide({frag}, make_tile(make_tile(Int<128>{{}}, Int<64>{{}})))(_, _0{{}})");
        let typed =
            render(&tmem_copy_typed(&toks(&format!("make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{{}}, {epi})"))).unwrap());
        assert_eq!(typed, format!("make_tmem_copy(SM100_TMEM_LOAD_32dp32b1x{{}}, float, {epi})"));
        assert!(admit(&typed).is_ok(), "{typed}: {:?}", admit(&typed));
        assert!(accumulator_mma(&toks("local_tile(tAcc, t, c)")).is_none());
        // as_position_independent_swizzle_tensor(sA) of a tensor read as its layout.
        let sa = "tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<3>{}))";
        let tensors = HashMap::from([
            ("sA".to_string(), toks(sa)),
            ("C".to_string(), toks("make_identity_tensor(make_shape(528, 300))")),
        ]);
        let pi = position_independent(&toks("as_position_independent_swizzle_tensor(sA)"), &tensors).unwrap();
        assert!(admit(&pi).is_ok(), "{pi}: {:?}", admit(&pi));
        assert!(position_independent(&toks("as_position_independent_swizzle_tensor(sB)"), &tensors).is_none());
        // lazy::transform with the elem_less predicate, its shape substituted; another lambda is not read.
        let env = HashMap::from([("shape_S".to_string(), toks("make_shape(528, 300)"))]);
        let p = lazy_transform_form(
            &toks("cute::lazy::transform(C, [&](auto c) { return elem_less(c, shape_S); })"),
            &tensors,
            &env,
        )
        .unwrap();
        assert_eq!(p, "lazy_transform_elem_less(make_identity_tensor(make_shape(528, 300)), make_shape(528, 300))");
        assert!(admit(&p).is_ok(), "{p}: {:?}", admit(&p));
        assert!(lazy_transform_form(
            &toks("cute::lazy::transform(C, [&](auto c) { return elem_less(shape_S, c); })"),
            &tensors,
            &env
        )
        .is_none());
        assert!(lazy_transform_form(&toks("cute::lazy::transform(C, [&](auto c) { return c < 3; })"), &tensors, &env)
            .is_none());
    }

    #[test]
    fn nested_mode_sizes_and_static_quotients_fold() {
        // 05_mma_tma_epi_sm100.cu's epilogue tile: `make_tile(size<0,0>(S), size<0,1>(S) / Int<4>{})`
        // of the MMA's C shape ((_128,_256),_1,_1): size<I,J> is size(get(X, I, J)), and the
        // static quotient folds to Int<64>{}.
        let toks = |t: &str| tokenize(t).into_iter().map(|t| t.0).collect::<Vec<_>>();
        let n = normalize(&toks("make_tile(size<0,0>(S), size<0,1>(S) / Int<4>{})"));
        assert_eq!(render(&n), "make_tile(size(get(S, 0, 0)), size(get(S, 0, 1))/Int<4>{})");
        let s = "make_shape(make_shape(Int<128>{}, Int<256>{}), Int<1>{}, Int<1>{})";
        let v = normalize(&toks(&format!("make_tile(size<0,0>({s}), size<0,1>({s}) / Int<4>{{}})")));
        assert_eq!(
            render(&fold_static(&v).expect("folded")),
            "make_tile(size(get(make_shape(make_shape(Int<128>{}, Int<256>{}), Int<1>{}, Int<1>{}), 0, 0)), Int<64>{})"
        );
        // A run-time quotient is not folded.
        assert!(fold_static(&toks("make_tile(Int<4>{}, m / Int<4>{})")).is_none());
    }

    #[test]
    fn a_cp_async_mainloops_gmem_tiles_are_stood_in_by_a_4096_problems() {
        // A configuration's TagToStrideA_t<RowMajor> (K-major A) and TagToStrideB_t<RowMajor>
        // (N-major B) over a 128x128x32 tile: gA, gB (and the SM90 load()'s gA_in, gB_in) are
        // (BLK,BLK_K,k) tiles of a 4096^3 problem at the first CTA, which the engine evaluates.
        let toks = |t: &str| tokenize(t).into_iter().map(|t| t.0).collect::<Vec<_>>();
        let mbind = HashMap::from([
            ("TileShape_".to_string(), toks("Shape<_128,_128,_32>")),
            ("StrideA_".to_string(), toks("TagToStrideA_t<cutlass::layout::RowMajor>")),
            ("StrideB_".to_string(), toks("TagToStrideB_t<cutlass::layout::RowMajor>")),
        ]);
        let g = gmem_stand_ins(&mbind);
        let (a, b) = (render(&g["gA"]), render(&g["gB"]));
        assert_eq!(
            a,
            "local_tile(make_layout(make_shape(4096, 4096), make_stride(4096, Int<1>{})), make_shape(size<0>(Shape<_128, _128, _32>{}), size<2>(Shape<_128, _128, _32>{})), make_coord(0, _))"
        );
        assert!(b.contains("make_stride(Int<1>{}, 4096)") && b.contains("size<1>("), "{b}");
        assert_eq!(g["gA_in"], g["gA"]);
        for t in [&a, &b] {
            assert!(admit(t).is_ok(), "{t}: {:?}", admit(t));
            let v = cutecheck::expr::eval_str(t).unwrap().to_string();
            assert!(v.starts_with("(_128,_32,128):"), "{v}");
        }
        // The second problem's (M, K) = (1040, 528) and (N, K) = (784, 528) at the CTA (1, 2):
        // 9 k tiles of 32 (the last one past K's 528 in part), the tile of rows 128-255 of A and
        // of columns 256-383 of B.
        let g2 = with_problem(RESIDUE_PROBLEM, || gmem_stand_ins(&mbind));
        let (a2, b2) = (render(&g2["gA"]), render(&g2["gB"]));
        assert!(a2.starts_with("local_tile(make_layout(make_shape(1040, 528), make_stride(528, Int<1>{})),"), "{a2}");
        assert!(a2.ends_with("make_coord(1, _))") && b2.ends_with("make_coord(2, _))"), "{a2} {b2}");
        assert!(b2.contains("make_shape(784, 528), make_stride(Int<1>{}, 784)"), "{b2}");
        assert_eq!(problem(), FIRST_PROBLEM, "with_problem restores the first problem");
        for (t, want) in [(&a2, "(_128,_32,17):(528,_1,_32)"), (&b2, "(_128,_32,17):(_1,784,25088)")] {
            assert_eq!(cutecheck::expr::eval_str(t).unwrap().to_string(), want, "{t}");
        }
        // Without layout tags (a stride type spelled out): no stand-in.
        let mut other = mbind.clone();
        other.insert("StrideA_".into(), toks("cute::Stride<int64_t, cute::Int<1>, int64_t>"));
        assert!(!gmem_stand_ins(&other).contains_key("gA"));
    }

    #[test]
    fn host_ints_and_atom_thr_ids_are_bound() {
        // `int Gemm_M = 512;` binds a dynamic 512 (a loop counter does not); `constexpr int` folds
        // through the engine; `typename decltype(make_tiled_mma(A{}))::AtomThrID{}` is mma_thr_id(A).
        let src = "int main() {\n  for (int k = 0; k < 4; ++k) {}\n  int Gemm_M = 512;\n  int Gemm_K = 256;\n\
                   Layout la = make_layout(make_shape(Gemm_M, Gemm_K), make_stride(Gemm_K, Int<1>{}));\n\
                   auto t = make_tiled_mma(SM80_16x8x8_F32TF32TF32F32_TN{}, Layout<Shape<_2,_2,_1>>{});\n\
                   constexpr int G = size(t) / 128;\n  auto w = make_layout(Int<G>{}, Int<k>{});\n\
                   auto c = tiled_divide(make_layout(make_shape(Int<2>{})), make_tile(typename decltype(t)::AtomThrID{}));\n}\n";
        let f = form_texts(src);
        assert_eq!(f[0], "make_layout(make_shape(512, 256), make_stride(256, Int<1>{}))");
        assert!(f.contains(&"make_layout(Int<1>{}, Int<k>{})".to_string()), "{f:?}");
        assert!(f.iter().any(|x| x.contains("make_tile(mma_thr_id(SM80_16x8x8_F32TF32TF32F32_TN))")), "{f:?}");
        assert_eq!(fold_int(&tokenize("14 / 4").into_iter().map(|t| t.0).collect::<Vec<_>>()), Some(3));
        assert!(admit(&f[0]).is_ok());
    }

    #[test]
    fn bindings_are_substituted_in_order() {
        let src = "void f() {\n  auto bM = Int<128>{};  // rows\n  auto bK = Int< 8>{};\n\
                   auto s = make_layout(make_shape(bM, bK));\n  auto bM = Int<64>{};\n\
                   auto t = tile_to_shape(s, make_shape(bM, bK));\n  TiledCopy c = make_tiled_copy(Copy_Atom<UniversalCopy<T>, T>{},\n\
                   Layout<Shape<_32,_8>>{});\n  Copy_Atom<UniversalCopy<T>, T> a;\n  TiledCopy d = make_tiled_copy(a, Layout<Shape<_4>>{});\n}\nusing T = float;\n";
        let f: Vec<(usize, String)> = forms(src)
            .into_iter()
            .map(|(l, f)| match f {
                Form::Case(t) => (l, t),
                Form::Skip(w) => (l, w),
            })
            .collect();
        assert_eq!(
            f,
            vec![
                (4, "make_layout(make_shape(Int<128>{}, Int<8>{}))".to_string()),
                (
                    6,
                    "tile_to_shape(make_layout(make_shape(Int<128>{}, Int<8>{})), make_shape(Int<64>{}, Int<8>{}))"
                        .to_string()
                ),
                (7, "make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_32, _8>>{})".to_string()),
                (10, "make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_4>>{})".to_string()),
            ]
        );
        assert!(admit(&f[1].1).is_ok());
        assert!(admit("make_layout(make_shape(int(m), 4))").unwrap_err().contains("unknown function or name"));
    }

    #[test]
    fn a_kernels_partitions_are_taken_with_its_launch_arguments() {
        // A kernel whose layouts and copies are parameters (one by type, as the SM90 tutorials
        // pass them), launched through a pointer: its partitions of shared memory become cases at
        // thread 37, global-memory ones are skipped with the reason.
        let src = "template <class L, class C, class M>\n__global__ void k(int* A, L sA_layout, C copy_a, M mma) {\n\
                   Tensor sA = make_tensor(make_smem_ptr(smem), L{});\n\
                   Tensor gA = make_tensor(make_gmem_ptr(A), make_shape(4, 8));\n\
                   ThrCopy thr_copy = copy_a.get_slice(threadIdx.x);\n\
                   Tensor tAsA = thr_copy.partition_D(sA);\n  Tensor tAgA = thr_copy.partition_S(gA);\n\
                   ThrMMA thr_mma = mma.get_thread_slice(threadIdx.x);\n  Tensor tCsA = thr_mma.partition_A(sA);\n\
                   Tensor tCrA = thr_mma.make_fragment_A(tCsA);\n  Tensor tXrA = thr_copy.retile_D(tCrA);\n}\n\
                   void host(int* A) {\n  auto sA = make_layout(make_shape(Int<64>{}, Int<8>{}));\n\
                   TiledCopy copyA = make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_32, _4>>{});\n\
                   TiledMMA mmaC = make_tiled_mma(UniversalFMA<float, float, float>{}, Layout<Shape<_16, _8, _1>>{});\n\
                   auto* kernel_ptr = &k<decltype(sA), decltype(copyA), decltype(mmaC)>;\n\
                   kernel_ptr<<<1, 128>>>(A, sA, copyA, mmaC);\n}\n";
        let (cases, skips) = cases_and_skips(src);
        let (l, c, m) = (
            "make_layout(make_shape(Int<64>{}, Int<8>{}))",
            "make_tiled_copy(Copy_Atom<UniversalCopy<float>, float>{}, Layout<Shape<_32, _4>>{})",
            "make_tiled_mma(UniversalFMA<float, float, float>{}, Layout<Shape<_16, _8, _1>>{})",
        );
        let frag = format!("mma_fragment_a({m}, {l}, 37)");
        for want in [
            format!("copy_partition_d({c}, {l}, 37)"),
            format!("mma_partition_a({m}, {l}, 37)"),
            frag.clone(),
            format!("retile_D({c}, {frag})"),
        ] {
            assert!(cases.contains(&want), "{want} not in {cases:#?}");
        }
        // The global-memory tensor of concrete extents is a layout (dynamic integers), and its
        // partition a case too.
        assert!(skips.is_empty(), "{skips:?}");
        assert!(cases.contains(&format!("copy_partition_s({c}, make_layout(make_shape(4, 8)), 37)")), "{cases:#?}");
        for c in &cases {
            assert!(admit(c).is_ok(), "{c}: {:?}", admit(c));
        }
    }

    #[test]
    fn a_configuration_instantiates_its_mainloop() {
        // A configuration whose operand struct is picked by the layout tag (a full and a partial
        // specialization), and a mainloop specialization whose dispatch policy defaults a parameter.
        let conf = "namespace detail { template <class E, class L, int A> struct Op;\n\
            template <> struct Op<half_t, layout::RowMajor, 8> { using SmemLayoutAtom = decltype(\n\
            composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>,Stride<_64,_1>>{})); };\n\
            template <int A> struct Op<half_t, layout::ColumnMajor, A> { using SmemLayoutAtom = Layout<Shape<_64,_8>>; }; }\n\
            template <class LA> struct Config<half_t, LA> { using TileShape = Shape<_128,_128,_64>;\n\
            static constexpr int kAlignmentA = 8; using D = detail::Op<half_t, LA, kAlignmentA>;\n\
            using SmemLayoutAtomA = typename D::SmemLayoutAtom;\n\
            using TiledMma = TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>, Layout<Shape<_2,_2,_1>>, Tile<_32,_32,_16>>;\n\
            using CollectiveMainloop = CollectiveMma<MainloopSm80CpAsync<3>, TileShape, SmemLayoutAtomA, TiledMma>; };";
        let ml = "template <int Stages, class ClusterShape_, class TileShape_, class SmemLayoutAtomA_, class TiledMma_>\n\
            struct CollectiveMma<MainloopSm80CpAsync<Stages, ClusterShape_>, TileShape_, SmemLayoutAtomA_, TiledMma_> {\n\
            using DispatchPolicy = MainloopSm80CpAsync<Stages, ClusterShape_>; using TileShape = TileShape_;\n\
            using SmemLayoutAtomA = SmemLayoutAtomA_; using TiledMma = TiledMma_;\n\
            using SmemLayoutA = decltype(tile_to_shape(SmemLayoutAtomA{},\n\
              make_shape(shape<0>(TileShape{}), shape<2>(TileShape{}), Int<DispatchPolicy::Stages>{})));\n\
            void operator()() { Tensor sA = make_tensor(make_smem_ptr(p), SmemLayoutA{}); TiledMma tiled_mma;\n\
            auto thr_mma = tiled_mma.get_thread_slice(thread_idx);\n\
            Tensor tCrA = thr_mma.partition_fragment_A(sA(_,_,0)); } };";
        let (ct, mt) = (tokenize(conf), tokenize(ml));
        let cplain: Vec<Tok> = ct.iter().map(|t| t.0.clone()).collect();
        let (cdefs, mdefs) = (struct_defs(&ct), struct_defs(&mt));
        let tag = |t: &str| {
            vec![
                tokenize("cutlass::half_t").into_iter().map(|t| t.0).collect(),
                tokenize(t).into_iter().map(|t| t.0).collect(),
            ]
        };
        let run = |layout: &str| -> Vec<String> {
            let (d, bind) = specialization(&cdefs, "Config", &tag(layout)).expect("a specialization");
            let env = members(&cdefs, &cplain, d, bind, 0);
            let (_, margs) = template_id(&env["CollectiveMainloop"]).expect("a template-id");
            let (md, mbind) = specialization(&mdefs, "CollectiveMma", &margs).expect("the mainloop");
            mainloop_forms(&mt, md, mbind, false)
                .into_iter()
                .map(|(_, f)| match f {
                    Form::Case(t) | Form::Skip(t) => t,
                })
                .collect()
        };
        let sa = "tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), make_shape(_128{}, _64{}, Int<3>{}))";
        let mma = "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{}, Tile<_32, _32, _16>{})";
        assert_eq!(
            run("cutlass::layout::RowMajor"),
            vec![sa.to_string(), mma.to_string(), format!("mma_fragment_a({mma}, {sa}(_, _, 0), 37)")]
        );
        let col = run("cutlass::layout::ColumnMajor");
        assert_eq!(col[0], "tile_to_shape(Layout<Shape<_64, _8>>{}, make_shape(_128{}, _64{}, Int<3>{}))");
        for c in run("cutlass::layout::RowMajor").iter().chain(&col) {
            assert!(admit(c).is_ok(), "{c}: {:?}", admit(c));
        }
    }

    #[test]
    fn the_sm90_rs_builder_selects_as_cutlass_does() {
        let use_of = |ea: &str, la: &str, lb: &str, tile: &str, cluster: &str, sched: &str| -> Vec<Vec<Tok>> {
            split_commas(
                &tokenize(&format!(
                    "cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, {ea}, cutlass::layout::{la}, 4, \
                     {ea}, cutlass::layout::{lb}, 4, float, {tile}, {cluster}, \
                     cutlass::gemm::collective::StageCountAuto, {sched}"
                ))
                .into_iter()
                .map(|t| t.0)
                .collect::<Vec<_>>(),
            )
        };
        let text = |a: Vec<Vec<Tok>>| -> Vec<String> { a.iter().map(|x| render(x)).collect() };
        // tf32 A ColumnMajor (MN-major), B ColumnMajor, M = 64 under KernelScheduleAuto: Pingpong;
        // A's atom MN-major SW32 (256-byte aligned), B's K-major SW128 (1024): SmemAlignment 1024,
        // 232448 / (round_up(64*32*4 + 128*32*4, 1024) + 16) = 9 stages.
        let nn = use_of(
            "cutlass::tfloat32_t",
            "ColumnMajor",
            "ColumnMajor",
            "Shape<_64,_128,_32>",
            "Shape<_1,_1,_1>",
            "cutlass::gemm::collective::KernelScheduleAuto",
        );
        let m = text(sm90_builder(&nn).expect("the RS builder"));
        assert_eq!(
            m[0],
            "MainloopSm90TmaGmmaRmemAWarpSpecialized<9, Shape<_1, _1, _1>, KernelTmaWarpSpecializedPingpong>"
        );
        assert_eq!(m[6], "decltype(make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>{}, Layout<Shape<_1, _1, _1>>{}))");
        assert_eq!((m[7].as_str(), m[11].as_str()), ("SM90_TMA_LOAD", "SM90_TMA_LOAD"));
        assert_eq!(
            (m[8].as_str(), m[12].as_str()),
            ("GMMA::Layout_MN_SW32_Atom<tfloat32_t>", "GMMA::Layout_K_SW128_Atom<tfloat32_t>")
        );
        assert_eq!((m[9].as_str(), m[13].as_str()), ("Copy_Atom<cute::AutoVectorizingCopy, tfloat32_t>", "void"));
        // float A RowMajor (K-major), B RowMajor (MN-major): SwapAB, the copy atom on B; a 4x2
        // cluster multicasts both; Cooperative takes two warp groups along M.
        let tt = use_of(
            "float",
            "RowMajor",
            "RowMajor",
            "Shape<_128,_128,_32>",
            "Shape<_4,_2,_1>",
            "cutlass::gemm::KernelTmaWarpSpecializedCooperative",
        );
        let s = text(sm90_builder(&tt).expect("the RS builder"));
        // 232448 / (round_up(2 * 128*32*4, 1024) + 16) = 7 stages.
        assert_eq!(
            s[0],
            "MainloopSm90TmaGmmaRmemAWarpSpecialized<7, Shape<_4, _2, _1>, KernelTmaWarpSpecializedCooperative>"
        );
        assert_eq!(s[6], "decltype(make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>{}, Layout<Shape<_2, _1, _1>>{}))");
        assert_eq!((s[7].as_str(), s[11].as_str()), ("SM90_TMA_LOAD_MULTICAST", "SM90_TMA_LOAD_MULTICAST"));
        assert_eq!((s[9].as_str(), s[13].as_str()), ("void", "Copy_Atom<cute::AutoVectorizingCopy, float>"));
        // Both MN-major (B transposed in shared memory): B's atom is SW32 too; SmemAlignment 256.
        let nt = use_of(
            "cutlass::tfloat32_t",
            "ColumnMajor",
            "RowMajor",
            "Shape<_64,_128,_32>",
            "Shape<_1,_1,_1>",
            "cutlass::gemm::KernelTmaWarpSpecialized",
        );
        let t = text(sm90_builder(&nt).expect("the RS builder"));
        assert_eq!(t[12], "GMMA::Layout_MN_SW32_Atom<tfloat32_t>");
        assert_eq!(t[0], "MainloopSm90TmaGmmaRmemAWarpSpecialized<9, Shape<_1, _1, _1>, KernelTmaWarpSpecialized>");
        // The cp.async RS builder and 8-bit RS inputs are not read.
        let cp = use_of(
            "float",
            "ColumnMajor",
            "ColumnMajor",
            "Shape<_64,_128,_32>",
            "Shape<_1,_1,_1>",
            "cutlass::gemm::KernelCpAsyncWarpSpecialized",
        );
        assert!(sm90_builder(&cp).unwrap_err().contains("only the TMA warp-specialized one"));
        let i8 = use_of(
            "int8_t",
            "ColumnMajor",
            "ColumnMajor",
            "Shape<_64,_128,_64>",
            "Shape<_1,_1,_1>",
            "cutlass::gemm::KernelTmaWarpSpecialized",
        );
        assert!(sm90_builder(&i8).unwrap_err().contains("register-sourced"));
    }

    #[test]
    fn the_rs_mainloop_resolves_its_swap_and_transpose() {
        // The RS mainloop's selections, as sm90_mma_tma_gmma_rs_warpspecialized.hpp writes them.
        let ml = "template <int Stages, class StrideA_, class StrideB_, class ElementA_, class ElementB_, class SmemLayoutAtomA_, class SmemLayoutAtomB_>\n\
            struct CollectiveMma<MainloopRs<Stages>, StrideA_, StrideB_, ElementA_, ElementB_, SmemLayoutAtomA_, SmemLayoutAtomB_> {\n\
            using SmemLayoutAtomA = SmemLayoutAtomA_; using SmemLayoutAtomB = SmemLayoutAtomB_;\n\
            static constexpr bool SwapAB = !IsInputSizeTwoBytes && IsLayoutAkBmn;\n\
            using InternalSmemLayoutAtomA = cute::conditional_t<!SwapAB, SmemLayoutAtomA, SmemLayoutAtomB>;\n\
            using InternalSmemLayoutAtomB = cute::conditional_t<!SwapAB, SmemLayoutAtomB, SmemLayoutAtomA>;\n\
            using SmemLayoutA = decltype(tile_to_shape(InternalSmemLayoutAtomA{}, make_shape(_64{}, _32{}, Int<Stages>{})));\n\
            using TransposeOperandB = decltype(make_transpose_operand_b(0, 0, SmemLayoutA{}));\n\
            using GmmaSmemLayoutAtomB = decltype(transform::collective::detail::gmma_smem_transpose_or_passthrough<\n\
                TransposeB, InternalSmemLayoutAtomB, ElementB_>());\n\
            using GmmaSmemLayoutB = decltype(tile_to_shape(GmmaSmemLayoutAtomB{}, make_shape(_128{}, _32{}, Int<Stages>{})));\n\
            };";
        let mt = tokenize(ml);
        let mdefs = struct_defs(&mt);
        let run = |la: &str, lb: &str| -> Vec<String> {
            let args: Vec<Vec<Tok>> = split_commas(
                &tokenize(&format!(
                    "MainloopRs<9>, TagToStrideA_t<cutlass::layout::{la}>, TagToStrideB_t<cutlass::layout::{lb}>, \
                     tfloat32_t, tfloat32_t, GMMA::Layout_K_SW128_Atom<tfloat32_t>, GMMA::Layout_MN_SW32_Atom<tfloat32_t>"
                ))
                .into_iter()
                .map(|t| t.0)
                .collect::<Vec<_>>(),
            );
            let (md, mbind) = specialization(&mdefs, "CollectiveMma", &args).expect("the mainloop");
            mainloop_forms(&mt, md, mbind, false)
                .into_iter()
                .map(|(_, f)| match f {
                    Form::Case(t) | Form::Skip(t) => t,
                })
                .collect()
        };
        let (k128, mn32, k32) = (
            "GMMA::Layout_K_SW128_Atom<tfloat32_t>{}",
            "GMMA::Layout_MN_SW32_Atom<tfloat32_t>{}",
            "GMMA::Layout_K_SW32_Atom<tfloat32_t>{}",
        );
        let a = |atom: &str| format!("tile_to_shape({atom}, make_shape(_64{{}}, _32{{}}, Int<9>{{}}))");
        let b = |atom: &str| format!("tile_to_shape({atom}, make_shape(_128{{}}, _32{{}}, Int<9>{{}}))");
        // A K-major, B MN-major: SwapAB (A's tile takes B's atom, B's A's); no transposition.
        assert_eq!(run("RowMajor", "RowMajor"), vec![a(mn32), b(k128)]);
        // A MN-major, B MN-major: B transposed, its GMMA tile K-major with B's swizzle.
        assert_eq!(run("ColumnMajor", "RowMajor"), vec![a(k128), b(k32)]);
        // B K-major: neither.
        assert_eq!(run("ColumnMajor", "ColumnMajor"), vec![a(k128), b(mn32)]);
    }

    #[test]
    fn the_rs_mainloops_b_transposition_is_read_where_both_operands_are_mn_major() {
        // The functor as sm90_wgmma_transpose.hpp writes it (its operator()'s tiled copy).
        let dir = std::env::temp_dir().join(format!("kf-rs-transpose-{}", std::process::id()));
        let file = dir.join(RS_TRANSPOSE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "template<class TiledMma_, class SmemLayoutB_, class SmemLayoutAtomB_, class ElementB_>\n\
             class AsyncTranspositionOperandB { public: using ElementB = ElementB_;\n\
             static constexpr int BytesPerSmemSwizzleUnit = 16;\n\
             static constexpr int WarpThreadShapeN = BytesPerSmemSwizzleUnit / sizeof(ElementB);\n\
             static constexpr int WarpThreadShapeK = NumThreadsPerWarp / WarpThreadShapeN;\n\
             template <class TensorSmemB> void operator()(TensorSmemB const& sB, int read_stage) {\n\
             static constexpr auto WarpThreadLayout = make_layout(make_shape(Int<WarpThreadShapeN>{}, Int<WarpThreadShapeK>{}));\n\
             auto sB_tiled_copy = make_tiled_copy(Copy_Atom<DefaultCopy, ElementB>{}, WarpThreadLayout, Layout<_1>{});\n\
             auto sB_thr_copy = sB_tiled_copy.get_thread_slice(5);\n\
             Tensor tCsB = sB_thr_copy.partition_S(sB(_,_,read_stage)); } };",
        )
        .unwrap();
        let margs = |la: &str, lb: &str, eb: &str| -> Vec<Vec<Tok>> {
            split_commas(
                &tokenize(&format!(
                    "MainloopSm90TmaGmmaRmemAWarpSpecialized<9, Shape<_1,_1,_1>, KernelTmaWarpSpecialized>, \
                     Shape<_64,_128,_32>, tfloat32_t, TagToStrideA_t<cutlass::layout::{la}>, {eb}, \
                     TagToStrideB_t<cutlass::layout::{lb}>, decltype(make_tiled_mma(SM90_64x128x8_F32TF32TF32_RS_TN<>{{}})), \
                     SM90_TMA_LOAD, GMMA::Layout_MN_SW32_Atom<tfloat32_t>, Copy_Atom<cute::AutoVectorizingCopy, tfloat32_t>, \
                     cute::identity, SM90_TMA_LOAD, GMMA::Layout_MN_SW32_Atom<tfloat32_t>, void, cute::identity"
                ))
                .into_iter()
                .map(|t| t.0)
                .collect::<Vec<_>>(),
            )
        };
        let src = Source::Dir(dir.clone());
        let texts = |f: Vec<(usize, Form)>| -> Vec<Form> { f.into_iter().map(|(_, f)| f).collect() };
        // tfloat32_t B is ConvertedElementB uint32_t: 16 / 4 = 4 threads along N, 32 / 4 = 8 along K.
        let got = texts(rs_transpose_forms(&src, &margs("ColumnMajor", "RowMajor", "tfloat32_t")));
        assert_eq!(got[0], Form::Case("make_layout(make_shape(Int<4>{}, Int<8>{}))".into()));
        assert_eq!(
            got[1],
            Form::Case(
                "make_tiled_copy(Copy_Atom<DefaultCopy, uint32_t>{}, make_layout(make_shape(Int<4>{}, Int<8>{})), Layout<_1>{})"
                    .into()
            )
        );
        // sB is the position-independent swizzle tensor of SmemLayoutB, read at stage 1.
        assert_eq!(
            got[2],
            Form::Case(
                "copy_partition_s(make_tiled_copy(Copy_Atom<DefaultCopy, uint32_t>{}, make_layout(make_shape(Int<4>{}, Int<8>{})), Layout<_1>{}), as_position_independent_swizzle_tensor(tile_to_shape(GMMA::Layout_MN_SW32_Atom<tfloat32_t>{}, make_shape(_128{}, _32{}, Int<9>{}), Step<_2, _1, _3>{}))(_, _, 1), 5)"
                    .into()
            )
        );
        // A float B is converted to tfloat32_t.
        let f = texts(rs_transpose_forms(&src, &margs("ColumnMajor", "RowMajor", "float")));
        assert!(matches!(&f[1], Form::Case(c) if c.contains("Copy_Atom<DefaultCopy, tfloat32_t>")), "{:?}", f[1]);
        // B K-major, or A K-major (SwapAB): no transposition.
        assert!(rs_transpose_forms(&src, &margs("ColumnMajor", "ColumnMajor", "tfloat32_t")).is_empty());
        assert!(rs_transpose_forms(&src, &margs("RowMajor", "RowMajor", "tfloat32_t")).is_empty());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_sm90_builder_selects_as_cutlass_does() {
        let args: Vec<Vec<Tok>> = split_commas(
            &tokenize(
                "cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::half_t, cutlass::layout::RowMajor, 8, \
                       cutlass::half_t, cutlass::layout::RowMajor, 8, float, Shape<_128,_128,_64>, Shape<_2,_1,_1>, \
                       cutlass::gemm::collective::StageCountAuto, cutlass::gemm::KernelScheduleAuto",
            )
            .into_iter()
            .map(|t| t.0)
            .collect::<Vec<_>>(),
        );
        let m = sm90_builder(&args).expect("a TMA warp-specialized SS mainloop");
        let text: Vec<String> = m.iter().map(|a| render(a)).collect();
        // Auto with 16-byte alignments and M = 128: Cooperative; 232448 / (2 * 128*64*2 + 16) = 7 stages.
        assert_eq!(
            text[0],
            "MainloopSm90TmaGmmaWarpSpecialized<7, Shape<_2, _1, _1>, KernelTmaWarpSpecializedCooperative>"
        );
        assert_eq!(
            text[6],
            "decltype(make_tiled_mma(SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::MN>{}, Layout<Shape<_2, _1, _1>>{}))"
        );
        assert_eq!(text[8], "GMMA::Layout_K_SW128_Atom<half_t>");
        assert_eq!(text[12], "GMMA::Layout_MN_SW128_Atom<half_t>");
        // FP8 (both K-major): the FP8 mainloop, a 32-deep TN atom.
        let mut fp8 = args.clone();
        fp8[2] = vec![Tok::Word("float_e4m3_t".into())];
        fp8[5] = vec![Tok::Word("float_e4m3_t".into())];
        fp8[6] = tokenize("cutlass::layout::ColumnMajor").into_iter().map(|t| t.0).collect();
        fp8[4] = vec![Tok::Word("16".into())];
        fp8[7] = vec![Tok::Word("16".into())];
        let f: Vec<String> = sm90_builder(&fp8).expect("the FP8 mainloop").iter().map(|a| render(a)).collect();
        // 232448 / (128*64 + 128*64 + 16) = 14 stages.
        assert_eq!(
            f[0],
            "MainloopSm90TmaGmmaWarpSpecializedFP8<14, Shape<_2, _1, _1>, KernelTmaWarpSpecializedCooperative>"
        );
        assert!(f[6].contains("SM90_64x128x32_F32E4M3E4M3_SS_TN<>"), "{}", f[6]);
        // FP8 with an MN-major B: detail::is_use_rmem_A, the RS builder.
        fp8[6] = args[6].clone();
        assert!(sm90_builder(&fp8).unwrap_err().contains("register-sourced"));
        // Auto with 8-byte alignments: KernelCpAsyncWarpSpecialized, two load warp groups (256
        // threads): A K-major 64/4 = 16 threads along K, B MN-major 128/4 = 32 along N.
        let mut cp = args.clone();
        cp[4] = vec![Tok::Word("4".into())];
        cp[7] = vec![Tok::Word("4".into())];
        let c: Vec<String> = sm90_builder(&cp).expect("the cp.async mainloop").iter().map(|a| render(a)).collect();
        assert_eq!(c[0], "MainloopSm90CpAsyncGmmaWarpSpecialized<7, Shape<_2, _1, _1>, KernelCpAsyncWarpSpecialized>");
        assert_eq!(
            c[7],
            "decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint64_t>, half_t>{}, Layout<Shape<_16, _16>, Stride<_16, _1>>{}, Layout<Shape<_1, _4>>{}))"
        );
        assert_eq!(
            c[11],
            "decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<uint64_t>, half_t>{}, Layout<Shape<_32, _8>, Stride<_1, _32>>{}, Layout<Shape<_4, _1>>{}))"
        );
        // KernelTma: MainloopSm90TmaGmma, the TiledMma of the atom alone.
        let mut kt = args.clone();
        kt[12] = tokenize("cutlass::gemm::KernelTma").into_iter().map(|t| t.0).collect();
        let t: Vec<String> = sm90_builder(&kt).expect("the KernelTma mainloop").iter().map(|a| render(a)).collect();
        assert_eq!(t[0], "MainloopSm90TmaGmma<7, Shape<_2, _1, _1>, 1>");
        assert_eq!(t[6], "decltype(make_tiled_mma(SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::MN>{}))");
        // Pointer-array (a group GEMM's `LayoutA *` tags): the array mainloop with CUTLASS's stage
        // count only; the Cooperative atom layout; the pointer kept in the stride.
        let mut pa = args.clone();
        pa[3] = tokenize("cutlass::layout::RowMajor *").into_iter().map(|t| t.0).collect();
        pa[12] =
            tokenize("cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative").into_iter().map(|t| t.0).collect();
        let why = sm90_builder(&pa).unwrap_err();
        assert!(why.contains("capacity less its tensor maps"), "{why}");
        pa[11] = tokenize("StageCount<6>").into_iter().map(|t| t.0).collect();
        let a: Vec<String> = sm90_builder(&pa).expect("the pointer-array mainloop").iter().map(|a| render(a)).collect();
        assert_eq!(
            a[0],
            "MainloopSm90ArrayTmaGmmaWarpSpecialized<6, Shape<_2, _1, _1>, KernelPtrArrayTmaWarpSpecializedCooperative>"
        );
        assert_eq!(a[3], "TagToStrideA_t<cutlass::layout::RowMajor*>");
        assert_eq!(a[6], text[6]);
        // A pointer tag outside the pointer-array builder is refused.
        let mut bad = args.clone();
        bad[3] = pa[3].clone();
        assert!(sm90_builder(&bad).unwrap_err().contains("pointer strides"));
    }

    #[test]
    fn an_operand_structs_element_is_bound_as_a_word() {
        assert_eq!(
            rebind_word(
                "Copy_Atom<UniversalCopy<Element>, Element>{}, x.Element, A::Element, ElementA",
                "Element",
                "float"
            ),
            "Copy_Atom<UniversalCopy<float>, float>{}, x.Element, A::Element, ElementA"
        );
    }

    #[test]
    fn a_builder_use_in_a_class_template_is_read_per_instantiation() {
        // As examples/49: the schedule and stage count are the runner's template parameters; main()
        // instantiates it with defaults, with an explicit `_5`, and with a schedule.
        let text = "template <class Sched = cutlass::gemm::collective::KernelScheduleAuto, \
            class Stages = cutlass::gemm::collective::StageCountAuto, bool Evt = false>\n\
            struct Runner {\n\
              using E = cutlass::half_t;\n\
              static constexpr int AlignmentA = 16 / sizeof(E);\n\
              using M = typename cutlass::gemm::collective::CollectiveBuilder<\n\
                cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, E, cutlass::layout::RowMajor, AlignmentA,\n\
                E, cutlass::layout::ColumnMajor, AlignmentA, float, Shape<_128,_128,_64>, Shape<_2,_1,_1>,\n\
                cute::conditional_t<cute::is_same_v<Stages, cutlass::gemm::collective::StageCountAuto>,\n\
                  cutlass::gemm::collective::StageCountAutoCarveout<8>, Stages>, Sched>::CollectiveOp;\n\
            };\n\
            int main() {\n\
              Runner<> a;\n\
              Runner<cutlass::gemm::collective::KernelScheduleAuto, _5> b;\n\
              Runner<cutlass::gemm::KernelTma> c;\n\
              return 0;\n\
            }\n";
        let toks = tokenize(text);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let i = plain.iter().position(|t| *t == Tok::Word("CollectiveBuilder".into())).expect("the use");
        let c = angle_close(&plain, i + 1).expect("its arguments");
        let args = split_commas(&plain[i + 2..c]);
        let uses = class_instance_uses("t.cu:5", &toks, i, &args).expect("one use per instantiation");
        let at: Vec<&str> = uses.iter().map(|u| u.0.as_str()).collect();
        assert_eq!(at, ["t.cu:5@12", "t.cu:5@13", "t.cu:5@14"]);
        assert_eq!(uses[2].2, (14, crate::kernel_stages::Ask::Type("Runner<cutlass::gemm::KernelTma>".to_string())));
        // The defaults bound; the stage count's conditional_t folded either way.
        assert_eq!(render(&uses[0].1[12]), "cutlass::gemm::collective::KernelScheduleAuto");
        assert_eq!(render(&uses[0].1[11]), "cutlass::gemm::collective::StageCountAutoCarveout<8>");
        assert_eq!(render(&uses[1].1[11]), "_5");
        assert_eq!(render(&uses[2].1[12]), "cutlass::gemm::KernelTma");
        // `_5` is compute_stage_count_or_override's `cute::Int<5>`; `16 / sizeof(half_t)` is 8,
        // which KernelScheduleAuto's TMA choice needs (16-byte units).
        let mut b = uses[1].1.clone();
        b[2] = vec![Tok::Word("half_t".into())];
        b[5] = b[2].clone();
        b[4] = normalize(&tokenize("16 / sizeof(cutlass::half_t)").into_iter().map(|t| t.0).collect::<Vec<_>>());
        b[7] = b[4].clone();
        let m = sm90_builder(&b).expect("the auto-scheduled mainloop");
        assert_eq!(
            render(&m[0]),
            "MainloopSm90TmaGmmaWarpSpecialized<5, Shape<_2, _1, _1>, KernelTmaWarpSpecializedCooperative>"
        );
        // A use that names no parameter of its class template is read as it is.
        let plain_use: Vec<Vec<Tok>> = args.iter().map(|a| substitute(a, &HashMap::new())).take(11).collect();
        assert!(class_instance_uses("t.cu:5", &toks, i, &plain_use).is_none());
    }

    #[test]
    fn a_builder_use_in_a_function_template_is_read_per_call() {
        // As the blockwise FP8 unit test: explicit majors, granularities, tags and shapes deduced
        // from the call's temporaries.
        let text = "template <cute::GMMA::Major SFAMajor, int GM, class LayoutA, class Tile>\n\
            bool groupwise_test(Int<GM>, LayoutA, Tile) {\n\
              using Config = cutlass::detail::Sm90BlockwiseScaleConfig<GM, 128, 128, SFAMajor, SFAMajor>;\n\
              using LayoutSFA = decltype(Config::deduce_layoutSFA());\n\
              using M = typename cutlass::gemm::collective::CollectiveBuilder<\n\
                cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::float_e4m3_t, cute::tuple<LayoutA, LayoutSFA>, 16,\n\
                cutlass::float_e4m3_t, cute::tuple<cutlass::layout::ColumnMajor, LayoutSFA>, 16, float, Tile, Shape<_1,_1,_1>,\n\
                cutlass::gemm::collective::StageCountAutoCarveout<8>,\n\
                cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum>::CollectiveOp;\n\
              return true;\n\
            }\n\
            TEST(X, Y) {\n\
              bool passed = groupwise_test<cute::GMMA::Major::MN>(Int<1>{}, cutlass::layout::RowMajor{}, Shape<_128,_128,_128>{});\n\
            }\n";
        let toks = tokenize(text);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let i = plain.iter().position(|t| *t == Tok::Word("CollectiveBuilder".into())).expect("the use");
        let c = angle_close(&plain, i + 1).expect("its arguments");
        // As builder_uses substitutes the file's aliases before the use.
        let mut env = Bound::new();
        for b in bindings(&toks).iter().filter(|b| b.pos < i && b.keyword == "using") {
            let v = substitute(&b.rhs, &env);
            env.insert(b.name.clone(), v);
        }
        let args: Vec<Vec<Tok>> = split_commas(&plain[i + 2..c]).iter().map(|a| substitute(a, &env)).collect();
        let uses = function_instance_uses("t.cu:5", &toks, i, &args).expect("one use per call");
        assert_eq!(uses.len(), 1);
        assert_eq!(uses[0].0, "t.cu:5@13");
        let crate::kernel_stages::Ask::When(cond) = &uses[0].2 .1 else { panic!("a condition") };
        assert_eq!(
            cond,
            "cute::is_same_v<cute::tuple<cute::C<SFAMajor>, cute::C<GM>, LayoutA, Tile>, \
             cute::tuple<cute::C<cute::GMMA::Major::MN>, cute::C<1>, cutlass::layout::RowMajor, Shape<_128, _128, _128>>>"
        );
        let mut a = uses[0].1.clone();
        assert_eq!(render(&a[9]), "Shape<_128, _128, _128>");
        assert_eq!(
            scale_config(&tuple_pair(&a[3]).expect("a pair").1),
            Some(([1, 128, 128], ["MN".into(), "MN".into()]))
        );
        // The blockwise builder: the plain Cooperative builder's TiledMma and atoms, the
        // blockwise policy, the scale-factor layouts kept in the stride pairs.
        assert!(sm90_builder(&a).unwrap_err().contains("compute_stage_count_with_blockwise_scale"));
        a[11] = tokenize("StageCount<6>").into_iter().map(|t| t.0).collect();
        let m: Vec<String> = sm90_builder(&a).expect("the blockwise mainloop").iter().map(|x| render(x)).collect();
        assert_eq!(
            m[0],
            "MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8<6, Shape<_1, _1, _1>, KernelTmaWarpSpecializedCooperativeFP8Blockwise>"
        );
        assert!(m[3].starts_with("cute::tuple<TagToStrideA_t<cutlass::layout::RowMajor>, TagToStrideA_t<"), "{}", m[3]);
        assert!(m[6].contains("SM90_64x128x32_F32E4M3E4M3_SS_TN<>") && m[6].contains("_2, _1, _1"), "{}", m[6]);
        assert_eq!(m[8], "GMMA::Layout_K_SW128_Atom<float_e4m3_t>");
        // The mainloop's scale-factor smem layouts as smem_atom_layoutSFA/SFB build them.
        let body = "struct CollectiveMma { using SmemLayoutAtomSFA = decltype(ScaleConfig::smem_atom_layoutSFA(TileShape{})); \
            using SmemLayoutAtomSFB = decltype(ScaleConfig::smem_atom_layoutSFB(TileShape{})); \
            using SmemLayoutSFA = decltype(make_layout(append(shape(SmemLayoutAtomSFA{}), Int<DispatchPolicy::Stages>{}), x)); \
            static constexpr int ScaleMsPerTile = size<0>(TileShape{}) / ScaleGranularityM; \
            void mma() { Tensor tCsSFA = tiled_mma.get_slice(thread_idx).partition_C(sSFA); } };";
        let bt = tokenize(body);
        let (bp, md) = collective_mma(&bt);
        let mut inside = bindings(&bt);
        let mut mbind = Bound::new();
        for (k, v) in [("StridePairA_", 3), ("StridePairB_", 5), ("TileShape_", 1), ("TiledMma_", 6)] {
            mbind.insert(k.to_string(), tokenize(&m[v]).into_iter().map(|t| t.0).collect());
        }
        blockwise_mainloop_bindings(&bp, &md, &mbind, &mut inside);
        let got: HashMap<String, String> = inside.iter().map(|b| (b.name.clone(), render(&b.rhs))).collect();
        assert_eq!(
            got["SmemLayoutAtomSFA"],
            "decltype(make_layout(make_shape(make_shape(Int<1>{}, Int<128>{}), make_shape(Int<128>{}, Int<1>{})), make_stride(make_stride(_0{}, _1{}), make_stride(_0{}, Int<128>{}))))"
        );
        // SFB over N (granularity 128: one scale), its strides by SFA's major (MN).
        assert_eq!(
            got["SmemLayoutAtomSFB"],
            "decltype(make_layout(make_shape(make_shape(Int<128>{}, Int<1>{}), make_shape(Int<128>{}, Int<1>{})), make_stride(make_stride(_0{}, _1{}), make_stride(_0{}, Int<1>{}))))"
        );
        assert_eq!(
            got["SmemLayoutSFA"],
            "decltype(make_layout(get<0>(SmemLayoutAtomSFA{}), get<1>(SmemLayoutAtomSFA{}), make_layout(Int<DispatchPolicy::Stages>{}, size(filter_zeros(SmemLayoutAtomSFA{})))))"
        );
        assert_eq!(got["ScaleMsPerTile"], "128");
        // The chained slice and partition: the slice bound first.
        assert_eq!(got["tCsSFA_slice"], "tiled_mma.get_slice(thread_idx)");
        assert_eq!(got["tCsSFA"], "tCsSFA_slice.partition_C(sSFA)");
        let order: Vec<&str> = inside.iter().map(|b| b.name.as_str()).collect();
        assert!(order.ends_with(&["tCsSFA_slice", "tCsSFA"]), "{order:?}");
    }

    /// mma()'s `accum` is the kernels' accumulator fragment of the CTA tile, written with the
    /// configuration's TiledMma and TileShape; nothing where either is unbound.
    #[test]
    fn the_accumulators_are_the_kernels_fragment_of_the_cta_tile() {
        let words = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
        let mut mbind = HashMap::new();
        mbind.insert("TileShape_".to_string(), words("Shape<_128, _64, _32>"));
        assert!(accumulators(&mbind).is_empty());
        mbind.insert("TiledMma_".to_string(), words("TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>>"));
        assert_eq!(
            render(&accumulators(&mbind)["accum"]),
            "partition_fragment_C(TiledMMA<MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>>{}, make_shape(size<0>(Shape<_128, _64, _32>{}), size<1>(Shape<_128, _64, _32>{})))"
        );
    }

    /// The RS mainloop's SwapAB (float A K-major, B MN-major): its Params' A copy is over the
    /// problem's B, N x K with B's stride, and the kernel gives it the problem with M and N swapped.
    #[test]
    fn the_rs_mainloops_swapped_tma_copies_take_the_other_operands_tensor() {
        let body = "struct CollectiveMma { static constexpr bool SwapAB = !IsInputSizeTwoBytes && IsLayoutAkBmn; \
            static constexpr Params to_underlying_arguments(Arguments const& args) { \
              ptr_A = reinterpret_cast<InternalElementA const*>(args.ptr_B); \
              ptr_B = reinterpret_cast<InternalElementB const*>(args.ptr_A); \
              typename Params::TMA_A tma_load_a = make_tma_copy_A_sm90(GmemTiledCopyA{}, tensor_a, x); \
              typename Params::TMA_B tma_load_b = make_tma_copy_B_sm90(GmemTiledCopyB{}, tensor_b, x); } };";
        let toks = tokenize(body);
        let (_, md) = collective_mma(&toks);
        let words = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
        let copies = |b_tag: &str| {
            let mut mbind = Bound::new();
            for (k, v) in [
                ("StrideA_", "TagToStrideA_t<cutlass::layout::RowMajor>".to_string()),
                ("StrideB_", format!("TagToStrideB_t<cutlass::layout::{b_tag}>")),
                ("ElementA_", "float".to_string()),
                ("ElementB_", "float".to_string()),
            ] {
                mbind.insert(k.to_string(), words(&v));
            }
            let mut inside = bindings(&toks);
            with_problem(RESIDUE_PROBLEM, || tma_stand_ins(&toks, &md, &mut mbind, &mut inside));
            let got: HashMap<String, String> = inside.iter().map(|b| (b.name.clone(), render(&b.rhs))).collect();
            (got, render(&mbind["M"]), render(&mbind["N"]))
        };
        // Swapped: A is B's (784 x 528, N-major), B is A's (1040 x 528, K-major); M = 784.
        let (got, m, n) = copies("RowMajor");
        assert_eq!((m.as_str(), n.as_str()), ("784", "1040"));
        assert!(
            got["tma_load_a"].contains("make_layout(make_shape(M, K, L), make_stride(Int<1>{}, 784, 413952))"),
            "{got:?}"
        );
        assert!(
            got["tma_load_b"].contains("make_layout(make_shape(N, K, L), make_stride(528, Int<1>{}, 549120))"),
            "{got:?}"
        );
        assert!(got["tma_load_a"].starts_with("make_tma_copy(GmemTiledCopyA{}, tfloat32_t,"), "{got:?}");
        // Both K-major: no swap.
        let (got, m, _) = copies("ColumnMajor");
        assert_eq!(m, "1040");
        assert!(got["tma_load_a"].contains("make_stride(528, Int<1>{}, 549120)"), "{got:?}");
        assert!(got["tma_load_b"].contains("make_stride(528, Int<1>{}, 413952)"), "{got:?}");
    }

    /// The tokens of a `struct CollectiveMma { ... };` and its definition (no template parameters).
    fn collective_mma(toks: &[(Tok, usize)]) -> (Vec<Tok>, StructDef) {
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let body = 2..plain.len() - 2;
        (plain, StructDef { name: "CollectiveMma".into(), params: vec![], pattern: None, base: None, body })
    }

    /// A mainloop body with the FP8 blockwise mainloop's scale-factor statements (the 4.2/4.7
    /// sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp spellings), its bindings
    /// after [`blockwise_scale_stand_ins`] for the scale-factor layouts `sf_a`/`sf_b`
    /// (`ScaleConfig<GM, GN, GK, MajorA, MajorB>` arguments) and tile `tile`, with the stand-in
    /// bindings it adds.
    fn blockwise_stand_ins(sf: &str, tile: &str) -> (Vec<Binding>, Bound) {
        let body = "struct CollectiveMma { \
            static constexpr bool IsTmaLoadSFA = ScaleMsPerTile >= ScaleTmaThreshold && MMajorSFA; \
            static constexpr Params to_underlying_arguments(Arguments const& args) { \
              auto ptr_SFA = reinterpret_cast<ElementBlockScale const*>(args.ptr_SFA); \
              Tensor tensor_sfa = make_tensor(ptr_SFA, filter_zeros(args.layout_SFA)); \
              typename Params::TMA_SFA tma_load_sfa{}; \
              if constexpr (IsTmaLoadSFA) { \
                tma_load_sfa = make_tma_copy(GmemTiledCopyScaleTMA{}, tensor_sfa, \
                  filter_zeros(SmemLayoutSFA{})(_,_,cute::Int<0>{}), Shape<Int<ScaleMsPerTile>, Int<1>>{}, _1{}); \
              } } \
            auto load_init(Params const& mainloop_params) const { \
              auto mSFA_mkl = [&]() { \
                if constexpr (IsTmaLoadSFA) { \
                  return mainloop_params.tma_load_sfa.get_tma_tensor(shape(filter_zeros(mainloop_params.layout_SFA))); } \
                else { return make_tensor(make_gmem_ptr(mainloop_params.ptr_SFA), mainloop_params.layout_SFA); } }(); \
              return cute::make_tuple(gA_mkl, gB_nkl, mSFA_mkl); } \
            void load() { auto [tAgA_SFA, tAsA_SFA] = [&]() { if constexpr (IsTmaLoadSFA) { \
                auto block_tma_sfa = mainloop_params.tma_load_sfa.get_slice(0); \
                Tensor tAgA_SFA_ = block_tma_sfa.partition_S(gSFA); \
                return cute::make_tuple(tAgA_SFA_, tAgA_SFA_); } else { return cute::make_tuple(0, 0); } }(); } \
            void load_auxiliary() { \
              Tensor iSFA_mkl = make_identity_tensor(shape(mainloop_params.layout_SFA)); \
              Tensor tSFAcSFA = tSFAcSFA_k(_,_,_,*k_tile_iter); } };";
        let toks = tokenize(body);
        let (_, md) = collective_mma(&toks);
        let mut inside = bindings(&toks);
        let words = |s: &str| tokenize(s).into_iter().map(|t| t.0).collect::<Vec<Tok>>();
        let mut mbind = Bound::new();
        let pair = |ab: &str, sfx: &str| {
            format!(
                "cute::tuple<TagToStride{ab}_t<cutlass::layout::RowMajor>, TagToStride{ab}_t<decltype(cutlass::detail::Sm90BlockwiseScaleConfig<{sf}>::deduce_layoutSF{sfx}())>>"
            )
        };
        mbind.insert("StridePairA_".into(), words(&pair("A", "A")));
        mbind.insert("StridePairB_".into(), words(&pair("B", "B")));
        mbind.insert("TileShape_".into(), words(tile));
        blockwise_scale_stand_ins(&toks, &md, &mut mbind, &mut inside);
        (inside, mbind)
    }

    #[test]
    fn the_blockwise_scale_factor_tensors_are_stood_in_by_a_4096_problems() {
        // tile_atom_to_shape_SFA(make_shape(4096, 4096, 4096, 1)): granularity (1, 128), MN-major
        // ((_1,4096),(_128,32),1):((_0,_1),(_0,4096),131072); K-major ((_0,32),(_0,_1),...).
        let mn = "make_layout(make_shape(make_shape(Int<1>{}, 4096), make_shape(Int<128>{}, 32), 1), \
                  make_stride(make_stride(_0{}, _1{}), make_stride(_0{}, 4096), 131072))";
        assert_eq!(scale_layout_stand_in(1, 128, true, 4096).as_deref(), Some(mn));
        assert_eq!(
            scale_layout_stand_in(128, 128, false, 4096).as_deref(),
            Some(
                "make_layout(make_shape(make_shape(Int<128>{}, 32), make_shape(Int<128>{}, 32), 1), \
                 make_stride(make_stride(_0{}, 32), make_stride(_0{}, _1{}), 1024))"
            )
        );
        assert_eq!(scale_layout_stand_in(0, 128, true, 4096), None);
        // The second problem (K = 528: 5 scale blocks of 128, the last in part; L = 2).
        assert_eq!(
            with_problem(RESIDUE_PROBLEM, || scale_layout_stand_in(1, 128, true, 1040)).as_deref(),
            Some(
                "make_layout(make_shape(make_shape(Int<1>{}, 1040), make_shape(Int<128>{}, 5), 2), \
                 make_stride(make_stride(_0{}, _1{}), make_stride(_0{}, 1040), 5200))"
            )
        );
        let got = |inside: &[Binding]| -> HashMap<String, (String, String)> {
            inside.iter().map(|b| (b.name.clone(), (b.keyword.clone(), render(&b.rhs)))).collect()
        };
        // SFA MN-major, 128 scales per tile along M, one along N: IsTmaLoadSFA, the TMA path.
        let (inside, mbind) =
            blockwise_stand_ins("1, 128, 128, cute::GMMA::Major::MN, cute::GMMA::Major::K", "Shape<_128, _128, _128>");
        assert_eq!(render(&mbind["layout_SFA"]), mn);
        let g = got(&inside);
        assert_eq!(
            g["tma_load_sfa"],
            (
                TMA_COPY.to_string(),
                "make_tma_copy(GmemTiledCopyScaleTMA{}, ElementBlockScale, filter_zeros(layout_SFA), \
                 filter_zeros(SmemLayoutSFA{})(_, _, Int<0>{}), Shape<Int<ScaleMsPerTile>, Int<1>>{}, _1{})"
                    .to_string()
            )
        );
        assert_eq!(
            g["mSFA_mkl"],
            ("Tensor".to_string(), "get_tma_tensor(tma_load_sfa, shape(filter_zeros(layout_SFA)))".to_string())
        );
        assert_eq!(g["block_tma_sfa"].1, "tma_load_sfa.get_slice(0)");
        assert_eq!(g["tAgA_SFA_"].1, "block_tma_sfa.partition_S(gSFA)");
        assert_eq!(g["iSFA_mkl"].1, "make_identity_tensor(shape(layout_SFA))");
        assert_eq!(g["tSFAcSFA"].1, "tSFAcSFA_k(_, _, _, 0)");
        let order: Vec<&str> = inside.iter().map(|b| b.name.as_str()).collect();
        assert!(order.windows(2).any(|w| w == ["tensor_sfa", "tma_load_sfa"]), "{order:?}");
        // SFA K-major: no TMA (MMajorSFA is false): the global-memory tensor, and the TMA
        // branch's bindings (the Params' copy, load()'s partitions) are not instantiated.
        let (inside, mbind) =
            blockwise_stand_ins("1, 128, 128, cute::GMMA::Major::K, cute::GMMA::Major::K", "Shape<_128, _128, _128>");
        assert!(render(&mbind["layout_SFA"])
            .ends_with("make_stride(make_stride(_0{}, 32), make_stride(_0{}, _1{}), 131072))"));
        let g = got(&inside);
        assert_eq!(
            g["mSFA_mkl"],
            ("Tensor".to_string(), "make_tensor(make_gmem_ptr(mainloop_params.ptr_SFA), layout_SFA)".to_string())
        );
        for gone in ["tma_load_sfa", "block_tma_sfa", "tAgA_SFA_"] {
            assert!(!g.contains_key(gone), "{gone}");
        }
        // 32 scales per tile along both M and N: no TMA either (IsTmaLoadSFA needs fewer than 32 along N).
        let (inside, _) =
            blockwise_stand_ins("4, 4, 128, cute::GMMA::Major::MN, cute::GMMA::Major::MN", "Shape<_128, _128, _128>");
        assert!(!got(&inside).contains_key("tma_load_sfa"));
    }

    #[test]
    fn flag_conditions_and_47s_split_members_are_evaluated() {
        let flags: HashMap<&str, bool> = [("IsTmaLoadSFA", true), ("IsTmaLoadSFB", false)].into_iter().collect();
        let c = |s: &str| flag_condition(&tokenize(s).into_iter().map(|t| t.0).collect::<Vec<_>>(), &flags);
        assert_eq!(c("IsTmaLoadSFA"), Some(true));
        assert_eq!(c("!IsTmaLoadSFA || !IsTmaLoadSFB"), Some(true));
        assert_eq!(c("(IsTmaLoadSFA && IsTmaLoadSFB)"), Some(false));
        assert_eq!(c("IsTmaLoadSFA && Other"), None);
        // v4.7.0: NumSplitsM = C<BLK_M / 128>, NumSplitsM_Scale its conditional_t on ScaleMsPerTile.
        let body = "struct CollectiveMma { using SmemLayoutAtomSFA = X; static constexpr int ScaleMsPerTile = 256; \
            using NumSplitsM = cute::C<get<0>(TileShape_{}) / 128>; \
            void mma() { using NumSplitsM_Scale = cute::conditional_t<ScaleMsPerTile == 1, _1, NumSplitsM>; \
              using One = cute::conditional_t<ScaleMsPerTile == 256, _1, NumSplitsM>; } };";
        let toks = tokenize(body);
        let plain: Vec<Tok> = toks.iter().map(|t| t.0.clone()).collect();
        let md = StructDef {
            name: "CollectiveMma".into(),
            params: vec![],
            pattern: None,
            base: None,
            body: 2..plain.len() - 2,
        };
        let mut inside = bindings(&toks);
        let mut mbind = Bound::new();
        mbind.insert("TileShape_".into(), tokenize("Shape<_256, _128, _128>").into_iter().map(|t| t.0).collect());
        blockwise_split_bindings(&plain, &md, &mbind, &mut inside);
        let got: HashMap<String, String> = inside.iter().map(|b| (b.name.clone(), render(&b.rhs))).collect();
        assert_eq!(got["NumSplitsM"], "Int<2>");
        assert_eq!(got["NumSplitsM_Scale"], "NumSplitsM");
        assert_eq!(got["One"], "_1");
    }
}
