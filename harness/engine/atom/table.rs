//! An MMA atom's operand layouts turned into explicit ownership tables:
//! (logical thread, value) -> (row, col) of the operand tile.
//!
//! Definition: for an operand of R rows and C columns (A: M x K, B: N x K, C: M x N) and its
//! atom layout L (mode 0: logical thread, mode 1: value), the element held by logical thread t
//! as value v is at column-major index `i = L(t, v)` of the tile, i.e. row `i % R`, column
//! `i / R`. The lane (thread index in the warp or warpgroup) of logical thread t is `ThrID(t)`.
//!
//! Postconditions: every index lies in `0..R*C` (else [`Error::OutOfRange`]); each table has
//! `size<0>(L)` rows of `size<1>(L)` entries.

use serde::Serialize;

use super::mma::{mma_atom, MmaAtom};
use crate::layout::MAX_WALK;
use crate::{Error, Layout, Result};

/// One operand's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OperandTable {
    /// The operand tile: rows x cols (A: M x K, B: N x K, C: M x N).
    pub rows: i64,
    pub cols: i64,
    /// The atom layout the table was computed from, as CuTe prints it.
    pub layout: String,
    /// `map[t][v] = [row, col]` for logical thread t and value v.
    pub map: Vec<Vec<[i64; 2]>>,
}

/// All three tables of an atom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AtomTable {
    pub atom: String,
    /// M, N, K.
    pub shape_mnk: [i64; 3],
    /// ValTypeD, ValTypeA, ValTypeB, ValTypeC.
    pub val_types: [String; 4],
    pub thr_id: String,
    /// `lanes[t] = ThrID(t)`: the thread index of logical thread t.
    pub lanes: Vec<i64>,
    #[serde(rename = "A")]
    pub a: OperandTable,
    #[serde(rename = "B")]
    pub b: OperandTable,
    #[serde(rename = "C")]
    pub c: OperandTable,
}

/// The (thread, value) -> (row, col) table of one operand layout over a rows x cols tile.
pub fn operand_table(layout: &Layout, rows: i64, cols: i64) -> Result<OperandTable> {
    if !layout.shape.congruent(&layout.stride) {
        return Err(Error::Rejected {
            condition: "layout shape and stride are not congruent; CuTe cannot evaluate it",
            detail: layout.to_string(),
        });
    }
    if layout.rank() != 2 {
        return Err(Error::MismatchedRanks { detail: format!("a (thread,value) layout needs rank 2: {layout}") });
    }
    let nt = layout.mode(0)?.size()?.value;
    let nv = layout.mode(1)?.size()?.value;
    if nt.checked_mul(nv).is_none_or(|n| n > MAX_WALK) {
        return Err(Error::TooLarge(format!("{layout}")));
    }
    // 1-D coordinates run thread-fastest: index t + v * nt is (t, v).
    let vals = layout.values()?;
    let mut map = Vec::with_capacity(nt as usize);
    for t in 0..nt {
        let mut row = Vec::with_capacity(nv as usize);
        for v in 0..nv {
            let i = vals[(t + v * nt) as usize];
            if !(0..rows * cols).contains(&i) {
                return Err(Error::OutOfRange(format!("{layout}({t},{v}) = {i} is outside the {rows}x{cols} tile")));
            }
            row.push([i % rows, i / rows]);
        }
        map.push(row);
    }
    Ok(OperandTable { rows, cols, layout: layout.to_string(), map })
}

/// The tables of an atom given by name.
pub fn atom_table(name: &str) -> Result<AtomTable> {
    atom_table_of(&mma_atom(name)?)
}

/// The tables of an atom already looked up.
pub fn atom_table_of(atom: &MmaAtom) -> Result<AtomTable> {
    let [m, n, k] = atom.mnk()?;
    let lanes = atom.thr_id.values()?;
    Ok(AtomTable {
        atom: atom.name.clone(),
        shape_mnk: [m, n, k],
        val_types: atom.val_types.clone(),
        thr_id: atom.thr_id.to_string(),
        lanes,
        a: operand_table(&atom.a, m, k)?,
        b: operand_table(&atom.b, n, k)?,
        c: operand_table(&atom.c, m, n)?,
    })
}

/// The owner grid of an operand: `grid[r][c]` lists the (lane, value) pairs that hold element
/// (r, c) (several for broadcast layouts such as GMMA's shared-memory operands).
pub fn owners(table: &OperandTable, lanes: &[i64]) -> Vec<Vec<Vec<(i64, i64)>>> {
    let mut grid = vec![vec![Vec::new(); table.cols.max(0) as usize]; table.rows.max(0) as usize];
    for (t, vals) in table.map.iter().enumerate() {
        let lane = lanes.get(t).copied().unwrap_or(t as i64);
        for (v, [r, c]) in vals.iter().enumerate() {
            grid[*r as usize][*c as usize].push((lane, v as i64));
        }
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chapter_c_owner_rows() {
        // The chapter: lanes holding C rows 0-3 of SM80_16x8x16_F32F16F16F32_TN; row 0 is
        // 0 0 1 1 2 2 3 3 (each lane holds two neighbouring columns), row r starts at lane 4r.
        let t = atom_table("SM80_16x8x16_F32F16F16F32_TN").unwrap();
        let g = owners(&t.c, &t.lanes);
        for (r, row) in g.iter().enumerate().take(4) {
            let lanes: Vec<i64> = row.iter().map(|o| o[0].0).collect();
            let want: Vec<i64> = (0..8).map(|c| 4 * r as i64 + c / 2).collect();
            assert_eq!(lanes, want, "row {r}");
        }
        assert!(g.iter().flatten().all(|o| o.len() == 1));
    }
}
