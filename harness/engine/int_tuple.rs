//! Nested tuples of integers (CuTe's IntTuple): shapes, strides and coordinates.
//!
//! An int tuple is either one [`Int`] leaf or a tuple of int tuples. Printing follows CuTe's
//! `print`: no spaces, 1-tuples keep their parentheses (`(_4)`), the empty tuple is `()`.
//!
//! ## Representation
//! A tuple is one flat buffer of 8-byte [`Node`]s in preorder: a tuple node (its number of elements
//! and the number of nodes of its subtree, itself included) followed by its elements' nodes; a leaf
//! is one node holding a 32-bit value (CuTe's `int`), or, for a value outside that range (only
//! intermediate engine values can be), a header node followed by a node with the 64-bit value. There is no allocation per nesting level: [`IntTuple`] (owned, like `String`) keeps
//! up to [`INLINE`] nodes inline and spills to the heap only beyond that, and [`Tup`] (borrowed,
//! like `str`) is a slice of nodes, so a mode of a tuple is a sub-slice, never a copy.
//! `IntTuple` dereferences to `Tup`, where every method lives; functions take `&Tup`.
//!
//! Invariant (upheld by every constructor here, the only code that builds node buffers): a
//! buffer is exactly one well-formed subtree, every tuple node's `span` is 1 plus its elements'
//! spans and its `len` their number. Equality and hashing of buffers are therefore structural.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use ref_cast::RefCast;
use smallvec::SmallVec;

use super::error::{Error, Result};
use super::int::Int;

/// Nodes kept inline by an [`IntTuple`] before it spills to the heap: enough for a flat rank-4
/// shape or `((_4,_8),_2)` (5 nodes). Measured (BENCHMARKS.md): 5 beats 4 (rank-4 results of
/// complement and the divides' tuples then stay off the heap), 6 gains less and 8 loses (every
/// move of a tuple copies the whole inline buffer).
pub const INLINE: usize = 5;

/// One node of the preorder encoding (see the module doc), packed in 64 bits: the low two bits
/// are the kind; a 32-bit leaf keeps its value in the high half; a tuple keeps its number of
/// elements in bits 2..32 and its span (nodes of its subtree) in the high half; a wide leaf's
/// header keeps its static-ness in bit 2, and the next node is the raw 64-bit value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Node(u64);

const KIND: u64 = 3;
const LEAF_DYNAMIC: u64 = 0;
const LEAF_STATIC: u64 = 1;
const TUPLE: u64 = 2;
const WIDE: u64 = 3;

/// A decoded node.
#[derive(Clone, Copy)]
enum Item {
    Leaf(Int),
    Tuple { len: usize },
}

impl Node {
    fn tuple(len: usize, span: usize) -> Node {
        let (len, span) = (len as u64, span as u64);
        assert!(len < 1 << 30 && span < 1 << 32, "int tuple too large");
        Node(TUPLE | len << 2 | span << 32)
    }
    /// The nodes of one leaf: one, or two for a value outside 32 bits.
    fn push_leaf<A: smallvec::Array<Item = Node>>(nodes: &mut SmallVec<A>, i: Int) {
        if let Ok(v) = i32::try_from(i.value) {
            nodes.push(Node::narrow(v, i.is_static));
        } else {
            nodes.push(Node(WIDE | (i.is_static as u64) << 2));
            nodes.push(Node(i.value as u64));
        }
    }
    /// A leaf whose value fits 32 bits.
    #[inline]
    fn narrow(v: i32, is_static: bool) -> Node {
        Node((v as u32 as u64) << 32 | if is_static { LEAF_STATIC } else { LEAF_DYNAMIC })
    }
    /// The value of a 32-bit leaf node.
    #[inline]
    fn narrow_leaf(self) -> Int {
        Int::new((self.0 >> 32) as u32 as i32 as i64, self.0 & KIND == LEAF_STATIC)
    }
    /// Nodes of the subtree starting here.
    fn span(self) -> usize {
        match self.0 & KIND {
            TUPLE => (self.0 >> 32) as usize,
            WIDE => 2,
            _ => 1,
        }
    }
    fn is_tuple(self) -> bool {
        self.0 & KIND == TUPLE
    }
    fn len(self) -> usize {
        ((self.0 >> 2) & ((1 << 30) - 1)) as usize
    }
}

/// The node at the start of `nodes`, decoded.
fn item(nodes: &[Node]) -> Item {
    let n = nodes[0].0;
    match n & KIND {
        LEAF_DYNAMIC | LEAF_STATIC => Item::Leaf(nodes[0].narrow_leaf()),
        TUPLE => Item::Tuple { len: nodes[0].len() },
        _ => Item::Leaf(Int::new(nodes[1].0 as i64, n & 4 != 0)),
    }
}

