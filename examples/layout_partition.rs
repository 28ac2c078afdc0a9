//! The chapter's layout_partition example on the engine: a 16x8 column-major fp32 tile shared by 32
//! threads, once as 2x2 blocks per thread, once with local_partition over a (16,2) thread layout;
//! for each way, the 32-byte sectors one warp-wide load touches.
//!
//! `cargo run --example layout_partition`

use cutecheck::engine::{IntTuple, Layout};
use cutecheck::expr::eval_str;

fn layout(expr: &str) -> Layout {
    eval_str(expr).unwrap_or_else(|e| panic!("{expr}: {e}")).to_layout().expect("a layout")
}

fn at(l: &Layout, a: i64, b: i64) -> i64 {
    l.call(&IntTuple::tuple([IntTuple::dy(a), IntTuple::dy(b)])).expect("in range").value
}

/// One warp-wide load: every thread reads its values `values`; returns (sorted addresses, sectors).
pub fn request(part: &dyn Fn(i64, i64) -> i64, values: &[i64]) -> (Vec<i64>, usize) {
    let mut addr: Vec<i64> =
        (0..32).flat_map(|t| values.iter().map(move |&v| (t, v))).map(|(t, v)| part(t, v)).collect();
    addr.sort_unstable();
    let sectors: std::collections::BTreeSet<i64> = addr.iter().map(|a| a * 4 / 32).collect();
    (addr, sectors.len())
}

/// Thread t's v-th value when every thread takes a 2x2 block: zipped_divide by (_2,_2), and the
/// rest-mode index is the thread id.
pub fn blocked() -> (Layout, impl Fn(i64, i64) -> i64) {
    let d = layout("zipped_divide(make_layout((_16,_8)),(_2,_2))");
    let d2 = d.clone();
    (d, move |t, v| at(&d2, v, t))
}

/// Thread t's v-th value under local_partition with thread layout (16,2): the thread's position in
/// the thread layout fixes the tile mode, the rest mode enumerates its values.
pub fn partitioned() -> (Layout, impl Fn(i64, i64) -> i64) {
    let d = layout("zipped_divide(make_layout((_16,_8)),(_16,_2))");
    let thr = layout("make_layout((_16,_2))");
    let pos: Vec<i64> = (0..32).map(|j| thr.call_int(cutecheck::engine::Int::dy(j)).unwrap().value).collect();
    let d2 = d.clone();
    (d, move |t, v| {
        let j = pos.iter().position(|&p| p == t).expect("every thread has a position") as i64;
        at(&d2, j, v)
    })
}

fn utilization(addr: &[i64], sectors: usize) -> f64 {
    addr.len() as f64 * 4.0 / (sectors as f64 * 32.0)
}

#[allow(dead_code)]
fn main() {
    println!("tile = {}", layout("make_layout((_16,_8))"));
    let (d, p) = blocked();
    println!("2x2 block per thread: {d}");
    println!("  values of threads 0, 1, 8: {:?}", [0, 1, 8].map(|t| (0..4).map(|v| p(t, v)).collect::<Vec<_>>()));
    for vals in [&[0][..], &[0, 1][..]] {
        let (a, s) = request(&p, vals);
        println!(
            "  load values {vals:?}: addresses {:?}..., {s} sectors, {:.0}% used",
            &a[..6],
            100.0 * utilization(&a, s)
        );
    }
    let (d, q) = partitioned();
    println!("local_partition over (16,2): {d}");
    println!("  values of threads 0, 1, 16: {:?}", [0, 1, 16].map(|t| (0..4).map(|v| q(t, v)).collect::<Vec<_>>()));
    let (a, s) = request(&q, &[0]);
    println!("  load values [0]: addresses {:?}..., {s} sectors, {:.0}% used", &a[..6], 100.0 * utilization(&a, s));
}
