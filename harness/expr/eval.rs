//! Evaluation of parsed expressions on the engine.

use crate::engine::int_tuple::LitBuf;
use crate::engine::{Error, Int, IntTuple, Result};

use super::builtins;
use super::parse::{parse, parse_with, Build, Expr, Name, ParseError};
use super::value::Value;

/// A failed evaluation: a parse error or an engine error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error(transparent)]
    Engine(#[from] Error),
}

/// Parse and evaluate one expression.
pub fn eval_str(text: &str) -> Result<Value, EvalError> {
    let e = parse(text)?;
    Ok(eval(&e)?)
}

/// Evaluate a parsed expression.
pub fn eval(e: &Expr) -> Result<Value> {
    match e {
        Expr::Int { value, is_static, .. } => Ok(Value::Int(Int::new(*value, *is_static))),
        Expr::Underscore { .. } => Ok(Value::Underscore),
        Expr::Tuple { items, .. } => Ok(Value::Tuple(items.iter().map(eval).collect::<Result<_>>()?)),
        Expr::Basis { value, is_static, modes, .. } => basis(*value, *is_static, modes),
        Expr::Ratio { num, den, modes, .. } => ratio(*num, *den, modes),
        Expr::Layout { shape, stride, .. } => {
            let s = int_tuple(shape)?;
            match literal(stride) {
                Some(d) => Ok(Value::Layout(crate::engine::Layout::new(s, d)?)),
                None => Value::layout_of(s, &eval(stride)?),
            }
        }
        Expr::Apply { target, args, .. } => {
            let t = eval(target)?;
            match coord_of(args)? {
                Coord::Ints(c) => apply(t, &c),
                Coord::Slice(c) => slice(t, &c),
            }
        }
        Expr::Call { name, args, called, .. } => {
            let vals: Vec<Value> = args.iter().map(eval).collect::<Result<_>>()?;
            builtins::call(name, &vals, *called)
        }
    }
}

/// The ratio `_num/_den`, along `modes` when any (as written: innermost first, like [`basis`]).
fn ratio(num: i64, den: i64, modes: &[u32]) -> Result<Value> {
    let modes = modes.iter().rev().copied().collect();
    Ok(Value::Atom(crate::expr::value::AtomValue::Ratio(crate::engine::equality::RatioBasis::new(num, den, modes)?)))
}

/// The basis element `value@modes` (`modes` as written: innermost first). Its C++ spelling is
/// `E<...>` for a static `_1`, else `ScaledBasis<V,modes...>`, which takes one mode only before
/// CUTLASS 4.1 ([`crate::engine::release::FLAT_SCALED_BASIS`]): refused there as g++ refuses it.
fn basis(value: i64, is_static: bool, modes: &[u32]) -> Result<Value> {
    use crate::engine::scaled_basis::{BasisValue, ScaledBasis};
    if modes.len() > 1 && !(is_static && value == 1) && !crate::engine::release::FLAT_SCALED_BASIS.on() {
        return Err(Error::Rejected {
            condition: "wrong number of template arguments",
            detail: format!(
                "ScaledBasis<V,N> takes one mode before CUTLASS 4.1 (modelled: {}): {} modes",
                crate::engine::release::current(),
                modes.len()
            ),
        });
    }
    Ok(Value::Atom(crate::expr::value::AtomValue::Basis(BasisValue::Basis(ScaledBasis {
        value: Int::new(value, is_static),
        // The text names the modes innermost first, as CuTe prints them.
        modes: modes.iter().rev().copied().collect(),
    }))))
}

/// The int tuple `e` evaluates to (an error if it is no int tuple). A literal of integers and
/// tuples of them is built directly, without a [`Value`] in between.
fn int_tuple(e: &Expr) -> Result<IntTuple> {
    match literal(e) {
        Some(t) => Ok(t),
        None => eval(e)?.to_int_tuple(),
    }
}