/// Every node of a buffer in preorder, decoded (a wide leaf's value node is not one).
#[derive(Clone)]
struct Items<'a> {
    rest: &'a [Node],
}

impl Iterator for Items<'_> {
    type Item = Item;
    fn next(&mut self) -> Option<Item> {
        let first = *self.rest.first()?;
        let it = item(self.rest);
        self.rest = &self.rest[if first.is_tuple() { 1 } else { first.span() }..];
        Some(it)
    }
}

/// The leaves of a tuple, depth first ([`Tup::leaf_iter`]).
#[derive(Clone)]
pub struct LeafIter<'a> {
    nodes: &'a [Node],
    k: usize,
}

impl Iterator for LeafIter<'_> {
    type Item = Int;
    #[inline]
    fn next(&mut self) -> Option<Int> {
        // Tuple nodes are stepped over; a leaf is decoded by `item` and skipped by its span.
        while let Some(&n) = self.nodes.get(self.k) {
            if n.is_tuple() {
                self.k += 1;
                continue;
            }
            let Item::Leaf(i) = item(&self.nodes[self.k..]) else { unreachable!("not a tuple node") };
            self.k += n.span();
            return Some(i);
        }
        None
    }
}

/// One step of [`Tup::zip_steps`]: a tuple of `len` elements opens (its elements' steps follow),
/// or a pair of leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Open(usize),
    Leaf(Int, Int),
}

/// The steps of two tuples with the same tuple nodes and 32-bit leaves ([`Tup::zip_steps`]).
#[derive(Clone)]
pub struct ZipSteps<'a> {
    a: &'a [Node],
    b: &'a [Node],
}

impl Iterator for ZipSteps<'_> {
    type Item = Step;
    #[inline]
    fn next(&mut self) -> Option<Step> {
        let (&x, rest_a) = self.a.split_first()?;
        let (&y, rest_b) = self.b.split_first()?;
        (self.a, self.b) = (rest_a, rest_b);
        Some(if x.is_tuple() { Step::Open(x.len()) } else { Step::Leaf(x.narrow_leaf(), y.narrow_leaf()) })
    }
}

/// Append `src` to `dst` (small copies: a loop, not `memmove`).
#[inline]
fn copy_nodes(dst: &mut Nodes, src: &[Node]) {
    dst.extend(src.iter().copied());
}

/// Recompute every tuple's span from the element counts (after leaves changed width).
fn fix_spans(nodes: &mut [Node]) {
    let mut open: SmallVec<[(usize, usize); 16]> = SmallVec::new(); // (tuple's index, elements left)
    let mut k = 0;
    while k < nodes.len() {
        let n = nodes[k];
        if n.is_tuple() && n.len() > 0 {
            open.push((k, n.len()));
            k += 1;
            continue;
        }
        k += if n.is_tuple() { 1 } else { n.span() };
        // An element ended at `k`: close every tuple it completes.
        while let Some(top) = open.last_mut() {
            top.1 -= 1;
            if top.1 > 0 {
                break;
            }
            let (at, _) = open.pop().expect("non-empty");
            nodes[at] = Node::tuple(nodes[at].len(), k - at);
        }
    }
}

type Nodes = SmallVec<[Node; INLINE]>;

/// An owned int tuple (see the module doc); all reading methods are on [`Tup`].
#[derive(PartialEq, Eq, Hash)]
pub struct IntTuple {
    nodes: Nodes,
}

impl Clone for IntTuple {
    /// As [`Tup::to_owned`]: an inline buffer is copied node by node (`SmallVec`'s own `clone`
    /// goes through its general `extend`).
    #[inline]
    fn clone(&self) -> IntTuple {
        Tup::to_owned(self)
    }
}

/// A borrowed int tuple: one well-formed subtree of nodes (see the module doc).
#[derive(RefCast, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Tup([Node]);

/// What a tuple is at its top: a leaf, or a tuple with its elements.
#[derive(Clone, Copy)]
pub enum View<'a> {
    Leaf(Int),
    Tuple(Modes<'a>),
}

/// The elements of a tuple (a leaf is its own single element): a slice-like, cheap-to-copy list of
/// borrowed sub-tuples. Indexing walks from the front (elements have different sizes).
#[derive(Clone, Copy)]
pub struct Modes<'a> {
    /// The elements' nodes, one subtree after the other.
    nodes: &'a [Node],
    len: usize,
}

