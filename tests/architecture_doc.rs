//! docs/ARCHITECTURE.md is true in the way a test can check: every "Architecture Invariant" names
//! the test that guards it, and every test it names exists.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The source file a guard's module path names (`judge::verdict::tests::x` ->
/// harness/judge/verdict.rs; `product_each::tests::x` -> the engine's module).
fn file_of_module(path: &[&str]) -> Option<std::path::PathBuf> {
    let mods: Vec<&str> = path.iter().copied().take_while(|p| *p != "tests").collect();
    let joined = mods.join("/");
    for base in ["harness", "harness/engine"] {
        for cand in [format!("{base}/{joined}.rs"), format!("{base}/{joined}/mod.rs")] {
            let p = root().join(&cand);
            if p.exists() {
                return Some(p);
            }
        }
    }
    None
}

/// The guards named in one invariant: backticked `tests/x.rs::name`, `::name` (the file named
/// last), or `module::path::tests::name`.
fn guards(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).filter(|t| t.contains("::") || t.ends_with(".rs")).map(str::to_string).collect()
}

#[test]
fn every_invariant_names_a_guard_that_exists() {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let mut invariants = 0;
    let mut problems = Vec::new();
    let mut checked = 0;
    for block in doc.split("**Architecture Invariant:**").skip(1) {
        invariants += 1;
        let text = block.split("\n\n").next().unwrap_or("").split("\n- ").next().unwrap_or("");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(g) = text.find("Guarded by") else {
            problems.push(format!("an invariant names no guard: {}", text.lines().next().unwrap_or("")));
            continue;
        };
        let mut last_file: Option<std::path::PathBuf> = None;
        for t in guards(&text[g..]) {
            let t = t.as_str();
            let (file, name) = if let Some((f, n)) = t.split_once(".rs::") {
                (Some(root().join(format!("{f}.rs"))), Some(n.to_string()))
            } else if t.ends_with(".rs") {
                (Some(root().join(t)), None)
            } else if let Some(n) = t.strip_prefix("::") {
                (last_file.clone(), Some(n.to_string()))
            } else {
                let parts: Vec<&str> = t.split("::").collect();
                match (parts.contains(&"tests"), parts.last()) {
                    (true, Some(n)) => (file_of_module(&parts), Some(n.to_string())),
                    // A trial name (`suite::NAME`) or a code path, not a test function.
                    _ => continue,
                }
            };
            let Some(file) = file else {
                problems.push(format!("`{t}`: no such file"));
                continue;
            };
            let Ok(src) = std::fs::read_to_string(&file) else {
                problems.push(format!("`{t}`: {} does not exist", file.display()));
                continue;
            };
            if let Some(n) = name {
                let n = n.split(['(', ' ', ',']).next().unwrap_or("");
                // A folder's `#[cfg(test)] mod tests;` lives in its tests.rs; a file module's
                // (`report/ci.rs`) in `report/ci/tests.rs`.
                let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
                let tests_rs = file.parent().map(|d| d.join("tests.rs")).and_then(read);
                let beside = read(file.with_extension("").join("tests.rs"));
                let found = |s: &str| s.contains(&format!("fn {n}("));
                if !found(&src) && !tests_rs.as_deref().is_some_and(found) && !beside.as_deref().is_some_and(found) {
                    problems.push(format!("`{t}`: {} has no `fn {n}`", file.display()));
                }
            }
            checked += 1;
            last_file = Some(file);
        }
    }
    assert!(invariants >= 10, "only {invariants} invariants found: the doc or this reader changed");
    assert!(checked >= invariants, "only {checked} guards checked for {invariants} invariants");
    assert!(problems.is_empty(), "docs/ARCHITECTURE.md:\n{}", problems.join("\n"));
}