/// `e` as an int tuple when it is integers and tuples of them only (nothing to evaluate, nothing
/// that can fail); `None` otherwise.
fn literal(e: &Expr) -> Option<IntTuple> {
    match e {
        Expr::Int { value, is_static, .. } => Some(IntTuple::from(Int::new(*value, *is_static))),
        Expr::Tuple { items, .. } => literals(items),
        _ => None,
    }
}

/// The tuple of `items` when each is a [`literal`].
fn literals(items: &[Expr]) -> Option<IntTuple> {
    // Built in one pass into one buffer (nested tuples in place, no tuple per level), kept per
    // thread; an item that is no literal stops it.
    thread_local! {
        static BUF: std::cell::RefCell<LitBuf> = std::cell::RefCell::default();
    }
    BUF.with(|b| {
        let mut fresh = LitBuf::default();
        let mut kept = b.try_borrow_mut().ok();
        let buf = kept.as_deref_mut().unwrap_or(&mut fresh);
        buf.clear();
        push_literals(buf, items)?;
        Some(buf.get((0, buf.len())).to_owned())
    })
}

/// Appends the tuple of `items` to `buf` when each is a [`literal`]; `None` (and a partial
/// tuple left in `buf`) at the first that is not.
fn push_literals(buf: &mut LitBuf, items: &[Expr]) -> Option<()> {
    let at = buf.open_tuple();
    for e in items {
        match e {
            Expr::Int { value, is_static, .. } => {
                buf.leaf(Int::new(*value, *is_static));
            }
            Expr::Tuple { items, .. } => push_literals(buf, items)?,
            _ => return None,
        }
    }
    buf.close_tuple(at, items.len());
    Some(())
}

/// The coordinate of `L(args)`: integers (an evaluation) or a coordinate with `_` (a slice).
enum Coord {
    Ints(IntTuple),
    Slice(Value),
}

/// The coordinate of `L(args)`: one argument is the coordinate itself, several form a tuple.
fn coord_of(args: &[Expr]) -> Result<Coord> {
    if let [one] = args {
        if let Some(t) = literal(one) {
            return Ok(Coord::Ints(t));
        }
        return coord_value(eval(one)?);
    }
    if let Some(t) = literals(args) {
        return Ok(Coord::Ints(t));
    }
    coord_value(Value::Tuple(args.iter().map(eval).collect::<Result<_>>()?))
}

/// A coordinate value: a slice when it holds `_`, else an int tuple.
fn coord_value(v: Value) -> Result<Coord> {
    if builtins::algebra::has_underscore(&v) {
        return Ok(Coord::Slice(v));
    }
    Ok(Coord::Ints(v.to_int_tuple()?))
}

/// `target(c)` for a coordinate with `_`: CuTe's `Layout::operator()` slices, `slice(c, L)`.
fn slice(target: Value, c: &Value) -> Result<Value> {
    let c_ = c;
    match target {
        Value::Layout(l) => Ok(Value::Layout(crate::engine::slice::slice(&builtins::algebra::to_coord(c)?, &l)?)),
        Value::Atom(crate::expr::value::AtomValue::BasisLayout(l)) => {
            Ok(Value::Atom(crate::expr::value::AtomValue::BasisLayout(crate::engine::scaled_basis::slice(
                &builtins::algebra::to_coord(c)?,
                &l,
            )?)))
        }
        // Tensor::operator() with `_`: the sliced tensor at data() + offset.
        Value::Atom(crate::expr::value::AtomValue::CoordTensor(t)) => {
            Ok(Value::Atom(crate::expr::value::AtomValue::CoordTensor(t.slice(&builtins::algebra::to_coord(c)?)?)))
        }
        // A transform tensor's slice is the transform of its inner tensor's slice (transform_iter + i).
        Value::Atom(crate::expr::value::AtomValue::Transform(t)) => Ok(Value::Atom(
            crate::expr::value::AtomValue::Transform(t.map(|c| c.slice(&builtins::algebra::to_coord(c_)?))?),
        )),
        // A partitioned tensor's Tensor::operator() with `_`: the sliced tensor at data() + offset.
        Value::Atom(crate::expr::value::AtomValue::Partition(p)) => {
            Ok(Value::Atom(crate::expr::value::AtomValue::Partition(p.slice(&builtins::algebra::to_coord(c)?)?)))
        }
        // ComposedLayout::operator() with `_` is slice(c, L): the layout part of slice_and_offset.
        Value::Atom(crate::expr::value::AtomValue::Composed(x)) => {
            let (r, _) = crate::engine::swizzle_slice::slice_and_offset(&builtins::algebra::to_coord(c)?, &x)?;
            Ok(r.into())
        }
        t => Err(Error::Type(format!("only a layout can be sliced with _, found {}", t.kind()))),
    }
}

