//! Fixed suites: the case files `fixtures/cases/*.cases` and their snapshots.
//!
//! A case file has one expression per line; blank lines and lines starting with `#` are skipped.
//! A case is named by its file and line (`fixtures/cases/chapter_table.cases:4`).
//!
//! A suite's snapshot (`snapshots/<suite>.snap`, an insta file) lists, per case, the expression
//! on one line and each line of the result prefixed `=> `, with a blank line between cases:
//!
//! ```text
//! coalesce((_2,(_1,_6)):(_1,(_6,_2)))
//! => _12:_1
//!
//! complement((_2,_2):(_1,_1),_24)
//! => rejected: Non-injective Layout detected in complement.
//! ```
//!
//! Results are the lines of a `cutecheck::case::Outcome` (`Outcome::lines` / `Outcome::from_lines`):
//! real CuTe's print text, `rejected: <static_assert message>` (or `rejected: compile error: ...`),
//! `crashed: <signal>` or `unsupported: <why>` (the oracle has no C++ for the expression). `cargo
//! xtask oracle` writes these files from real CuTe; tests/fixed_suites.rs judges the engine against
//! them with the same judge as `cargo xtask conformance`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::oracle::repo_root;

/// One case of a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The expression exactly as written in the file (trimmed).
    pub expr: String,
    /// 1-based line number in the case file.
    pub line: usize,
}

/// One case file.
#[derive(Clone, Debug)]
pub struct Suite {
    /// The file name without `.cases` (also the snapshot's name).
    pub name: String,
    pub path: PathBuf,
    pub cases: Vec<Case>,
}

impl Suite {
    pub fn parse(name: &str, path: &Path, text: &str) -> Suite {
        let cases = text
            .lines()
            .enumerate()
            .filter_map(|(k, l)| {
                let t = l.trim();
                (!t.is_empty() && !t.starts_with('#')).then(|| Case { expr: t.to_string(), line: k + 1 })
            })
            .collect();
        Suite { name: name.to_string(), path: path.to_path_buf(), cases }
    }

    pub fn load(path: &Path) -> Result<Suite> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("suite").to_string();
        Ok(Suite::parse(&name, path, &text))
    }

    /// `fixtures/cases/x.cases:LINE` for a case, relative to the repository when possible.
    pub fn locate(&self, case: &Case) -> String {
        let p = self.path.strip_prefix(repo_root()).unwrap_or(&self.path);
        format!("{}:{}", p.display(), case.line)
    }

    /// The snapshot body for results given per case (each a list of lines).
    pub fn snapshot_body(&self, results: &[Vec<String>]) -> String {
        let mut out = String::new();
        for (k, (c, r)) in self.cases.iter().zip(results).enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&c.expr);
            out.push('\n');
            for l in r {
                out.push_str("=> ");
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}

/// Every suite in `fixtures/cases/`, sorted by name.
pub fn all_suites() -> Result<Vec<Suite>> {
    let dir = repo_root().join("fixtures").join("cases");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cases"))
        .collect();
    paths.sort();
    paths.iter().map(|p| Suite::load(p)).collect()
}

/// The snapshot file of a suite: `snapshots/<name>.snap`, or
/// `snapshots/versions/<version>/<name>.snap` for another CUTLASS version.
pub fn snapshot_path(name: &str, version: Option<&str>) -> PathBuf {
    let base = repo_root().join("snapshots");
    match version {
        None => base.join(format!("{name}.snap")),
        Some(v) => base.join("versions").join(v).join(format!("{name}.snap")),
    }
}

/// The whole insta file for a suite body: insta's header (`source`, `expression`) then the body.
pub fn snapshot_file(name: &str, body: &str) -> String {
    format!("---\nsource: tests/fixed_suites.rs\nexpression: \"suite(\\\"{name}\\\")\"\n---\n{body}")
}

/// The body of an insta snapshot file (everything after the header's closing `---`).
pub fn snapshot_body_of(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(&rest[end + "\n---\n".len()..])
}

/// Split a snapshot body into (expression, result lines) per case.
pub fn parse_snapshot_body(body: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in body.lines() {
        if l.is_empty() {
            continue;
        }
        match l.strip_prefix("=> ") {
            Some(r) => {
                if let Some(last) = out.last_mut() {
                    last.1.push(r.to_string());
                }
            }
            None if l == "=>" => {
                if let Some(last) = out.last_mut() {
                    last.1.push(String::new());
                }
            }
            None => out.push((l.to_string(), Vec::new())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_files_and_snapshot_bodies_round_trip() {
        let s = Suite::parse("t", Path::new("t.cases"), "# c\n\n_4:_1\n  size(_4:_1) \n");
        assert_eq!(s.cases, vec![Case { expr: "_4:_1".into(), line: 3 }, Case { expr: "size(_4:_1)".into(), line: 4 }]);
        let body = s.snapshot_body(&[vec!["_4:_1".into()], vec!["_4".into()]]);
        assert_eq!(body, "_4:_1\n=> _4:_1\n\nsize(_4:_1)\n=> _4\n");
        let file = snapshot_file("t", &body);
        assert_eq!(snapshot_body_of(&file), Some(body.as_str()));
        let parsed = parse_snapshot_body(&body);
        assert_eq!(parsed[1], ("size(_4:_1)".to_string(), vec!["_4".to_string()]));
    }
}
