//! The chapter's layout_mma results reproduced on the engine's SM80 16x8x16 atom.

#[path = "../examples/layout_mma.rs"]
mod layout_mma;

use layout_mma::*;

#[test]
fn tv_layouts_match_the_ptx_tables() {
    // Chapter: A/B/C 与 PTX 的表一致： True (three times).
    assert_eq!(mismatches(), Vec::<String>::new());
    // Chapter: lane 0：A 的 8 个值在 [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    let a = atom_layout('a');
    let lane0: Vec<_> = (0..8).map(|i| rc(tv(&a, 0, i))).collect();
    assert_eq!(lane0, vec![(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]);
    // Chapter: lane 4：A 的 8 个值在 [(1, 0), (1, 1), (9, 0), (9, 1), (1, 8), (1, 9), (9, 8), (9, 9)]
    let lane4: Vec<_> = (0..8).map(|i| rc(tv(&a, 4, i))).collect();
    assert_eq!(lane4, vec![(1, 0), (1, 1), (9, 0), (9, 1), (1, 8), (1, 9), (9, 8), (9, 9)]);
}

#[test]
fn c_owner_table() {
    // Chapter: C 的每个元素归哪个线程（行 0～3）.
    let owners = c_owners();
    assert_eq!(owners[0], vec![0, 0, 1, 1, 2, 2, 3, 3]);
    assert_eq!(owners[1], vec![4, 4, 5, 5, 6, 6, 7, 7]);
    assert_eq!(owners[2], vec![8, 8, 9, 9, 10, 10, 11, 11]);
    assert_eq!(owners[3], vec![12, 12, 13, 13, 14, 14, 15, 15]);
}

#[test]
fn exercise_3_lane_5_value_3() {
    // Chapter exercise 3: lane 5's c3 is at index 57 = row 9, column 3.
    let c = atom_layout('c');
    assert_eq!(tv(&c, 5, 3), 57);
    assert_eq!(rc(57), (9, 3));
}
