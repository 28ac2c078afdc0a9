//! The chapter's layout_mma example on the engine: the TV layouts of mma.sync.m16n8k16
//! (SM80_16x8x16_F32F16F16F32_TN) checked element by element against the PTX ISA's fragment
//! tables, and the owner (lane) of every element of C.
//!
//! `cargo run --example layout_mma`

use cutecheck::engine::{IntTuple, Layout};
use cutecheck::expr::eval_str;

pub const ATOM: &str = "SM80_16x8x16_F32F16F16F32_TN";

pub fn atom_layout(which: char) -> Layout {
    let expr = format!("mma_layout_{which}({ATOM})");
    eval_str(&expr).unwrap_or_else(|e| panic!("{expr}: {e}")).to_layout().expect("a layout")
}

/// (thread, value) -> column-major index within the tile.
pub fn tv(l: &Layout, lane: i64, v: i64) -> i64 {
    l.call(&IntTuple::tuple([IntTuple::dy(lane), IntTuple::dy(v)])).expect("in range").value
}

/// Column-major index in a 16-row tile -> (row, col).
pub fn rc(idx: i64) -> (i64, i64) {
    (idx % 16, idx / 16)
}

// The PTX ISA's fragment layouts for mma.m16n8k16 (f16 A/B): g = lane / 4, t = lane % 4.
pub fn ptx_a(lane: i64, i: i64) -> (i64, i64) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2 % 2), 2 * t + i % 2 + 8 * (i / 4))
}
/// B as (k, n).
pub fn ptx_b(lane: i64, i: i64) -> (i64, i64) {
    let (g, t) = (lane / 4, lane % 4);
    (2 * t + i % 2 + 8 * (i / 2), g)
}
pub fn ptx_c(lane: i64, i: i64) -> (i64, i64) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * (i / 2), 2 * t + i % 2)
}

/// Mismatches between the atom's layouts and the PTX tables (empty when they agree).
pub fn mismatches() -> Vec<String> {
    let (a, b, c) = (atom_layout('a'), atom_layout('b'), atom_layout('c'));
    let mut bad = Vec::new();
    for lane in 0..32 {
        for i in 0..8 {
            if rc(tv(&a, lane, i)) != ptx_a(lane, i) {
                bad.push(format!("A lane {lane} value {i}"));
            }
        }
        for i in 0..4 {
            let x = tv(&b, lane, i);
            // B is N x K (8 x 16), column-major: index = n + 8k.
            if (x / 8, x % 8) != ptx_b(lane, i) {
                bad.push(format!("B lane {lane} value {i}"));
            }
            if rc(tv(&c, lane, i)) != ptx_c(lane, i) {
                bad.push(format!("C lane {lane} value {i}"));
            }
        }
    }
    bad
}

/// owner[row][col]: the lane holding element (row, col) of the 16x8 C tile.
pub fn c_owners() -> Vec<Vec<i64>> {
    let c = atom_layout('c');
    let mut owner = vec![vec![-1; 8]; 16];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, col) = rc(tv(&c, lane, i));
            owner[r as usize][col as usize] = lane;
        }
    }
    owner
}

#[allow(dead_code)]
fn main() {
    let a = atom_layout('a');
    for lane in [0, 1, 4] {
        println!("lane {lane}: A values at {:?}", (0..8).map(|i| rc(tv(&a, lane, i))).collect::<Vec<_>>());
    }
    let bad = mismatches();
    println!("A, B, C agree with the PTX tables: {}", bad.is_empty());
    for m in bad {
        println!("  mismatch: {m}");
    }
    println!("lane owning each element of C (rows 0-3):");
    for row in &c_owners()[..4] {
        println!("  {}", row.iter().map(|l| format!("{l:2}")).collect::<Vec<_>>().join(" "));
    }
}
