//! The body of a snapshot file (insta's format: a header between `---` lines, then one case per
//! line with its result lines prefixed `=> `). A leaf module: it uses no other module of the crate.
//!
//! The files are insta's own (its parser reads every one: `tests::every_snapshot_is_in_insta_s_own_format`),
//! written only by `cargo xtask bless` from what real CuTe printed. The tests compare them without
//! insta's assertion macros, so `cargo insta review` has nothing to accept (no review may turn the
//! engine's output into CuTe's) and `cargo insta test` calls every file "unreferenced": never run
//! it with `--unreferenced=delete`.

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
    use std::path::{Path, PathBuf};

    fn snapshot_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                snapshot_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "snap") {
                out.push(p);
            }
        }
    }

    /// Every file under snapshots/ (the 4.2 suites and every release's under versions/) is an
    /// insta snapshot as insta itself reads it (`insta::Snapshot::from_file`, the parser
    /// `cargo insta` uses): the YAML header (not insta's legacy format) with its `source` and
    /// `expression`, a text body, and insta's body holds the same cases, line for line, as this
    /// module's reader gives.
    #[test]
    fn every_snapshot_is_in_insta_s_own_format() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
        let mut files = Vec::new();
        snapshot_files(&root, &mut files);
        files.sort();
        assert!(files.len() >= 30, "snapshots/ holds {} files", files.len());
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            assert!(text.starts_with("---\n"), "{}: not insta's YAML header (legacy format?)", f.display());
            let snap =
                insta::Snapshot::from_file(f).unwrap_or_else(|e| panic!("{}: insta cannot read it: {e}", f.display()));
            let meta = snap.metadata();
            assert!(
                meta.source().is_some() && meta.expression().is_some(),
                "{}: header without source/expression",
                f.display()
            );
            let body = snap.as_text().unwrap_or_else(|| panic!("{}: not a text snapshot", f.display())).to_string();
            let ours = snapshot_body_of(&text).unwrap_or_else(|| panic!("{}: our reader finds no body", f.display()));
            let (theirs, ours) = (parse_snapshot_body(&body), parse_snapshot_body(ours));
            assert!(!ours.is_empty(), "{}: no cases", f.display());
            assert_eq!(theirs, ours, "{}: insta reads other cases than ours", f.display());
        }
    }
}
