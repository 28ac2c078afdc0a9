//! What a CI reader needs from a conformance run (`cargo xtask conformance`): every failing case
//! named in the log with its reproducer command, a one-line `PASS`/`FAIL` summary, a JUnit file
//! (`--junit FILE`), a GitHub step summary (markdown, appended to `$GITHUB_STEP_SUMMARY`) and
//! `::error` annotations at the lines of the user's case file and known list. Reads the report
//! (the judge's statuses) and computes no verdict.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::conformance::{class_label, CaseReport, Report};
use crate::engine::release::{registry_source, Release};
use crate::judge::Status;
use crate::judge::CHANGED_IN_RELEASE_EXIT;

/// The command that reproduces a case: `cargo xtask repro 'EXPR'` (a single quote in the
/// expression is written as `'\''`).
pub fn reproducer(expr: &str) -> String {
    format!("cargo xtask repro '{}'", expr.replace('\'', r"'\''"))
}

/// The name of a status, as counted in the summary line and the JSON's `summary`.
pub fn status_name(s: &Status) -> &'static str {
    match s {
        Status::Agree => "agree",
        Status::BothRefuse => "both-refuse",
        Status::Unchecked(_) => "unchecked",
        Status::OracleError(_) => "oracle-error",
        Status::Explained(_) => "explained",
        Status::New => "NEW",
        Status::Stale(_) => "STALE",
        Status::KnownEarlier(_) => "known-earlier",
        Status::FixedHere(_) => "fixed-here",
        Status::CuteOverflows(_) => "cute-overflows",
        Status::ChangedInRelease(_) => "CHANGED-IN-RELEASE",
    }
}

/// Whether a case fails the run (the judge's rule, read from its status).
pub fn fails(c: &CaseReport) -> bool {
    c.status.fails()
}

/// Whether a case is listed for the CI reader: it fails the run, or CuTe changed in a release
/// newer than every model.
pub fn listed(c: &CaseReport) -> bool {
    fails(c) || matches!(c.status, Status::ChangedInRelease(_))
}

/// The command that compares CuTe of the engine's newest model with the run's release on many
/// cases: `cargo xtask release-diff --from MODEL --to VERSION` (a checkout: `--cutlass-dir DIR`; a
/// model no wheel ships: `--from-dir` a checkout of its tag).
pub fn release_diff_command(version: &str, model: &str) -> String {
    let from = match model.parse::<Release>().ok().and_then(registry_source) {
        Some(("nvidia-cutlass", v)) => format!("--from {v}"),
        _ => {
            let tag = model.strip_suffix(".0").unwrap_or(model);
            format!("--from-dir CUTLASS_v{tag}_CHECKOUT")
        }
    };
    let to = match version.strip_prefix("dir:") {
        Some(d) => format!("--cutlass-dir '{}'", d.replace('\'', r"'\''")),
        None => format!("--to {version}"),
    };
    format!("cargo xtask release-diff {from} {to}")
}

/// The summary of a run, carried in the JSON report and printed as its last line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Summary {
    pub pass: bool,
    pub cases: usize,
    /// Cases by status name ([`status_name`]); listed cases only (see `dynamic_explained_omitted`).
    pub statuses: BTreeMap<String, usize>,
    pub seconds: f64,
}

impl Summary {
    /// `ok` is the run's own verdict (`Judgements::ok`).
    pub fn of(r: &Report, ok: bool) -> Summary {
        let mut statuses = BTreeMap::new();
        for c in &r.cases {
            *statuses.entry(status_name(&c.status).to_string()).or_default() += 1;
        }
        let omitted: usize = r.dynamic_explained_omitted.iter().map(|o| o.cases).sum();
        if omitted > 0 {
            *statuses.entry("explained".to_string()).or_default() += omitted;
        }
        Summary { pass: ok, cases: r.total.cases, statuses, seconds: r.seconds }
    }

    /// Cases of a release newer than every model whose CuTe changed ([`Status::ChangedInRelease`]).
    pub fn changed(&self) -> usize {
        self.statuses.get(status_name(&Status::ChangedInRelease(String::new()))).copied().unwrap_or(0)
    }

