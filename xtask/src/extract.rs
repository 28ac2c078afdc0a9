//! `cargo xtask extract-cutlass-tests`: CUTLASS's own unit tests of the layout algebra
//! (NVIDIA/cutlass `test/unit/cute/core/*.cpp`) turned into a fixed suite of cases,
//! `fixtures/cases/cutlass_tests.cases`.
//!
//! The test files are read from a local copy (default `target/cutlass-tests/test/unit/cute/core/`,
//! or `--from DIR`); they are never committed. The committed suite is extracted from tag v4.2.0
//! (`git --git-dir=CUTLASS.git archive v4.2.0 test/unit/cute/core | tar -x -C target/cutlass-tests`). Only facts are extracted: for every `test_OP(args)`
//! call inside a `TEST(...)` body, the operation and its operands, with the `auto x = ...;`
//! bindings of the enclosing blocks substituted, written in the expression language with a
//! comment naming the file and line. Calls whose operands the language cannot express are counted
//! and listed as skipped.
//!
//! The C++ subset understood is the one these tests use: `Layout<S,D>{}`, `Shape<...>{}`,
//! `Stride<...>{}`, `_N`, `_mN`, `Int<N>{}`, integer literals (dynamic), `make_shape`,
//! `make_stride`, `make_layout(s[, d | GenRowMajor{}])`, `filter(l)`, `C<N>`, `E<N...>` (basis
//! strides, `--basis`), `Swizzle<B,M,S>{}`, `composition(x, y)` and `ComposedLayout<Swizzle<B,M,S>,
//! _0, L>{}` (the type `composition(Swizzle<B,M,S>{}, L)` returns for B > 0).

use cutecheck::expr::Op;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use cutecheck::oracle::repo_root;

/// The test files read, in this order, and the test helper each one calls.
const FILES: &[&str] = &[
    "coalesce.cpp",
    "composition.cpp",
    "complement.cpp",
    "inverse_left.cpp",
    "inverse_right.cpp",
    "logical_divide.cpp",
    "logical_product.cpp",
    "swizzle_layout.cpp",
];

/// `test_<op>` helpers and the cases each call becomes, or why it becomes none.
fn cases_of(helper: &str, args: &[String]) -> std::result::Result<Vec<String>, String> {
    if let ("test_swizzle_2d", [l]) = (helper, args) {
        return swizzle_2d(l);
    }
    case_of(helper, args).map(|c| vec![c]).ok_or_else(|| format!("{helper} is not an operation"))
}

/// swizzle_layout.cpp `test_swizzle_2d(L)`: the tensor `make_tensor(counting_iterator<int>{0}, L)`
/// sliced at every row `(i,_)` for `i < size<0>(L)` and every column `(_,j)` for `j < size<1>(L)`,
/// each with a run-time index (its `for (int i ...)` loops) and a static one (its `for_each` over
/// `make_int_sequence`): `Tensor::operator()` with a `_` is `slice_and_offset(c, L)`, so each slice
/// is that case. The loop bounds are the engine's `size(get(L,k))`.
fn swizzle_2d(l: &str) -> std::result::Result<Vec<String>, String> {
    let size = |k: usize| -> std::result::Result<i64, String> {
        let text = format!("{}({}({l},{k}))", Op::Size, Op::Get);
        match cutecheck::expr::eval::eval_str(&text) {
            Ok(cutecheck::expr::value::Value::Int(n)) if n.is_static => Ok(n.value),
            other => Err(format!("test_swizzle_2d: {text} is {other:?}, not a static size")),
        }
    };
    let (rows, cols) = (size(0)?, size(1)?);
    let mut out = Vec::new();
    for (n, at) in [(rows, "({}{},_)"), (cols, "(_,{}{})")] {
        for st in ["", "_"] {
            for i in 0..n {
                let c = at.replacen("{}", st, 1).replacen("{}", &i.to_string(), 1);
                out.push(format!("{}({c},{l})", Op::SliceAndOffset));
            }
        }
    }
    Ok(out)
}

