//! The engine (harness/engine/) is a crate of its own: it knows nothing of the expression
//! language, the oracle, the CLI or the rest of the harness (its manifest names no workspace
//! crate, so the compiler guards that), and its modules import each other
//! without cycles (an operation's module uses the modules it is built from, never a facade that
//! re-exports it). The scan reads the source, leaving out `#[cfg(test)] mod ... { }` blocks (unit
//! tests may use the expression parser as a shorthand for layouts).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn engine_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/engine")
}

/// Every engine source file, by module path relative to the engine (`atom/mma`, `layout`, ...).
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).expect("harness/engine") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(base).expect("under engine").with_extension("");
                let mut name = rel.to_string_lossy().replace('\\', "/");
                if let Some(parent) = name.strip_suffix("/mod") {
                    name = parent.to_string();
                }
                out.insert(name, strip_test_modules(&std::fs::read_to_string(&p).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&engine_dir(), &engine_dir(), &mut out);
    out
}

/// The source without `#[cfg(test)]` modules (a `mod` item after the attribute, up to the `}` at
/// column 0 that closes it) and without comments.
fn strip_test_modules(src: &str) -> String {
    let mut out = String::new();
    let mut lines = src.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" && lines.peek().is_some_and(|n| n.contains("mod ")) {
            let opener = lines.next().unwrap_or_default();
            if opener.trim_end().ends_with(';') {
                continue;
            }
            for l in lines.by_ref() {
                if l == "}" {
                    break;
                }
            }
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The paths used in `src` that start with `crate::`, `super::` or `self::`, with `{a, b}` groups
/// expanded (one level of nesting, which is all the engine uses).
fn paths(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let starts = ["crate::", "super::", "self::"].iter().any(|p| rest.starts_with(p));
        let boundary = i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_' || bytes[i - 1] == ':');
        if !(starts && boundary) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && (bytes[j].is_alphanumeric() || bytes[j] == '_' || bytes[j] == ':') {
            j += 1;
        }
        let prefix: String = bytes[i..j].iter().collect();
        if prefix.ends_with("::") && j < bytes.len() && bytes[j] == '{' {
            let close = (j..bytes.len()).find(|&k| bytes[k] == '}').unwrap_or(bytes.len());
            let group: String = bytes[j + 1..close].iter().collect();
            for item in group.split(',') {
                let item = item.split(" as ").next().unwrap_or("").trim();
                if item == "self" {
                    out.push(prefix.trim_end_matches(':').to_string());
                } else if !item.is_empty() {
                    out.push(format!("{prefix}{item}"));
                }
            }
            i = close;
        } else {
            out.push(prefix.trim_end_matches(':').to_string());
            i = j;
        }
    }
    out
}

/// The engine module a path names, seen from module `cur` (`None`: outside the engine or an item
/// of the module itself). Names the engine root re-exports map to their modules.
fn resolve(cur: &str, path: &str, names: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = path.split("::").collect();
    let (base, rest): (Vec<&str>, &[&str]) = match parts[0] {
        "crate" => (vec![], &parts[1..]),
        "super" => {
            let mut base: Vec<&str> = cur.split('/').collect();
            base.pop();
            let mut k = 1;
            while parts.get(k) == Some(&"super") {
                base.pop();
                k += 1;
            }
            (base, &parts[k..])
        }
        _ => (cur.split('/').collect(), &parts[1..]),
    };
    for n in (1..=rest.len()).rev() {
        let mut cand = base.clone();
        cand.extend_from_slice(&rest[..n]);
        let cand = cand.join("/");
        if names.contains(&cand) {
            return Some(cand);
        }
    }
    let root_reexport = match rest.first() {
        Some(&("Error" | "Result")) => "error",
        Some(&"Int") => "int",
        Some(&"IntTuple") => "int_tuple",
        Some(&("Layout" | "print_layout")) => "layout",
        Some(&"Tiler") => "tiler",
        Some(&"without_definition_checks") => "runtime",
        _ => return None,
    };
    base.is_empty().then(|| root_reexport.to_string())
}

/// The engine is its own crate (harness/engine/Cargo.toml): the compiler keeps it free of the
/// rest of the workspace as long as its manifest names no crate of the workspace. This checks the
/// manifest (and that the source never spells the harness crate's name).
#[test]
fn the_engine_does_not_use_the_rest_of_the_harness() {
    let manifest = std::fs::read_to_string(engine_dir().join("Cargo.toml")).expect("harness/engine/Cargo.toml");
    let deps: Vec<&str> = manifest.lines().filter(|l| l.contains("{ path") || l.contains("{path")).collect();
    assert!(deps.is_empty(), "the engine depends on a crate of the workspace: {deps:?}");
    assert!(manifest.contains("name = \"cutecheck-engine\""), "harness/engine is not the cutecheck-engine crate");
    let mut bad = Vec::new();
    for (m, src) in modules() {
        if src.contains("cutecheck::") || src.contains("cutecheck_") {
            bad.push(format!("harness/engine/{m}.rs names the harness crate"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn engine_modules_import_each_other_without_cycles() {
    let mods = modules();
    let names: BTreeSet<String> = mods.keys().filter(|m| m.as_str() != "mod").cloned().collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, src) in &mods {
        if m == "mod" {
            continue; // the engine root declares the modules and re-exports a few names
        }
        let deps = paths(src).iter().filter_map(|p| resolve(m, p, &names)).filter(|d| d != m).collect();
        graph.insert(m.clone(), deps);
    }
    // The resolver sees the imports it should (a check of the check).
    assert!(graph["logical_product"].contains("complement"), "{:?}", graph["logical_product"]);
    assert!(graph["atom/tiled_mma"].contains("zipped_divide"), "{:?}", graph["atom/tiled_mma"]);
    // Depth-first search for a back edge.
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for d in g.get(m).into_iter().flatten() {
            match state.get(d.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|x| x == d).unwrap_or(0);
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if !state.contains_key(m) {
            if let Some(c) = visit(m, &graph, &mut state, &mut Vec::new()) {
                panic!("circular imports between engine modules: {}", c.join(" -> "));
            }
        }
    }
}

#[test]
fn no_engine_module_is_a_re_exporting_facade() {
    // A module with `pub use` lines re-exports operations that live elsewhere: callers must import
    // the operation's own module. Folder roots (the engine's `mod.rs`, `atom/mod.rs`) declare
    // their submodules and may name a few of their items.
    let mods = modules();
    for (m, src) in &mods {
        if m == "mod" || mods.keys().any(|k| k.starts_with(&format!("{m}/"))) {
            continue;
        }
        let items: Vec<&str> = src.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).collect();
        let reexports = items.iter().filter(|l| l.starts_with("pub use ") || l.starts_with("pub(crate) use ")).count();
        assert_eq!(
            reexports, 0,
            "harness/engine/{m}.rs re-exports {reexports} item(s): import the defining module instead"
        );
    }
}
