//! A real disagreement drawn: real CuTe against the engine on a release mismatch, the pictures
//! written as `cargo xtask conformance` writes them (report::picture).
//!
//! The mismatch is one a user can make: a CUTLASS "checkout" whose `cutlass/version.h` says
//! 4.2.0 while its headers are CUTLASS 3.5.1's (the pinned `nvidia-cutlass` 3.5.1.0 wheel, its
//! version.h rewritten in a temporary copy; a fork that bumped its version and not its CuTe). The
//! engine then models 4.2, CuTe prints what 3.5.1 computes, and `left_inverse((_2,_4):(_1,_4))`
//! (INVERSES_SORTED, new in 4.2: engine/release.rs) is a NEW disagreement whose two outputs are
//! layouts. Nothing CuTe printed here is recorded: the test reads it live. It needs real CuTe (and
//! the 3.5.1.0 wheel, fetched from PyPI when missing): it runs under `cargo xtask test`
//! (`CUTECHECK_CUTE` set at build time) and is reported as ignored, with the reason, otherwise.

use cutecheck::judge::{Judge, Status};
use cutecheck::known::KnownDiscrepancies;
use cutecheck::oracle::{Oracle, OracleArgs};
use cutecheck::report::picture::{layout_grid, write_pictures, FOLDER};

/// A copy of `include` whose version.h says 4.2.0.
fn relabelled_as_4_2(include: &std::path::Path, to: &std::path::Path) {
    let status = std::process::Command::new("cp").arg("-r").arg(include).arg(to.join("include")).status().unwrap();
    assert!(status.success());
    let vh = to.join("include/cutlass/version.h");
    let text = std::fs::read_to_string(&vh).unwrap();
    let mut relabelled = String::new();
    for l in text.lines() {
        let l = match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["#define", "CUTLASS_MAJOR", _] => "#define CUTLASS_MAJOR 4".to_string(),
            ["#define", "CUTLASS_MINOR", _] => "#define CUTLASS_MINOR 2".to_string(),
            ["#define", "CUTLASS_PATCH", _] => "#define CUTLASS_PATCH 0".to_string(),
            _ => l.to_string(),
        };
        relabelled.push_str(&l);
        relabelled.push('\n');
    }
    assert_ne!(text, relabelled, "version.h names its version");
    std::fs::write(&vh, relabelled).unwrap();
}

#[test]
#[cfg_attr(
    not(cutecheck_cute),
    ignore = "needs real CuTe: run `cargo xtask test` (provisions CUTLASS 4.2 and sets CUTECHECK_CUTE), or this test with --ignored"
)]
fn a_real_disagreement_of_two_layouts_is_drawn_side_by_side() {
    let prov = cutecheck::oracle::provision::Provisioner::new().expect("the provisioner");
    let headers = prov.cutlass("3.5.1.0").expect("CUTLASS 3.5.1.0 from PyPI");
    let fork = tempfile::tempdir().unwrap();
    relabelled_as_4_2(&headers.include_dir, fork.path());

    let args = OracleArgs {
        cutlass_version: None,
        cutlass_dir: Some(fork.path().to_path_buf()),
        cuda_include: Vec::new(),
        cxx: None,
        no_cache: false,
        compile_timeout: cutecheck::limits::COMPILE_SECS,
        compile_memory: cutecheck::limits::COMPILE_MEMORY_MB,
        memory_budget: None,
        case_output: cutecheck::limits::CASE_OUTPUT,
        jobs: None,
    };
    let release = cutecheck::cli::release_of(&args);
    assert_eq!(release.map(|r| r.to_string()).as_deref(), Some("4.2.0.0"), "the fork says 4.2");
    let oracle = Oracle::new(args.options()).expect("CuTe of the fork");
    let known = KnownDiscrepancies::default();
    let judge = Judge::for_release(&known, cutecheck::cli::version_of(&args), release);
    let spec = cutecheck::run::PlanSpec { cases: 0, seed: 1, shard: (0, 1), fixed: false, known: false };
    let mut plan = cutecheck::run::plan(&judge, &spec).unwrap();
    // One case that changed in 4.2 (two layouts), one that did not.
    let cases = "left_inverse((_2,_4):(_1,_4))\ncoalesce((_2,_4):(_1,_2))\n";
    plan.cases.extend(cutecheck::run::plan::case_lines(cases, "ci/kernel.cases").unwrap());
    let run = cutecheck::run::run_planned(&judge, plan, &[&oracle], false, |_, _| Ok(())).unwrap();
    let about = cutecheck::report::conformance::About {
        oracle: cutecheck::case::Oracle::describe(&oracle),
        seed: 1,
        shard: (0, 1),
        random_cases: 0,
        pycute: false,
        start: std::time::Instant::now(),
    };
    let mut report = cutecheck::report::conformance::build(run, &judge, about, None, |_, _| None);
    let state = tempfile::tempdir().unwrap();
    let written = write_pictures(&mut report, state.path()).unwrap();

    let new: Vec<_> = report.cases.iter().filter(|c| c.status == Status::New).collect();
    assert_eq!(new.len(), 1, "{:?}", report.cases.iter().map(|c| (&c.expr, &c.verdict)).collect::<Vec<_>>());
    let c = new[0];
    assert_eq!(c.expr, "left_inverse((_2,_4):(_1,_4))");
    // Both outputs are layouts, CuTe's as 3.5.1 computes it (not the engine's 4.2 answer).
    let (engine, cute) = (layout_grid(&c.engine).expect("a layout"), layout_grid(&c.cute).expect("a layout"));
    assert_eq!(c.engine, ["(_4,_4):(_1,_2)"]);
    assert_ne!(c.cute, c.engine);
    assert_eq!(written, vec![state.path().join(FOLDER).join("new-1.svg")]);
    assert_eq!(c.picture.as_deref(), Some(written[0].to_str().unwrap()));
    let svg = std::fs::read_to_string(&written[0]).unwrap();
    // The marked cells are the ones whose values differ, or that one side lacks, counted here
    // from the two outputs.
    let at = |g: &cutecheck::svg::Grid, r: i64, col: i64| {
        (r < g.rows && col < g.cols).then(|| g.cells[(r + g.rows * col) as usize].label.clone())
    };
    let mut differing = 0;
    for (g, other) in [(&engine, &cute), (&cute, &engine)] {
        for r in 0..g.rows {
            for col in 0..g.cols {
                differing += usize::from(at(g, r, col) != at(other, r, col));
            }
        }
    }
    assert!(differing > 0);
    assert!(svg.contains(&format!("<!-- differing cells (red): {differing} -->")), "{svg}");
    assert_eq!(svg.matches("stroke=\"red\"").count(), differing);
    // The judge reads the fork as the release its version.h names.
    assert!(svg.contains(&format!("CuTe {}: {}", report.version, c.cute[0])), "{svg}");
    if let Some(d) = std::env::var_os("CUTECHECK_PICTURE_OUT") {
        std::fs::write(std::path::Path::new(&d).join("disagreement-left_inverse.svg"), &svg).unwrap();
    }
}