/// `test_<op>` helpers and the case each call becomes (`None`: the helper is not an operation).
fn case_of(helper: &str, args: &[String]) -> Option<String> {
    let op = Op::by_name(helper.strip_prefix("test_")?)?;
    Some(match (op, args) {
        // complement.cpp: test_complement(layout) is complement(layout, cosize(layout)).
        (Op::Complement, [l]) => format!("{op}({l},{}({l}))", Op::Cosize),
        (Op::Complement | Op::Composition | Op::LogicalDivide | Op::LogicalProduct, [a, b]) => format!("{op}({a},{b})"),
        (Op::Coalesce | Op::LeftInverse | Op::RightInverse, [l]) => format!("{op}({l})"),
        _ => return None,
    })
}

#[derive(clap::Args)]
pub struct ExtractArgs {
    /// Directory holding CUTLASS's test/unit/cute/core/*.cpp (a local copy, never committed).
    #[arg(long, value_name = "DIR")]
    pub from: Option<PathBuf>,
    /// Where to write the cases (default fixtures/cases/cutlass_tests.cases, with --basis
    /// fixtures/cases/cutlass_basis.cases).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Only the calls whose operands hold basis strides (`E<...>`), the suite cutlass_basis.
    #[arg(long)]
    pub basis: bool,
}

pub fn run(args: &ExtractArgs) -> Result<bool> {
    let root = repo_root();
    let dir = args.from.clone().unwrap_or_else(|| root.join("target/cutlass-tests/test/unit/cute/core"));
    if !dir.is_dir() {
        bail!(
            "{} does not exist: put a copy of CUTLASS's test/unit/cute/core/*.cpp there (from a CUTLASS \
             checkout or NVIDIA/cutlass on GitHub), or pass --from DIR",
            dir.display()
        );
    }
    let name = if args.basis { "cutlass_basis" } else { "cutlass_tests" };
    let out = args.out.clone().unwrap_or_else(|| root.join(format!("fixtures/cases/{name}.cases")));
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    let mut skipped = Vec::new();
    for f in FILES {
        let path = dir.join(f);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let src = format!("test/unit/cute/core/{f}");
        let found = extract(&text).with_context(|| format!("parsing {}", path.display()))?;
        for (line, c) in found {
            match c {
                // The basis suite keeps the calls with basis strides, the other suite the rest.
                Ok(expr) if expr.contains('@') != args.basis => {}
                Ok(expr) => match cases.iter_mut().find(|(e, _)| *e == expr) {
                    Some((_, from)) => from.push(format!("{src}:{line}")),
                    None => cases.push((expr, vec![format!("{src}:{line}")])),
                },
                Err(why) => skipped.push(format!("{src}:{line}: {why}")),
            }
        }
    }
    // The releases recorded for the suite are facts of snapshots/versions/, not of the extraction:
    // a re-extraction keeps the file's `# recorded-for:` line (default: the release the suite was
    // first recorded for).
    let releases = std::fs::read_to_string(&out)
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.trim().strip_prefix("# recorded-for:").map(|v| v.trim().to_string())))
        .unwrap_or_else(|| "4.2.0.0".to_string());
    let mut body = String::new();
    body.push_str(
        &"# CUTLASS's own unit tests of the layout algebra (NVIDIA/cutlass test/unit/cute/core/*.cpp) as cases:\n\
         # each case is the operation and operands of one test_OP(...) call of those files, or one slice that\n\
         # test_swizzle_2d(L) takes (slice_and_offset of every row and column, run-time and static index)\n\
         # (facts, no code).\n\
         # Written by `cargo xtask extract-cutlass-tests` (xtask/src/extract.rs); do not edit by hand.\n\
         # Expected output: snapshots/NAME_.snap, recorded from real CuTe by `cargo xtask bless --suite NAME_`.\n\
         # recorded-for: RELEASES_\n"
            .replace("NAME_", name)
            .replace("RELEASES_", &releases),
    );
    let _ =
        writeln!(body, "# {} cases; {} calls not expressible in the expression language:", cases.len(), skipped.len());
    for s in &skipped {
        let _ = writeln!(body, "#   skipped {s}");
    }
    for (expr, from) in &cases {
        let _ = writeln!(body, "\n# {}", from.join(", "));
        body.push_str(expr);
        body.push('\n');
    }
    std::fs::write(&out, &body).with_context(|| format!("writing {}", out.display()))?;
    println!("wrote {} ({} cases, {} skipped)", out.display(), cases.len(), skipped.len());
    Ok(true)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(i64),
    Punct(char),
}