    /// `PASS`, `FAIL`, or `CHANGED IN RELEASE` (no failure, but CuTe changed after the newest model).
    pub fn verdict(&self) -> &'static str {
        match (self.pass, self.changed()) {
            (false, _) => "FAIL",
            (true, 0) => "PASS",
            (true, _) => "CHANGED IN RELEASE",
        }
    }

    /// The process's exit status: 0 (PASS), 1 (FAIL), [`CHANGED_IN_RELEASE_EXIT`].
    pub fn exit_status(&self) -> i32 {
        match self.verdict() {
            "PASS" => 0,
            "FAIL" => 1,
            _ => CHANGED_IN_RELEASE_EXIT,
        }
    }

    /// `PASS: 1234 cases (1200 agree, 4 explained, ...) in 12.3 s`, `FAIL: ...` or `CHANGED IN
    /// RELEASE: ...`, on one line.
    pub fn line(&self) -> String {
        let counts: Vec<String> = self.statuses.iter().map(|(k, n)| format!("{n} {k}")).collect();
        format!("{}: {} cases ({}) in {:.1} s", self.verdict(), self.cases, counts.join(", "), self.seconds)
    }
}

/// The log's account of every failing case: the case, both outputs, the triage, the shrunk case,
/// and the reproducer of each (original and shrunk).
pub fn failing_listing(r: &Report) -> String {
    let mut out = String::new();
    for c in r.cases.iter().filter(|c| listed(c)) {
        let head = match &c.status {
            Status::New => "NEW DISAGREEMENT".to_string(),
            Status::Stale(why) => format!("STALE KNOWN DISCREPANCY ({why})"),
            Status::OracleError(e) => format!("ORACLE ERROR ({e})"),
            Status::ChangedInRelease(model) => {
                format!("CHANGED IN RELEASE (CUTLASS {} against the engine's model of {model})", r.version)
            }
            _ => unreachable!("listed() lists these four"),
        };
        let _ = writeln!(out, "{head} {} ({})", c.expr, c.location);
        let _ = writeln!(out, "  CuTe:   {}", c.cute.join(" | "));
        let _ = writeln!(out, "  engine: {}", c.engine.join(" | "));
        if let Some(t) = &c.triage {
            let _ = writeln!(out, "  triage: {}: {t}", class_label(t));
        }
        let _ = writeln!(out, "  reproduce: {}", reproducer(&c.expr));
        if let Status::ChangedInRelease(model) = &c.status {
            let _ = writeln!(out, "  release-diff: {}", release_diff_command(&r.version, model));
        }
        if let Some(p) = &c.picture {
            let _ = writeln!(out, "  picture: {p}");
        }
        if let Some(s) = &c.shrunk {
            let _ =
                writeln!(out, "  shrunk: {}  (CuTe {} / engine {})", s.expr, s.cute.join(" | "), s.engine.join(" | "));
            let _ = writeln!(out, "  reproduce shrunk: {}", reproducer(&s.expr));
        }
    }
    out
}

fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// A JUnit XML file: one `<testsuite>` per group, one `<testcase>` per listed case (named by its
/// location and expression), a `<failure>` for every failing case with both outputs and its
/// reproducer, `<skipped>` for unchecked ones.
pub fn junit(r: &Report, summary: &Summary) -> String {
    let mut groups: BTreeMap<&str, Vec<&CaseReport>> = BTreeMap::new();
    for c in &r.cases {
        groups.entry(c.group.as_str()).or_default().push(c);
    }
    let failures = r.cases.iter().filter(|c| fails(c)).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"cutecheck conformance (CUTLASS {})\" tests=\"{}\" failures=\"{failures}\" time=\"{:.3}\">",
        xml(&r.version),
        r.cases.len(),
        summary.seconds
    );
    for (group, cases) in groups {
        let f = cases.iter().filter(|c| fails(c)).count();
        let skipped = cases.iter().filter(|c| matches!(c.status, Status::Unchecked(_))).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" skipped=\"{skipped}\">",
            xml(group),
            cases.len()
        );
        for c in cases {
            let name = format!("{} {}", c.location, c.expr);
            let _ = write!(out, "    <testcase classname=\"{}\" name=\"{}\"", xml(group), xml(&name));
            if fails(c) {
                let mut body = format!(
                    "CuTe:   {}\nengine: {}\nreproduce: {}",
                    c.cute.join(" | "),
                    c.engine.join(" | "),
                    reproducer(&c.expr)
                );
                if let Some(s) = &c.shrunk {
                    let _ = write!(body, "\nshrunk: {}\nreproduce shrunk: {}", s.expr, reproducer(&s.expr));
                }
                if let Some(p) = &c.picture {
                    let _ = write!(body, "\npicture: {p}");
                }
                let _ = writeln!(
                    out,
                    ">\n      <failure message=\"{} {}\" type=\"{}\">{}</failure>\n    </testcase>",
                    status_name(&c.status),
                    xml(&c.verdict),
                    status_name(&c.status),
                    xml(&body)
                );
            } else if let Status::Unchecked(why) = &c.status {
                let _ = writeln!(out, ">\n      <skipped message=\"{}\"/>\n    </testcase>", xml(why));
            } else {
                out.push_str("/>\n");
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The GitHub step summary: the summary line, then a table of every failing case with its
/// location, both outputs and its reproducer (and the shrunk case's). A location in one of `files`
/// (as the cases name it, as GitHub names it) is shown as GitHub names it.
pub fn step_summary(r: &Report, summary: &Summary, files: &[(&str, &str)]) -> String {
    let mut out = format!(
        "## cutecheck conformance: {}\n\n{}\n\nCUTLASS {}, oracle {}, seed {}\n",
        summary.verdict(),
        summary.line(),
        r.version,
        r.oracle,
        r.seed
    );
    let failing: Vec<&CaseReport> = r.cases.iter().filter(|c| listed(c)).collect();
    let pictures = failing.iter().filter(|c| c.picture.is_some()).count();
    if let Some(dir) = failing.iter().find_map(|c| Some(std::path::Path::new(c.picture.as_ref()?).parent()?.to_owned()))
    {
        let _ = writeln!(
            out,
            "\n{pictures} picture(s) of the disagreements (engine and CuTe side by side, differing cells in red) in `{}`",
            dir.display()
        );
    }
    if !failing.is_empty() {
        out.push_str("\n| status | location | case | CuTe | engine | reproduce |\n|---|---|---|---|---|---|\n");
        for c in failing {
            let mut repro = format!("`{}`", reproducer(&c.expr));
            if let Some(s) = &c.shrunk {
                let _ = write!(repro, "<br>shrunk: `{}`", reproducer(&s.expr));
            }
            if let Status::ChangedInRelease(model) = &c.status {
                let _ = write!(repro, "<br>release-diff: `{}`", release_diff_command(&r.version, model));
            }
            if let Some(p) = &c.picture {
                // The file's name: the Action's output `pictures` is their folder.
                let name = std::path::Path::new(p).file_name().map_or(p.clone(), |n| n.to_string_lossy().into_owned());
                let _ = write!(repro, "<br>picture: `{name}`");
            }
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | {} | {} |",
                status_name(&c.status),
                md_cell(&shown_location(&c.location, files)),
                md_cell(&c.expr),
                md_cell(&c.cute.join(" / ")),
                md_cell(&c.engine.join(" / ")),
                md_cell(&repro)
            );
        }
    }
    out
}

/// `FILE:line` with FILE as GitHub names it when it is one of `files`.
fn shown_location(location: &str, files: &[(&str, &str)]) -> String {
    match location.rsplit_once(':').and_then(|(f, l)| Some((files.iter().find(|(x, _)| *x == f)?.1, l))) {
        Some((shown, line)) => format!("{shown}:{line}"),
        None => location.to_string(),
    }
}

/// `::error file=F,line=N::...` workflow commands for failing cases (`::warning` for a change in
/// a release newer than every model) located in one of `files`
/// (the user's case file and known list, each as the cases name it and as GitHub names it:
/// relative to the workspace), so that GitHub marks those lines.
pub fn annotations(r: &Report, files: &[(&str, &str)]) -> Vec<String> {
    let mut out = Vec::new();
    for c in r.cases.iter().filter(|c| listed(c)) {
        let Some((file, line)) = c.location.rsplit_once(':') else { continue };
        let Some((_, shown)) = files.iter().find(|(f, _)| *f == file) else { continue };
        if line.parse::<usize>().is_err() {
            continue;
        }
        let msg = format!(
            "{} {}: CuTe {} / engine {}; reproduce: {}",
            status_name(&c.status),
            c.expr,
            c.cute.join(" | "),
            c.engine.join(" | "),
            reproducer(c.shrunk.as_ref().map_or(&c.expr, |s| &s.expr))
        );
        // Workflow command data: %, CR and LF are escaped; properties also escape : and ,.
        let data = msg.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
        let prop = |s: &str| s.replace('%', "%25").replace(':', "%3A").replace(',', "%2C");
        // A change in a newer release is news, not an engine fault: a warning.
        let level = if fails(c) { "error" } else { "warning" };
        out.push(format!("::{level} file={},line={line}::{data}", prop(shown)));
    }
    out
}

#[cfg(test)]
mod tests;
