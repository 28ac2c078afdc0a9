//! Issue 28's pictures from the CLI: `cutecheck eval --svg FILE --tile R,C TILED_COPY` draws which
//! thread holds which coordinate of an R x C identity tensor (`get_slice(t).partition_S(
//! make_identity_tensor((R,C)))` for every thread t), and `cutecheck eval --svg FILE TMA` draws a
//! TMA copy's boxes over its global tensor. CuTe 4.2 and 4.7 have no picture of either
//! (util/print_svg.hpp draws MMAs only), so these are cutecheck's pictures: their content is
//! checked against the engine's layouts (here and in svg::tests), and the copies in docs/ that
//! README shows must be what the CLI draws today.

use std::process::Command;

const SM80_COPY: &str =
    "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,half_t),(_16,_8):(_8,_1),(_1,_8):(_0,_1))";
const SMALL_COPY: &str = "make_tiled_copy(copy_atom(UniversalCopy<uint32_t>,float),(_4,_2):(_2,_1),(_2,_2))";
const TMA: &str = "make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(256,_1), (_8,_16):(_16,_1))";

fn draw(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.svg");
    let out =
        Command::new(env!("CARGO_BIN_EXE_cutecheck")).args(["eval", "--svg"]).arg(&file).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(&file).unwrap()
}

fn num(l: &str, k: &str) -> i64 {
    let at = l.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
    l[at..].split('"').next().unwrap().parse().unwrap()
}

/// The two labels drawn after the rect at row `r`, column `c` of a picture with 20-unit rows.
fn cell(svg: &str, r: i64, c: i64) -> Option<(String, String)> {
    let rects: Vec<(usize, &str)> = svg.lines().enumerate().filter(|(_, l)| l.starts_with("<rect ")).collect();
    let (margin, w) = (rects.iter().map(|(_, l)| num(l, "x")).min().unwrap(), num(rects[0].1, "width"));
    let lines: Vec<&str> = svg.lines().collect();
    let (i, _) = rects.iter().find(|(_, l)| num(l, "x") == margin + c * w && num(l, "y") == (r + 1) * 20)?;
    let text =
        |l: &str| l.starts_with("<text ").then(|| l.split_once('>').unwrap().1.trim_end_matches("</text>").to_string());
    Some((text(lines.get(i + 1)?)?, text(lines.get(i + 2)?)?))
}

#[test]
fn cli_draws_an_identity_tensor_partition() {
    // sm80 mainloop's gmem copy over a 16x64 tile: thread 9 (row 1 of the 16x8 thread layout,
    // column 1) holds row 1, columns 8..16, value v at column 8 + v.
    let svg = draw(&["--tile", "16,64", SM80_COPY]);
    assert_eq!(svg.matches("<rect ").count(), 16 * 64);
    for v in 0..8 {
        assert_eq!(cell(&svg, 1, 8 + v), Some(("T9".to_string(), format!("V{v}"))));
    }
    assert!(
        svg.starts_with("<!-- which thread holds which coordinate of a 16x64 identity tensor; thread 0: ArithTuple")
    );
    assert!(!svg.contains("predicated off"));
    // A ragged tensor (the tiled_copy_if tutorial's case): a 20x70 tensor needs 2x2 tiles, 4 * 1024
    // elements, of which 20 * 70 are inside.
    let ragged = draw(&["--tile", "20,70", SM80_COPY]);
    assert!(
        ragged.contains(&format!("<!-- {} elements lie outside the tensor (predicated off) -->", 4 * 1024 - 20 * 70))
    );
    // Every cell of a TiledMMA's C partition is drawn.
    let mma = draw(&["--tile", "32,16", "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))"]);
    assert_eq!(mma.matches("<rect ").count(), 32 * 16);
    assert_eq!(cell(&mma, 0, 0), Some(("T0".to_string(), "V0".to_string())));
    // Something that is not a copy or an MMA is refused with --tile only as a layout: an identity
    // layout needs no partition picture.
    let dir = tempfile::tempdir().unwrap();
    let bad = Command::new(env!("CARGO_BIN_EXE_cutecheck"))
        .args(["eval", "--svg"])
        .arg(dir.path().join("x.svg"))
        .args(["--tile", "4,4", "mma_atom(SM80_16x8x16_F32F16F16F32_TN)"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
}

#[test]
fn cli_draws_a_tma_box_over_its_global_tensor() {
    // A row-major 8x16 half tile of a row-major gmem: CuTe's box is (16,8) over (columns, rows),
    // gbasis (_16,_8):(_1@1,_1@0): smem offset i is global (i / 16, i % 16).
    let svg = draw(&[TMA]);
    assert!(svg.starts_with("<!-- TMA SM90_TMA_LOAD half_t: gbasis (_16,_8):(_1@1,_1@0) box [16, 8]"));
    assert_eq!(svg.matches("<rect ").count(), 16 * 32, "two tiles by two");
    for i in [0i64, 1, 15, 16, 127] {
        assert_eq!(cell(&svg, i / 16, i % 16), Some((format!("S{i}"), "B0".to_string())));
    }
    assert_eq!(cell(&svg, 8, 0), None, "outside the origin tile");
    let window = draw(&["--tile", "8,16", TMA]);
    assert_eq!(window.matches("<rect ").count(), 8 * 16);
}

/// The pictures README shows are the CLI's, drawn with the commands README gives.
#[test]
fn docs_pictures_are_what_the_cli_draws() {
    let root = env!("CARGO_MANIFEST_DIR");
    let read =
        |f: &str| std::fs::read_to_string(format!("{root}/docs/{f}")).unwrap_or_else(|e| panic!("docs/{f}: {e}"));
    assert_eq!(read("identity_partition_copy.svg"), draw(&["--tile", "10,12", SMALL_COPY]));
    assert_eq!(read("tma_box.svg"), draw(&[TMA]));
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    for f in ["docs/identity_partition_copy.svg", "docs/tma_box.svg"] {
        assert!(readme.contains(f), "README shows {f}");
    }
    assert!(readme.contains(SMALL_COPY) && readme.contains(TMA), "README gives the commands");
}
