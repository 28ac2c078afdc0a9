//! Pictures of disagreements: for every NEW case (and every CHANGED IN RELEASE case) whose two
//! outputs are both layouts (plain, swizzled `Sw<B,M,S> o OFF o L`, or with basis strides), an SVG
//! with the engine's layout and CuTe's side by side and every cell where they differ marked
//! ([`crate::svg::side_by_side_svg`]). `cargo xtask conformance` writes them to
//! `<state>/disagreements/new-N.svg` (`changed-N.svg` for a change in a newer release), N counting
//! from 1 in the report's order, and names each in the log (`picture: PATH`), in the JSON
//! (`"picture"`), in the step summary and the JUnit failure; the Action's output `pictures` is
//! that folder. Reads the printed outputs (as CuTe printed them) and computes no verdict.

use std::path::{Path, PathBuf};

use super::conformance::{CaseReport, Report};
use crate::judge::Status;
use crate::svg::{grid_of, side_by_side_svg, Grid};

/// The folder of the pictures under the state directory.
pub const FOLDER: &str = "disagreements";

/// A printed output read back as a layout's [`Grid`], when it is one: a plain layout or one with
/// basis strides (read by the expression parser), or a swizzled layout as CuTe prints it,
/// `Sw<B,M,S> o OFF o SHAPE:STRIDE` (OFF an integer). Anything else (an integer, a tuple, an
/// error, a `print_layout` grid of many lines) is `None`.
pub fn layout_grid(lines: &[String]) -> Option<Grid> {
    let [text] = lines else { return None };
    let text = text.trim();
    if let Some(composed) = swizzled(text) {
        return Some(composed);
    }
    let v = crate::expr::eval_str(text).ok()?;
    grid_of(&v)?.ok()
}

/// `Sw<B,M,S> o OFF o L`, read as `composition(Swizzle<B,M,S>, L)` moved by OFF.
fn swizzled(text: &str) -> Option<Grid> {
    let mut parts = text.splitn(3, " o ");
    let (sw, off, layout) = (parts.next()?, parts.next()?, parts.next()?);
    let bms = sw.strip_prefix("Sw<")?.strip_suffix('>')?;
    let n: Vec<i64> = bms.split(',').map(|x| x.trim().parse().ok()).collect::<Option<_>>()?;
    let [b, m, s] = n[..] else { return None };
    let off: i64 = off.trim().trim_start_matches('_').parse().ok()?;
    let swizzle = crate::engine::swizzle::Swizzle::new(b, m, s).ok()?;
    let layout = crate::expr::eval_str(layout).ok()?.to_layout().ok()?;
    let composed = crate::engine::swizzle::ComposedLayout {
        swizzle,
        offset: crate::engine::swizzle::Offset::Int(crate::engine::Int::dy(off)),
        layout,
    };
    let mut g = grid_of(&crate::expr::Value::Atom(crate::expr::value::AtomValue::Composed(composed)))?.ok()?;
    // The title as CuTe printed it (the offset's static-ness included).
    g.title = text.to_string();
    Some(g)
}

/// The picture of one case, when both of its outputs are layouts: `(svg, differing cells)`.
pub fn case_picture(c: &CaseReport, version: &str) -> Option<(String, usize)> {
    let (engine, cute) = (layout_grid(&c.engine)?, layout_grid(&c.cute)?);
    let heading = format!("{} {} ({})", super::ci::status_name(&c.status), c.expr, c.location);
    Some(side_by_side_svg(&heading, ("engine", &engine), (&format!("CuTe {version}"), &cute)))
}

/// The file name of the `n`th picture of a case of this status (`new-N.svg`, `changed-N.svg`);
/// `None` for a status that gets no picture.
fn file_name(status: &Status, n: usize) -> Option<String> {
    match status {
        Status::New => Some(format!("new-{n}.svg")),
        Status::ChangedInRelease(_) => Some(format!("changed-{n}.svg")),
        _ => None,
    }
}

