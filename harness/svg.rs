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
#[cfg(test)]
use crate::engine::swizzle::Swizzle;
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

/// A (thread, value) -> index layout over a rows x cols tile (index column-major in the tile):
/// each cell reached coloured by its thread (CuTe's `SVGColor_TV`) and labelled `T<thread>` over
/// `V<value>`, the first (thread, value) to reach it kept. Not one of CuTe's pictures, so its
/// labels are drawn clean: on their half-cell's middle line, cells and margins as wide as the
/// longest label needs.
pub fn tv_svg(tv: &Layout, rows: i64, cols: i64) -> Result<String> {
    check_cells(rows, cols)?;
    let t = operand_table(tv, rows, cols)?;
    let mut first: Vec<Option<(i64, i64)>> = vec![None; (rows * cols) as usize];
    for (tid, vals) in t.map.iter().enumerate() {
        for (vid, [r, c]) in vals.iter().enumerate() {
            first[(r + c * rows) as usize].get_or_insert((tid as i64, vid as i64));
        }
    }
    let longest = first.iter().flatten().map(|(t, v)| 1 + t.max(v).to_string().len()).max().unwrap_or(2);
    let cell_w = CELL.max(text_width(longest, LABEL)).max(text_width(cols.max(1).to_string().len(), INDEX));
    let margin = CELL.max(text_width((rows - 1).max(0).to_string().len(), INDEX));
    let mut out = String::new();
    let _ = writeln!(out, "<!-- TV layout: {} over a {rows}x{cols} tile -->", comment(&tv.to_string()));
    header(&mut out, margin + cols * cell_w, CELL + rows * CELL);
    index_labels(&mut out, rows, cols, margin, cell_w);
    for c in 0..cols {
        for r in 0..rows {
            let Some((tid, vid)) = first[(r + c * rows) as usize] else { continue };
            let (x, y) = (margin + c * cell_w, (r + 1) * CELL);
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\"/>",
                tv_color(tid)
            );
            centred(&mut out, x + cell_w / 2, y + CELL / 4, LABEL, "black", &format!("T{tid}"));
            centred(&mut out, x + cell_w / 2, y + 3 * CELL / 4, LABEL, "black", &format!("V{vid}"));
        }
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// The row numbers (in a margin `margin` wide) and column numbers (over cells `cell_w` wide) of
/// a grid whose cells start at `(margin, CELL)`.
fn index_labels(out: &mut String, rows: i64, cols: i64, margin: i64, cell_w: i64) {
    for c in 0..cols {
        centred(out, margin + c * cell_w + cell_w / 2, CELL / 2, INDEX, "black", &c.to_string());
    }
    for r in 0..rows {
        centred(out, margin / 2, (r + 1) * CELL + CELL / 2, INDEX, "black", &r.to_string());
    }
}

/// A layout as a grid of its values: [`grid_svg`] of its [`Grid`] (any rank).
pub fn layout_svg(layout: &Layout) -> Result<String> {
    let g = grid_of(&crate::expr::Value::Layout(layout.clone())).expect("a layout has a grid")?;
    Ok(grid_svg(&g))
}

/// What a layout picture shows: `rows x cols` cells in column-major order, each with the label
/// of the layout's value there and the value's shade (CuTe's `TSVGColor_BWx8`, value modulo 8).
///
/// Any layout is drawn, whatever its rank: a rank-2 layout as CuTe's `print_layout` does (rows
/// are mode 0, columns mode 1); rank 1 as one row; rank 0 as one cell; rank 3 and up as mode 0
/// against the rest (cell `(r, c)` holds `L(r + rows * c)`, CuTe's colexicographic 1-D index, so
/// that the columns run over modes 1.. in CuTe's order). A swizzled layout (`Sw<B,M,S> o OFF o L`)
/// shows `swizzle(OFF + L(i))`; a layout with basis strides shows the coordinate `L(i)` it maps to
/// (an `ArithmeticTuple` such as `(2,3)`), shaded by the sum of its components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub rows: i64,
    pub cols: i64,
    /// Column-major: cell `(r, c)` is `cells[r + rows * c]`.
    pub cells: Vec<GridCell>,
    /// What is drawn, as CuTe prints it.
    pub title: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridCell {
    pub label: String,
    pub shade: i64,
}

/// `(rows, cols)` of a layout of this shape (see [`Grid`]).
fn grid_dims(shape: &IntTuple) -> Result<(i64, i64)> {
    let size = shape.product()?.value;
    let rows = match shape.is_tuple() && shape.rank() > 1 {
        true => shape.mode(0)?.product()?.value,
        false => 1,
    };
    let cols = if rows == 0 { 0 } else { size / rows };
    check_cells(rows, cols)?;
    if size > MAX_WALK {
        return Err(Error::TooLarge(format!("a layout of {size} cells (limit {MAX_WALK})")));
    }
    Ok((rows, cols))
}

/// The sum of an arithmetic tuple's components (a basis element counts its value).
fn basis_shade(b: &crate::engine::scaled_basis::BasisValue) -> i64 {
    use crate::engine::scaled_basis::BasisValue;
    match b {
        BasisValue::Int(i) => i.value,
        BasisValue::Basis(s) => s.value.value,
        BasisValue::Tuple(v) => v.iter().map(basis_shade).sum(),
    }
}

/// The [`Grid`] of a layout, swizzled layout or layout with basis strides; `None` for any other
/// value.
pub fn grid_of(v: &crate::expr::Value) -> Option<Result<Grid>> {
    use crate::expr::value::AtomValue;
    use crate::expr::Value;
    let cell = |label: String, shade: i64| GridCell { label, shade };
    let build = |shape: &IntTuple, title: String, at: &dyn Fn(i64) -> Result<GridCell>| -> Result<Grid> {
        let (rows, cols) = grid_dims(shape)?;
        let cells = (0..rows * cols).map(at).collect::<Result<Vec<_>>>()?;
        Ok(Grid { rows, cols, cells, title })
    };
    Some(match v {
        Value::Layout(l) => build(&l.shape, l.to_string(), &|i| {
            let x = l.call_int(crate::engine::Int::dy(i))?.value;
            Ok(cell(x.to_string(), x))
        }),
        Value::Atom(AtomValue::Composed(c)) => build(&c.layout.shape, c.to_string(), &|i| {
            let x = c.call(&IntTuple::leaf(crate::engine::Int::dy(i)))?.value;
            Ok(cell(x.to_string(), x))
        }),
        Value::Atom(AtomValue::BasisLayout(b)) => build(&b.shape, b.to_string(), &|i| {
            let x = b.call(&IntTuple::leaf(crate::engine::Int::dy(i)))?.as_arithmetic_tuple();
            Ok(cell(x.to_string(), basis_shade(&x)))
        }),
        // An identity tensor or its partition: each element's coordinate (iterator + L(i)).
        Value::Atom(AtomValue::CoordTensor(t)) => build(&t.layout.shape, t.to_string(), &|i| {
            let x = t.at_index(i)?.as_arithmetic_tuple();
            Ok(cell(x.to_string(), basis_shade(&x)))
        }),
        _ => return None,
    })
}

/// Text for inside an SVG element: `<`, `>`, `&` escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Text for inside a comment: no `--` (which would end it), as written otherwise.
fn comment(s: &str) -> String {
    let mut s = s.replace("--", "- -");
    while s.contains("--") {
        s = s.replace("--", "- -");
    }
    s
}

/// A centred label whose middle sits at `(cx, cy)`: `dominant-baseline="central"` puts the
/// text's centre on `cy` in every renderer (`alignment-baseline`, which CuTe's pictures use, does
/// not apply to `<text>` and leaves the text on its alphabetic baseline, above the middle).
fn centred(out: &mut String, cx: i64, cy: i64, size: i64, fill: &str, text: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"monospace\" font-size=\"{size}\" fill=\"{fill}\">{}</text>",
        escape(text)
    );
}