/// `target(coord)`: a layout, swizzle or swizzled layout evaluated at a coordinate.
fn apply(target: Value, coord: &IntTuple) -> Result<Value> {
    match target {
        Value::Atom(a) => a.apply(coord),
        Value::Layout(l) => Ok(Value::Int(l.call(coord)?)),
        t => Ok(Value::Int(t.to_layout()?.call(coord)?)),
    }
}

/// Parse and evaluate `text` in one pass, without the [`Expr`] tree (`cutecheck eval -`'s way):
/// what [`eval_str`] answers, or `None` where a call of a `print_*` name (the whole-line forms are
/// the caller's) or a panic leaves it to the caller to parse, then evaluate. The parser hands the
/// nodes over in the order [`eval`] evaluates them (operands left to right, a call after its
/// arguments, a layout's shape made an int tuple before its stride is read), nothing is evaluated
/// after the first error, and a parse error anywhere comes first, so the answer is `eval_str`'s.
pub fn eval_text(text: &str) -> Option<Result<Value, EvalError>> {
    eval_text_in(text, &mut Scratch::default())
}

/// [`eval_text`] with buffers kept from line to line (`eval -` answers every line with one).
#[derive(Default)]
pub struct Scratch {
    stack: Vec<Node>,
    vals: Vec<Value>,
    lits: LitBuf,
}

/// [`eval_text`] using `scratch`'s buffers.
pub fn eval_text_in(text: &str, scratch: &mut Scratch) -> Option<Result<Value, EvalError>> {
    let (mut stack, mut vals) = (std::mem::take(&mut scratch.stack), std::mem::take(&mut scratch.vals));
    let mut lits = std::mem::take(&mut scratch.lits);
    stack.clear();
    vals.clear();
    lits.clear();
    let mut build = Fused { error: None, refused: false, stack, vals, lits };
    // A panic is left to the caller's `eval` to meet again (or a parse error further on first).
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_with(text, &mut build))).ok()?;
    let answer = match (parsed, build.error.take()) {
        (Err(e), _) => Some(Err(e.into())),
        _ if build.refused => None,
        (Ok(()), Some(e)) => Some(Err(e.into())),
        (Ok(()), None) => build.stack.pop().map(|n| Ok(node_value(&build.lits, n))),
    };
    (scratch.stack, scratch.vals, scratch.lits) = (build.stack, build.vals, build.lits);
    answer
}

/// [`eval_text`]'s nodes: an int tuple literal is kept as a tuple built in place in the builder's
/// literal buffer ([`LitBuf`]; a layout literal's shape and stride go straight into the layout),
/// anything else is evaluated as it is read.
enum Node {
    /// The literal at this range of `Fused::lits`.
    Lit((usize, usize)),
    Val(Value),
    /// Not evaluated: something failed before (`Fused::error`) or was refused.
    Failed,
}

/// Where the literal of a node starts in `Fused::lits`, if it is one.
fn lit_start(n: &Node) -> Option<usize> {
    match *n {
        Node::Lit((start, _)) => Some(start),
        _ => None,
    }
}

