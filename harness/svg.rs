//! SVG pictures of layouts, TV layouts and MMA atoms, drawn the way CuTe's `print_svg`
//! (util/print_svg.hpp) draws an MMA: 20-unit cells, each cell filled by its thread's colour
//! (eight colours, by thread id modulo 8) and labelled `T<thread>` over `V<value>`; only the first
//! (thread, value) that reaches a cell is drawn.
//!
//! - [`mma_svg`]: CuTe's MMA picture: A to the left (M x K), B on top (K x N, drawn transposed),
//!   C bottom right (M x N), with row and column numbers. The drawing commands are CuTe's, byte for
//!   byte; the leading comments name the atom's layouts (CuTe prints its identity tensors there).
//! - [`tiled_mma_svg`]: the same picture for a TiledMMA (`make_tiled_mma(...)`).
//! - [`tv_svg`]: one (thread, value) -> column-major index layout over a rows x cols tile (also
//!   what a TiledCopy, `make_tiled_copy(...)`, draws: its TiledLayout_TV over Tiler_MN).
//! - [`layout_svg`]: a rank-2 layout as a grid of its values, shaded by value modulo 8 (CuTe's
//!   `TSVGColor_BWx8` palette), with row and column numbers.

use std::fmt::Write;

use crate::engine::atom::table::{operand_table, OperandTable};
use crate::engine::layout::MAX_WALK;
use crate::engine::{Error, IntTuple, Layout, Result};

const CELL: i64 = 20;
/// The most cells a picture may have.
const MAX_CELLS: i64 = 1 << 16;

/// CuTe's `SVGColor_TV`: a colour per thread id.
fn tv_color(tid: i64) -> &'static str {
    const C: [&str; 8] = [
        "175,175,255",
        "175,255,175",
        "255,255,175",
        "255,175,175",
        "210,210,255",
        "210,255,210",
        "255,255,210",
        "255,210,210",
    ];
    C[tid.rem_euclid(8) as usize]
}

/// CuTe's `TSVGColor_BWx8`: eight greys.
fn bw_color(idx: i64) -> &'static str {
    const C: [&str; 8] = [
        "255,255,255",
        "230,230,230",
        "205,205,205",
        "180,180,180",
        "155,155,155",
        "130,130,130",
        "105,105,105",
        "080,080,080",
    ];
    C[idx.rem_euclid(8) as usize]
}

fn header(out: &mut String, w: i64, h: i64) {
    let _ = writeln!(
        out,
        "<svg width=\"100%\" height=\"100%\" viewBox=\"0 0 {w} {h}\" preserveAspectRatio=\"xMidYMid meet\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
}

/// One T/V cell; `close` is CuTe's spelling of the rect's end (`"/>"` for C, `" />"` for A and B).
fn tv_cell(out: &mut String, x: i64, y: i64, tid: i64, vid: i64, close: &str) {
    let _ = writeln!(
        out,
        "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\"{close}",
        tv_color(tid)
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" alignment-baseline=\"central\" font-size=\"8\">T{tid}</text>",
        x + CELL / 2,
        y + CELL / 4
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" alignment-baseline=\"central\" font-size=\"8\">V{vid}</text>",
        x + CELL / 2,
        y + 3 * CELL / 4
    );
}

fn label(out: &mut String, x: i64, y: i64, size: i64, text: impl std::fmt::Display) {
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" alignment-baseline=\"central\" font-size=\"{size}\">{text}</text>",
        x + CELL / 2,
        y + CELL / 2
    );
}

fn check_cells(rows: i64, cols: i64) -> Result<()> {
    if rows < 0 || cols < 0 || rows.saturating_mul(cols) > MAX_CELLS {
        return Err(Error::TooLarge(format!("a {rows}x{cols} picture (limit {MAX_CELLS} cells)")));
    }
    Ok(())
}