/// The width a monospace label of `chars` characters needs at `size` (0.6 em a character, and a
/// margin of 2 on each side).
fn text_width(chars: usize, size: i64) -> i64 {
    (chars as i64 * size * 6 + 9) / 10 + 4
}

/// The geometry of a drawn grid: cell width (wide enough for the longest label), the margin for
/// the row numbers, the band for the column numbers.
struct GridBox {
    cell_w: i64,
    margin: i64,
    w: i64,
    h: i64,
}

const LABEL: i64 = 8;
const INDEX: i64 = 10;
const TITLE: i64 = 12;

fn grid_box(g: &Grid) -> GridBox {
    let longest = g.cells.iter().map(|c| c.label.chars().count()).max().unwrap_or(1);
    let cell_w = CELL.max(text_width(longest, LABEL)).max(text_width(g.cols.max(1).to_string().len(), INDEX));
    let margin = CELL.max(text_width((g.rows - 1).max(0).to_string().len(), INDEX));
    GridBox { cell_w, margin, w: margin + g.cols * cell_w, h: CELL + g.rows * CELL }
}

/// Draw a grid with its top-left corner at `(x0, y0)`: row and column numbers, one rect per cell
/// with its label; `marked[i]` cells get a thick red border and a red label.
fn draw_grid(out: &mut String, g: &Grid, b: &GridBox, x0: i64, y0: i64, marked: &[bool]) {
    for c in 0..g.cols {
        centred(out, x0 + b.margin + c * b.cell_w + b.cell_w / 2, y0 + CELL / 2, INDEX, "black", &c.to_string());
    }
    for r in 0..g.rows {
        centred(out, x0 + b.margin / 2, y0 + (r + 1) * CELL + CELL / 2, INDEX, "black", &r.to_string());
    }
    for c in 0..g.cols {
        for r in 0..g.rows {
            let i = (r + g.rows * c) as usize;
            let cell = &g.cells[i];
            let (x, y) = (x0 + b.margin + c * b.cell_w, y0 + (r + 1) * CELL);
            let mark = marked.get(i).copied().unwrap_or(false);
            // A dark shade gets white text.
            let dark = cell.shade.rem_euclid(8) >= 5;
            let (stroke, width) = if mark { ("red", 3) } else { ("black", 1) };
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"{stroke}\" stroke-width=\"{width}\"/>",
                b.cell_w,
                bw_color(cell.shade)
            );
            let fill = match (mark, dark) {
                (true, _) => "red",
                (false, true) => "white",
                (false, false) => "black",
            };
            centred(out, x + b.cell_w / 2, y + CELL / 2, LABEL, fill, &cell.label);
        }
    }
}

/// Any layout as a grid of its values ([`Grid`]): plain, swizzled, with basis strides, of any
/// rank; every label inside its cell on the cell's middle line.
pub fn grid_svg(g: &Grid) -> String {
    let b = grid_box(g);
    let mut out = String::new();
    let _ = writeln!(out, "<!-- Layout: {} -->", comment(&g.title));
    header(&mut out, b.w, b.h);
    draw_grid(&mut out, g, &b, 0, 0, &[]);
    out.push_str("</svg>\n");
    out
}

/// Two layouts side by side, `left` and `right` with their captions, and every cell where they
/// differ marked (a red border and label): a cell whose labels differ, or that only one of them
/// has (the grids' shapes differ). `heading` is written above both. Returns the picture and the
/// number of marked cells of each side.
pub fn side_by_side_svg(heading: &str, left: (&str, &Grid), right: (&str, &Grid)) -> (String, usize) {
    let differs = |g: &Grid, other: &Grid| -> Vec<bool> {
        (0..g.cells.len())
            .map(|i| {
                let (r, c) = (i as i64 % g.rows.max(1), i as i64 / g.rows.max(1));
                let same = r < other.rows
                    && c < other.cols
                    && other.cells[(r + other.rows * c) as usize].label == g.cells[i].label;
                !same
            })
            .collect()
    };
    let (ml, mr) = (differs(left.1, right.1), differs(right.1, left.1));
    let (bl, br) = (grid_box(left.1), grid_box(right.1));
    let gap = 2 * CELL;
    // Heading, then one caption line per side over its grid.
    let top = 3 * CELL;
    let caption = |name: &str, g: &Grid| format!("{name}: {}", g.title);
    let text_w = [
        text_width(heading.chars().count(), TITLE),
        text_width(caption(left.0, left.1).chars().count(), LABEL + 2),
        text_width(caption(right.0, right.1).chars().count(), LABEL + 2),
    ];
    let xr = bl.w.max(text_w[1]) + gap;
    let w = (xr + br.w.max(text_w[2])).max(text_w[0]);
    let h = top + bl.h.max(br.h);
    let marked = ml.iter().filter(|m| **m).count() + mr.iter().filter(|m| **m).count();
    let mut out = String::new();
    let _ = writeln!(out, "<!-- {} -->", comment(heading));
    let _ = writeln!(out, "<!-- {} -->", comment(&caption(left.0, left.1)));
    let _ = writeln!(out, "<!-- {} -->", comment(&caption(right.0, right.1)));
    let _ = writeln!(out, "<!-- differing cells (red): {marked} -->");
    header(&mut out, w, h);
    let _ = writeln!(
        out,
        "<text x=\"0\" y=\"{}\" dominant-baseline=\"central\" font-family=\"monospace\" font-size=\"{TITLE}\" font-weight=\"bold\">{}</text>",
        CELL / 2,
        escape(heading)
    );
    for (x, name, g) in [(0, left.0, left.1), (xr, right.0, right.1)] {
        let _ = writeln!(
            out,
            "<text x=\"{x}\" y=\"{}\" dominant-baseline=\"central\" font-family=\"monospace\" font-size=\"{}\">{}</text>",
            CELL + CELL / 2,
            LABEL + 2,
            escape(&caption(name, g))
        );
    }
    draw_grid(&mut out, left.1, &bl, 0, top - CELL + CELL / 2, &ml);
    draw_grid(&mut out, right.1, &br, xr, top - CELL + CELL / 2, &mr);
    out.push_str("</svg>\n");
    (out, marked)
}

