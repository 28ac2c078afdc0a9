//! The chapter's layout_partition numbers (its printed output) reproduced on the engine.

#[path = "../examples/layout_partition.rs"]
mod layout_partition;

use layout_partition::{blocked, partitioned, request};

#[test]
fn two_by_two_blocks_per_thread() {
    let (d, p) = blocked();
    // CuTe's print of the same zipped_divide (the chapter's last table).
    assert_eq!(d.to_string(), "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))");
    // Chapter: 线程 0、1、8 的值： [[0, 1, 16, 17], [2, 3, 18, 19], [32, 33, 48, 49]]
    let got: Vec<Vec<i64>> = [0, 1, 8].iter().map(|&t| (0..4).map(|v| p(t, v)).collect()).collect();
    assert_eq!(got, vec![vec![0, 1, 16, 17], vec![2, 3, 18, 19], vec![32, 33, 48, 49]]);
    // Chapter: 读编号 [0] 的值：地址 [0, 2, 4, 6, 8, 10]…，8 个扇区，利用率 50%
    let (a, s) = request(&p, &[0]);
    assert_eq!((&a[..6], s), (&[0, 2, 4, 6, 8, 10][..], 8));
    assert_eq!(a.len() * 4 * 100 / (s * 32), 50);
    // Chapter: 读编号 [0, 1] 的值：地址 [0, 1, 2, 3, 4, 5]…，8 个扇区，利用率 100%
    let (a, s) = request(&p, &[0, 1]);
    assert_eq!((&a[..6], s), (&[0, 1, 2, 3, 4, 5][..], 8));
    assert_eq!(a.len() * 4 * 100 / (s * 32), 100);
}

#[test]
fn local_partition_over_16x2_threads() {
    let (d, q) = partitioned();
    assert_eq!(d.to_string(), "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))");
    // Chapter: 线程 0、1、16 的值： [[0, 32, 64, 96], [1, 33, 65, 97], [16, 48, 80, 112]]
    let got: Vec<Vec<i64>> = [0, 1, 16].iter().map(|&t| (0..4).map(|v| q(t, v)).collect()).collect();
    assert_eq!(got, vec![vec![0, 32, 64, 96], vec![1, 33, 65, 97], vec![16, 48, 80, 112]]);
    // Chapter: 读编号 [0] 的值：地址 [0, 1, 2, 3, 4, 5]…，4 个扇区，利用率 100%
    let (a, s) = request(&q, &[0]);
    assert_eq!((&a[..6], s), (&[0, 1, 2, 3, 4, 5][..], 4));
    assert_eq!(a.len() * 4 * 100 / (s * 32), 100);
}
