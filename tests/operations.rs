//! The operations enum (`cutecheck::expr::Op`) and the layers that match on it (the engine entry,
//! the C++ emitter, the definition check, the generator, the pycute, DSL and in-process ABI forms): every layer has a
//! part for every operation or says why not, both sides dispatch through the enum, and no source
//! outside the enum dispatches on an operation's name by hand.

use cutecheck::expr::op::{Op, Part, FORMS};
use cutecheck::{definition, expr, fuzz, oracle};

/// A reason says why: a few words, not a placeholder.
fn real_reason(why: &str) -> bool {
    let w = why.trim();
    w.split_whitespace().count() >= 4 && !["todo", "tbd", "fixme", "xxx"].iter().any(|p| w.to_lowercase().contains(p))
}

#[test]
fn every_part_is_present_or_absent_with_a_reason() {
    let mut missing = Vec::new();
    for &op in Op::ALL {
        let parts = [
            ("engine entry", expr::builtins::entry(op).reason()),
            ("C++ emitter", oracle::codegen::emitter(op).reason()),
            ("definition check", definition::checker(op).reason()),
            ("generator", fuzz::generator(op).reason()),
            ("pycute spelling", oracle::pycute::spelling::spelling(op).reason()),
            ("DSL form", oracle::dsl::spelling::dsl_form(op).reason()),
            ("in-process ABI form", oracle::inproc::gen::ffi_form(op).reason()),
        ];
        for (part, why) in parts {
            if let Some(why) = why {
                if !real_reason(why) {
                    missing.push(format!("{op}: {part} absent without a reason ({why:?})"));
                }
            }
        }
        if let Part::Has((w, _)) = fuzz::generator(op) {
            assert!(w > 0, "{op}: generator with weight 0");
        }
        if let Part::Has(py) = oracle::pycute::spelling::spelling(op) {
            assert!(py.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{op}: pycute spelling {py:?}");
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(!real_reason("todo later maybe soon") && !real_reason("n/a"), "the reason check can fail");
}

#[test]
fn the_engine_and_the_oracle_dispatch_through_the_enum() {
    use cutecheck::expr::{eval_str, parse};
    for &op in Op::ALL {
        // One argument too many: both sides answer with the operation's count (so they found it),
        // never "unknown".
        let targs = if op.targs().is_some() { "<2>" } else { "" };
        let (lo, hi) = op.arity();
        let args = vec!["_1"; hi + 1].join(",");
        let text = format!("{op}{targs}({args})");
        let want = format!("{op} takes {lo}..={hi} arguments, got {}", hi + 1);
        let e = eval_str(&text).unwrap_err().to_string();
        assert!(e.contains(&want), "{text}: engine says {e}");
        let c = oracle::codegen::expression(&parse(&text).unwrap()).unwrap_err().to_string();
        match oracle::codegen::emitter(op) {
            Part::Has(_) => assert!(c.contains(&want), "{text}: codegen says {c}"),
            Part::Absent(_) => assert!(c.contains("no C++"), "{text}: codegen says {c}"),
        }
    }
    // A name that is no operation is unknown to both.
    assert!(eval_str("no_such_op(_1)").unwrap_err().to_string().contains("unknown"));
    assert!(oracle::codegen::expression(&parse("no_such_op(_1)").unwrap()).is_err());
}

/// Every Rust source of the harness and xtask, with its path relative to the repository.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for d in ["harness", "xtask/src"] {
        walk(&root.join(d), root, &mut out);
    }
    out.sort();
    out
}

/// Sources that still keep a hand-written list of operation names (each with the reason); the
/// test fails when one of them no longer has one, so the list only shrinks.
const NOT_YET: &[(&str, &str)] = &[];

/// The names a source dispatches on by hand (match arms and comparisons with a name) must be
/// forms, never operations, and no line lists three or more operation names: an operation is
/// dispatched through `Op`, and a set of operations is a set of `Op` variants.
#[test]
fn no_source_dispatches_on_an_operation_name_outside_the_enum() {
    let mut found_any = 0;
    let mut hand = std::collections::BTreeMap::<String, Vec<String>>::new();
    for (path, src) in sources() {
        if path == "harness/expr/op.rs" {
            continue;
        }
        let src = src.split("#[cfg(test)]").next().unwrap_or("");
        for (line, listed) in listed_constants(src) {
            hand.entry(path.clone()).or_default().push(format!("{path}:{line}: a constant listing {listed:?}"));
        }
        for (k, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let listed: Vec<String> = literals(code).into_iter().filter(|n| Op::by_name(n).is_some()).collect();
            if listed.len() >= 3 {
                hand.entry(path.clone()).or_default().push(format!("{path}:{}: a list of names {listed:?}", k + 1));
            }
            for name in dispatched_names(code) {
                found_any += 1;
                if Op::by_name(&name).is_some() && !FORMS.iter().any(|(f, _)| *f == name) {
                    hand.entry(path.clone()).or_default().push(format!("{path}:{}: '{name}'", k + 1));
                }
            }
        }
    }
    assert!(found_any >= 20, "the scan found only {found_any} dispatched names: it no longer sees the dispatch");
    let mut bad = Vec::new();
    for (path, hits) in &hand {
        if !NOT_YET.iter().any(|(p, _)| p == path) {
            bad.extend(hits.iter().cloned());
        }
    }
    for (path, _) in NOT_YET {
        assert!(hand.contains_key(*path), "{path} no longer lists operation names by hand: take it off NOT_YET");
    }
    assert!(bad.is_empty(), "operation names dispatched outside the enum:\n{}", bad.join("\n"));
    assert_eq!(dispatched_names(r#"        "frobnicate" | "size" => x,"#), vec!["frobnicate", "size"]);
    assert_eq!(literals(r#"const X: &[&str] = &["size", "rank", "depth"];"#), vec!["size", "rank", "depth"]);
    let listed =
        listed_constants("const X: &[&str] = &[\n    \"size\",\n    \"rank\",\n    \"depth\",\n];\nconst Y: u8 = 1;\n");
    assert_eq!(listed, vec![(1, vec!["size".to_string(), "rank".to_string(), "depth".to_string()])]);
}

/// `const` and `static` items that list three or more operation names: (first line, the names).
fn listed_constants(src: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, Vec<String>)> = None;
    for (k, line) in src.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let t = code.trim_start().trim_start_matches("pub ").trim_start_matches("pub(crate) ");
        if open.is_none() && (t.starts_with("const ") || t.starts_with("static ")) {
            open = Some((k + 1, Vec::new()));
        }
        if let Some((_, names)) = open.as_mut() {
            names.extend(literals(code).into_iter().filter(|n| Op::by_name(n).is_some()));
            if code.trim_end().ends_with(';') {
                let (at, names) = open.take().unwrap_or_default();
                if names.len() >= 3 {
                    out.push((at, names));
                }
            }
        }
    }
    out
}

/// The string literals of a line of code.
fn literals(code: &str) -> Vec<String> {
    code.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// Lower-case identifiers in string literals used as match patterns (`"x" =>`, `"x" |`) or
/// compared with a name (`Some("x")`, `== "x"`).
fn dispatched_names(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let parts: Vec<&str> = code.split('"').collect();
    for k in (1..parts.len()).step_by(2) {
        let lit = parts[k];
        let ident = !lit.is_empty()
            && lit.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && lit.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            continue;
        }
        let before = parts[k - 1].trim_end();
        let after = parts.get(k + 1).map(|s| s.trim_start()).unwrap_or("");
        let bar = |t: &str| t.starts_with('|') && !t.starts_with("||");
        let pattern = (after.starts_with("=>") || bar(after) || after.starts_with("if "))
            && (before.trim().is_empty() || before.ends_with('|') && !before.ends_with("||"));
        let compared = before.ends_with("==") || before.ends_with("== Some(");
        if pattern || compared {
            out.push(lit.to_string());
        }
    }
    out
}