/// The value `eval` gives a node's expression (a literal is read from `lits`).
fn node_value(lits: &LitBuf, n: Node) -> Value {
    match n {
        Node::Lit(r) => Value::from_int_tuple(lits.get(r)),
        Node::Val(v) => v,
        Node::Failed => Value::Underscore,
    }
}

/// [`int_tuple`] of a node's expression (a literal is read from `lits`).
fn node_int_tuple(lits: &LitBuf, n: Node) -> Result<IntTuple> {
    match n {
        Node::Lit(r) => Ok(lits.get(r).to_owned()),
        n => node_value(lits, n).to_int_tuple(),
    }
}

/// [`eval_text`]'s builder: [`eval`] bottom up, up to the first error. A stack machine: each form
/// read pushes its node, and takes the nodes of its parts (pushed before it, in the order of the
/// text) off the stack; the parser itself carries no values (`Build::Node` is `()`).
struct Fused {
    /// The first error: nothing after it is evaluated.
    error: Option<Error>,
    /// A `print_*` name was called.
    refused: bool,
    /// The nodes read and not yet taken by the form around them.
    stack: Vec<Node>,
    /// A call's arguments (reused by every call).
    vals: Vec<Value>,
    /// The literals of the nodes on the stack, in the stack's order; a node taken off the stack
    /// takes its literal (and every later one, taken with it) off this buffer.
    lits: LitBuf,
}

impl Fused {
    fn stopped(&self) -> bool {
        self.error.is_some() || self.refused
    }
    /// Push the node of `r` (on an error, the error is kept and nothing is evaluated after it).
    fn push_result(&mut self, r: Result<Node>) {
        let node = r.unwrap_or_else(|e| {
            self.error = Some(e);
            Node::Failed
        });
        self.stack.push(node);
    }
    /// The top node, taken off the stack; its literal stays in `lits` until [`Fused::release`].
    fn pop(&mut self) -> Node {
        self.stack.pop().unwrap_or(Node::Failed)
    }
    /// The nodes whose literals start at `start` (and every later one) have been read: their
    /// literals leave `lits`. Nothing for `None` (no literal among them).
    fn release(&mut self, start: Option<usize>) {
        if let Some(start) = start {
            self.lits.truncate(start);
        }
    }
    /// The top `n` nodes taken off the stack into `out` as values.
    fn take_values(&mut self, n: usize, out: &mut Vec<Value>) {
        let start = self.stack.len().saturating_sub(n);
        let first_lit = self.stack[start..].iter().find_map(lit_start);
        out.extend(self.stack.drain(start..).map(|node| node_value(&self.lits, node)));
        self.release(first_lit);
    }
    /// The top `n` nodes dropped, a failed node pushed for them: where nothing is evaluated any more.
    fn skip(&mut self, n: usize) {
        for _ in 0..n.min(self.stack.len()) {
            let node = self.pop();
            self.release(lit_start(&node));
        }
        self.stack.push(Node::Failed);
    }
    /// The top `n` nodes made one literal tuple when each is a literal, else `false` (left).
    fn literals(&mut self, n: usize) -> bool {
        let start = self.stack.len().saturating_sub(n);
        let mut at = None;
        for a in &self.stack[start..] {
            let Node::Lit((s, e)) = *a else { return false };
            // One after the other, up to the end of the buffer (the stack's order).
            if at.is_some_and(|end| end != s) {
                return false;
            }
            at = Some(e);
        }
        let first = match self.stack.get(start) {
            Some(Node::Lit((s, _))) => *s,
            _ => self.lits.len(),
        };
        if at.is_some_and(|end| end != self.lits.len()) {
            return false;
        }
        self.stack.truncate(start);
        let r = self.lits.close(first, n);
        self.stack.push(Node::Lit(r));
        true
    }
    /// The values of the top `n` nodes, taken.
    fn values(&mut self, n: usize) -> Vec<Value> {
        let mut out = Vec::with_capacity(n);
        self.take_values(n, &mut out);
        out
    }
    /// The coordinate of `L(args)`, the top `n` nodes ([`coord_of`]).
    fn coord(&mut self, n: usize) -> Result<Coord> {
        if n == 1 || self.literals(n) {
            let node = self.pop();
            if let Node::Val(v) = node {
                return coord_value(v);
            }
            let start = lit_start(&node);
            let t = node_int_tuple(&self.lits, node);
            self.release(start);
            return t.map(Coord::Ints);
        }
        coord_value(Value::Tuple(self.values(n)))
    }
}

