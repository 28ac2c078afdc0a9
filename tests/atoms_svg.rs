//! `cutecheck eval --svg` pictures of MMA atoms and tiled MMAs against CuTe 4.2's own `print_svg`.
//!
//! The cases are fixtures/cases/atoms_svg.cases (`print_svg(mma_atom(X))`,
//! `print_svg(make_tiled_mma(...))`); what real CuTe's `print_svg` printed for them is recorded by
//! `cargo xtask bless` in snapshots/atoms_svg.snap. The engine's picture must be CuTe's text, line
//! for line, except the three comment lines after the first (CuTe prints its identity tensors
//! there, the engine the TV layouts they are made from): `cutecheck::suite::compare`'s picture rule.

use cutecheck::case::{self, Case, Outcome};
use cutecheck::judge::{compare, Agreement};
use cutecheck::suite::all_suites;

#[test]
fn pictures_match_cutes_print_svg() {
    let s = all_suites()
        .expect("fixtures/cases")
        .into_iter()
        .find(|s| s.name == "atoms_svg")
        .expect("fixtures/cases/atoms_svg.cases");
    let recorded = s.recorded(None).unwrap_or_else(|p| panic!("{}", p.join("\n")));
    assert!(!s.cases.is_empty());
    for (c, lines) in s.cases.iter().zip(&recorded) {
        // CuTe drew it: a tile comment, an <svg> element and its close.
        let drawn = lines[0].starts_with("<!--  Tile: ")
            && lines.iter().any(|l| l.starts_with("<svg "))
            && lines.last().map(String::as_str) == Some("</svg>");
        assert!(drawn, "{}: CuTe did not draw it: {}", s.locate(c), lines[0]);
        let case = Case::parse(&c.expr, s.locate(c)).expect("parses");
        let engine = case::engine(&case, false).outcome;
        assert_eq!(
            compare(&engine, &Outcome::from_lines(lines)),
            Agreement::Same,
            "{}: {}: the engine's picture differs from CuTe's",
            s.locate(c),
            c.expr
        );
        // The same picture as `cutecheck eval --svg` draws from the value.
        let v = cutecheck::expr::eval(case.print_svg_arg().expect("a print_svg case")).unwrap();
        assert_eq!(Outcome::Printed(cutecheck::svg::svg_of(&v, None).unwrap()), engine, "{}", s.locate(c));
    }
}

#[test]
fn cli_writes_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--svg"])
        .arg(&file)
        .args(["--tile", "16,64", "((_8,_16),_8):((_128,_1),_16)"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&file).unwrap();
    // The chapter's exercise: thread 9 holds row 1, columns 8-15 (value v at column 8 + v). The
    // cells are as wide as their longest label needs (T127), the first column after the row
    // numbers' margin.
    let num = |l: &str, k: &str| -> i64 {
        let at = l.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
        l[at..].split('"').next().unwrap().parse().unwrap()
    };
    let rects: Vec<&str> = svg.lines().filter(|l| l.starts_with("<rect ")).collect();
    assert_eq!(rects.len(), 16 * 64);
    let (margin, w) = (rects.iter().map(|r| num(r, "x")).min().unwrap(), num(rects[0], "width"));
    assert!(w >= 20 && rects.iter().all(|r| num(r, "width") == w && num(r, "height") == 20));
    for v in 0..8 {
        let (x, y) = (margin + (8 + v) * w, 2 * 20);
        let rect = format!(
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"20\" fill=\"rgb(175,255,175)\" stroke=\"black\"/>"
        );
        let pos = svg.find(&rect).unwrap_or_else(|| panic!("no cell at row 1 column {}", 8 + v));
        let after = &svg[pos..];
        assert!(after.lines().nth(1).unwrap().ends_with(">T9</text>"));
        assert!(after.lines().nth(2).unwrap().ends_with(&format!(">V{v}</text>")));
    }
    // The same picture from the TiledCopy itself.
    let tc = std::process::Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--svg"])
        .arg(dir.path().join("tc.svg"))
        .arg("make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,half_t),(_16,_8):(_8,_1),(_1,_8):(_0,_1))")
        .output()
        .unwrap();
    assert!(tc.status.success(), "{}", String::from_utf8_lossy(&tc.stderr));
    let from_copy = std::fs::read_to_string(dir.path().join("tc.svg")).unwrap();
    assert_eq!(from_copy, svg);
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--svg"])
        .arg(&file)
        .arg("_4")
        .output()
        .unwrap();
    assert!(!bad.status.success());
}
