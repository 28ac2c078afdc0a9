//! The chapter's memory-access figures (fixtures/access/chapter.txt: what the chapter states and
//! what ncu measured on the H200, never the engine's output) against `warp_access`: through the
//! expression language, as `cutecheck eval` answers, and through the engine's costs for the
//! useful bytes and utilization the chapter quotes.

use std::path::Path;

use cutecheck::engine::warp_access::{self, Cost};
use cutecheck::expr::eval::eval_str;
use cutecheck::gpu::access::AccessCase;

struct Line {
    at: usize,
    expr: String,
    figures: Vec<(String, String)>,
}

fn lines() -> Vec<Line> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/access/chapter.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(f.len(), 3, "chapter.txt:{}: EXPRESSION, FIGURES, SOURCE", i + 1);
        let figures = f[1]
            .split_whitespace()
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("chapter.txt:{}: {kv}", i + 1));
                (k.to_string(), v.to_string())
            })
            .collect();
        out.push(Line { at: i + 1, expr: f[0].to_string(), figures });
    }
    out
}

#[test]
fn the_chapter_cases_give_the_chapter_figures() {
    let ls = lines();
    assert!(ls.len() >= 6, "the chapter's three partitions and the issue's three shared cases");
    for l in &ls {
        let printed = eval_str(&l.expr).unwrap_or_else(|e| panic!("chapter.txt:{}: {e}", l.at)).to_string();
        let case = AccessCase::from_expr(0, "chapter", &l.expr).unwrap();
        let cost = case.predicted().unwrap();
        assert_eq!(printed, cost.to_string(), "chapter.txt:{}: eval prints the engine's cost", l.at);
        for (k, v) in &l.figures {
            let got = match (k.as_str(), cost) {
                ("sectors", Cost::Global(g)) => g.sectors.to_string(),
                ("bytes", Cost::Global(g)) => g.bytes.to_string(),
                ("utilization", Cost::Global(g)) => format!("{}%", (g.utilization() * 100.0).round()),
                ("wavefronts", Cost::Shared(s)) => s.wavefronts.to_string(),
                ("conflicts", Cost::Shared(s)) => s.conflicts.to_string(),
                _ => panic!("chapter.txt:{}: no figure {k} for {}", l.at, l.expr),
            };
            assert_eq!(&got, v, "chapter.txt:{}: {k} of {}", l.at, l.expr);
        }
    }
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    for (e, why) in [
        ("warp_access(local, 4, 4, (16,8):(1,16), (32):(1))", "unknown"),
        ("warp_access(global, 4, 3, (16,8):(1,16), (32):(1))", "1, 2, 4, 8 or 16"),
        ("warp_access(global, 4, 4, (16,8):(1,16), (16):(1))", "32 threads"),
        ("warp_access(global, 4, 4, (16,8):(1,16), (32):(5))", "outside DATA's domain"),
        ("warp_access(global, 2, 8, (16,8):(1,16), (32):(1))", "aligned"),
        ("warp_access(shared, 4, 4, GMMA::Layout_K_SW128_Atom<half_t>, (32):(1))", "element size"),
    ] {
        let err = eval_str(e).expect_err(e).to_string();
        assert!(err.contains(why), "{e}: {err}");
    }
    let ok = warp_access::global(&[0; 32], 4).unwrap();
    assert_eq!((ok.sectors, ok.bytes), (1, 4), "32 threads on one word: one sector, a broadcast");
}

#[test]
fn the_access_report_explains_the_chapter_case() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("a.svg");
    let text =
        cutecheck::cli::access_report("warp_access(global, 4, 4, (16,8):(1,16), (8,4):(2,32))", Some(&svg)).unwrap();
    let want_pct = format!("({}%)", 50); // chapter.txt's utilization of this case
    assert!(text.contains(&want_pct), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("sector ")).count(), 8, "{text}");
    let pic = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(pic.matches("<rect").count(), 16 * 8, "one cell per element of the 16x8 tile");
    assert_eq!(pic.matches(">T").count(), 32, "every thread marks the element it loads");
    let shared = cutecheck::cli::access_report("warp_access(shared, 4, 4, (16,8):(1,16), (8,4):(2,32))", None).unwrap();
    assert_eq!(shared.lines().filter(|l| l.contains("collides")).count(), 8, "{shared}");
    assert!(cutecheck::cli::access_report("warp_access(shared, 4, 4, (16,8):(1,16), (16):(1))", None).is_err());
}

/// `cutecheck access-copy`: a whole TiledCopy's instructions, with the widest vector: a 16-byte
/// vector when each thread's 8 halves are contiguous (row-major tile), element-wise when they are
/// not (column-major); each instruction's figures are warp_access's for that instruction.
#[test]
fn access_copy_reports_every_instruction_with_the_widest_vector() {
    let tv =
        "tiled_copy_tv(UniversalCopy<uint128_t>, half_t, Layout<Shape<_8,_4>,Stride<_4,_1>>{}, Layout<Shape<_1,_8>>{})";
    let row = cutecheck::cli::access_copy_report("shared", 2, "(8,32):(32,1)", tv, None, None).unwrap();
    assert!(row.contains("16 bytes per thread and instruction"), "{row}");
    assert!(row.contains("total (1 instructions): wavefronts=4 conflicts=0"), "{row}");
    let col = cutecheck::cli::access_copy_report("shared", 2, "(8,32):(1,8)", tv, None, None).unwrap();
    assert!(col.contains("2 bytes per thread and instruction"), "{col}");
    assert!(col.contains("total (8 instructions): wavefronts=32 conflicts=24"), "{col}");
    // Instruction 0 of the column-major copy is this warp_access: thread t at (t/4, 8(t%4)).
    let one = cutecheck::expr::eval::eval_str("warp_access(shared, 2, 2, (8,32):(1,8), (4,8):(64,1))").unwrap();
    assert!(col.contains(&format!("warp 0 instruction 0: {one}")), "{col} vs {one}");
    // A vector that does not divide the values, or a TV of 31 threads, is refused.
    assert!(cutecheck::cli::access_copy_report("shared", 2, "(8,32):(32,1)", tv, Some(6), None).is_err());
    assert!(cutecheck::cli::access_copy_report("shared", 2, "(8,32):(32,1)", "(31,8):(8,1)", None, None).is_err());
    assert!(cutecheck::cli::access_copy_report("ldmatrix_x4", 2, "(8,32):(32,1)", tv, None, None).is_err());
}