impl Build for Fused {
    type Node = ();
    fn literals(&mut self) -> Option<&mut LitBuf> {
        // After an error nothing more is built (the parser still reads to the end).
        if self.stopped() {
            return None;
        }
        Some(&mut self.lits)
    }
    fn literal(&mut self, range: (usize, usize)) {
        self.stack.push(Node::Lit(range));
    }
    fn int(&mut self, value: i64, is_static: bool, _: usize) {
        let r = self.lits.leaf(Int::new(value, is_static));
        self.stack.push(Node::Lit(r));
    }
    fn underscore(&mut self, _: usize) {
        self.stack.push(Node::Val(Value::Underscore));
    }
    fn basis(&mut self, value: i64, is_static: bool, modes: Vec<u32>, _: usize) {
        if self.stopped() {
            return self.stack.push(Node::Failed);
        }
        let r = basis(value, is_static, &modes).map(Node::Val);
        self.push_result(r);
    }
    fn ratio(&mut self, num: i64, den: i64, modes: Vec<u32>, _: usize) {
        if self.stopped() {
            return self.stack.push(Node::Failed);
        }
        let r = ratio(num, den, &modes).map(Node::Val);
        self.push_result(r);
    }
    /// The item is on the stack already.
    fn push(&mut self, _: ()) {}
    fn tuple(&mut self, n: usize, _: usize) {
        if self.stopped() {
            return self.skip(n);
        }
        if !self.literals(n) {
            let node = Node::Val(Value::Tuple(self.values(n)));
            self.stack.push(node);
        }
    }
    fn shape(&mut self, _: ()) {
        if self.stopped() {
            return;
        }
        if matches!(self.stack.last(), Some(Node::Lit(_))) {
            return;
        }
        let node = self.pop();
        let t = node_int_tuple(&self.lits, node).map(|t| Node::Lit(self.lits.push(&t)));
        self.push_result(t);
    }
    fn layout(&mut self, _: (), _: (), _: usize) {
        if self.stopped() {
            return self.skip(2);
        }
        // The common case, two literals: the layout is built from the buffer, nothing moved.
        if let [.., Node::Lit(rs), Node::Lit(rd)] = self.stack[..] {
            let (shape, stride) = (self.lits.get(rs), self.lits.get(rd));
            if shape.congruent(stride) {
                let l = crate::engine::Layout { shape: shape.to_owned(), stride: stride.to_owned() };
                self.lits.truncate(rs.0);
                self.stack.truncate(self.stack.len() - 2);
                self.stack.push(Node::Val(Value::Layout(l)));
                return;
            }
        }
        let (stride, shape) = (self.pop(), self.pop());
        let start = lit_start(&shape).or(lit_start(&stride));
        let l = node_int_tuple(&self.lits, shape).and_then(|s| match stride {
            Node::Val(ref v) if v.to_basis().is_some_and(|d| d.has_basis()) => Value::layout_of(s, v),
            _ => Ok(Value::Layout(crate::engine::Layout::new(s, node_int_tuple(&self.lits, stride)?)?)),
        });
        self.release(start);
        self.push_result(l.map(Node::Val));
    }
    fn call(&mut self, name: Name, n: usize, called: bool, _: usize) {
        if name.simple().is_some_and(|n| n.starts_with("print_")) {
            self.refused = true;
        }
        if self.stopped() {
            return self.skip(n);
        }
        let mut vals = std::mem::take(&mut self.vals);
        vals.clear();
        self.take_values(n, &mut vals);
        let v = builtins::call(&name, &vals, called).map(Node::Val);
        vals.clear();
        self.vals = vals;
        self.push_result(v);
    }
    fn apply(&mut self, _: (), n: usize, _: usize) {
        if self.stopped() {
            return self.skip(n + 1);
        }
        let coord = self.coord(n);
        let target = self.pop();
        let start = lit_start(&target);
        let target = node_value(&self.lits, target);
        self.release(start);
        let v = coord
            .and_then(|c| match c {
                Coord::Ints(c) => apply(target, &c),
                Coord::Slice(c) => slice(target, &c),
            })
            .map(Node::Val);
        self.push_result(v);
    }
}