/// Write the picture of every NEW and CHANGED IN RELEASE case whose outputs are both layouts into
/// `dir/disagreements/` (emptied of the pictures of an earlier run first), and set each case's
/// `picture`. Returns the files written.
pub fn write_pictures(r: &mut Report, state: &Path) -> std::io::Result<Vec<PathBuf>> {
    let dir = state.join(FOLDER);
    if let Ok(old) = std::fs::read_dir(&dir) {
        for e in old.flatten() {
            if e.path().extension().is_some_and(|x| x == "svg") {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    let (mut new, mut changed, mut written) = (0, 0, Vec::new());
    let version = r.version.clone();
    for c in r.cases.iter_mut() {
        let counter = match c.status {
            Status::New => &mut new,
            Status::ChangedInRelease(_) => &mut changed,
            _ => continue,
        };
        let Some((svg, _)) = case_picture(c, &version) else { continue };
        *counter += 1;
        let Some(name) = file_name(&c.status, *counter) else { continue };
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(name);
        std::fs::write(&path, svg)?;
        c.picture = Some(path.display().to_string());
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{self, Case, Outcome};
    use crate::judge::Judge;
    use crate::known::KnownDiscrepancies;

    /// A test-only oracle: answers as the engine does, except for two cases, where it answers
    /// what no CuTe printed (this reply lives in this test only; no expected CuTe output is
    /// written from it): one with another layout, one with an error.
    struct Disagreeing;

    impl case::Oracle for Disagreeing {
        fn describe(&self) -> String {
            "the engine, but other answers to two cases (test only)".into()
        }

        fn run(&self, cases: &[&Case]) -> Vec<Outcome> {
            cases
                .iter()
                .map(|c| match c.text.as_str() {
                    "coalesce((_2,_4):(_1,_2))" => Outcome::Printed("(_2,_4):(_2,_1)".into()),
                    "composition(_8:_1,_4:_2)" => Outcome::Rejected("static_assert failed".into()),
                    _ => case::engine(c, false).outcome,
                })
                .collect()
        }
    }

    /// The conformance report of the fixed cases `text` (as `ci/my.cases`) judged by `judge`
    /// against the [`Disagreeing`] oracle: what the NEW and the CHANGED picture tests draw from.
    fn disagreeing_report(judge: &Judge<'_>, text: &str) -> crate::report::conformance::Report {
        let spec = crate::run::PlanSpec { cases: 0, seed: 1, shard: (0, 1), fixed: false, known: false };
        let mut p = crate::run::plan(judge, &spec).expect("the plan");
        p.cases.extend(crate::run::plan::case_lines(text, "ci/my.cases").unwrap());
        let r = crate::run::run_planned(judge, p, &[&Disagreeing], false, |_, _| Ok(())).expect("the run");
        let about = crate::report::conformance::About {
            oracle: "test".into(),
            seed: 1,
            shard: (0, 1),
            random_cases: 0,
            pycute: false,
            start: std::time::Instant::now(),
        };
        crate::report::conformance::build(r, judge, about, None, |_, _| None)
    }

    #[test]
    fn a_new_disagreement_of_two_layouts_gets_its_picture_named_everywhere() {
        let known = KnownDiscrepancies::default();
        let judge = Judge::new(&known, crate::oracle::provision::DEFAULT_CUTLASS);
        let text = "coalesce((_2,_4):(_1,_2))\ncomposition(_8:_1,_4:_2)\nlogical_divide(_24:_1,_4:_2)\n";
        let mut report = disagreeing_report(&judge, text);
        let state = tempfile::tempdir().unwrap();
        // A picture of an earlier run is removed.
        std::fs::create_dir_all(state.path().join(FOLDER)).unwrap();
        std::fs::write(state.path().join(FOLDER).join("new-9.svg"), "old").unwrap();
        let written = write_pictures(&mut report, state.path()).unwrap();
        let new: Vec<&CaseReport> = report.cases.iter().filter(|c| c.status == Status::New).collect();
        assert_eq!(new.len(), 2, "{:?}", report.cases.iter().map(|c| (&c.expr, &c.verdict)).collect::<Vec<_>>());
        // Only the case whose outputs are both layouts is drawn.
        assert_eq!(written, vec![state.path().join(FOLDER).join("new-1.svg")]);
        assert!(!state.path().join(FOLDER).join("new-9.svg").exists());
        let drawn = report.cases.iter().find(|c| c.picture.is_some()).unwrap();
        assert_eq!(drawn.expr, "coalesce((_2,_4):(_1,_2))");
        let svg = std::fs::read_to_string(&written[0]).unwrap();
        // engine _8:_1 (one row, 0..7) against (_2,_4):(_2,_1) (rows 0 1 2 3 and 2 3 4 5): row 0's
        // four cells agree; the engine's cells 4..7 and CuTe's row 1 have no counterpart: 8 marked.
        let (e, c) = (layout_grid(&drawn.engine).unwrap(), layout_grid(&drawn.cute).unwrap());
        assert_eq!((e.rows, e.cols, c.rows, c.cols), (1, 8, 2, 4));
        assert!(svg.contains("<!-- differing cells (red): 8 -->"), "{svg}");
        assert!(svg.contains("engine: _8:_1") && svg.contains("CuTe 4.2.0.0: (_2,_4):(_2,_1)"), "{svg}");
        assert!(svg.contains("NEW coalesce((_2,_4):(_1,_2)) (ci/my.cases:1)"), "{svg}");
        // Named in the log, the JSON, the step summary and the JUnit failure.
        let path = written[0].display().to_string();
        assert!(super::super::ci::failing_listing(&report).contains(&format!("  picture: {path}\n")));
        let json = serde_json::to_value(&report).unwrap();
        let pictured: Vec<&serde_json::Value> =
            json["cases"].as_array().unwrap().iter().filter(|c| !c["picture"].is_null()).collect();
        assert_eq!(pictured.len(), 1);
        assert_eq!(pictured[0]["picture"], path.as_str());
        let summary = super::super::ci::Summary::of(&report, false);
        let step = super::super::ci::step_summary(&report, &summary, &[]);
        assert!(step.contains("picture: `new-1.svg`"), "{step}");
        assert!(step.contains("1 picture(s) of the disagreements"), "{step}");
        assert!(super::super::ci::junit(&report, &summary).contains(&format!("picture: {path}")));
    }

    /// On a release newer than every model, a disagreement that does not blame the engine is
    /// CHANGED IN RELEASE: its picture is `changed-N.svg`, named in the log too.
    #[test]
    fn a_change_in_a_newer_release_gets_its_picture() {
        let known = KnownDiscrepancies::default();
        let newer = crate::engine::release::Release::new(9, 0, 0, 0);
        let judge = Judge::for_release(&known, "9.0.0.0", Some(newer));
        let mut report = disagreeing_report(&judge, "coalesce((_2,_4):(_1,_2))\n");
        let c = &report.cases[0];
        assert!(matches!(c.status, Status::ChangedInRelease(_)), "{}: {:?}", c.verdict, c.status);
        let state = tempfile::tempdir().unwrap();
        let written = write_pictures(&mut report, state.path()).unwrap();
        assert_eq!(written, vec![state.path().join(FOLDER).join("changed-1.svg")]);
        let svg = std::fs::read_to_string(&written[0]).unwrap();
        assert!(
            svg.contains("CHANGED-IN-RELEASE coalesce((_2,_4):(_1,_2))") && svg.contains("CuTe 9.0.0.0: "),
            "{svg}"
        );
        let listing = super::super::ci::failing_listing(&report);
        assert!(listing.contains(&format!("  picture: {}\n", written[0].display())), "{listing}");
    }

    #[test]
    fn printed_outputs_are_read_back_as_layouts_and_nothing_else() {
        let g = |s: &str| layout_grid(&[s.to_string()]);
        assert_eq!(g("(_4,_2):(_2,_1)").map(|g| (g.rows, g.cols)), Some((4, 2)));
        assert_eq!(g("_8:_1").map(|g| (g.rows, g.cols)), Some((1, 8)));
        let sw = g("Sw<3,4,3> o _0 o (_8,_64):(_64,_1)").expect("a swizzled layout");
        assert_eq!((sw.rows, sw.cols, sw.title.as_str()), (8, 64, "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)"));
        let unswizzled = g("(_8,_64):(_64,_1)").unwrap();
        assert_ne!(sw.cells, unswizzled.cells);
        assert_eq!(g("(_4,_8):(_1@0,_1@1)").map(|g| g.cells[5].label.clone()), Some("(1,1)".into()));
        for not_a_layout in ["_8", "(_2,_3)", "error: composition: ...", "Sw<3,4,3>"] {
            assert!(g(not_a_layout).is_none(), "{not_a_layout}");
        }
        assert!(layout_grid(&["(_2,_2):(_1,_2)".into(), "(_2,_2):(_1,_2)".into()]).is_none());
    }
}