/// Iterator over [`Modes`].
#[derive(Clone)]
pub struct ModesIter<'a> {
    rest: &'a [Node],
    left: usize,
}

impl<'a> Iterator for ModesIter<'a> {
    type Item = &'a Tup;
    fn next(&mut self) -> Option<&'a Tup> {
        if self.left == 0 {
            return None;
        }
        let (head, rest) = self.rest.split_at(self.rest[0].span());
        self.rest = rest;
        self.left -= 1;
        Some(Tup::ref_cast(head))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for ModesIter<'_> {}

impl DoubleEndedIterator for ModesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        // Elements are found from the front; the last one is the one ending the buffer.
        let last = self.clone().fold(None, |_, m| Some(m))?; // from the front (next_back is this)
        self.rest = &self.rest[..self.rest.len() - last.0.len()];
        self.left -= 1;
        Some(last)
    }
}

impl<'a> Modes<'a> {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn iter(&self) -> ModesIter<'a> {
        ModesIter { rest: self.nodes, left: self.len }
    }
    pub fn get(&self, i: usize) -> Option<&'a Tup> {
        self.iter().nth(i)
    }
}

impl<'a> IntoIterator for Modes<'a> {
    type Item = &'a Tup;
    type IntoIter = ModesIter<'a>;
    fn into_iter(self) -> ModesIter<'a> {
        self.iter()
    }
}

impl std::ops::Index<usize> for Modes<'_> {
    type Output = Tup;
    fn index(&self, i: usize) -> &Tup {
        match self.get(i) {
            Some(t) => t,
            None => panic!("mode {i} of a tuple of {} elements", self.len),
        }
    }
}

impl From<Int> for IntTuple {
    fn from(i: Int) -> Self {
        IntTuple::leaf(i)
    }
}

impl Deref for IntTuple {
    type Target = Tup;
    fn deref(&self) -> &Tup {
        Tup::ref_cast(&self.nodes)
    }
}

impl Borrow<Tup> for IntTuple {
    fn borrow(&self) -> &Tup {
        self
    }
}

impl ToOwned for Tup {
    type Owned = IntTuple;
    #[inline]
    fn to_owned(&self) -> IntTuple {
        if self.0.len() <= INLINE {
            // Into the inline buffer, node by node: for a few nodes this beats a `memcpy` call.
            let mut buf = [Node(0); INLINE];
            for (b, n) in buf.iter_mut().zip(&self.0) {
                *b = *n;
            }
            return IntTuple { nodes: SmallVec::from_buf_and_len(buf, self.0.len()) };
        }
        IntTuple { nodes: SmallVec::from_slice(&self.0) }
    }
}

impl IntTuple {
    /// A buffer whose tuple nodes have their element counts right but not their spans.
    fn with_spans_fixed(mut nodes: Nodes) -> IntTuple {
        fix_spans(&mut nodes);
        IntTuple { nodes }
    }
    /// One leaf.
    #[inline(always)]
    pub fn leaf(i: Int) -> IntTuple {
        if let Ok(v) = i32::try_from(i.value) {
            let mut buf = [Node(0); INLINE];
            buf[0] = Node::narrow(v, i.is_static);
            return IntTuple { nodes: SmallVec::from_buf_and_len(buf, 1) };
        }
        let mut nodes = Nodes::new();
        Node::push_leaf(&mut nodes, i);
        IntTuple { nodes }
    }
    /// A static leaf `_v`.
    pub fn st(v: i64) -> IntTuple {
        IntTuple::leaf(Int::st(v))
    }
    /// A dynamic leaf `v`.
    pub fn dy(v: i64) -> IntTuple {
        IntTuple::leaf(Int::dy(v))
    }
    /// The tuple of the given elements.
    pub fn tuple(items: impl IntoIterator<Item = IntTuple>) -> IntTuple {
        let mut b = Builder::new();
        for x in items {
            b.push(&x);
        }
        b.finish()
    }
    /// The tuple of the given borrowed elements.
    pub fn tuple_of<'a>(items: impl IntoIterator<Item = &'a Tup>) -> IntTuple {
        let mut b = Builder::new();
        for x in items {
            b.push(x);
        }
        b.finish()
    }
    /// The flat tuple of the given leaves.
    pub fn of_leaves(items: impl IntoIterator<Item = Int>) -> IntTuple {
        let mut b = Builder::new();
        for x in items {
            b.push_leaf(x);
        }
        b.finish()
    }
    /// The flat tuple of the given static leaves, each in CuTe's 32-bit range (as the small
    /// paths' values are): up to [`INLINE`] nodes computed into an array and handed over whole,
    /// else one heap buffer of the exact size.
    #[inline(always)]
    pub fn of_static(items: impl ExactSizeIterator<Item = i64>) -> IntTuple {
        let n = items.len() + 1;
        let narrow = |v: i64| Node::narrow(i32::try_from(v).expect("a 32-bit value"), true);
        if n <= INLINE {
            // Computed into an array and handed over whole (no pushes on a buffer whose copy
            // would then wait for each store).
            let mut buf = [Node(0); INLINE];
            buf[0] = Node::tuple(n - 1, n);
            for (b, v) in buf[1..].iter_mut().zip(items) {
                *b = narrow(v);
            }
            return IntTuple { nodes: SmallVec::from_buf_and_len(buf, n) };
        }
        let mut nodes = Nodes::with_capacity(n);
        nodes.push(Node::tuple(n - 1, n));
        for v in items {
            nodes.push(narrow(v));
        }
        IntTuple { nodes }
    }
    /// The pair `(a, b)`.
    pub fn pair(a: &Tup, b: &Tup) -> IntTuple {
        IntTuple::tuple_of([a, b])
    }
}