#[cfg(test)]
mod tests {
    use super::{eval_str, eval_text};

    /// `eval_text` answers `text` as `eval_str` does, or leaves it to it; whether it answered.
    /// What it leaves, `eval_str` answers without a panic (bad input gets an error).
    fn same(text: &str) -> bool {
        match eval_text(text) {
            Some(r) => {
                assert_eq!(r, eval_str(text), "{text}");
                true
            }
            None => {
                assert!(std::panic::catch_unwind(|| eval_str(text)).is_ok(), "a panic evaluating {text}");
                false
            }
        }
    }

    /// Every line of the fixed suites, random cases of the conformance generator, and each of them
    /// spoilt: cut short (parse errors every 7 characters, or at 8 places spread over a longer
    /// line), and on every third line an integer made `_` or a layout (type errors) or 0 (engine
    /// errors after other operands were evaluated). The substitutions evaluate whole TMA and
    /// tiled-MMA constructions thirty times a line (about two thirds of the unit tests' time when
    /// every line had them); a third of the lines, drawn by stride, still spoils lines of every
    /// case file.
    #[test]
    fn one_pass_answers_as_parse_then_eval() {
        // Each line with the number of its digits a spoilt pass replaces: the TMA mainloops' forms
        // and the second problem's (mostly a whole make_tma_copy, ~20 ms a line) by a stride of 16 and at 2 digits
        // (fixed_suites evaluates every one of them), every other line at 6.
        let mut lines: Vec<(String, usize)> = Vec::new();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases");
        for f in std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()) {
            let text = std::fs::read_to_string(f.path()).unwrap();
            let cases = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(String::from);
            if f.path().file_stem().is_some_and(|n| n == "kernel_forms_tma" || n == "kernel_forms_residue") {
                lines.extend(cases.step_by(16).map(|l| (l, 2)));
            } else {
                lines.extend(cases.map(|l| (l, 6)));
            }
        }
        lines.extend(crate::fuzz::cases(5, 2000, (0, 1)).into_iter().map(|(_, c)| (c.expr, 6)));
        lines.extend(crate::expr::parse::tests::literal_edge_cases().into_iter().map(|l| (l, 6)));
        let (mut answered, mut tried) = (0, 0);
        for (n, (l, digits)) in lines.iter().enumerate() {
            tried += 1;
            answered += usize::from(same(l));
            // Cut every 7 characters, at most 8 cuts a line: each cut evaluates what precedes
            // it, so the long kernel forms (up to 3,700 characters) were quadratic (~345 s).
            let step = (l.len() / 8).max(7);
            for (k, _) in l.char_indices().filter(|(k, _)| k % step == 3) {
                same(&l[..k]);
            }
            let spoilt = if n % 3 == 0 { *digits } else { 0 };
            for (k, c) in l.char_indices().filter(|(_, c)| c.is_ascii_digit()).take(spoilt) {
                for with in ["_", "_4:_1", "0", "(1,2)", " é"] {
                    same(&format!("{}{with}{}", &l[..k], &l[k + c.len_utf8()..]));
                }
            }
        }
        // Not vacuous: the one pass answers nearly every line itself.
        assert!(answered * 10 > tried * 9, "{answered} of {tried}");
    }
}