/// Tokens with their line numbers (the shared scanner's, `crate::cxx_tokens`), a word that starts
/// with a digit read as a number.
fn tokenize(text: &str) -> Result<Vec<(Tok, usize)>> {
    crate::cxx_tokens::tokenize(text)
        .into_iter()
        .map(|(t, line)| {
            Ok((
                match t {
                    crate::cxx_tokens::Tok::Word(w) if w.starts_with(|c: char| c.is_ascii_digit()) => {
                        Tok::Num(w.parse().with_context(|| format!("line {line}: number {w}"))?)
                    }
                    crate::cxx_tokens::Tok::Word(w) => Tok::Ident(w),
                    crate::cxx_tokens::Tok::Punct(c) => Tok::Punct(c),
                },
                line,
            ))
        })
        .collect()
}

/// A C++ operand translated to the expression language, or why it cannot be.
type Tr = std::result::Result<String, String>;

struct Parser<'a> {
    toks: &'a [(Tok, usize)],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn line(&self) -> usize {
        self.toks.get(self.pos).or(self.toks.last()).map_or(0, |t| t.1)
    }
    fn is(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat(&mut self, c: char) -> bool {
        let y = self.is(c);
        self.pos += usize::from(y);
        y
    }
    fn expect(&mut self, c: char) -> Result<()> {
        if !self.eat(c) {
            bail!("line {}: expected '{c}', found {:?}", self.line(), self.peek());
        }
        Ok(())
    }

    /// Skip a balanced group opened by `open` (already at it).
    fn skip_group(&mut self, open: char, close: char) -> Result<()> {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => bail!("unbalanced '{open}'"),
                Some(Tok::Punct(c)) if *c == open => depth += 1,
                Some(Tok::Punct(c)) if *c == close => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// A template argument: a type (`_4`, `Int<4>`, `Shape<...>`, ...) or an integer.
    fn targ(&mut self) -> Result<Tr> {
        let neg = self.eat('-');
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(Ok(format!("{}{n}", if neg { "-" } else { "" })))
            }
            Some(Tok::Ident(name)) if !neg => {
                self.pos += 1;
                self.type_named(&name)
            }
            t => bail!("line {}: unexpected template argument {t:?}", self.line()),
        }
    }

    /// The template arguments `<a, b, ...>` (at `<`).
    fn targs(&mut self) -> Result<Vec<Tr>> {
        self.expect('<')?;
        let mut v = Vec::new();
        while !self.eat('>') {
            v.push(self.targ()?);
            self.eat(',');
        }
        Ok(v)
    }

    /// A type named `name` (already consumed), with its template arguments if any.
    fn type_named(&mut self, name: &str) -> Result<Tr> {
        if let Some(n) = static_int(name) {
            return Ok(Ok(n));
        }
        let args = if self.is('<') { self.targs()? } else { Vec::new() };
        let all = |v: &[Tr]| v.iter().cloned().collect::<std::result::Result<Vec<_>, _>>();
        Ok(match name {
            // C<N> is CuTe's integral constant, Int<N> the same for int.
            "Int" | "C" => match args.as_slice() {
                [Ok(n)] => Ok(format!("_{n}")),
                _ => Err(format!("{name}<> without one integer")),
            },
            "Swizzle" => match all(&args) {
                Ok(v) if v.len() == 3 => Ok(format!("Swizzle<{}>", v.join(","))),
                Ok(_) => Err("Swizzle<> without three integers".into()),
                Err(e) => Err(e),
            },
            // ComposedLayout<Swizzle<B,M,S>,_0,L> is the type composition(Swizzle<B,M,S>{}, L)
            // returns for B > 0 (swizzle_layout.hpp; a zero-bit swizzle composes to L itself).
            "ComposedLayout" => match all(&args) {
                Ok(v)
                    if v.len() == 3
                        && v[1] == "_0"
                        && v[0].starts_with("Swizzle<")
                        && !v[0].starts_with("Swizzle<0,") =>
                {
                    Ok(format!("composition({},{})", v[0], v[2]))
                }
                Ok(_) => Err("ComposedLayout<> other than of a swizzle at offset _0 is not expressible".into()),
                Err(e) => Err(e),
            },
            "Shape" | "Stride" => all(&args).map(|v| format!("({})", v.join(","))),
            // E<N...>: `_1@...` as CuTe prints it, the modes innermost first.
            "E" => match all(&args) {
                Ok(v) if !v.is_empty() => {
                    Ok(format!("_1@{}", v.iter().rev().map(String::as_str).collect::<Vec<_>>().join("@")))
                }
                Ok(_) => Err("E<> without a mode".into()),
                Err(e) => Err(e),
            },
            "Layout" => match all(&args) {
                Ok(v) if v.len() == 1 => Ok(format!("make_layout({})", v[0])),
                Ok(v) if v.len() == 2 => Ok(format!("{}:{}", v[0], v[1])),
                Ok(_) => Err("Layout<> of an unexpected arity".into()),
                Err(e) => Err(e),
            },
            other => Err(format!("{other}<> is not expressible")),
        })
    }

    /// A value expression.
    fn value(&mut self, env: &Env) -> Result<Tr> {
        let neg = self.eat('-');
        let t = self.peek().cloned();
        let Some(Tok::Ident(name)) = t else {
            return match t {
                Some(Tok::Num(n)) => {
                    self.pos += 1;
                    Ok(Ok(format!("{}{n}", if neg { "-" } else { "" })))
                }
                t => bail!("line {}: unexpected {t:?} in an operand", self.line()),
            };
        };
        if neg {
            bail!("line {}: negated expression", self.line());
        }
        self.pos += 1;
        if self.is('(') {
            // A call.
            self.pos += 1;
            let mut args = Vec::new();
            while !self.eat(')') {
                args.push(self.value(env)?);
                self.eat(',');
            }
            let all = args.iter().cloned().collect::<std::result::Result<Vec<_>, _>>();
            return Ok(match (name.as_str(), all) {
                ("make_shape" | "make_stride", Ok(v)) => Ok(format!("({})", v.join(","))),
                ("make_layout", Ok(v)) if v.len() == 1 => Ok(format!("make_layout({})", v[0])),
                ("make_layout", Ok(v)) if v.len() == 2 && v[1] == ROW_MAJOR => {
                    Ok(format!("make_layout_right({})", v[0]))
                }
                ("make_layout", Ok(v)) if v.len() == 2 => Ok(format!("make_layout({},{})", v[0], v[1])),
                ("filter", Ok(v)) if v.len() == 1 => Ok(format!("filter({})", v[0])),
                ("composition", Ok(v)) if v.len() == 2 => Ok(format!("composition({},{})", v[0], v[1])),
                (_, Err(e)) => Err(e),
                (f, Ok(_)) => Err(format!("{f}(...) is not extracted")),
            });
        }
        if let Some(v) = env.get(&name) {
            return Ok(v.clone());
        }
        // A type followed by `{}`.
        let ty = if name == "GenRowMajor" { Ok(ROW_MAJOR.to_string()) } else { self.type_named(&name)? };
        if self.is('{') {
            self.skip_group('{', '}')?;
        }
        Ok(ty)
    }
}