/// Literal int tuples built in place, one after the other, in one reused buffer (the one-pass
/// evaluator's literals, `expr::eval`): a leaf or a copied tuple is appended; a tuple closes over
/// the literals that end the buffer. Each literal is a range `(start, end)` of the buffer.
#[derive(Default)]
pub struct LitBuf {
    nodes: Vec<Node>,
}

impl LitBuf {
    pub fn clear(&mut self) {
        self.nodes.clear();
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
    /// Appends the leaf `i`; its range.
    pub fn leaf(&mut self, i: Int) -> (usize, usize) {
        let start = self.nodes.len();
        match i32::try_from(i.value) {
            Ok(v) => self.nodes.push(Node::narrow(v, i.is_static)),
            Err(_) => self.nodes.extend([Node(WIDE | (i.is_static as u64) << 2), Node(i.value as u64)]),
        }
        (start, self.nodes.len())
    }
    /// Appends the leaf of a 32-bit value.
    #[inline]
    pub fn leaf32(&mut self, v: i32, is_static: bool) {
        self.nodes.push(Node::narrow(v, is_static));
    }
    /// Appends a copy of `t`; its range.
    pub fn push(&mut self, t: &Tup) -> (usize, usize) {
        let start = self.nodes.len();
        self.nodes.extend_from_slice(&t.0);
        (start, self.nodes.len())
    }
    /// Makes the `n` literals that lie one after the other from `start` to the end of the buffer
    /// the elements of one tuple; its range.
    pub fn close(&mut self, start: usize, n: usize) -> (usize, usize) {
        let span = self.nodes.len() - start + 1;
        self.nodes.insert(start, Node::tuple(n, span));
        (start, self.nodes.len())
    }
    /// Appends the header of a tuple whose elements follow ([`LitBuf::close_tuple`] completes it);
    /// where it is.
    pub fn open_tuple(&mut self) -> usize {
        self.nodes.push(Node::tuple(0, 1));
        self.nodes.len() - 1
    }
    /// Completes the tuple opened at `at`: its `n` elements are the literals appended since.
    pub fn close_tuple(&mut self, at: usize, n: usize) {
        self.nodes[at] = Node::tuple(n, self.nodes.len() - at);
    }
    /// The literal at `range`.
    pub fn get(&self, (start, end): (usize, usize)) -> &Tup {
        Tup::ref_cast(&self.nodes[start..end])
    }
    /// Drops everything from `start` on (the literals there were taken).
    pub fn truncate(&mut self, start: usize) {
        self.nodes.truncate(start);
    }
}

/// Builds a tuple element by element without intermediate buffers.
pub struct Builder {
    nodes: Nodes,
    len: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        let mut nodes = Nodes::new();
        nodes.push(Node::tuple(0, 1));
        Builder { nodes, len: 0 }
    }
    /// Appends one element.
    #[inline]
    pub fn push(&mut self, x: &Tup) {
        match &x.0 {
            [one] => self.nodes.push(*one),
            many => copy_nodes(&mut self.nodes, many),
        }
        self.len += 1;
    }
    /// Appends one leaf element.
    pub fn push_leaf(&mut self, i: Int) {
        Node::push_leaf(&mut self.nodes, i);
        self.len += 1;
    }
    /// Number of elements so far.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn finish(mut self) -> IntTuple {
        self.nodes[0] = Node::tuple(self.len as usize, self.nodes.len());
        IntTuple { nodes: self.nodes }
    }
}