/// The picture `cutecheck eval --svg` draws: what [`svg_of`] draws (CuTe's `print_svg` of an MMA
/// atom or tiled MMA, a TiledCopy, a TV layout with `tile`), and any other layout, swizzled or with
/// basis strides, of any rank, as a [`Grid`].
pub fn draw(v: &crate::expr::Value, tile: Option<&str>) -> Result<String> {
    match (tile, grid_of(v)) {
        (None, Some(g)) => Ok(grid_svg(&g?)),
        _ => svg_of(v, tile),
    }
}

/// The picture of an evaluated expression: an MMA atom name, a layout, or (with `tile` =
/// `"ROWS,COLS"`) a TV layout; with `tile`, a TiledCopy or TiledMMA draws which thread holds
/// which coordinate of a ROWS x COLS identity tensor ([`partition_svg`]); a TMA copy draws its
/// boxes over a window of its global tensor ([`box_svg`], ROWS x COLS with `tile`).
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
            let (r, c) = tile_dims(t)?;
            tv_svg(l, r, c)
        }
        (Value::Atom(AtomValue::TiledCopy(_) | AtomValue::TiledMma(_)), Some(t)) => {
            let (r, c) = tile_dims(t)?;
            Ok(partition_svg(&identity_partition_of(v, r, c)?))
        }
        (Value::Atom(AtomValue::Tma(r, _)), t) => Ok(box_svg(&box_picture(r, t.map(tile_dims).transpose()?)?)),
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
    let tag = if shared { "B" } else { "S" };
    let group_of = |a: i64| if shared { (a / 4).rem_euclid(32) } else { a.div_euclid(32) };
    let longest = addr
        .iter()
        .map(|&a| 1 + group_of(a).to_string().len())
        .chain([1 + lanes.len().saturating_sub(1).to_string().len()])
        .max()
        .unwrap_or(2);
    const SMALL: i64 = 7;
    let cell_w = CELL.max(text_width(longest, SMALL)).max(text_width(cols.max(1).to_string().len(), INDEX));
    let margin = CELL.max(text_width((rows - 1).max(0).to_string().len(), INDEX));
    let mut out = String::new();
    let _ = writeln!(out, "<!-- {} -->", comment(title));
    header(&mut out, margin + cols * cell_w, CELL + rows * CELL);
    index_labels(&mut out, rows, cols, margin, cell_w);
    for c in 0..cols {
        for r in 0..rows {
            let a = addr[(r + c * rows) as usize];
            let group = group_of(a);
            let hue = if shared { group * 360 / 32 } else { (group * 137).rem_euclid(360) };
            let starts = lanes.iter().position(|&o| o == a);
            let covered = lanes.iter().any(|&o| (o..o + vector).contains(&a));
            let (x, y) = (margin + c * cell_w, (r + 1) * CELL);
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"hsl({hue},70%,{}%)\" stroke=\"black\" stroke-width=\"{}\"/>",
                if covered { 70 } else { 92 },
                if covered { 2 } else { 1 }
            );
            centred(&mut out, x + cell_w / 2, y + 3 * CELL / 4, SMALL, "black", &format!("{tag}{group}"));
            if let Some(t) = starts {
                centred(&mut out, x + cell_w / 2, y + CELL / 4, SMALL, "black", &format!("T{t}"));
            }
        }
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// Which (thread, value) of a partition holds each coordinate of a `rows x cols` identity tensor
/// (`make_identity_tensor((rows,cols))` partitioned once per thread): `first[r + rows * c]` is
/// the first (thread, value) whose element is the coordinate `(r,c)`, `holders` how many hold it,
/// `outside` how many elements lie outside the tensor (a tile that does not divide the shape:
/// what a kernel predicates off with `elem_less(tXcX(i), shape(X))`). Not one of CuTe's pictures
/// (CuTe 4.2 and 4.7 have `print_svg` for MMAs only and `print_latex` for layouts, MMAs and copies,
/// util/print_svg.hpp, util/print_latex.hpp).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionPicture {
    pub rows: i64,
    pub cols: i64,
    pub first: Vec<Option<(i64, i64)>>,
    pub holders: Vec<u32>,
    pub outside: i64,
    /// What is drawn: the partition of thread 0, as CuTe prints it.
    pub title: String,
}

/// Component `k` of an arithmetic tuple (a missing component is 0; a leaf is component 0).
fn coord_component(v: &crate::engine::scaled_basis::BasisValue, k: usize) -> Result<i64> {
    use crate::engine::scaled_basis::BasisValue as V;
    let leaf = |x: &V| match x.as_arithmetic_tuple() {
        V::Int(i) => Ok(i.value),
        other => Err(Error::Type(format!("a coordinate component {other} is not an integer"))),
    };
    match v.as_arithmetic_tuple() {
        V::Tuple(t) => t.get(k).map_or(Ok(0), leaf),
        V::Int(i) => Ok(if k == 0 { i.value } else { 0 }),
        other => Err(Error::Type(format!("a coordinate {other} is not an arithmetic tuple"))),
    }
}