/// Marker for `GenRowMajor{}` as make_layout's second argument.
const ROW_MAJOR: &str = "<row-major>";

/// `_4` -> `_4`, `_m2` -> `_-2`; `None` for other names.
fn static_int(name: &str) -> Option<String> {
    let rest = name.strip_prefix('_')?;
    let (neg, digits) = match rest.strip_prefix('m') {
        Some(d) => ("-", d),
        None => ("", rest),
    };
    (!digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())).then(|| format!("_{neg}{digits}"))
}

type Env = HashMap<String, Tr>;

/// Every `test_OP(...)` call inside the `TEST(...)` bodies of a file: (line, case or why not).
fn extract(text: &str) -> Result<Vec<(usize, Tr)>> {
    let toks = tokenize(text)?;
    let mut p = Parser { toks: &toks, pos: 0 };
    let mut out = Vec::new();
    while p.pos < toks.len() {
        if p.peek() == Some(&Tok::Ident("TEST".into())) && toks.get(p.pos + 1).map(|t| &t.0) == Some(&Tok::Punct('(')) {
            p.pos += 1;
            p.skip_group('(', ')')?;
            body(&mut p, &mut vec![Env::new()], &mut out)?;
        } else {
            p.pos += 1;
        }
    }
    Ok(out)
}

