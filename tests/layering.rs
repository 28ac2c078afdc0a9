//! The layering of the harness (rust-analyzer's "tidy" tests): every top-level module of the
//! cutecheck crate has a layer, and a module's code (outside `#[cfg(test)]` modules and comments)
//! names only modules of lower layers, so data flows one way: text -> expression -> case ->
//! oracles -> judge -> reports, and nothing below the judge imports it. The engine is its own
//! crate below all of them (the compiler keeps it so; tests/engine_layering.rs checks its
//! manifest and its modules).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level module of harness/ and its layer (lower layers never name higher ones).
/// `engine` and `gen` are the engine crate's re-exports.
const LAYERS: &[(&str, u8)] = &[
    ("engine", 0),
    ("gen", 0),
    ("limits", 1),
    ("paths", 1),
    ("snapshot", 1),
    ("expr", 2),
    ("definition", 3),
    ("svg", 3),
    ("case", 4),
    ("oracle", 5),
    ("gpu", 5),
    ("known", 6),
    ("judge", 7),
    ("fuzz", 8),
    ("suite", 9),
    ("run", 10),
    ("report", 11),
    ("cli", 12),
];

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness")
}

/// The module a file of harness/ belongs to (`oracle/dsl/mod.rs` -> `oracle`), `None` for the
/// engine crate and the crate roots.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_string_lossy().to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (!["engine", "lib", "main"].contains(&name.as_str())).then_some(name)
}