/// Builds one tuple in preorder: [`TreeWriter::open`] a tuple, write its elements, then
/// [`TreeWriter::close`] it with its number of elements.
pub struct TreeWriter {
    nodes: Nodes,
}

impl TreeWriter {
    pub fn new() -> TreeWriter {
        TreeWriter { nodes: Nodes::new() }
    }
    /// A tuple whose elements the next calls write; its place, for [`TreeWriter::close`].
    pub fn open(&mut self) -> usize {
        self.nodes.push(Node::tuple(0, 1));
        self.nodes.len() - 1
    }
    /// The tuple opened at `at` ends here, with `len` elements.
    pub fn close(&mut self, at: usize, len: usize) {
        self.nodes[at] = Node::tuple(len, self.nodes.len() - at);
    }
    /// The tuple opened at `at`, which has one element, is replaced by that element.
    pub fn unwrap_at(&mut self, at: usize) {
        self.nodes.remove(at);
    }
    pub fn leaf(&mut self, i: Int) {
        Node::push_leaf(&mut self.nodes, i);
    }
    /// A whole element.
    pub fn push(&mut self, x: &Tup) {
        copy_nodes(&mut self.nodes, &x.0);
    }
    /// The tuple written so far, borrowed (every opened tuple closed, or unwrapped).
    pub fn as_tup(&self) -> &Tup {
        debug_assert!(self.nodes.first().is_some_and(|n| n.span() == self.nodes.len()), "an open tuple");
        Tup::ref_cast(&self.nodes)
    }
    /// The tuple written (every opened tuple closed, or unwrapped).
    pub fn finish(self) -> IntTuple {
        debug_assert!(self.nodes.first().is_some_and(|n| n.span() == self.nodes.len()), "an open tuple");
        IntTuple { nodes: self.nodes }
    }
}

impl Default for TreeWriter {
    fn default() -> Self {
        TreeWriter::new()
    }
}