/// CuTe's MMA picture from the three operand tables (A: M x K, B: N x K, C: M x N) and the tile.
/// `comments` are written first, one `<!--LINE  -->` line each (CuTe's spacing).
/// Cells are labelled with `lanes[t]` for logical thread t (the thread index CuTe draws; identity
/// when `lanes` is empty), lowest first, and the first (thread, value) to reach a cell keeps it.
pub fn mma_svg(
    mnk: [i64; 3],
    c: &OperandTable,
    a: &OperandTable,
    b: &OperandTable,
    lanes: &[i64],
    comments: &[String],
) -> Result<String> {
    let lane = |t: usize| lanes.get(t).copied().unwrap_or(t as i64);
    let [m, n, k] = mnk;
    check_cells(m + k + 2, n + k + 2)?;
    let mut out = String::new();
    for line in comments {
        let _ = writeln!(out, "<!--{line}  -->");
    }
    header(&mut out, (k + n + 2) * CELL, (k + m + 2) * CELL);
    let mut filled = vec![false; (m * n.max(k)).max(n * k) as usize];
    for (tid, vals) in c.map.iter().enumerate() {
        for (vid, [r, col]) in vals.iter().enumerate() {
            let f = &mut filled[(r + col * m) as usize];
            if !*f {
                *f = true;
                tv_cell(&mut out, (col + k + 2) * CELL, (r + k + 2) * CELL, lane(tid), vid as i64, "/>");
            }
        }
    }
    filled.iter_mut().for_each(|f| *f = false);
    for (tid, vals) in a.map.iter().enumerate() {
        for (vid, [r, kk]) in vals.iter().enumerate() {
            let f = &mut filled[(r + kk * m) as usize];
            if !*f {
                *f = true;
                tv_cell(&mut out, (kk + 1) * CELL, (r + k + 2) * CELL, lane(tid), vid as i64, " />");
            }
        }
    }
    for r in 0..m {
        label(&mut out, 0, (r + k + 2) * CELL, 12, r);
    }
    for kk in 0..k {
        label(&mut out, (kk + 1) * CELL, (k + 1) * CELL, 12, kk);
    }
    filled.iter_mut().for_each(|f| *f = false);
    for (tid, vals) in b.map.iter().enumerate() {
        for (vid, [nn, kk]) in vals.iter().enumerate() {
            let f = &mut filled[(nn + kk * n) as usize];
            if !*f {
                *f = true;
                tv_cell(&mut out, (nn + k + 2) * CELL, (kk + 1) * CELL, lane(tid), vid as i64, " />");
            }
        }
    }
    for nn in 0..n {
        label(&mut out, (nn + k + 2) * CELL, 0, 12, nn);
    }
    for kk in 0..k {
        label(&mut out, (k + 1) * CELL, (kk + 1) * CELL, 12, kk);
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// The MMA picture of an atom given by name.
pub fn atom_svg(name: &str) -> Result<String> {
    let t = crate::engine::atom::atom_table(name)?;
    mma_svg(
        t.shape_mnk,
        &t.c,
        &t.a,
        &t.b,
        &t.lanes,
        &[
            format!("  Tile: ({})", t.shape_mnk.map(|x| format!("_{x}")).join(",")),
            format!("     A: {}", t.a.layout),
            format!("     B: {}", t.b.layout),
            format!("     C: {}", t.c.layout),
        ],
    )
}

/// CuTe's `print_svg(tiled_mma)`: the tiled MMA's A, B, C TV layouts over its tile, threads
/// labelled by thread index.
pub fn tiled_mma_svg(m: &crate::engine::atom::tiled_mma::TiledMma) -> Result<String> {
    let t = m.tile_shape()?;
    let [tm, tn, tk] = [0, 1, 2].map(|i| t.mode(i).ok().and_then(|x| x.as_leaf()).map_or(0, |x| x.value));
    let (a, b, c) = (m.layout_a_tv()?, m.layout_b_tv()?, m.layout_c_tv()?);
    mma_svg(
        [tm, tn, tk],
        &operand_table(&c, tm, tn)?,
        &operand_table(&a, tm, tk)?,
        &operand_table(&b, tn, tk)?,
        &[],
        &[format!("  Tile: {t}"), format!("     A: {a}"), format!("     B: {b}"), format!("     C: {c}")],
    )
}

/// A (thread, value) -> index layout over a rows x cols tile (index column-major in the tile).
pub fn tv_svg(tv: &Layout, rows: i64, cols: i64) -> Result<String> {
    check_cells(rows, cols)?;
    let t = operand_table(tv, rows, cols)?;
    let mut out = String::new();
    let _ = writeln!(out, "<!-- TV layout: {tv} over a {rows}x{cols} tile -->");
    header(&mut out, (cols + 1) * CELL, (rows + 1) * CELL);
    let mut filled = vec![false; (rows * cols) as usize];
    for (tid, vals) in t.map.iter().enumerate() {
        for (vid, [r, c]) in vals.iter().enumerate() {
            let f = &mut filled[(r + c * rows) as usize];
            if !*f {
                *f = true;
                tv_cell(&mut out, (c + 1) * CELL, (r + 1) * CELL, tid as i64, vid as i64, "/>");
            }
        }
    }
    finish_grid(&mut out, rows, cols);
    Ok(out)
}

/// Row and column indices around a grid of cells, and the end of the picture.
fn finish_grid(out: &mut String, rows: i64, cols: i64) {
    for r in 0..rows {
        label(out, 0, (r + 1) * CELL, 12, r);
    }
    for c in 0..cols {
        label(out, (c + 1) * CELL, 0, 12, c);
    }
    out.push_str("</svg>\n");
}

/// A rank-2 layout as a grid of its values.
pub fn layout_svg(layout: &Layout) -> Result<String> {
    if layout.rank() != 2 {
        return Err(Error::Rejected {
            condition: "a layout picture needs rank(layout) == 2",
            detail: layout.to_string(),
        });
    }
    let (rows, cols) = (layout.mode(0)?.size()?.value, layout.mode(1)?.size()?.value);
    check_cells(rows, cols)?;
    if rows * cols > MAX_WALK {
        return Err(Error::TooLarge(layout.to_string()));
    }
    let mut out = String::new();
    let _ = writeln!(out, "<!-- Layout: {layout} -->");
    header(&mut out, (cols + 1) * CELL, (rows + 1) * CELL);
    for r in 0..rows {
        for c in 0..cols {
            let v = layout.call(&IntTuple::tuple([IntTuple::dy(r), IntTuple::dy(c)]))?.value;
            let (x, y) = ((c + 1) * CELL, (r + 1) * CELL);
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\"/>",
                bw_color(v)
            );
            label(&mut out, x, y, 8, v);
        }
    }
    finish_grid(&mut out, rows, cols);
    Ok(out)
}

/// The picture of an evaluated expression: an MMA atom name, a layout, or (with `tile` =
/// `"ROWS,COLS"`) a TV layout.
pub fn svg_of(v: &crate::expr::Value, tile: Option<&str>) -> Result<String> {
    use crate::expr::value::AtomValue;
    use crate::expr::Value;
    match (v, tile) {
        (Value::Atom(AtomValue::Name(n)), None) => atom_svg(n),
        (Value::Atom(AtomValue::Mma(a)), None) => atom_svg(&a.name),
        (Value::Atom(AtomValue::TiledMma(m)), None) => tiled_mma_svg(m),
        (Value::Atom(AtomValue::TiledCopy(c)), None) => {
            let dims: Vec<i64> = c.tiler.modes().iter().map(|m| m.product().map(|x| x.value)).collect::<Result<_>>()?;
            match dims[..] {
                [r, cols] => tv_svg(&c.tv, r, cols),
                _ => Err(Error::Rejected {
                    condition: "a TiledCopy picture needs a rank-2 tile",
                    detail: c.tiler.to_string(),
                }),
            }
        }
        (Value::Layout(l), Some(t)) => {
            let dims: Vec<i64> = t
                .split(',')
                .map(|x| x.trim().parse::<i64>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| Error::Type(format!("--tile wants ROWS,COLS, got {t}")))?;
            match dims[..] {
                [r, c] => tv_svg(l, r, c),
                _ => Err(Error::Type(format!("--tile wants ROWS,COLS, got {t}"))),
            }
        }
        (Value::Layout(l), None) => layout_svg(l),
        (other, _) => Err(Error::Type(format!("cannot draw {}", other.kind()))),
    }
}

/// A warp-wide load over its data tile (`cutecheck access`): the `rows x cols` tile of element
/// byte addresses `addr` (column-major cell order), each cell coloured by its shared-memory bank
/// (`address / 4 mod 32`) or global sector (`address / 32`), labelled with the bank or sector and
/// with the thread whose access starts there, if any (`T<t>`; a vector access covers the
/// following cells of its bytes too, drawn with a thick border).
pub fn access_svg(
    title: &str,
    rows: i64,
    cols: i64,
    addr: &[i64],
    lanes: &[i64],
    vector: i64,
    shared: bool,
) -> Result<String> {
    check_cells(rows, cols)?;
    if addr.len() as i64 != rows * cols {
        return Err(Error::Rejected {
            condition: "one address per cell",
            detail: format!("{} for {rows}x{cols}", addr.len()),
        });
    }
    let mut out = String::new();
    let _ = writeln!(out, "<!-- {title} -->");
    header(&mut out, (cols + 1) * CELL, (rows + 1) * CELL);
    for c in 0..cols {
        for r in 0..rows {
            let a = addr[(r + c * rows) as usize];
            let group = if shared { (a / 4).rem_euclid(32) } else { a.div_euclid(32) };
            let hue = if shared { group * 360 / 32 } else { (group * 137).rem_euclid(360) };
            let starts = lanes.iter().position(|&o| o == a);
            let covered = lanes.iter().any(|&o| (o..o + vector).contains(&a));
            let (x, y) = ((c + 1) * CELL, (r + 1) * CELL);
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"hsl({hue},70%,{}%)\" stroke=\"black\" stroke-width=\"{}\"/>",
                if covered { 70 } else { 92 },
                if covered { 2 } else { 1 }
            );
            let tag = if shared { "B" } else { "S" };
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" alignment-baseline=\"central\" font-size=\"7\">{tag}{group}</text>",
                x + CELL / 2,
                y + 3 * CELL / 4
            );
            if let Some(t) = starts {
                let _ = writeln!(
                    out,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" alignment-baseline=\"central\" font-size=\"7\">T{t}</text>",
                    x + CELL / 2,
                    y + CELL / 4
                );
            }
        }
    }
    finish_grid(&mut out, rows, cols);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_have_one_cell_per_element() {
        let s = atom_svg("SM80_16x8x16_F32F16F16F32_TN").unwrap();
        // C 16x8, A 16x16, B 8x16 cells, each a rect with two labels.
        assert_eq!(s.matches("<rect").count(), 16 * 8 + 16 * 16 + 8 * 16);
        assert!(s.ends_with("</svg>\n"));
        let l = crate::engine::atom::lit::layout("(_4,_8):(_8,_1)").unwrap();
        assert_eq!(layout_svg(&l).unwrap().matches("<rect").count(), 32);
        let tv = crate::engine::atom::lit::layout("((_8,_16),_8):((_128,_1),_16)").unwrap();
        let s = tv_svg(&tv, 16, 64).unwrap();
        assert_eq!(s.matches("<rect").count(), 16 * 64);
        assert!(s.contains(">T9</text>"));
    }
}