/// The source without comments and without `#[cfg(test)]` modules (a `mod` item after the
/// attribute, up to the `}` at column 0 that closes it).
fn code_of(src: &str) -> String {
    let mut out = String::new();
    let mut lines = src.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|n| n.trim_start().starts_with("mod ")) {
            let opener = lines.next().unwrap_or_default();
            if opener.trim_end().ends_with(';') {
                continue;
            }
            let depth_col0 = !opener.starts_with(' ');
            for l in lines.by_ref() {
                if (depth_col0 && l == "}") || (!depth_col0 && l.trim() == "}" && l.len() - l.trim_start().len() == 4) {
                    break;
                }
            }
            continue;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The top-level modules a source names as `crate::<module>`.
fn named_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for e in std::fs::read_dir(dir).expect("harness") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push((p.clone(), std::fs::read_to_string(&p).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    walk(&harness(), &mut out);
    out
}

#[test]
fn every_module_names_only_lower_layers() {
    let layer: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut bad = Vec::new();
    let mut unlisted = Vec::new();
    let mut seen = 0;
    for (path, src) in sources() {
        let rel = path.strip_prefix(harness()).expect("under harness").to_path_buf();
        let Some(m) = module_of(&rel) else { continue };
        // A `tests.rs` is a `#[cfg(test)] mod tests;` of its folder.
        if rel.file_name().is_some_and(|f| f == "tests.rs") {
            continue;
        }
        let Some(&mine) = layer.get(m.as_str()) else {
            unlisted.push(format!("harness/{}", rel.display()));
            continue;
        };
        for (k, line) in code_of(&src).lines().enumerate() {
            for n in named_modules(line) {
                seen += 1;
                match layer.get(n.as_str()) {
                    Some(&theirs) if n != m && theirs >= mine => bad.push(format!(
                        "harness/{}:{}: `{m}` (layer {mine}) names `crate::{n}` (layer {theirs})",
                        rel.display(),
                        k + 1
                    )),
                    None if n != m && !is_item_of_root(&n) => bad.push(format!(
                        "harness/{}:{}: names `crate::{n}`, a module without a layer",
                        rel.display(),
                        k + 1
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(unlisted.is_empty(), "modules without a layer in LAYERS: {unlisted:?}");
    assert!(seen > 200, "the scan saw only {seen} `crate::` paths: it no longer reads the sources");
    assert!(bad.is_empty(), "imports against the layering:\n{}", bad.join("\n"));
}

/// Names the crate root defines itself rather than a module (none today).
fn is_item_of_root(_: &str) -> bool {
    false
}

#[test]
fn the_scan_sees_what_it_must() {
    assert_eq!(named_modules("use crate::judge::{Judge, Status};"), vec!["judge"]);
    assert_eq!(named_modules("let x = cutecheck::crate::y; crate::oracle::repo_root()"), vec!["oracle"]);
    let code = code_of("use crate::a;\n// crate::b\n#[cfg(test)]\nmod tests {\n    use crate::c;\n}\nuse crate::d;\n");
    assert_eq!(named_modules(&code), vec!["a", "d"]);
    // Every module of lib.rs has a layer.
    let lib = std::fs::read_to_string(harness().join("lib.rs")).expect("lib.rs");
    for l in lib.lines() {
        let name = l.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';'));
        let reexport = l.strip_prefix("pub use cutecheck_engine").map(|r| r.trim_end_matches(';'));
        if let Some(n) = name {
            assert!(LAYERS.iter().any(|(m, _)| *m == n), "lib.rs declares `{n}`, which has no layer");
        }
        if let Some(r) = reexport {
            let n = r.rsplit([' ', ':']).next().unwrap_or("");
            assert!(LAYERS.iter().any(|(m, _)| *m == n), "lib.rs re-exports `{n}`, which has no layer");
        }
    }
}

/// Every command and test that compares the engine with CuTe plans, asks and judges through the
/// library's one run loop (`cutecheck::run`): `cargo xtask conformance` for every oracle choice
/// (pycute and the dynamic cases included), `release-diff`, `repro`, `cutecheck eval --both`,
/// tests/conformance_known.rs and the snapshot tests (tests/fixed_suites.rs, tests/releases.rs);
/// none of them, and no other source outside the judge and the run loop, judges by itself.
#[test]
fn conformance_goes_through_the_run_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let code = |f: &str| code_of(&std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")));
    for (f, call) in [
        ("xtask/src/conformance.rs", "cutecheck::run::plan_with_file("),
        ("xtask/src/conformance.rs", "cutecheck::run::run_planned("),
        ("xtask/src/conformance.rs", "cutecheck::run::dynamic::extend("),
        ("xtask/src/dsl.rs", "cutecheck::run::plan_with_file("),
        ("xtask/src/dsl.rs", "cutecheck::run::run_planned("),
        ("xtask/src/release_diff.rs", "cutecheck::run::run_planned("),
        ("xtask/src/repro.rs", "cutecheck::run::given("),
        ("harness/cli.rs", "crate::run::given("),
        ("tests/conformance_known.rs", "cutecheck::run::run_planned("),
        ("tests/fixed_suites.rs", "judge_recorded("),
        ("tests/releases.rs", "judge_recorded("),
    ] {
        assert!(code(f).contains(call), "{f} does not call `{call}`");
    }
    // The files that may judge: the judge, the run loop, and a benchmark of the judge's speed
    // (`cargo xtask dsl bench` times the engine and the judge case by case). Tests of the judge
    // itself (its module tests, tests/dsl_oracle.rs) call it on purpose and are not scanned.
    let may_judge = |rel: &str| {
        rel.starts_with("harness/judge/") || rel.starts_with("harness/run/") || rel == "xtask/src/dsl_bench.rs"
    };
    let mut scanned = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![root.join("harness"), root.join("xtask/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())).flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.extend(["tests/conformance_known.rs", "tests/fixed_suites.rs", "tests/releases.rs"].map(|f| root.join(f)));
    for p in files {
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        // A module's `tests.rs` is `#[cfg(test)]` code, as code_of drops inline test modules.
        if may_judge(&rel) || rel.starts_with("harness/engine/") || rel.ends_with("/tests.rs") {
            continue;
        }
        let c = code(&rel);
        for call in [".judge(", "judge_pair(", "classify(", "Judge::judge", "judge_each("] {
            assert!(!c.contains(call), "{rel} judges by itself (`{call}`) instead of through cutecheck::run");
        }
        // xtask asks the engine only through the run (no loop of its own that asks and compares).
        if rel.starts_with("xtask/") {
            for call in [".engine(", "case::engine("] {
                assert!(!c.contains(call), "{rel} asks the engine by itself (`{call}`)");
            }
        }
        scanned.push(rel);
    }
    for f in ["xtask/src/dynamic.rs", "xtask/src/pycute.rs", "xtask/src/release_diff.rs", "harness/cli.rs"] {
        assert!(scanned.iter().any(|s| s == f), "the scan missed {f}");
    }
}