/// The [`PartitionPicture`] of `threads` parts of `make_identity_tensor((rows,cols))`, part `t`
/// being `part(identity, t)`.
pub fn partition_picture(
    rows: i64,
    cols: i64,
    threads: i64,
    part: &dyn Fn(&crate::engine::coord_tensor::CoordTensor, i64) -> Result<crate::engine::coord_tensor::CoordTensor>,
) -> Result<PartitionPicture> {
    check_cells(rows, cols)?;
    let shape = IntTuple::of_leaves([crate::engine::Int::st(rows), crate::engine::Int::st(cols)]);
    let id = crate::engine::coord_tensor::make_identity_tensor(&shape)?;
    let n = (rows * cols) as usize;
    let (mut first, mut holders, mut outside) = (vec![None; n], vec![0u32; n], 0);
    let mut title = String::new();
    for t in 0..threads {
        let p = part(&id, t)?;
        if t == 0 {
            title = p.to_string();
        }
        let size = p.size()?.value;
        if size.saturating_mul(threads) > MAX_WALK {
            return Err(Error::TooLarge(format!("{threads} parts of {size} elements (limit {MAX_WALK})")));
        }
        for v in 0..size {
            let c = p.at_index(v)?;
            let (r, k) = (coord_component(&c, 0)?, coord_component(&c, 1)?);
            if !(0..rows).contains(&r) || !(0..cols).contains(&k) {
                outside += 1;
                continue;
            }
            let at = (r + rows * k) as usize;
            first[at].get_or_insert((t, v));
            holders[at] += 1;
        }
    }
    Ok(PartitionPicture { rows, cols, first, holders, outside, title })
}

/// The [`PartitionPicture`] of a TiledCopy's `get_slice(t).partition_S` (every thread `t`) or a
/// TiledMMA's `get_slice(t).partition_C` over a `rows x cols` identity tensor.
pub fn identity_partition_of(v: &crate::expr::Value, rows: i64, cols: i64) -> Result<PartitionPicture> {
    use crate::engine::coord_tensor::{copy_partition, mma_partition};
    use crate::expr::value::AtomValue;
    use crate::expr::Value;
    match v {
        Value::Atom(AtomValue::TiledCopy(tc)) => {
            let threads = tc.tv.mode(0)?.size()?.value;
            partition_picture(rows, cols, threads, &|id, t| copy_partition(tc, id, t, true))
        }
        Value::Atom(AtomValue::TiledMma(m)) => {
            let threads = m.layout_c_tv()?.mode(0)?.size()?.value;
            partition_picture(rows, cols, threads, &|id, t| mma_partition(m, 'C', id, t))
        }
        other => Err(Error::Type(format!(
            "an identity-tensor partition needs a TiledCopy or TiledMMA, found {}",
            other.kind()
        ))),
    }
}

/// The picture of a [`PartitionPicture`]: each coordinate's cell coloured by the first thread
/// holding it (CuTe's `SVGColor_TV`) and labelled `T<thread>` over `V<value>` (its index in that
/// thread's partition), a thick border where more than one (thread, value) holds it, an empty
/// white cell where none does; row and column numbers are the coordinates.
pub fn partition_svg(p: &PartitionPicture) -> String {
    let longest = p.first.iter().flatten().map(|(t, v)| 1 + t.max(v).to_string().len()).max().unwrap_or(2);
    let cell_w = CELL.max(text_width(longest, LABEL)).max(text_width(p.cols.max(1).to_string().len(), INDEX));
    let margin = CELL.max(text_width((p.rows - 1).max(0).to_string().len(), INDEX));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!-- which thread holds which coordinate of a {}x{} identity tensor; thread 0: {} -->",
        p.rows,
        p.cols,
        comment(&p.title)
    );
    if p.outside > 0 {
        let _ = writeln!(out, "<!-- {} elements lie outside the tensor (predicated off) -->", p.outside);
    }
    header(&mut out, margin + p.cols * cell_w, CELL + p.rows * CELL);
    index_labels(&mut out, p.rows, p.cols, margin, cell_w);
    for c in 0..p.cols {
        for r in 0..p.rows {
            let at = (r + c * p.rows) as usize;
            let (x, y) = (margin + c * cell_w, (r + 1) * CELL);
            let Some((tid, vid)) = p.first[at] else {
                let _ = writeln!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"rgb(255,255,255)\" stroke=\"black\"/>"
                );
                continue;
            };
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\" stroke-width=\"{}\"/>",
                tv_color(tid),
                if p.holders[at] > 1 { 2 } else { 1 }
            );
            centred(&mut out, x + cell_w / 2, y + CELL / 4, LABEL, "black", &format!("T{tid}"));
            centred(&mut out, x + cell_w / 2, y + 3 * CELL / 4, LABEL, "black", &format!("V{vid}"));
        }
    }
    out.push_str("</svg>\n");
    out
}

/// Where one TMA copy puts its boxes over a `rows x cols` window of its global tensor (origin at
/// the global coordinate `(0,0)`): `cells[r + rows * c]` is `Some((s, box))` when shared-memory
/// offset `s` of the CTA tile at the origin is the global element `(r,c)` (`cta_v_map` after
/// `right_inverse(smem)`, the engine's `make_tma_copy`), `box = s / box_elems` the TMA box (the
/// multicast slice or repeated issue) that moves it; other cells are `None`, `tile` the tile
/// extents (the largest coordinate of the origin tile plus one, in each mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxPicture {
    pub rows: i64,
    pub cols: i64,
    pub cells: Vec<Option<(i64, i64)>>,
    pub tile: (i64, i64),
    pub box_elems: i64,
    /// The gbasis, box and global dimensions, as the engine computed them.
    pub title: String,
}

/// The [`BoxPicture`] of a TMA copy over a `rows x cols` window (`None`: two tiles by two).
pub fn box_picture(r: &crate::engine::tma::TmaCopy, window: Option<(i64, i64)>) -> Result<BoxPicture> {
    let inv = crate::engine::right_inverse::right_inverse(r.smem.nonswizzle())?;
    let n = r.smem.nonswizzle().size()?.value;
    if n > MAX_WALK {
        return Err(Error::TooLarge(format!("a shared-memory tile of {n} elements (limit {MAX_WALK})")));
    }
    let box_elems: i64 = r.desc.box_dim.iter().map(|&b| i64::from(b)).product::<i64>().max(1);
    let mut at = Vec::with_capacity(n as usize);
    for s in 0..n {
        let i = inv.call_int(crate::engine::Int::dy(s))?.value;
        let g = r.cta_v_map.call(&IntTuple::leaf(crate::engine::Int::dy(i)))?;
        at.push((coord_component(&g, 0)?, coord_component(&g, 1)?, s));
    }
    let tile = (at.iter().map(|a| a.0).max().unwrap_or(-1) + 1, at.iter().map(|a| a.1).max().unwrap_or(-1) + 1);
    let (rows, cols) = window.unwrap_or((2 * tile.0, 2 * tile.1));
    check_cells(rows, cols)?;
    let mut cells = vec![None; (rows * cols) as usize];
    for &(gr, gc, s) in &at {
        if (0..rows).contains(&gr) && (0..cols).contains(&gc) {
            cells[(gr + rows * gc) as usize] = Some((s, s / box_elems));
        }
    }
    let title = format!(
        "TMA {} {}: gbasis {} box {:?} global {:?} multicast {}",
        r.op.name(),
        r.val_type,
        r.gbasis,
        r.desc.box_dim,
        r.desc.global_dim,
        r.multicast
    );
    Ok(BoxPicture { rows, cols, cells, tile, box_elems, title })
}