/// A `{ ... }` block (at `{`): bindings are scoped to it.
fn body(p: &mut Parser, scopes: &mut Vec<Env>, out: &mut Vec<(usize, Tr)>) -> Result<()> {
    p.expect('{')?;
    scopes.push(Env::new());
    loop {
        match p.peek().cloned() {
            None => bail!("unterminated block"),
            Some(Tok::Punct('}')) => {
                p.pos += 1;
                scopes.pop();
                return Ok(());
            }
            Some(Tok::Punct('{')) => body(p, scopes, out)?,
            Some(Tok::Ident(k)) if k == "auto" => {
                p.pos += 1;
                let Some(Tok::Ident(name)) = p.peek().cloned() else { bail!("line {}: auto without a name", p.line()) };
                p.pos += 1;
                p.expect('=')?;
                let env = flat(scopes);
                let start = p.pos;
                let v = match p.value(&env) {
                    Ok(v) if p.is(';') => v,
                    Ok(_) | Err(_) => {
                        p.pos = start;
                        Err("not an operand".to_string())
                    }
                };
                skip_statement(p)?;
                scopes.last_mut().expect("scope").insert(name, v);
            }
            Some(Tok::Ident(f))
                if f.starts_with("test_") && p.toks.get(p.pos + 1).map(|t| &t.0) == Some(&Tok::Punct('(')) =>
            {
                let line = p.line();
                p.pos += 2;
                let env = flat(scopes);
                let mut args = Vec::new();
                while !p.eat(')') {
                    args.push(p.value(&env)?);
                    p.eat(',');
                }
                skip_statement(p)?;
                let args: std::result::Result<Vec<String>, String> = args.into_iter().collect();
                match args.and_then(|a| cases_of(&f, &a)) {
                    Ok(cases) => out.extend(cases.into_iter().map(|c| (line, Ok(c)))),
                    Err(why) => out.push((line, Err(why))),
                }
            }
            Some(_) => skip_statement(p)?,
        }
    }
}

/// Skip to just after the next `;` at this nesting level (a nested `{}` block is skipped whole).
fn skip_statement(p: &mut Parser) -> Result<()> {
    loop {
        match p.peek() {
            None => bail!("unterminated statement"),
            Some(Tok::Punct(';')) => {
                p.pos += 1;
                return Ok(());
            }
            Some(Tok::Punct('(')) => p.skip_group('(', ')')?,
            Some(Tok::Punct('{')) => return p.skip_group('{', '}'),
            Some(Tok::Punct('}')) => return Ok(()),
            _ => p.pos += 1,
        }
    }
}

