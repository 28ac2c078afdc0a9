//! `cutecheck eval --svg` pictures of MMA atoms against CuTe 4.2's `print_svg(MMA_Atom<X>{})`.
//!
//! The hashes are sha256 of CuTe's output without its comment lines (CuTe's comments print its
//! identity tensors, ours the atom layouts), recorded from real CuTe 4.2 runs (host-only probe:
//! `#include <cute/util/print_svg.hpp>` then `print_svg(MMA_Atom<X>{})`). The first comment line
//! (the tile) is CuTe's verbatim.

use sha2::{Digest, Sha256};

const CUTE: &[(&str, &str, &str)] = &[
    ("SM80_16x8x16_F32F16F16F32_TN", "1c4e38ec580f367ae1a8a9e4e18e1f254b2dc531a88aa9eac10b674e4c97ef13", "<!--  Tile: (_16,_8,_16)  -->"),
    ("SM70_8x8x4_F32F16F16F32_NT", "31ccbe064bc4779f940f4c860e713b261738437159384f7a65911fa98d519f69", "<!--  Tile: (_8,_8,_4)  -->"),
    (
        "SM90_64x8x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>",
        "4dd11d4bccfc479c491ebc54784115001668c3e20772a689f4bea2c7c0b4a396",
        "<!--  Tile: (_64,_8,_16)  -->",
    ),
    ("SM80_16x8x8_F32TF32TF32F32_TN", "401f245370b6f904560639c1d14dc98765457a70ff6bd7c3c04c902abb7976df", "<!--  Tile: (_16,_8,_8)  -->"),
];

#[test]
fn atom_pictures_match_cute() {
    for (atom, hash, tile) in CUTE {
        let svg = cutecheck::svg::atom_svg(atom).unwrap();
        assert_eq!(svg.lines().next().unwrap(), *tile, "{atom}");
        let body: String = svg.lines().filter(|l| !l.starts_with("<!--")).map(|l| format!("{l}\n")).collect();
        let got = format!("{:x}", Sha256::digest(body.as_bytes()));
        assert_eq!(got, *hash, "{atom}");
    }
}

/// CuTe 4.2's `print_svg(make_tiled_mma(...))`, hashed the same way (recorded from real CuTe runs:
/// `print_svg(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}))` etc.).
const CUTE_TILED: &[(&str, &str, &str)] = &[
    (
        "make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))",
        "c07526b56a9e29ffa3e4599190aec08cc48a9255d70e58f34e2adebf066ba681",
        "<!--  Tile: (_32,_16,_16)  -->",
    ),
    (
        "make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT,(_2,_2,_1))",
        "ed40e4817ae1b7c67344b9ef5fcb21e7490b71767dca034e89970df2a6e644d3",
        "<!--  Tile: (_16,_16,_4)  -->",
    ),
    ("make_tiled_mma(UniversalFMA<float>,(_8,_4,_1))", "41b8bfa2bb3589821dfe3d9cf8909d18a351c5a4094b305926047d28c793204b", "<!--  Tile: (_8,_4,_1)  -->"),
];

#[test]
fn tiled_mma_pictures_match_cute() {
    for (expr, hash, tile) in CUTE_TILED {
        let v = cutecheck::expr::eval_str(expr).unwrap();
        let svg = cutecheck::svg::svg_of(&v, None).unwrap();
        assert_eq!(svg.lines().next().unwrap(), *tile, "{expr}");
        let body: String = svg.lines().filter(|l| !l.starts_with("<!--")).map(|l| format!("{l}\n")).collect();
        assert_eq!(format!("{:x}", Sha256::digest(body.as_bytes())), *hash, "{expr}");
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
    // The chapter's exercise: thread 9 holds row 1, columns 8-15 (value v at column 8 + v).
    for v in 0..8 {
        let (x, y) = ((8 + v + 1) * 20, 2 * 20);
        let rect = format!("<rect x=\"{x}\" y=\"{y}\" width=\"20\" height=\"20\" fill=\"rgb(175,255,175)\" stroke=\"black\"/>");
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
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_cutecheck")).args(["eval", "--svg"]).arg(&file).arg("_4").output().unwrap();
    assert!(!bad.status.success());
}