/// The picture of a [`BoxPicture`]: the global window's cells, those the origin tile's boxes
/// move coloured by box (`SVGColor_TV` of the box number) and labelled `S<offset>` (where in
/// shared memory the element lands) over `B<box>`; the other tiles of the window shaded
/// alternately (CuTe's `TSVGColor_BWx8` greys 0 and 1), with row and column numbers.
pub fn box_svg(p: &BoxPicture) -> String {
    let longest = p.cells.iter().flatten().map(|(s, b)| 1 + s.max(b).to_string().len()).max().unwrap_or(2);
    let cell_w = CELL.max(text_width(longest, LABEL)).max(text_width(p.cols.max(1).to_string().len(), INDEX));
    let margin = CELL.max(text_width((p.rows - 1).max(0).to_string().len(), INDEX));
    let mut out = String::new();
    let _ = writeln!(out, "<!-- {} -->", comment(&p.title));
    let _ = writeln!(
        out,
        "<!-- a {}x{} window of the global tensor; tile {}x{}; {} elements a box -->",
        p.rows, p.cols, p.tile.0, p.tile.1, p.box_elems
    );
    header(&mut out, margin + p.cols * cell_w, CELL + p.rows * CELL);
    index_labels(&mut out, p.rows, p.cols, margin, cell_w);
    let (tr, tc) = (p.tile.0.max(1), p.tile.1.max(1));
    for c in 0..p.cols {
        for r in 0..p.rows {
            let (x, y) = (margin + c * cell_w, (r + 1) * CELL);
            match p.cells[(r + c * p.rows) as usize] {
                Some((s, b)) => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\" stroke-width=\"2\"/>",
                        tv_color(b)
                    );
                    centred(&mut out, x + cell_w / 2, y + CELL / 4, LABEL, "black", &format!("S{s}"));
                    centred(&mut out, x + cell_w / 2, y + 3 * CELL / 4, LABEL, "black", &format!("B{b}"));
                }
                None => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{x}\" y=\"{y}\" width=\"{cell_w}\" height=\"{CELL}\" fill=\"rgb({})\" stroke=\"black\"/>",
                        bw_color((r / tr + c / tc) % 2)
                    );
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

/// `--tile ROWS,COLS` as a pair.
fn tile_dims(t: &str) -> Result<(i64, i64)> {
    let dims: Vec<i64> = t
        .split(',')
        .map(|x| x.trim().parse::<i64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::Type(format!("--tile wants ROWS,COLS, got {t}")))?;
    match dims[..] {
        [r, c] => Ok((r, c)),
        _ => Err(Error::Type(format!("--tile wants ROWS,COLS, got {t}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval_str;
    use proptest::prelude::*;

    /// Every `<text>` of a picture: (x, y, font size, anchor middle?, text).
    fn texts(svg: &str) -> Vec<(i64, i64, i64, bool, String)> {
        let attr = |l: &str, name: &str| -> Option<String> {
            let at = l.find(&format!(" {name}=\""))? + name.len() + 3;
            Some(l[at..].split('"').next()?.to_string())
        };
        svg.lines()
            .filter(|l| l.starts_with("<text "))
            .map(|l| {
                let n = |k: &str| attr(l, k).and_then(|v| v.parse::<i64>().ok()).unwrap_or(-1);
                let body = l.split_once('>').unwrap().1.rsplit_once("</text>").unwrap().0.to_string();
                (n("x"), n("y"), n("font-size"), attr(l, "text-anchor").as_deref() == Some("middle"), body)
            })
            .collect()
    }

    fn view_box(svg: &str) -> (i64, i64) {
        let v = svg.split("viewBox=\"0 0 ").nth(1).unwrap().split('"').next().unwrap();
        let (w, h) = v.split_once(' ').unwrap();
        (w.parse().unwrap(), h.parse().unwrap())
    }

    /// The labels are drawn on their middle line (`dominant-baseline="central"`, never CuTe's
    /// `alignment-baseline`, which `<text>` ignores) and every label lies inside the picture
    /// (monospace, 0.6 em a character) and, for a cell's label, inside its cell.
    fn assert_clean(svg: &str) {
        assert_clean_labels(svg, true)
    }

    /// [`assert_clean`] for pictures with two labels a cell (`single_on_middle` false).
    fn assert_clean_labels(svg: &str, single_on_middle: bool) {
        assert!(!svg.contains("alignment-baseline"), "a label off its baseline");
        let (w, h) = view_box(svg);
        for l in svg.lines().filter(|l| l.starts_with("<text ")) {
            assert!(l.contains("dominant-baseline=\"central\""), "{l}");
        }
        let num = |l: &str, k: &str| -> i64 {
            let at = l.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
            l[at..].split('"').next().unwrap().parse().unwrap()
        };
        let lines: Vec<&str> = svg.lines().collect();
        for (i, l) in lines.iter().enumerate().filter(|(_, l)| l.starts_with("<text ")) {
            let (x, y, size, middle, t) = texts(l).remove(0);
            let tw = (t.chars().count() as i64 * size * 6 + 9) / 10;
            let (left, right) = if middle { (x - tw / 2, x + tw / 2) } else { (x, x + tw) };
            assert!(left >= 0 && right <= w, "label {t:?} at x={x} clips the picture's width {w}");
            assert!(y - size / 2 >= 0 && y + size / 2 <= h, "label {t:?} at y={y} clips the height {h}");
            // A cell's labels (texts after its rect, drawn within it) are centred across it and lie
            // inside it; a cell's only label sits on its middle line (grids: `single_on_middle`).
            let rect = (0..i).rev().map(|j| lines[j]).find(|l| !l.starts_with("<text "));
            if let Some(r) = rect.filter(|r| r.starts_with("<rect ")) {
                let (rx, ry, rw, rh) = (num(r, "x"), num(r, "y"), num(r, "width"), num(r, "height"));
                if (rx..rx + rw).contains(&x) && (ry..ry + rh).contains(&y) {
                    assert_eq!(x, rx + rw / 2, "label {t:?} is off its cell's middle");
                    assert!(y - size / 2 >= ry && y + size / 2 <= ry + rh, "label {t:?} leaves its cell");
                    if single_on_middle {
                        assert_eq!(y, ry + rh / 2, "label {t:?} is off its cell's middle line");
                    }
                    assert!(tw <= rw, "label {t:?} ({tw} wide) overflows its cell ({rw})");
                }
            }
        }
    }

    /// The cell labels of a grid picture, column-major as drawn.
    fn cell_labels(svg: &str) -> Vec<String> {
        let mut v = Vec::new();
        let mut lines = svg.lines().peekable();
        while let Some(l) = lines.next() {
            if l.starts_with("<rect ") {
                let t = lines.next().unwrap();
                v.push(t.split_once('>').unwrap().1.rsplit_once("</text>").unwrap().0.to_string());
            }
        }
        v
    }

    #[test]
    fn every_kind_of_layout_is_drawn_with_its_values() {
        // (expression, rows, cols, the values at L(0), L(1), ... as CuTe prints them)
        let cases: [(&str, i64, i64, Vec<String>); 6] = [
            ("_8:_2", 1, 8, (0..8).map(|i| (2 * i).to_string()).collect()),
            ("_1:_0", 1, 1, vec!["0".into()]),
            ("(_2,_3,_4):(_1,_2,_6)", 2, 12, (0..24).map(|i| i.to_string()).collect()),
            ("(4,(2,4)):(2,(1,8))", 4, 8, {
                let l = crate::engine::atom::lit::layout("(4,(2,4)):(2,(1,8))").unwrap();
                (0..32).map(|i| l.call_int(crate::engine::Int::dy(i)).unwrap().value.to_string()).collect()
            }),
            ("composition(Swizzle<3,4,3>,(_8,_64):(_64,_1))", 8, 64, {
                let sw = Swizzle::new(3, 4, 3).unwrap();
                let l = crate::engine::atom::lit::layout("(_8,_64):(_64,_1)").unwrap();
                (0..512).map(|i| sw.apply(l.call_int(crate::engine::Int::dy(i)).unwrap().value).to_string()).collect()
            }),
            ("make_identity_layout((_4,_3))", 4, 3, (0..12).map(|i| format!("({},{})", i % 4, i / 4)).collect()),
        ];
        for (e, rows, cols, values) in cases {
            let v = eval_str(e).unwrap();
            let g = grid_of(&v).expect("a layout").unwrap();
            assert_eq!((g.rows, g.cols), (rows, cols), "{e}");
            let svg = draw(&v, None).unwrap();
            assert_eq!(cell_labels(&svg), values, "{e}");
            assert_clean(&svg);
        }
        // The swizzle moves values: the picture is not the unswizzled layout's.
        let plain = draw(&eval_str("(_8,_64):(_64,_1)").unwrap(), None).unwrap();
        let swizzled = draw(&eval_str("composition(Swizzle<3,4,3>,(_8,_64):(_64,_1))").unwrap(), None).unwrap();
        assert_ne!(cell_labels(&plain), cell_labels(&swizzled));
        // A value that is not a layout is not a grid.
        assert!(grid_of(&eval_str("(_2,_3)").unwrap()).is_none());
    }

    #[test]
    fn wide_labels_widen_their_cells_and_margins() {
        // Four-digit values, three-digit row numbers, seven-character coordinates.
        for e in ["(_4,_4):(_1000,_1)", "(_200,_2):(_1,_200)", "make_identity_layout((_12,_100))"] {
            assert_clean(&draw(&eval_str(e).unwrap(), None).unwrap());
        }
    }

    /// The pictures that are not CuTe's (a TV layout over a tile, a warp's access) are clean too,
    /// with four-digit threads, values and sectors; CuTe's MMA picture stays CuTe's, byte for
    /// byte (tests/atoms_svg.rs), `alignment-baseline` and all.
    #[test]
    fn tv_and_access_pictures_have_clean_labels() {
        let tv = crate::engine::atom::lit::layout("((_8,_16),_8):((_128,_1),_16)").unwrap();
        let s = tv_svg(&tv, 16, 64).unwrap();
        assert_eq!(s.matches("<rect").count(), 16 * 64);
        assert_clean_labels(&s, false);
        // 1024 threads of one value over a 32x32 tile: labels up to T1023, rows up to 31.
        let wide = crate::engine::atom::lit::layout("(_1024,_1):(_1,_0)").unwrap();
        let s = tv_svg(&wide, 32, 32).unwrap();
        assert!(s.contains(">T1023</text>"));
        assert_clean_labels(&s, false);
        // Global sectors past 999 and shared banks, 32 lanes of 16 bytes.
        let (rows, cols) = (8, 160);
        let addr: Vec<i64> = (0..rows * cols).map(|i| 4 * i + 40_000).collect();
        let lanes: Vec<i64> = (0..32).map(|t| 40_000 + 64 * t).collect();
        for shared in [false, true] {
            let s = access_svg("a <load> & its --cost", rows, cols, &addr, &lanes, 16, shared).unwrap();
            assert!(s.contains(if shared { ">B0</text>" } else { ">S1250</text>" }), "{shared}");
            assert!(s.contains(">T31</text>"));
            assert!(s.starts_with("<!-- a <load> & its - -cost -->"), "{}", &s[..60]);
            assert_clean_labels(&s, false);
        }
        assert!(atom_svg("SM80_16x8x16_F32F16F16F32_TN").unwrap().contains("alignment-baseline"));
    }

    #[test]
    fn a_side_by_side_picture_marks_exactly_the_differing_cells() {
        let g = |e: &str| grid_of(&eval_str(e).unwrap()).unwrap().unwrap();
        // Same shape: (4,2):(1,4) against (4,2):(2,1) differ where i != j of the two.
        let (a, b) = (g("(_4,_2):(_1,_4)"), g("(_4,_2):(_2,_1)"));
        let differing = a.cells.iter().zip(&b.cells).filter(|(x, y)| x.label != y.label).count();
        let (svg, marked) = side_by_side_svg("case", ("engine", &a), ("CuTe", &b));
        assert_eq!(marked, 2 * differing);
        assert_eq!(svg.matches("stroke=\"red\"").count(), 2 * differing);
        assert!(svg.contains("engine: (_4,_2):(_1,_4)") && svg.contains("CuTe: (_4,_2):(_2,_1)"));
        assert_clean(&svg);
        // Different shapes: the cells only one side has are marked too.
        let (c, d) = (g("_8:_1"), g("_4:_1"));
        let (_, marked) = side_by_side_svg("case", ("engine", &c), ("CuTe", &d));
        assert_eq!(marked, 4);
        // Equal grids: nothing marked.
        assert_eq!(side_by_side_svg("case", ("engine", &a), ("CuTe", &a)).1, 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any layout the generator makes (ranks 1 to 3, nested) is drawn, one cell per element
        /// with its value L(i), every label clean.
        #[test]
        fn any_layout_is_drawn(l in crate::engine::gen::small_layout(6, 40, crate::engine::gen::Staticness::Mixed)) {
            let svg = draw(&crate::expr::Value::Layout(l.clone()), None).unwrap();
            let size = l.size().unwrap().value;
            let want: Vec<String> = (0..size).map(|i| l.call_int(crate::engine::Int::dy(i)).unwrap().value.to_string()).collect();
            prop_assert_eq!(cell_labels(&svg), want);
            assert_clean(&svg);
        }
    }

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
        assert_clean_labels(&s, false);
    }

    /// The cell of a picture whose labels sit at `(x, y_top)` and `(x, y_bottom)`: both labels.
    fn labels_at(svg: &str) -> std::collections::HashMap<(i64, i64), String> {
        let mut m: std::collections::HashMap<(i64, i64), String> = std::collections::HashMap::new();
        for (x, y, _, _, t) in texts(svg) {
            // A cell's two labels share x, at y = top + CELL/4 and top + 3*CELL/4.
            let top = (y - CELL / 4).div_euclid(CELL) * CELL;
            m.entry((x, top)).and_modify(|s| *s = format!("{s} {t}")).or_insert(t);
        }
        m
    }

    fn eval_value(e: &str) -> crate::expr::Value {
        eval_str(e).unwrap_or_else(|err| panic!("{e}: {err}"))
    }

    /// Postconditions of [`partition_picture`], checked against the engine's partitions one
    /// thread at a time: every element of every thread's part of the identity tensor is a
    /// coordinate (coord_tensor postcondition 2), the cell of coordinate `(r,c)` is drawn with the
    /// first (thread, value) whose element is `(r,c)` and counts every holder, and an element
    /// outside the tensor is counted, never drawn.
    fn check_partition_picture(e: &str, rows: i64, cols: i64, copy_exactly_once: bool) {
        use crate::engine::coord_tensor::{copy_partition, make_identity_tensor, mma_partition};
        use crate::expr::value::AtomValue;
        use crate::expr::Value;
        let v = eval_value(e);
        let p = identity_partition_of(&v, rows, cols).unwrap();
        let id =
            make_identity_tensor(&IntTuple::of_leaves([crate::engine::Int::st(rows), crate::engine::Int::st(cols)]))
                .unwrap();
        let (threads, part): (i64, Box<dyn Fn(i64) -> crate::engine::coord_tensor::CoordTensor>) = match &v {
            Value::Atom(AtomValue::TiledCopy(tc)) => {
                let tc = tc.clone();
                let id = id.clone();
                (
                    tc.tv.mode(0).unwrap().size().unwrap().value,
                    Box::new(move |t| copy_partition(&tc, &id, t, true).unwrap()),
                )
            }
            Value::Atom(AtomValue::TiledMma(m)) => {
                let m = m.clone();
                let id = id.clone();
                (
                    m.layout_c_tv().unwrap().mode(0).unwrap().size().unwrap().value,
                    Box::new(move |t| mma_partition(&m, 'C', &id, t).unwrap()),
                )
            }
            _ => unreachable!(),
        };
        let mut holders = vec![0u32; (rows * cols) as usize];
        let mut first: Vec<Option<(i64, i64)>> = vec![None; (rows * cols) as usize];
        let mut outside = 0;
        for t in 0..threads {
            let part = part(t);
            for j in 0..part.size().unwrap().value {
                let c = part.at_index(j).unwrap();
                let (r, k) = (coord_component(&c, 0).unwrap(), coord_component(&c, 1).unwrap());
                assert!(r >= 0 && k >= 0, "{e}: thread {t} element {j} is {c}, not a coordinate");
                if r >= rows || k >= cols {
                    outside += 1;
                    continue;
                }
                let at = (r + rows * k) as usize;
                holders[at] += 1;
                first[at].get_or_insert((t, j));
            }
        }
        assert_eq!(p.holders, holders, "{e}");
        assert_eq!(p.first, first, "{e}");
        assert_eq!(p.outside, outside, "{e}");
        if copy_exactly_once {
            assert!(holders.iter().all(|&h| h == 1), "{e}: a copy's threads hold each coordinate once: {holders:?}");
        }
        let svg = partition_svg(&p);
        assert_eq!(svg.matches("<rect").count() as i64, rows * cols, "{e}");
        let labels = labels_at(&svg);
        let drawn = labels.values().filter(|s| s.starts_with('T')).count();
        assert_eq!(drawn, first.iter().flatten().count(), "{e}");
        for (at, f) in first.iter().enumerate() {
            let Some((t, j)) = f else { continue };
            let (r, c) = (at as i64 % rows, at as i64 / rows);
            let cell_w = svg_cell_width(&svg);
            let margin = svg_first_rect_x(&svg);
            let key = (margin + c * cell_w + cell_w / 2, (r + 1) * CELL);
            assert_eq!(labels.get(&key), Some(&format!("T{t} V{j}")), "{e}: cell ({r},{c})");
        }
        assert_clean_labels(&svg, false);
    }

    fn svg_cell_width(svg: &str) -> i64 {
        let r = svg.lines().find(|l| l.starts_with("<rect ")).unwrap();
        r.split(" width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
    }

    fn svg_first_rect_x(svg: &str) -> i64 {
        let r = svg.lines().find(|l| l.starts_with("<rect ")).unwrap();
        r.split(" x=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap()
    }

    /// `eval --svg` of one thread's partition of an identity tensor draws each element's
    /// coordinate (the iterator's offset plus `L(i)`), as `T(i)` evaluates it.
    #[test]
    fn a_coordinate_tensor_is_drawn_with_its_coordinates() {
        use crate::expr::value::AtomValue;
        use crate::expr::Value;
        let e = "copy_partition_s(make_tiled_copy(copy_atom(UniversalCopy<uint32_t>,float),(_4,_2):(_2,_1),(_2,_2)),make_identity_tensor((_10,_12)),5)";
        let v = eval_value(e);
        let Value::Atom(AtomValue::CoordTensor(t)) = &v else { panic!("{e} is not a coordinate tensor") };
        let g = grid_of(&v).expect("drawn").unwrap();
        assert_eq!(g.title, t.to_string());
        assert_eq!(g.cells.len() as i64, t.size().unwrap().value);
        for (i, c) in g.cells.iter().enumerate() {
            assert_eq!(c.label, t.at_index(i as i64).unwrap().as_arithmetic_tuple().to_string());
        }
        // Thread 5 of (_4,_2):(_2,_1) is thread coordinate (2,1): values (2x2) at rows 4,5 and
        // columns 2,3 of the first 8x4 tile.
        let labels: Vec<&str> = g.cells.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(&labels[..4], &["(4,2)", "(5,2)", "(4,3)", "(5,3)"]);
        assert_clean_labels(&draw(&v, None).unwrap(), true);
    }

    /// An identity-tensor partition picture (issue 28) shows, for each coordinate, the thread and
    /// value that `get_slice(t).partition_S(make_identity_tensor(shape))` (a TiledCopy) or
    /// `partition_C` (a TiledMMA) gives it: the sm80 mainloop's `tAcA`, the tiled_copy_if
    /// tutorial's ragged tensor (elements outside it counted, as the predicate drops them).
    #[test]
    fn identity_partition_picture_shows_the_engine_partitions() {
        let cp =
            "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>,half_t),(_16,_8):(_8,_1),(_1,_8):(_0,_1))";
        check_partition_picture(cp, 16, 64, true);
        check_partition_picture(cp, 32, 128, true);
        check_partition_picture(cp, 20, 70, false);
        let small = "make_tiled_copy(copy_atom(UniversalCopy<uint32_t>,float),(_4,_2):(_2,_1),(_2,_2))";
        check_partition_picture(small, 8, 4, true);
        check_partition_picture(small, 10, 12, false);
        check_partition_picture("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN,(_2,_2,_1))", 32, 16, true);
        check_partition_picture("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN)", 20, 12, false);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// For a random thread-major TiledCopy (threads (tm,tn), values (vm,vn)) over a tensor
        /// that is a whole number of its tiles, every coordinate is held by exactly one
        /// (thread, value), and the picture draws that one.
        #[test]
        fn identity_partitions_of_random_copies_cover_each_coordinate_once(
            (tm, tn, vm, vn, km, kn, col) in (0u32..3, 0u32..3, 0u32..2, 0u32..3, 1i64..3, 1i64..3, any::<bool>())
        ) {
            let (tm, tn, vm, vn) = (1i64 << tm, 1i64 << tn, 1i64 << vm, 1i64 << vn);
            let thr = if col { format!("(_{tm},_{tn})") } else { format!("(_{tm},_{tn}):(_{tn},_1)") };
            let e = format!("make_tiled_copy(copy_atom(UniversalCopy<uint32_t>,float),{thr},(_{vm},_{vn}))");
            check_partition_picture(&e, tm * vm * km, tn * vn * kn, true);
        }
    }

    /// A TMA box picture (issue 28) puts shared-memory offset `i` of the origin tile at the global
    /// coordinate `gbasis(i)` (the engine's `make_tma_copy` box basis, an independent path from
    /// the `cta_v_map` and `right_inverse(smem)` the picture is drawn from), each box coloured
    /// apart, and nothing outside the origin tile.
    #[test]
    fn tma_box_picture_puts_each_element_at_its_gbasis_coordinate() {
        use crate::expr::value::AtomValue;
        use crate::expr::Value;
        for (e, boxes) in [
            ("make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(256,_1), (_8,_16):(_16,_1))", 1),
            ("make_tma_copy(SM90_TMA_LOAD, half_t, (1024,256):(_1,1024), (_8,_16):(_1,_8))", 1),
            ("make_tma_copy(SM90_TMA_LOAD, float, (1024,256):(_1,1024), tile_to_shape(GMMA::Layout_MN_SW128_Atom<float>,(_64,_16)))", 1),
            ("make_tma_copy(SM90_TMA_LOAD_MULTICAST, half_t, (1024,256):(256,_1), (_16,_16):(_16,_1), (_16,_16), _2)", 2),
        ] {
            let Value::Atom(AtomValue::Tma(r, _)) = eval_value(e) else { panic!("{e} is not a TMA") };
            let p = box_picture(&r, None).unwrap();
            let n = r.smem.nonswizzle().size().unwrap().value;
            assert_eq!(p.cells.iter().flatten().count() as i64, n, "{e}: one cell per smem element");
            let g = r.gbasis.size().unwrap().value;
            assert_eq!(p.box_elems * boxes, g, "{e}: {boxes} boxes a gbasis");
            for i in 0..g {
                let c = r.gbasis.call(&IntTuple::leaf(crate::engine::Int::dy(i))).unwrap();
                let (gr, gc) = (coord_component(&c, 0).unwrap(), coord_component(&c, 1).unwrap());
                assert!(gr < p.tile.0 && gc < p.tile.1, "{e}: gbasis({i}) = {c} leaves the tile {:?}", p.tile);
                assert_eq!(p.cells[(gr + p.rows * gc) as usize], Some((i, i / p.box_elems)), "{e}: gbasis({i}) = {c}");
            }
            let svg = box_svg(&p);
            assert_eq!(svg.matches("<rect").count() as i64, p.rows * p.cols, "{e}");
            let labels = labels_at(&svg);
            let (cell_w, margin) = (svg_cell_width(&svg), svg_first_rect_x(&svg));
            for (at, cell) in p.cells.iter().enumerate() {
                let (r, c) = (at as i64 % p.rows, at as i64 / p.rows);
                let key = (margin + c * cell_w + cell_w / 2, (r + 1) * CELL);
                let want = cell.map(|(s, b)| format!("S{s} B{b}"));
                assert_eq!(labels.get(&key).cloned(), want, "{e}: cell ({r},{c})");
            }
            assert_clean_labels(&svg, false);
        }
    }
}