impl Tup {
    /// The nodes of this subtree.
    pub fn nodes(&self) -> &[Node] {
        &self.0
    }
    /// A leaf or the elements of a tuple.
    pub fn view(&self) -> View<'_> {
        match item(&self.0) {
            Item::Leaf(i) => View::Leaf(i),
            Item::Tuple { len } => View::Tuple(Modes { nodes: &self.0[1..], len }),
        }
    }
    pub fn is_tuple(&self) -> bool {
        self.0[0].is_tuple()
    }
    pub fn as_leaf(&self) -> Option<Int> {
        match item(&self.0) {
            Item::Leaf(i) => Some(i),
            Item::Tuple { .. } => None,
        }
    }
    /// Top-level modes: a leaf is its own single mode (CuTe: `get<0>(x) == x` for an integer).
    pub fn modes(&self) -> Modes<'_> {
        let n = self.0[0];
        if n.is_tuple() {
            Modes { nodes: &self.0[1..], len: n.len() }
        } else {
            Modes { nodes: &self.0, len: 1 }
        }
    }
    /// CuTe's `rank`: 1 for a leaf, the number of top-level elements for a tuple.
    pub fn rank(&self) -> usize {
        let n = self.0[0];
        if n.is_tuple() {
            n.len()
        } else {
            1
        }
    }
    /// CuTe's `depth`: 0 for a leaf, 1 + the largest depth of the elements for a tuple.
    pub fn depth(&self) -> usize {
        match self.view() {
            View::Leaf(_) => 0,
            View::Tuple(v) => 1 + v.iter().map(Tup::depth).max().unwrap_or(0),
        }
    }
    /// Mode `i` (CuTe's `get<i>`).
    pub fn mode(&self, i: usize) -> Result<&Tup> {
        self.modes().get(i).ok_or_else(|| Error::OutOfRange(format!("mode {i} of {self}")))
    }
    /// All leaves, depth first, without allocating.
    pub fn leaf_iter(&self) -> LeafIter<'_> {
        LeafIter { nodes: &self.0, k: 0 }
    }
    /// Each pair of leaves of `self` and a congruent `other`, depth first, handed to `f` (which may
    /// stop the walk with `None`); `None` also when the two are not congruent. Where both have the
    /// same nodes but the leaves' values and no wide leaf (the common case), the pairs are read
    /// node by node.
    pub fn try_zip_leaves(&self, other: &Tup, mut f: impl FnMut(Int, Int) -> Option<()>) -> Option<()> {
        if let Some(steps) = self.zip_steps(other) {
            for step in steps {
                if let Step::Leaf(x, y) = step {
                    f(x, y)?;
                }
            }
            return Some(());
        }
        if !self.congruent(other) {
            return None;
        }
        self.leaf_iter().zip(other.leaf_iter()).try_for_each(|(i, j)| f(i, j))
    }
    /// The preorder walk of `self` and a congruent `other` side by side ([`Step`]s), where both
    /// have the same tuple nodes and only 32-bit leaves (the common case: read node by node);
    /// `None` otherwise, the caller then taking its general path.
    pub fn zip_steps<'a>(&'a self, other: &'a Tup) -> Option<ZipSteps<'a>> {
        let (a, b) = (&self.0, &other.0);
        let narrow = |n: &Node| n.0 & KIND <= LEAF_STATIC;
        let same = a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| if x.is_tuple() { x.0 == y.0 } else { narrow(x) && narrow(y) });
        same.then_some(ZipSteps { a, b })
    }
    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaf_iter().count()
    }
    /// All leaves, depth first (CuTe's `flatten` followed by iteration).
    pub fn leaves(&self) -> Vec<Int> {
        let mut out = Vec::with_capacity(self.0.len());
        out.extend(self.leaf_iter());
        out
    }
    /// CuTe's `flatten`: a leaf stays a leaf; a tuple becomes the tuple of its leaves.
    pub fn flatten(&self) -> IntTuple {
        if self.is_tuple() {
            IntTuple::of_leaves(self.leaf_iter())
        } else {
            self.to_owned()
        }
    }
    /// CuTe's `product`/`size` of an int tuple: the product of all leaves; `_1` for `()`.
    pub fn product(&self) -> Result<Int> {
        self.fold_product(Ok(Int::st(1)))
    }
    /// `acc` times every leaf, depth first (the fold of [`Tup::product`], without allocating).
    pub fn fold_product(&self, acc: Result<Int>) -> Result<Int> {
        let mut acc = acc?;
        for i in self.leaf_iter() {
            acc = acc.mul(i)?;
        }
        Ok(acc)
    }
    /// Same nesting structure (CuTe's `congruent`).
    pub fn congruent(&self, other: &Tup) -> bool {
        if self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|(a, b)| (a.0 ^ b.0) & KIND == 0 && (!a.is_tuple() || a.0 == b.0))
        {
            // Same node kinds and the same tuples (so no wide leaf on one side only).
            return true;
        }
        let (mut a, mut b) = (Items { rest: &self.0 }, Items { rest: &other.0 });
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some(Item::Leaf(_)), Some(Item::Leaf(_))) => {}
                (Some(Item::Tuple { len: x }), Some(Item::Tuple { len: y })) if x == y => {}
                _ => return false,
            }
        }
    }
    /// CuTe's `weakly_congruent(self, other)`: `self` is a coarser structure of `other`
    /// (a leaf of `self` may stand for a whole subtree of `other`).
    pub fn weakly_congruent(&self, other: &Tup) -> bool {
        match (self.view(), other.view()) {
            (View::Leaf(_), _) => true,
            (View::Tuple(_), View::Leaf(_)) => false,
            (View::Tuple(a), View::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.weakly_congruent(y))
            }
        }
    }
    /// Rebuild a tuple of the same structure as `self` from a flat list of leaves.
    pub fn unflatten_like(&self, flat: &[Int]) -> Result<IntTuple> {
        let n = self.leaf_count();
        if flat.len() > n {
            return Err(Error::MismatchedRanks { detail: format!("too many leaves for {self}") });
        }
        if flat.len() < n {
            return Err(Error::MismatchedRanks { detail: format!("too few leaves for {self}") });
        }
        let mut it = flat.iter().copied();
        Ok(self.map_structure(|_| it.next().expect("counted")))
    }
    /// The same structure with every leaf replaced by `f(leaf)`, in order.
    fn map_structure(&self, mut f: impl FnMut(Int) -> Int) -> IntTuple {
        self.map_leaves(&mut |i| Ok(f(i))).expect("infallible")
    }
    /// Apply `f` to every leaf, keeping the structure.
    pub fn map_leaves(&self, f: &mut impl FnMut(Int) -> Result<Int>) -> Result<IntTuple> {
        let mut nodes = Nodes::with_capacity(self.0.len());
        for n in (Items { rest: &self.0 }) {
            match n {
                Item::Leaf(i) => Node::push_leaf(&mut nodes, f(i)?),
                Item::Tuple { len } => nodes.push(Node::tuple(len, 1)),
            }
        }
        Ok(IntTuple::with_spans_fixed(nodes))
    }
    /// True when every leaf is static.
    pub fn is_static(&self) -> bool {
        self.leaf_iter().all(|i| i.is_static)
    }
    /// CuTe's `compact_col_major(shape, current)` (LayoutLeft): the exclusive prefix product of the
    /// leaves in colexicographic order, starting from `current` (`_1` for default strides), with
    /// the structure of `self`. Static-ness follows the arithmetic: `(1,8)` gives `(_1,1)`.
    pub fn compact_col_major(&self, current: Int) -> Result<IntTuple> {
        // CuTe's `detail::compact` (stride.hpp) returns `(result, current * product(shape))`: it
        // multiplies after every leaf but a static `_1`, the last one included, in `int`. The
        // engine does the same, so it refuses exactly where CuTe's product overflows (UBSan names
        // stride.hpp's `current * shape`; tests/cute_overflow.rs, `make_layout((_17413,123327))`).
        if let Some(e) = self.as_leaf() {
            if e.is_static_value(1) {
                return Ok(IntTuple::leaf(Int::st(0)));
            }
            current.mul(e)?;
            return Ok(IntTuple::leaf(current));
        }
        let mut acc = current;
        let mut nodes = Nodes::with_capacity(self.0.len());
        for node in (Items { rest: &self.0 }) {
            let Item::Leaf(e) = node else {
                let Item::Tuple { len } = node else { unreachable!("not a leaf") };
                nodes.push(Node::tuple(len, 1));
                continue;
            };
            if e.is_static_value(1) {
                Node::push_leaf(&mut nodes, Int::st(0)); // CuTe (stride.hpp): a static _1 extent gets stride _0
                continue;
            }
            Node::push_leaf(&mut nodes, acc);
            acc = acc.mul(e)?;
        }
        Ok(IntTuple::with_spans_fixed(nodes))
    }
    /// CuTe's `compact_row_major(shape, current)` (LayoutRight): the prefix product taken from the
    /// last leaf backwards.
    pub fn compact_row_major(&self, current: Int) -> Result<IntTuple> {
        let leaves = self.leaves();
        let mut strides = vec![current; leaves.len()];
        let mut acc = current;
        for (k, n) in leaves.iter().enumerate().rev() {
            if n.is_static_value(1) {
                strides[k] = Int::st(0); // CuTe (stride.hpp): a static _1 extent gets stride _0
                continue;
            }
            strides[k] = acc;
            // As in compact_col_major: CuTe multiplies after the last leaf too.
            acc = acc.mul(*n)?;
        }
        self.unflatten_like(&strides)
    }
}