fn flat(scopes: &[Env]) -> Env {
    let mut e = Env::new();
    for s in scopes {
        e.extend(s.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_the_forms_the_tests_use() {
        let src = r#"
template <class L> void test_complement(L const& l) { auto r = complement(l); }
TEST(CuTe_core, X)
{
  {
  auto layout = Layout<Shape<_2,_4>, Stride<_1,_m1>>{};
  test_complement(layout);                 // one line
  test_complement(layout, make_shape(Int<2>{}, 2));
  }
  // test_complement(Layout<_9,_9>{});
  {
    auto a = make_layout(make_shape(Int<2>{}, 1), GenRowMajor{});
    auto b = composition(Swizzle<2,0,-3>{}, Layout<_8,_1>{});
    test_composition(a, b);
    test_left_inverse(filter(Layout<Shape<Shape<_1,_1>>, Stride<Stride<_0,Int<-1>>>>{}));
    test_coalesce(make_layout(12, Int<2>{}));
  }
}
"#;
        let got = extract(src).unwrap();
        let ok: Vec<_> = got.iter().filter_map(|(l, c)| c.as_ref().ok().map(|c| (*l, c.as_str()))).collect();
        assert_eq!(
            ok,
            vec![
                (7, "complement((_2,_4):(_1,_-1),cosize((_2,_4):(_1,_-1)))"),
                (8, "complement((_2,_4):(_1,_-1),(_2,2))"),
                (14, "composition(make_layout_right((_2,1)),composition(Swizzle<2,0,-3>,_8:_1))"),
                (15, "left_inverse(filter(((_1,_1)):((_0,_-1))))"),
                (16, "coalesce(make_layout(12,_2))"),
            ]
        );
        assert_eq!(got.len(), 5, "{got:?}");
    }

    /// Swizzled layouts: `composition(Swizzle<...>{}, L)`, `ComposedLayout<Swizzle<...>,_0,L>`
    /// (the same type), `C<N>`; a composed layout with another offset or a zero-bit swizzle is
    /// skipped (it is not what composition builds).
    #[test]
    fn swizzled_and_composed_layouts() {
        let src = "TEST(a,b) {
  { auto l = ComposedLayout<Swizzle<1,0,2>, _0, Layout<Shape<_4,_4>, Stride<_1,_4>>>{}; test_left_inverse(l); }
  { auto a = composition(Swizzle<2,0, 3>{}, Layout<Shape<_8,_8>, Stride<_8,_1>>{}); test_composition(a, a); }
  test_right_inverse(Layout<Shape<_2,_2>, Stride<C<262144>,C<0>>>{});
  test_left_inverse(ComposedLayout<Swizzle<1,0,2>, _1, Layout<_4,_1>>{});
  test_left_inverse(ComposedLayout<Swizzle<0,0,2>, _0, Layout<_4,_1>>{});
}";
        let got = extract(src).unwrap();
        let sw = "composition(Swizzle<2,0,3>,(_8,_8):(_8,_1))";
        assert_eq!(got[0], (2, Ok("left_inverse(composition(Swizzle<1,0,2>,(_4,_4):(_1,_4)))".to_string())));
        assert_eq!(got[1], (3, Ok(format!("composition({sw},{sw})"))));
        assert_eq!(got[2], (4, Ok("right_inverse((_2,_2):(_262144,_0))".to_string())));
        assert!(got[3].1.is_err() && got[4].1.is_err(), "{got:?}");
        assert_eq!(got.len(), 5);
    }

    /// swizzle_layout.cpp's test_swizzle_2d(L): every row and column slice, run-time index first,
    /// then static, rows then columns.
    #[test]
    fn swizzle_2d_slices() {
        let got = extract(
            "TEST(a,b) { { auto sw_layout = composition(Swizzle<2,1,3>{}, Layout<Shape<Shape<_2,_2>,_4>, Stride<Stride<_8,_1>,_2>>{});\n test_swizzle_2d(sw_layout); } }",
        )
        .unwrap();
        let l = "composition(Swizzle<2,1,3>,((_2,_2),_4):((_8,_1),_2))";
        let cases: Vec<String> = got.iter().map(|(line, c)| format!("{line}:{}", c.as_ref().unwrap())).collect();
        assert_eq!(cases.len(), 16, "{cases:?}");
        assert_eq!(cases[0], format!("2:slice_and_offset((0,_),{l})"));
        assert_eq!(cases[3], format!("2:slice_and_offset((3,_),{l})"));
        assert_eq!(cases[4], format!("2:slice_and_offset((_0,_),{l})"));
        assert_eq!(cases[8], format!("2:slice_and_offset((_,0),{l})"));
        assert_eq!(cases[15], format!("2:slice_and_offset((_,_3),{l})"));
    }

    #[test]
    fn row_major_layouts() {
        let got =
            extract("TEST(a,b) { auto l = make_layout(make_shape(Int<2>{}, 4), GenRowMajor{}); test_coalesce(l); }")
                .unwrap();
        assert_eq!(got, vec![(1, Ok("coalesce(make_layout_right((_2,4)))".to_string()))]);
    }
}
