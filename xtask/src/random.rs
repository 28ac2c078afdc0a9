//! A small seeded generator of random cases for `cargo xtask conformance`: random layouts (static,
//! dynamic or mixed, nested up to depth 2) under the algebra's operations. The same seed gives
//! the same cases on every machine (SplitMix64, no outside state).

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() % xs.len() as u64) as usize]
    }
}

#[derive(Clone, Copy)]
enum Stat {
    Static,
    Dynamic,
    Mixed,
}

/// A shape tree: leaves are extents.
#[derive(Clone)]
enum Tree {
    Leaf(i64),
    Node(Vec<Tree>),
}

fn leaves(t: &Tree, out: &mut Vec<i64>) {
    match t {
        Tree::Leaf(v) => out.push(*v),
        Tree::Node(v) => v.iter().for_each(|x| leaves(x, out)),
    }
}

fn write(t: &Tree, vals: &mut impl Iterator<Item = i64>, st: Stat, rng: &mut Rng, out: &mut String) {
    match t {
        Tree::Leaf(_) => {
            let v = vals.next().unwrap_or(1);
            let is_static = match st {
                Stat::Static => true,
                Stat::Dynamic => false,
                Stat::Mixed => rng.chance(50),
            };
            if is_static {
                out.push('_');
            }
            out.push_str(&v.to_string());
        }
        Tree::Node(v) => {
            out.push('(');
            for (k, x) in v.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write(x, vals, st, rng, out);
            }
            out.push(')');
        }
    }
}

fn shape(rng: &mut Rng, max_rank: i64) -> Tree {
    let rank = rng.range(1, max_rank);
    if rank == 1 && rng.chance(50) {
        return Tree::Leaf(rng.range(1, 8));
    }
    Tree::Node(
        (0..rank)
            .map(|_| {
                if rng.chance(25) {
                    Tree::Node((0..2).map(|_| Tree::Leaf(rng.range(1, 4))).collect())
                } else {
                    Tree::Leaf(rng.range(1, 8))
                }
            })
            .collect(),
    )
}

/// A layout's text; `compact` gives permuted compact strides (injective), else arbitrary strides.
fn layout(rng: &mut Rng, st: Stat, max_rank: i64, compact: bool) -> (String, i64) {
    let t = shape(rng, max_rank);
    let mut ext = Vec::new();
    leaves(&t, &mut ext);
    let strides: Vec<i64> = if compact {
        let mut order: Vec<usize> = (0..ext.len()).collect();
        for k in (1..order.len()).rev() {
            let j = (rng.next() % (k as u64 + 1)) as usize;
            order.swap(k, j);
        }
        let mut s = vec![0; ext.len()];
        let mut acc = 1;
        for &k in &order {
            s[k] = acc;
            acc *= ext[k];
        }
        s
    } else {
        ext.iter().map(|_| *rng.pick(&[0, 1, 1, 2, 3, 4, 8, 16])).collect()
    };
    let size: i64 = ext.iter().product();
    let mut out = String::new();
    write(&t, &mut ext.clone().into_iter(), st, rng, &mut out);
    out.push(':');
    write(&t, &mut strides.into_iter(), st, rng, &mut out);
    (out, size)
}

fn int(rng: &mut Rng, st: Stat, v: i64) -> String {
    let s = match st {
        Stat::Static => true,
        Stat::Dynamic => false,
        Stat::Mixed => rng.chance(50),
    };
    if s {
        format!("_{v}")
    } else {
        v.to_string()
    }
}

/// `n` random cases from `seed`.
pub fn cases(n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| one(&mut rng)).collect()
}

fn one(rng: &mut Rng) -> String {
    let st = *rng.pick(&[Stat::Static, Stat::Static, Stat::Static, Stat::Dynamic, Stat::Mixed]);
    let op = rng.range(0, 13);
    let compact = rng.chance(70);
    let (a, size) = layout(rng, st, 3, compact);
    match op {
        0 => format!("coalesce({a})"),
        1 => {
            let (b, _) = { let c = rng.chance(50); layout(rng, st, 2, c) };
            format!("composition({a},{b})")
        }
        2 => {
            let (c, csize) = layout(rng, st, 2, true);
            let k = rng.range(1, 4);
            let _ = a;
            format!("complement({c},{})", int(rng, st, csize * k))
        }
        3 => {
            let t = { let v = *rng.pick(&[1, 2, 4]); int(rng, st, v) };
            let d = { let v = *rng.pick(&[1, 2]); int(rng, st, v) };
            format!("logical_divide({a},{t}:{d})")
        }
        4 => {
            let t0 = { let v = *rng.pick(&[1, 2, 4]); int(rng, st, v) };
            let t1 = { let v = *rng.pick(&[1, 2]); int(rng, st, v) };
            let (m, _) = layout(rng, st, 2, true);
            format!("zipped_divide({m},({t0},{t1}))")
        }
        5 => {
            let (b, _) = layout(rng, st, 2, true);
            format!("logical_product({a},{b})")
        }
        6 => {
            let (x, _) = layout(rng, st, 2, true);
            let (y, _) = layout(rng, st, 2, true);
            let f = *rng.pick(&["blocked_product", "raked_product"]);
            format!("{f}({x},{y})")
        }
        7 => format!("right_inverse({a})"),
        8 => format!("left_inverse({a})"),
        9 => {
            let f = *rng.pick(&["filter", "filter_zeros", "flatten"]);
            format!("{f}({a})")
        }
        10 => {
            let f = *rng.pick(&["size", "cosize", "rank", "depth"]);
            format!("{f}({a})")
        }
        11 => { let i = rng.range(0, (size - 1).max(0)); format!("{a}({i})") },
        12 => {
            let (b, _) = { let c = rng.chance(50); layout(rng, st, 2, c) };
            format!("max_common_vector({a},{b})")
        }
        _ => {
            let (b, _) = layout(rng, st, 2, true);
            format!("tiled_divide({a},{b})")
        }
    }
}
