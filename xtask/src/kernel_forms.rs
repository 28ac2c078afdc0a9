//! `cargo xtask extract-kernel-forms`: the layouts, tiled copies and tiled MMAs that CUTLASS's CuTe
//! tutorials build on the host (`examples/cute/tutorial/**/*.cu` of the provisioned wheel, or
//! `--from DIR`) turned into a fixed suite, `fixtures/cases/kernel_forms.cases`.
//!
//! Only facts are extracted, never code: each `auto NAME = EXPR;` (also `TiledCopy`, `TiledMMA`
//! and `using NAME = TYPE;`) binds NAME to EXPR with the earlier bindings of the file substituted
//! (the `using` ones of the whole file first, as the tutorials declare their value types last);
//! a binding whose expression builds a layout, a tiled copy or a tiled MMA (`make_layout`,
//! `Layout<...>`, `tile_to_shape`, `composition`, `make_tiled_copy`, `make_tiled_mma`, ...) is a
//! case, written in CuTe's C++ spelling, which the expression language reads as it is (see
//! `harness/expr/parse.rs`, module `cpp`). A form the language or the oracle cannot express (run-
//! time values such as `int(m)`, tensors, names the tables do not know) is listed as skipped
//! with the reason, in the case file's header.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use cutecheck::expr::Op;
use cutecheck::oracle::{provision, repo_root};

use crate::cxx_tokens::{tokenize, Tok};

/// The operations whose presence makes a binding a case (besides the type `Layout<...>`).
const BUILDERS: &[Op] = &[
    Op::MakeLayout,
    Op::TileToShape,
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
const BINDERS: &[&str] = &["auto", "TiledCopy", "TiledMMA", "using"];

#[derive(clap::Args)]
pub struct KernelFormsArgs {
    /// A CUTLASS source tree (holding examples/cute/tutorial); default the provisioned 4.2 wheel's.
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
    /// Where to write the cases (default fixtures/cases/kernel_forms.cases).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &KernelFormsArgs) -> Result<bool> {
    let root = repo_root();
    let src = match &args.from {
        Some(d) => d.clone(),
        None => {
            let prov = provision::Provisioner::new()?;
            let h = prov.cutlass(provision::DEFAULT_CUTLASS)?;
            h.include_dir.parent().context("the wheel's include directory has no parent")?.to_path_buf()
        }
    };
    let dir = src.join("examples/cute/tutorial");
    if !dir.is_dir() {
        bail!("{} does not exist: pass --from a CUTLASS source tree", dir.display());
    }
    let mut files = Vec::new();
    collect(&dir, &mut files)?;
    files.sort();
    // (canonical text, text as written first, where it was found)
    let mut cases: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut skipped = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
        let rel = f.strip_prefix(&src).unwrap_or(f).display().to_string();
        for (line, text) in forms(&text) {
            match admit(&text) {
                Ok(canon) => match cases.iter_mut().find(|(c, _, _)| *c == canon) {
                    Some((_, _, from)) => from.push(format!("{rel}:{line}")),
                    None => cases.push((canon, text, vec![format!("{rel}:{line}")])),
                },
                Err(why) => skipped.push(format!("{rel}:{line}: {why}")),
            }
        }
    }
    let mut body = String::new();
    body.push_str(
        "# The layouts, tiled copies and tiled MMAs that CUTLASS's CuTe tutorials build on the host\n\
         # (examples/cute/tutorial/**/*.cu), with each file's bindings substituted, in CuTe's C++ spelling.\n\
         # Written by `cargo xtask extract-kernel-forms` (xtask/src/kernel_forms.rs); do not edit by hand.\n\
         # Expected output: snapshots/kernel_forms.snap, recorded from real CuTe by `cargo xtask bless`.\n\
         # recorded-for: 4.2.0.0\n",
    );
    let _ = writeln!(body, "# {} cases from {} files; {} forms skipped:", cases.len(), files.len(), skipped.len());
    for s in &skipped {
        let _ = writeln!(body, "#   skipped {s}");
    }
    for (_, text, from) in &cases {
        let _ = writeln!(body, "\n# {}", from.join(", "));
        body.push_str(text);
        body.push('\n');
    }
    let out = args.out.clone().unwrap_or_else(|| root.join("fixtures/cases/kernel_forms.cases"));
    std::fs::write(&out, &body).with_context(|| format!("writing {}", out.display()))?;
    println!("wrote {} ({} cases, {} skipped)", out.display(), cases.len(), skipped.len());
    Ok(true)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "cu" || x == "hpp") {
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

/// The bindings of a file, in order: (line, name, right-hand side tokens, whether `using`).
fn bindings(toks: &[(Tok, usize)]) -> Vec<(usize, String, Vec<Tok>, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < toks.len() {
        if let Some((name, v, next)) = atom_declaration(toks, i) {
            out.push((toks[i].1, name, v, false));
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
        if !BINDERS.contains(&k.as_str()) {
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
        out.push((*line, name.clone(), rhs, k == "using"));
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
            Tok::Word(w) if !qualified && !qualifies => match env.get(w) {
                Some(v) => out.extend(v.iter().cloned()),
                None => out.push(t.clone()),
            },
            _ => out.push(t.clone()),
        }
    }
    out
}

/// The cases of one file: (line, text) of each binding that builds a layout or an object.
fn forms(text: &str) -> Vec<(usize, String)> {
    let toks = tokenize(text);
    let all = bindings(&toks);
    let mut env: HashMap<String, Vec<Tok>> = HashMap::new();
    // `using` bindings (types) hold for the whole file.
    for (_, name, rhs, using) in &all {
        if *using {
            let v = substitute(rhs, &env);
            env.insert(name.clone(), v);
        }
    }
    let mut out = Vec::new();
    for (line, name, rhs, using) in all {
        if using {
            continue;
        }
        let v = substitute(&rhs, &env);
        let case = rhs.iter().any(|t| matches!(t, Tok::Word(w) if builds(w)));
        if case && !v.is_empty() {
            out.push((line, render(&v)));
        }
        env.insert(name, v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_are_substituted_in_order() {
        let src = "void f() {\n  auto bM = Int<128>{};  // rows\n  auto bK = Int< 8>{};\n\
                   auto s = make_layout(make_shape(bM, bK));\n  auto bM = Int<64>{};\n\
                   auto t = tile_to_shape(s, make_shape(bM, bK));\n  TiledCopy c = make_tiled_copy(Copy_Atom<UniversalCopy<T>, T>{},\n\
                   Layout<Shape<_32,_8>>{});\n  Copy_Atom<UniversalCopy<T>, T> a;\n  TiledCopy d = make_tiled_copy(a, Layout<Shape<_4>>{});\n}\nusing T = float;\n";
        let f = forms(src);
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
}
