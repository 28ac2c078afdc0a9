//! Shorthands for the engine's unit tests: an int tuple, a layout or a tiler written as CuTe
//! prints it (`(_4,8):(_1,4)`). Test-only: the engine itself never parses text (the expression
//! language above it does); this reader knows literals only, no operations.

use crate::{Int, IntTuple, Layout, Tiler};

struct Reader<'a> {
    s: &'a [u8],
    at: usize,
}

enum Item {
    Tuple(IntTuple),
    Layout(Layout),
    Tiler(Tiler),
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.at += hit as usize;
        hit
    }
    fn int(&mut self) -> Int {
        let is_static = self.eat(b'_');
        let start = self.at;
        self.eat(b'-');
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.at]).unwrap();
        let v: i64 = text.parse().unwrap_or_else(|_| panic!("not an integer at {start}: {text:?}"));
        if is_static {
            Int::st(v)
        } else {
            Int::dy(v)
        }
    }
    /// An int tuple (a leaf or a parenthesised tuple of int tuples).
    fn tuple(&mut self) -> IntTuple {
        if !self.eat(b'(') {
            return IntTuple::leaf(self.int());
        }
        let mut items = vec![self.tuple()];
        while self.eat(b',') {
            items.push(self.tuple());
        }
        assert!(self.eat(b')'), "')' expected at {}", self.at);
        IntTuple::tuple(items)
    }
    /// A layout `S:D`, an int tuple, or a tuple of those (a tiler), `_` standing for a kept mode.
    fn item(&mut self) -> Item {
        let next = self.s.get(self.at + 1).copied();
        if self.peek() == Some(b'_') && !next.is_some_and(|c| c == b'-' || c.is_ascii_digit()) {
            self.at += 1;
            return Item::Tiler(Tiler::Underscore);
        }
        let start = self.at;
        if self.peek() == Some(b'(') {
            // A tuple of items, unless it is a layout's shape.
            let save = self.at;
            let shape = self.try_tuple();
            if let Some(shape) = shape {
                if self.eat(b':') {
                    let stride = self.tuple();
                    return Item::Layout(Layout::new(shape, stride).unwrap());
                }
                return Item::Tuple(shape);
            }
            self.at = save;
            assert!(self.eat(b'('));
            let mut items = vec![self.item()];
            while self.eat(b',') {
                items.push(self.item());
            }
            assert!(self.eat(b')'), "')' expected at {} (from {start})", self.at);
            return Item::Tiler(Tiler::Tuple(items.into_iter().map(Item::into_tiler).collect()));
        }
        let shape = self.tuple();
        if self.eat(b':') {
            let stride = self.tuple();
            return Item::Layout(Layout::new(shape, stride).unwrap());
        }
        Item::Tuple(shape)
    }
    /// An int tuple if the text from here is one (leaves and parentheses only), else `None`.
    fn try_tuple(&mut self) -> Option<IntTuple> {
        let mut depth = 0usize;
        let mut k = self.at;
        while let Some(&c) = self.s.get(k) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b':' => return None,
                _ => {}
            }
            k += 1;
        }
        let inner = &self.s[self.at..=k.min(self.s.len() - 1)];
        // `(_,...)`: an underscore not followed by a digit is a tiler's `_`.
        let bare_underscore = inner.windows(2).any(|w| w[0] == b'_' && !(w[1] == b'-' || w[1].is_ascii_digit()));
        if bare_underscore {
            return None;
        }
        Some(self.tuple())
    }
}

impl Item {
    fn into_tiler(self) -> Tiler {
        match self {
            Item::Layout(l) => Tiler::Layout(l),
            Item::Tiler(t) => t,
            Item::Tuple(t) => int_tiler(&t),
        }
    }
}

/// An int tuple as a tiler: an integer, or a tuple of such tilers.
fn int_tiler(t: &crate::Tup) -> Tiler {
    match t.as_leaf() {
        Some(i) => Tiler::Int(i),
        None => Tiler::Tuple(t.modes().iter().map(int_tiler).collect()),
    }
}

fn read(text: &str) -> Item {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut r = Reader { s: text.as_bytes(), at: 0 };
    let item = r.item();
    assert_eq!(r.at, text.len(), "unread text after {} in {text:?}", r.at);
    item
}

/// A flat layout of these extents and strides, every value but 1 dynamic when `dynamic` (the TMA
/// tests' global-memory tensors).
pub fn flat(shape: &[i64], stride: &[i64], dynamic: bool) -> Layout {
    let int = |v: i64| if dynamic && v != 1 { Int::dy(v) } else { Int::st(v) };
    Layout::new(IntTuple::of_leaves(shape.iter().map(|&v| int(v))), IntTuple::of_leaves(stride.iter().map(|&v| int(v))))
        .unwrap()
}

/// A layout from its printed form.
pub fn l(text: &str) -> Layout {
    match read(text) {
        Item::Layout(l) => l,
        Item::Tuple(t) => Layout::new(t.clone(), t.compact_col_major(Int::st(1)).unwrap()).unwrap(),
        Item::Tiler(_) => panic!("{text:?} is a tiler, not a layout"),
    }
}

/// An int tuple from its printed form.
pub fn tup(text: &str) -> IntTuple {
    match read(text) {
        Item::Tuple(t) => t,
        _ => panic!("{text:?} is not an int tuple"),
    }
}

/// A tiler from its printed form: a layout, an integer, `_`, or a tuple of those.
pub fn t(text: &str) -> Tiler {
    read(text).into_tiler()
}

#[test]
fn reads_what_cute_prints() {
    assert_eq!(l("(_4,8):(_1,4)").to_string(), "(_4,8):(_1,4)");
    assert_eq!(l("((_2,_3),_4):((_1,_12),_2)").to_string(), "((_2,_3),_4):((_1,_12),_2)");
    assert_eq!(l("_128:_-10").to_string(), "_128:_-10");
    assert_eq!(tup("(_2,(3,_4))").to_string(), "(_2,(3,_4))");
    assert!(matches!(t("(_4:_1,_)"), Tiler::Tuple(v) if v.len() == 2 && matches!(v[1], Tiler::Underscore)));
    assert!(matches!(t("(_4,_2:_3)"), Tiler::Tuple(v) if matches!(v[0], Tiler::Int(_))));
}