/// CuTe's print of a tuple: `(a,b,c)`, no spaces, 1-tuples keep their parentheses, `()` empty.
/// Every tuple-like value (int tuples, tilers, expression values) prints through this.
pub fn write_tuple<W: fmt::Write + ?Sized, T: fmt::Display>(
    f: &mut W,
    items: impl IntoIterator<Item = T>,
) -> fmt::Result {
    f.write_str("(")?;
    for (k, x) in items.into_iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    f.write_str(")")
}

impl fmt::Display for Tup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Tup {
    /// `Display` into any writer (a `String` directly, without a `Formatter`).
    pub fn write_to<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        write_subtree(&self.0, f).map(drop)
    }
}

/// Writes the subtree at the start of `nodes`; the number of nodes it spans. (Recursion is as deep
/// as the tuple, which the parser's nesting limit bounds.)
fn write_subtree<W: fmt::Write + ?Sized>(nodes: &[Node], f: &mut W) -> Result<usize, fmt::Error> {
    let Item::Tuple { len } = item(nodes) else {
        let Item::Leaf(i) = item(nodes) else { unreachable!() };
        i.write_to(f)?;
        return Ok(nodes[0].span());
    };
    f.write_char('(')?;
    let mut k = 1;
    for e in 0..len {
        if e > 0 {
            f.write_char(',')?;
        }
        k += write_subtree(&nodes[k..], f)?;
    }
    f.write_char(')')?;
    Ok(k)
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl fmt::Debug for Tup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Debug for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// CuTe's `compatible(a, b)` (int_tuple.hpp): `a` a leaf and equal sizes, or both tuples of one rank with
/// compatible modes.
pub fn compatible(a: &Tup, b: &Tup) -> bool {
    match (a.view(), b.view()) {
        (View::Leaf(x), View::Leaf(y)) => x.value == y.value,
        (View::Leaf(_), _) => match (a.product(), b.product()) {
            (Ok(x), Ok(y)) => x.value == y.value,
            _ => false,
        },
        (View::Tuple(x), View::Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| compatible(p, q)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_keeps_one_tuples() {
        assert_eq!(IntTuple::tuple([IntTuple::st(4)]).to_string(), "(_4)");
        assert_eq!(IntTuple::tuple([]).to_string(), "()");
        let t = IntTuple::tuple([IntTuple::dy(4), IntTuple::tuple([IntTuple::st(2), IntTuple::dy(4)])]);
        assert_eq!(t.to_string(), "(4,(_2,4))");
        assert_eq!(t.rank(), 2);
        assert_eq!(t.depth(), 2);
        assert_eq!(t.product().unwrap(), Int::dy(32));
        let e = IntTuple::tuple([
            IntTuple::tuple([]),
            IntTuple::tuple([IntTuple::tuple([]), IntTuple::st(1)]),
            IntTuple::tuple([]),
        ]);
        assert_eq!(e.to_string(), "((),((),_1),())");
        assert_eq!(e.mode(1).unwrap().to_string(), "((),_1)");
        assert_eq!(e.modes().iter().rev().map(|m| m.to_string()).collect::<Vec<_>>(), ["()", "((),_1)", "()"]);
    }

    /// Values outside 32 bits take two nodes; navigation, printing, congruence and rebuilt
    /// spans see one leaf.
    #[test]
    fn try_zip_leaves_pairs_the_leaves_of_congruent_tuples() {
        let (n, w, d) = (IntTuple::st(4), IntTuple::dy(1 << 40), IntTuple::dy(3));
        let t = |v: &[&IntTuple]| IntTuple::tuple_of(v.iter().copied().map(|x| &**x));
        let shapes = [
            n.clone(),
            w.clone(),
            t(&[&n, &w]),
            t(&[&w, &t(&[&n, &n])]),
            t(&[&t(&[&n, &w]), &n]),
            t(&[&n, &n, &n]),
            // Static against dynamic leaves: read node by node (`zip_steps`).
            d.clone(),
            t(&[&d, &t(&[&n, &d])]),
            t(&[&n, &t(&[&d, &n])]),
            t(&[]),
            t(&[&t(&[])]),
        ];
        for a in &shapes {
            for b in &shapes {
                let mut got = Vec::new();
                let r = a.try_zip_leaves(b, |x, y| {
                    got.push((x, y));
                    Some(())
                });
                let want: Vec<_> = a.leaf_iter().zip(b.leaf_iter()).collect();
                match a.congruent(b) {
                    true => assert_eq!((r, got), (Some(()), want), "{a} {b}"),
                    false => assert_eq!(r, None, "{a} {b}"),
                }
            }
        }
        // `f` stops the walk.
        assert_eq!(shapes[5].try_zip_leaves(&shapes[5], |_, _| None), None);
    }

    #[test]
    fn wide_leaves_are_one_leaf() {
        let big = 1i64 << 40;
        let t = IntTuple::tuple([
            IntTuple::tuple([IntTuple::dy(big), IntTuple::st(-3)]),
            IntTuple::st(-big),
            IntTuple::tuple([]),
        ]);
        assert_eq!(t.to_string(), "((1099511627776,_-3),_-1099511627776,())");
        assert_eq!(t.rank(), 3);
        assert_eq!(t.leaves(), [Int::dy(big), Int::st(-3), Int::st(-big)]);
        assert_eq!(t.mode(1).unwrap().as_leaf(), Some(Int::st(-big)));
        assert_eq!(t.mode(2).unwrap().to_string(), "()");
        let narrow = t.map_leaves(&mut |i| Ok(Int::new(i.value.signum(), i.is_static))).unwrap();
        assert_eq!(narrow.to_string(), "((1,_-1),_-1,())");
        assert!(narrow.congruent(&t) && t.congruent(&narrow));
        let wide = narrow.map_leaves(&mut |i| Ok(Int::new(i.value * big, i.is_static))).unwrap();
        assert_eq!(wide.to_string(), "((1099511627776,_-1099511627776),_-1099511627776,())");
        assert_eq!(wide.mode(1).unwrap().to_string(), "_-1099511627776");
        assert_eq!(wide.mode(2).unwrap().to_string(), "()");
        assert_eq!(narrow.mode(2).unwrap().to_string(), "()");
    }

    #[test]
    fn compact_strides_follow_static_rules() {
        let s = IntTuple::tuple([IntTuple::dy(1), IntTuple::dy(8)]);
        assert_eq!(s.compact_col_major(Int::st(1)).unwrap().to_string(), "(_1,1)");
        let s = IntTuple::tuple([IntTuple::st(4), IntTuple::st(8)]);
        assert_eq!(s.compact_row_major(Int::st(1)).unwrap().to_string(), "(_8,_1)");
    }
}
