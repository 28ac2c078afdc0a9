//! The expression language: a parser from text to [`Expr`].
//!
//! Grammar (whitespace-insensitive):
//! ```text
//! expr    := operand (':' operand)? apply*       -- `S:D` is a layout; `L(c)` evaluates L at c
//! apply   := '(' args? ')'
//! operand := INT | '_' | NAME ('(' args? ')')? | '(' args? ')'
//! args    := expr (',' expr)*
//! INT     := '-'? DIGITS (dynamic) | '_' '-'? DIGITS (static)
//! NAME    := IDENT ('::' IDENT)* ('<' TARG (',' TARG)* '>')?
//! TARG    := NAME | '-'? DIGITS
//! ```
//! A call's result can be applied to a coordinate: `make_layout((4,8))(1,2)`. A layout literal
//! applies the same way: `(4,8):(1,4)(5)` is the layout evaluated at 5.
//! Errors carry the 1-based column of the offending character.

use std::cell::Cell;
use std::fmt;

use smallvec::SmallVec;

use crate::engine::int_tuple::LitBuf;

/// One parsed expression; `col` is the 1-based column where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// `N` (dynamic) or `_N` (static).
    Int { value: i64, is_static: bool, col: usize },
    /// `v@N@...`: a basis element (`_1@0`, `3@1`), as CuTe prints it: the modes innermost first
    /// (`_1@0@1` is `E<1,0>`), kept here in the order written.
    Basis { value: i64, is_static: bool, modes: Vec<u32>, col: usize },
    /// `_a/_b@N@...`: CuTe's static ratio `R<a,b>` (as written, unreduced, as CuTe prints it),
    /// along the basis modes when any follow (`ScaledBasis<R<a,b>,N...>`), modes as for `Basis`.
    Ratio { num: i64, den: i64, modes: Vec<u32>, col: usize },
    /// `_`, CuTe's Underscore (a mode left alone in a tiler or a slice).
    Underscore { col: usize },
    /// `(a,b,...)`: an int tuple or a tuple of layouts.
    Tuple { items: Vec<Expr>, col: usize },
    /// `SHAPE:STRIDE`.
    Layout { shape: Box<Expr>, stride: Box<Expr>, col: usize },
    /// `name(args)` or a bare name (`args` empty, `called` false).
    Call { name: Name, args: Vec<Expr>, called: bool, col: usize },
    /// `L(coord)`: evaluate a layout at a coordinate; several arguments form one tuple coordinate.
    Apply { target: Box<Expr>, args: Vec<Expr>, col: usize },
}

/// One identifier of a name: the table's own string for an operation's or a form's name (no
/// allocation for the common case), else the identifier as read.
pub type Ident = std::borrow::Cow<'static, str>;

/// A possibly templated name, kept structured so no text is ever pasted into generated code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    /// `::`-separated identifier parts, e.g. `["GMMA","Major","K"]`.
    pub path: SmallVec<[Ident; 1]>,
    /// Template arguments, if the name had `<...>`.
    pub targs: Option<Vec<TemplateArg>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TemplateArg {
    Name(Name),
    Int(i64),
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path.join("::"))?;
        if let Some(t) = &self.targs {
            f.write_str("<")?;
            for (k, a) in t.iter().enumerate() {
                if k > 0 {
                    f.write_str(",")?;
                }
                match a {
                    TemplateArg::Name(n) => write!(f, "{n}")?,
                    TemplateArg::Int(i) => write!(f, "{i}")?,
                }
            }
            f.write_str(">")?;
        }
        Ok(())
    }
}

impl Name {
    /// The bare identifier of a one-part name without template arguments.
    pub fn simple(&self) -> Option<&str> {
        (self.path.len() == 1 && self.targs.is_none()).then(|| self.path[0].as_ref())
    }
    /// The last path component (the name without namespaces and template arguments).
    pub fn base(&self) -> &str {
        self.path.last().map(|p| p.as_ref()).unwrap_or("")
    }
}

impl Expr {
    pub fn col(&self) -> usize {
        match self {
            Expr::Int { col, .. }
            | Expr::Basis { col, .. }
            | Expr::Ratio { col, .. }
            | Expr::Underscore { col }
            | Expr::Tuple { col, .. }
            | Expr::Layout { col, .. }
            | Expr::Call { col, .. }
            | Expr::Apply { col, .. } => *col,
        }
    }
}

impl fmt::Display for Expr {
    /// Canonical text of the expression (no spaces); parsing it gives the same expression.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::engine::int_tuple::write_tuple as list;
        match self {
            Expr::Int { value, is_static: true, .. } => write!(f, "_{value}"),
            Expr::Int { value, .. } => write!(f, "{value}"),
            Expr::Basis { value, is_static, modes, .. } => {
                write!(f, "{}{value}", if *is_static { "_" } else { "" })?;
                modes.iter().try_for_each(|m| write!(f, "@{m}"))
            }
            Expr::Ratio { num, den, modes, .. } => {
                write!(f, "_{num}/_{den}")?;
                modes.iter().try_for_each(|m| write!(f, "@{m}"))
            }
            Expr::Underscore { .. } => f.write_str("_"),
            Expr::Tuple { items, .. } => list(f, items),
            Expr::Layout { shape, stride, .. } => write!(f, "{shape}:{stride}"),
            Expr::Call { name, args, called, .. } => {
                write!(f, "{name}")?;
                if *called {
                    list(f, args)?;
                }
                Ok(())
            }
            Expr::Apply { target, args, .. } => {
                write!(f, "{target}")?;
                list(f, args)
            }
        }
    }
}

/// A parse error at a 1-based column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parse error at column {col}: {msg}")]
pub struct ParseError {
    pub col: usize,
    pub msg: String,
}

/// Deepest nesting the parser accepts, evaluation chains `L(c)(d)...` included (keeps every
/// recursion over an [`Expr`] bounded on hostile input; [`crate::limits::NESTING`]).
pub const MAX_NESTING: usize = crate::limits::NESTING;
/// Longest input the parser accepts, in bytes ([`crate::limits::INPUT_LEN`]).
pub const MAX_LEN: usize = crate::limits::INPUT_LEN;

pub fn parse(text: &str) -> Result<Expr, ParseError> {
    parse_with(text, &mut ExprBuild { items: Vec::new() })
}

/// What the parser makes of each form of the grammar, bottom up in the order of the text: the
/// [`Expr`] tree ([`parse`]), or values evaluated as the text is read (`eval::eval_text`). One
/// parser for both: the same text is accepted or refused with the same error. The items of a
/// parenthesized list are [`Build::push`]ed as they are read; the tuple, call or evaluation that
/// ends the list takes the last `n` pushed (lists nest: an inner list is taken before the outer
/// one goes on), so no list of items is kept per tuple.
pub trait Build {
    type Node;
    fn int(&mut self, value: i64, is_static: bool, col: usize) -> Self::Node;
    fn underscore(&mut self, col: usize) -> Self::Node;
    /// `v@N@...`: a basis element.
    fn basis(&mut self, value: i64, is_static: bool, modes: Vec<u32>, col: usize) -> Self::Node;
    /// `_a/_b@N@...`: a static ratio, a basis element when `modes` is not empty.
    fn ratio(&mut self, num: i64, den: i64, modes: Vec<u32>, col: usize) -> Self::Node;
    /// One item of the list being read.
    fn push(&mut self, item: Self::Node);
    /// `(items)`: the last `n` items pushed.
    fn tuple(&mut self, n: usize, col: usize) -> Self::Node;
    /// The shape of a layout `shape:stride`, once the ':' is read (before the stride).
    fn shape(&mut self, shape: Self::Node) -> Self::Node {
        shape
    }
    fn layout(&mut self, shape: Self::Node, stride: Self::Node, col: usize) -> Self::Node;
    /// `name(args)` (the last `n` items pushed) or a bare name (`n` 0, `called` false).
    fn call(&mut self, name: Name, n: usize, called: bool, col: usize) -> Self::Node;
    /// `target(args)`, the last `n` items pushed.
    fn apply(&mut self, target: Self::Node, n: usize, col: usize) -> Self::Node;
    /// A buffer into which the parser may write an int tuple literal whole ([`Build::literal`]
    /// then takes it) instead of calling `int`/`push`/`tuple` for each element; `None` (the
    /// default) asks for the calls.
    fn literals(&mut self) -> Option<&mut LitBuf> {
        None
    }
    /// The literal the parser wrote at `range` of [`Build::literals`].
    fn literal(&mut self, _range: (usize, usize)) -> Self::Node {
        unreachable!("a builder without a literal buffer is never handed a literal")
    }
}

/// [`parse`]'s builder: the [`Expr`] tree.
struct ExprBuild {
    items: Vec<Expr>,
}

impl ExprBuild {
    fn take(&mut self, n: usize) -> Vec<Expr> {
        self.items.split_off(self.items.len() - n)
    }
}

impl Build for ExprBuild {
    type Node = Expr;
    fn int(&mut self, value: i64, is_static: bool, col: usize) -> Expr {
        Expr::Int { value, is_static, col }
    }
    fn underscore(&mut self, col: usize) -> Expr {
        Expr::Underscore { col }
    }
    fn basis(&mut self, value: i64, is_static: bool, modes: Vec<u32>, col: usize) -> Expr {
        Expr::Basis { value, is_static, modes, col }
    }
    fn ratio(&mut self, num: i64, den: i64, modes: Vec<u32>, col: usize) -> Expr {
        Expr::Ratio { num, den, modes, col }
    }
    fn push(&mut self, item: Expr) {
        self.items.push(item);
    }
    fn tuple(&mut self, n: usize, col: usize) -> Expr {
        Expr::Tuple { items: self.take(n), col }
    }
    fn layout(&mut self, shape: Expr, stride: Expr, col: usize) -> Expr {
        Expr::Layout { shape: Box::new(shape), stride: Box::new(stride), col }
    }
    fn call(&mut self, name: Name, n: usize, called: bool, col: usize) -> Expr {
        Expr::Call { name, args: self.take(n), called, col }
    }
    fn apply(&mut self, target: Expr, n: usize, col: usize) -> Expr {
        Expr::Apply { target: Box::new(target), args: self.take(n), col }
    }
}

/// Parse `text` with the builder `build`.
pub fn parse_with<B: Build>(text: &str, build: &mut B) -> Result<B::Node, ParseError> {
    if text.len() > MAX_LEN {
        return Err(ParseError { col: 1, msg: format!("expression longer than {MAX_LEN} bytes") });
    }
    let mut p = Parser {
        build,
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        ascii: text.is_ascii(),
        seen: Cell::new((0, 1)),
    };
    p.skip_ws();
    if p.at_end() {
        return Err(p.err("empty expression"));
    }
    let e = p.expr()?;
    p.skip_ws();
    if !p.at_end() {
        return Err(p.err(&format!("unexpected '{}' after the expression", p.peek_char().unwrap_or(' '))));
    }
    Ok(e)
}

/// The parser works on the bytes of the text: every token of the grammar is ASCII, so a byte of
/// a non-ASCII character never matches one, and `pos` (a byte offset) stays on a character
/// boundary (whitespace, the only thing skipped that may be non-ASCII, is skipped by character).
/// Errors count columns in characters, as the user sees them ([`Parser::err`]).
struct Parser<'a, B: Build> {
    build: &'a mut B,
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// Whether every character is one byte (then a column is the byte offset plus one).
    ascii: bool,
    /// The last (byte offset, column) computed, where counting resumes for a later offset.
    seen: Cell<(usize, usize)>,
}

impl<B: Build> Parser<'_, B> {
    /// An error at the current position.
    fn err(&self, msg: &str) -> ParseError {
        self.err_at(self.pos, msg)
    }
    /// An error at byte offset `at`: its 1-based column counts characters.
    fn err_at(&self, at: usize, msg: &str) -> ParseError {
        ParseError { col: self.col_of(at), msg: msg.to_string() }
    }
    /// The 1-based column (in characters) of byte offset `at`, a character boundary.
    #[inline]
    fn col_of(&self, at: usize) -> usize {
        if self.ascii {
            return at + 1;
        }
        // Every character has exactly one byte that is not a UTF-8 continuation byte. Counting
        // resumes where it last stopped (the parser moves forward), so the columns of a whole
        // expression cost one pass over the text.
        let (from, col) = match self.seen.get() {
            (b, c) if b <= at => (b, c),
            _ => (0, 1),
        };
        let col = col + self.bytes[from..at].iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.seen.set((at, col));
        col
    }
    #[inline]
    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }
    #[inline]
    fn peek_at(&self, k: usize) -> Option<u8> {
        self.bytes.get(self.pos + k).copied()
    }
    /// The whole character at the current position (for error messages).
    fn peek_char(&self) -> Option<char> {
        self.text.get(self.pos..).and_then(|s| s.chars().next())
    }
    #[inline]
    fn skip_ws(&mut self) {
        // Most calls find a token: one test for every byte above ' ' (ASCII whitespace is below).
        if self.peek().is_none_or(|b| b > b' ' && b.is_ascii()) {
            return;
        }
        self.skip_ws_slow();
    }
    fn skip_ws_slow(&mut self) {
        while let Some(b) = self.peek() {
            if b.is_ascii() {
                // char::is_whitespace on ASCII: '\t', '\n', '\x0B', '\x0C', '\r', ' '.
                if !matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
                    return;
                }
                self.pos += 1;
            } else {
                match self.peek_char() {
                    Some(c) if c.is_whitespace() => self.pos += c.len_utf8(),
                    _ => return,
                }
            }
        }
    }
    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self.peek_char().map_or("end of input".to_string(), |x| format!("'{x}'"));
            Err(self.err(&format!("expected '{}', found {found}", c as char)))
        }
    }
    fn nest(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err(&format!("nesting deeper than {MAX_NESTING}")));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<B::Node, ParseError> {
        self.nest()?;
        self.skip_ws();
        let col = self.col_of(self.pos);
        let mut e = match self.arithmetic()? {
            Some(i) => self.build.int(i.value, i.is_static, col),
            None => self.operand(col)?,
        };
        if self.eat(b':') {
            e = self.build.shape(e);
            self.skip_ws();
            let stride = self.operand(self.col_of(self.pos))?;
            e = self.build.layout(e, stride, col);
        }
        // Each application wraps the expression once more: it counts as one level of nesting.
        let mut chain = 0;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'(') {
                break;
            }
            self.nest()?;
            chain += 1;
            let n = self.args()?;
            e = self.build.apply(e, n, col);
        }
        self.depth -= 1 + chain;
        Ok(e)
    }

    /// `( expr, ... )` including the parentheses, each item pushed to the builder; the number of
    /// items (`()` has none).
    fn args(&mut self) -> Result<usize, ParseError> {
        self.expect(b'(')?;
        if self.eat(b')') {
            return Ok(0);
        }
        let mut n = 0;
        loop {
            let e = self.expr()?;
            self.build.push(e);
            n += 1;
            if self.eat(b',') {
                continue;
            }
            self.expect(b')')?;
            return Ok(n);
        }
    }

    /// An integer just read, or the basis element `value@N@...` when `@` follows.
    fn int_or_basis(&mut self, value: i64, is_static: bool, col: usize) -> Result<B::Node, ParseError> {
        // `_a/_b`: CuTe's print of `R<a,b>` (static only, as `R` is).
        let den = if is_static && self.peek() == Some(b'/') && self.peek_at(1) == Some(b'_') {
            self.pos += 2;
            let d = self.number()?;
            if d == 0 {
                return Err(self.err("a ratio _a/_b needs b != 0 (CuTe's R<a,b> static_asserts it)"));
            }
            Some(d)
        } else {
            None
        };
        let mut modes = Vec::new();
        while self.peek() == Some(b'@') {
            self.pos += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.err("expected a mode index after '@'"));
            }
            let m = self.number()?;
            if modes.len() >= 8 || m > 64 {
                return Err(self.err("a basis element takes at most 8 mode indices, each at most 64"));
            }
            modes.push(m as u32);
        }
        if let Some(den) = den {
            Ok(self.build.ratio(value, den, modes, col))
        } else if modes.is_empty() {
            Ok(self.build.int(value, is_static, col))
        } else {
            Ok(self.build.basis(value, is_static, modes, col))
        }
    }

    fn number(&mut self) -> Result<i64, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == digits {
            return Err(self.err("expected a digit"));
        }
        // Digits accumulated (negated for '-') with overflow checks.
        let neg = digits > start;
        let mut v = Some(0i64);
        for &c in &self.bytes[digits..self.pos] {
            let d = (c - b'0') as i64;
            v = v.and_then(|v| v.checked_mul(10)).and_then(|v| if neg { v.checked_sub(d) } else { v.checked_add(d) });
        }
        match v.filter(|v| (i32::MIN as i64..=i32::MAX as i64).contains(v)) {
            Some(v) => Ok(v),
            None => {
                let text = &self.text[start..self.pos];
                Err(self.err_at(start, &format!("integer {text} does not fit CuTe's 32-bit int")))
            }
        }
    }

    /// An operand starting at the current position, its column `col`.
    fn operand(&mut self, col: usize) -> Result<B::Node, ParseError> {
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'(') => {
                if let Some(node) = self.fast_literal() {
                    return Ok(node);
                }
                let n = self.args()?;
                Ok(self.build.tuple(n, col))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' => {
                let value = self.number()?;
                self.int_or_basis(value, false, col)
            }
            Some(b'_') if self.peek_at(1).is_some_and(|c| c.is_ascii_digit() || c == b'-') => {
                self.pos += 1;
                let value = self.number()?;
                // C++'s `_4{}`.
                self.braces()?;
                self.int_or_basis(value, true, col)
            }
            Some(b'_') if !self.peek_at(1).is_some_and(is_ident_char) => {
                self.pos += 1;
                Ok(self.build.underscore(col))
            }
            Some(c) if is_ident_start(c) => {
                let name = cpp::strip_cute(self.name()?);
                self.skip_ws();
                if let Some(node) = self.cpp_form(&name, col)? {
                    return Ok(node);
                }
                if self.peek() == Some(b'(') {
                    let n = self.args()?;
                    Ok(self.build.call(name, n, true, col))
                } else {
                    // C++'s value of a type: `Swizzle<3,3,3>{}`, `GMMA::Layout_K_SW128_Atom<half_t>{}`.
                    self.braces()?;
                    Ok(self.build.call(name, 0, false, col))
                }
            }
            Some(_) => Err(self.err(&format!("unexpected '{}'", self.peek_char().unwrap_or(' ')))),
        }
    }

    /// C++ integer arithmetic on integer literals (`bM+Int<1>{}`, `2*_64`): `+`, `-` and `*` (which
    /// binds tighter) folded with CuTe's rules of static-ness (static only when both operands are;
    /// `_0 *` anything is `_0`, [`crate::engine::Int`]). `None` (nothing consumed) when the text
    /// here is not an integer literal followed by an operator.
    fn arithmetic(&mut self) -> Result<Option<crate::engine::Int>, ParseError> {
        let (save, depth) = (self.pos, self.depth);
        let Some(first) = self.int_term() else {
            (self.pos, self.depth) = (save, depth);
            return Ok(None);
        };
        self.skip_ws();
        if !matches!(self.peek(), Some(b'+' | b'-' | b'*')) {
            (self.pos, self.depth) = (save, depth);
            return Ok(None);
        }
        let overflow = |at: usize, p: &Self| p.err_at(at, "integer arithmetic leaves CuTe's 32-bit int");
        // sum := product (('+' | '-') product)*, product := term ('*' term)*
        let mut sum: Option<(crate::engine::Int, u8)> = None;
        let mut product = first;
        loop {
            self.skip_ws();
            let at = self.pos;
            let op = self.peek();
            match op {
                Some(b'*') => {
                    self.pos += 1;
                    let t = self.term_after_operator()?;
                    product = product.mul(t).map_err(|_| overflow(at, self))?;
                }
                Some(c @ (b'+' | b'-')) => {
                    self.pos += 1;
                    let acc = match sum {
                        None => product,
                        Some((a, b'+')) => a.add(product).map_err(|_| overflow(at, self))?,
                        Some((a, _)) => a.sub(product).map_err(|_| overflow(at, self))?,
                    };
                    sum = Some((acc, c));
                    product = self.term_after_operator()?;
                }
                _ => break,
            }
        }
        let at = self.pos;
        Ok(Some(match sum {
            None => product,
            Some((a, b'+')) => a.add(product).map_err(|_| overflow(at, self))?,
            Some((a, _)) => a.sub(product).map_err(|_| overflow(at, self))?,
        }))
    }

    /// The integer literal after an arithmetic operator, or an error there.
    fn term_after_operator(&mut self) -> Result<crate::engine::Int, ParseError> {
        self.skip_ws();
        let (at, depth) = (self.pos, self.depth);
        match self.int_term() {
            Some(t) => Ok(t),
            None => {
                (self.pos, self.depth) = (at, depth);
                Err(self.err("integer arithmetic takes integer literals only (4, _4, Int<4>{})"))
            }
        }
    }

    /// An integer literal (`4`, `-4`, `_4`, `_4{}`, `Int<4>{}`, `C<4>()`) read without building
    /// it; `None` (position unspecified: the caller restores it) when there is none.
    fn int_term(&mut self) -> Option<crate::engine::Int> {
        self.skip_ws();
        match self.peek()? {
            c if c.is_ascii_digit() || c == b'-' => Some(crate::engine::Int::dy(self.number().ok()?)),
            b'_' if self.peek_at(1).is_some_and(|c| c.is_ascii_digit() || c == b'-') => {
                self.pos += 1;
                let v = self.number().ok()?;
                self.braces().ok()?;
                Some(crate::engine::Int::st(v))
            }
            c if is_ident_start(c) => {
                let name = cpp::strip_cute(self.name().ok()?);
                let Some(cpp::ValueType::Int(v)) = cpp::value_type(&name) else { return None };
                // `_4` is spelled as a name only inside template arguments.
                name.targs.as_ref()?;
                self.value_of_type().ok()?;
                Some(crate::engine::Int::st(v))
            }
            _ => None,
        }
    }

    /// An empty brace initializer `{}` (C++'s value of a type), if one follows; anything inside
    /// the braces is an error.
    fn braces(&mut self) -> Result<(), ParseError> {
        let save = self.pos;
        self.skip_ws();
        if self.peek() != Some(b'{') {
            self.pos = save;
            return Ok(());
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() != Some(b'}') {
            return Err(self.err("expected '}': only an empty brace initializer `{}` is understood"));
        }
        self.pos += 1;
        Ok(())
    }

    /// An empty brace initializer or an empty call `()` after a C++ type (`Int<4>()`).
    fn value_of_type(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.peek() == Some(b'(') && self.peek_at(1) == Some(b')') {
            self.pos += 2;
            return Ok(());
        }
        self.braces()
    }

    /// CuTe's C++ spelling of the language's own forms (see [`cpp`]): the node it builds, or
    /// `None` when `name` is not one of them (nothing consumed).
    fn cpp_form(&mut self, name: &Name, col: usize) -> Result<Option<B::Node>, ParseError> {
        let Some(form) = cpp::form(name) else { return Ok(None) };
        match form {
            cpp::Form::Maker => {
                if self.peek() != Some(b'(') {
                    return Ok(None);
                }
                let n = self.args()?;
                Ok(Some(self.build.tuple(n, col)))
            }
            cpp::Form::Type => {
                let node = self.targ_node(name, col)?;
                self.value_of_type()?;
                Ok(Some(node))
            }
            cpp::Form::Moded(op, i) => {
                // `size<I>(x)` is `size(get(x, I))` (CuTe's `size<I...>(x)` is
                // `size(get<I...>(x))`, layout.hpp / int_tuple.hpp).
                if self.peek() != Some(b'(') {
                    return Ok(None);
                }
                if self.args()? != 1 {
                    return Err(self.err_at_col(col, &format!("{}<I>(x) takes one argument", name.base())));
                }
                let idx = self.build.int(i, false, col);
                self.build.push(idx);
                let got = self.build.call(cpp::op_name(super::op::Op::Get), 2, true, col);
                // `get<I>(x)` itself (cute/container/tuple.hpp; of a layout, layout.hpp's
                // `get<I>(layout)`, its I-th mode).
                if op == super::op::Op::Get {
                    return Ok(Some(got));
                }
                self.build.push(got);
                Ok(Some(self.build.call(cpp::op_name(op), 1, true, col)))
            }
            cpp::Form::Composed => {
                // The type `composition(Swizzle<B,M,S>{}, L)` returns for B > 0 (swizzle_layout.hpp;
                // a zero-bit swizzle composes to L itself): the only ComposedLayout the language
                // writes as a value of its type.
                let targs = name.targs.as_deref().unwrap_or(&[]);
                let why =
                    "ComposedLayout<Swizzle<B,M,S>, _0, L> takes a swizzle with B > 0, the offset _0 and a layout";
                let [TemplateArg::Name(sw), TemplateArg::Name(off), l] = targs else {
                    return Err(self.err_at_col(col, why));
                };
                let sw = cpp::strip_cute(sw.clone());
                let bits = match sw.targs.as_deref() {
                    Some([TemplateArg::Int(b), TemplateArg::Int(_), TemplateArg::Int(_)]) if sw.base() == "Swizzle" => {
                        *b
                    }
                    _ => 0,
                };
                if bits <= 0 || !matches!(cpp::value_type(off), Some(cpp::ValueType::Int(0))) {
                    return Err(self.err_at_col(col, why));
                }
                let node = self.build.call(sw, 0, false, col);
                self.build.push(node);
                let node = self.targ(l, col)?;
                self.build.push(node);
                self.value_of_type()?;
                Ok(Some(self.build.call(cpp::op_name(super::op::Op::Composition), 2, true, col)))
            }
            cpp::Form::Atom(op) => {
                let targs = name.targs.as_deref().unwrap_or(&[]);
                let n = targs.len();
                let (lo, hi) = op.arity();
                if n < lo || n > hi {
                    return Err(
                        self.err_at_col(col, &format!("{}<...> takes {lo}..={hi} template arguments", name.base()))
                    );
                }
                for t in targs {
                    let TemplateArg::Name(a) = t else {
                        return Err(self.err_at_col(col, &format!("{}<...> takes type names", name.base())));
                    };
                    let node = self.build.call(a.clone(), 0, false, col);
                    self.build.push(node);
                }
                self.value_of_type()?;
                Ok(Some(self.build.call(cpp::op_name(op), n, true, col)))
            }
        }
    }

    /// The node of a C++ type used as a value (`_4`, `Int<4>`, `Shape<...>`, `Layout<S,D>`, `X`).
    fn targ_node(&mut self, name: &Name, col: usize) -> Result<B::Node, ParseError> {
        match cpp::value_type(name) {
            Some(cpp::ValueType::Int(v)) => Ok(self.build.int(v, true, col)),
            Some(cpp::ValueType::Underscore) => Ok(self.build.underscore(col)),
            Some(cpp::ValueType::Tuple) => {
                let targs = name.targs.as_deref().unwrap_or(&[]);
                for t in targs {
                    let node = self.targ(t, col)?;
                    self.build.push(node);
                }
                Ok(self.build.tuple(targs.len(), col))
            }
            Some(cpp::ValueType::Layout) => match name.targs.as_deref().unwrap_or(&[]) {
                [s] => {
                    let node = self.targ(s, col)?;
                    self.build.push(node);
                    Ok(self.build.call(cpp::op_name(super::op::Op::MakeLayout), 1, true, col))
                }
                [s, d] => {
                    let shape = self.targ(s, col)?;
                    let shape = self.build.shape(shape);
                    let stride = self.targ(d, col)?;
                    Ok(self.build.layout(shape, stride, col))
                }
                _ => Err(self.err_at_col(col, "Layout<...> takes a Shape and an optional Stride")),
            },
            None => Err(self.err_at_col(
                col,
                &format!("'{name}' is not a C++ shape element (_4, Int<4>, Shape<...>, Stride<...>, Step<...>, X)"),
            )),
        }
    }

    fn targ(&mut self, t: &TemplateArg, col: usize) -> Result<B::Node, ParseError> {
        match t {
            TemplateArg::Name(n) => self.targ_node(&cpp::strip_cute(n.clone()), col),
            TemplateArg::Int(v) => Err(self.err_at_col(
                col,
                &format!("a C++ tuple type takes types such as _{v} or Int<{v}>, not the number {v}"),
            )),
        }
    }

    /// An error at a 1-based column already computed.
    fn err_at_col(&self, col: usize, msg: &str) -> ParseError {
        ParseError { col, msg: msg.to_string() }
    }

    /// The int tuple literal at the current position (a `(`) read whole into the builder's literal
    /// buffer ([`scan_into`]), where the builder has one; `None` (nothing consumed) leaves it to
    /// the general path, which then meets any error itself.
    fn fast_literal(&mut self) -> Option<B::Node> {
        let buf = self.build.literals()?;
        let start = buf.len();
        match scan_into(self.bytes, self.pos, self.depth, buf) {
            Some(end) => {
                let range = (start, buf.len());
                self.pos = end;
                Some(self.build.literal(range))
            }
            None => {
                buf.truncate(start);
                None
            }
        }
    }

    fn ident(&mut self) -> Result<Ident, ParseError> {
        self.skip_ws();
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return Err(self.err("expected a name"));
        }
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        let id = &self.text[start..self.pos];
        // An operation's or a form's name borrows the table's string.
        if let Some(op) = super::op::Op::by_name(id) {
            return Ok(Ident::Borrowed(op.name()));
        }
        match super::op::FORMS.iter().find(|f| f.0 == id) {
            Some(f) => Ok(Ident::Borrowed(f.0)),
            None => Ok(Ident::Owned(id.to_string())),
        }
    }

    fn name(&mut self) -> Result<Name, ParseError> {
        self.nest()?;
        let mut path: SmallVec<[Ident; 1]> = smallvec::smallvec![self.ident()?];
        while self.peek() == Some(b':') && self.peek_at(1) == Some(b':') {
            self.pos += 2;
            path.push(self.ident()?);
        }
        let save = self.pos;
        self.skip_ws();
        let targs = if self.peek() == Some(b'<') {
            self.pos += 1;
            let mut t = Vec::new();
            self.skip_ws();
            if self.peek() != Some(b'>') {
                loop {
                    self.skip_ws();
                    if self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'-') {
                        t.push(TemplateArg::Int(self.number()?));
                    } else {
                        t.push(TemplateArg::Name(self.name()?));
                    }
                    if self.eat(b',') {
                        continue;
                    }
                    break;
                }
            }
            self.expect(b'>')?;
            Some(t)
        } else {
            self.pos = save;
            None
        };
        self.depth -= 1;
        Ok(Name { path, targs })
    }
}

/// An int tuple literal `(…)` at `pos` (the common operand) read in one pass into `buf` (a
/// builder's literal buffer): where it is integers and tuples of them only, with ASCII whitespace
/// between tokens, within the nesting limit (`depth` is the parser's depth at the literal), and
/// each inner element is followed by `,` or `)`, the byte offset of its end; `None` where the
/// general path must read it (what was written is then the caller's to drop). `eval::tests`
/// checks that the one-pass evaluation, which reads literals this way, answers as parse-then-eval
/// (the general path), errors and their columns included.
fn scan_into(b: &[u8], mut pos: usize, depth: usize, buf: &mut LitBuf) -> Option<usize> {
    let ws = |pos: &mut usize| {
        while matches!(b.get(*pos), Some(b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')) {
            *pos += 1;
        }
    };
    // Open tuples: (where the header is, elements so far); deeper than the nesting limit allows
    // is the general path's to refuse.
    let mut open = [(0u32, 0u32); MAX_NESTING + 1];
    let mut depth_open = 0usize;
    let mut deepest = 0usize;
    'element: loop {
        if depth_open > 0 {
            ws(&mut pos);
            deepest = deepest.max(depth_open);
        }
        match *b.get(pos)? {
            b'(' => {
                pos += 1;
                if depth_open == MAX_NESTING {
                    return None;
                }
                open[depth_open] = (buf.open_tuple() as u32, 0);
                depth_open += 1;
                ws(&mut pos);
                if b.get(pos) != Some(&b')') {
                    continue 'element;
                }
                pos += 1;
                depth_open -= 1;
                buf.close_tuple(open[depth_open].0 as usize, 0);
            }
            c => {
                let is_static = c == b'_';
                let mut at = pos + usize::from(is_static);
                let neg = b.get(at) == Some(&b'-');
                at += usize::from(neg);
                let digits = at;
                let mut v = 0i64;
                while let Some(&d) = b.get(at) {
                    let d = d.wrapping_sub(b'0');
                    if d > 9 {
                        break;
                    }
                    v = v * 10 + d as i64;
                    if v > 1 << 31 {
                        return None;
                    }
                    at += 1;
                }
                let v = if neg { -v } else { v };
                if at == digits {
                    return None;
                }
                buf.leaf32(i32::try_from(v).ok()?, is_static);
                pos = at;
            }
        }
        // After an element: it counts in its tuple; close tuples, or go on to the next element.
        loop {
            if depth_open == 0 {
                return (depth + deepest <= MAX_NESTING).then_some(pos);
            }
            open[depth_open - 1].1 += 1;
            ws(&mut pos);
            match b.get(pos) {
                Some(b',') => {
                    pos += 1;
                    continue 'element;
                }
                Some(b')') => {
                    pos += 1;
                    depth_open -= 1;
                    let (at, n) = open[depth_open];
                    buf.close_tuple(at as usize, n as usize);
                }
                _ => return None,
            }
        }
    }
}

/// CuTe's C++ spelling of the language's forms, read by the parser into the same nodes as the
/// short spelling (so everything after the parser sees one language):
/// - `_4{}`, `Int<4>{}`, `C<4>{}`, `Int<4>()` are `_4`;
/// - `make_shape(a, b)`, `make_stride`, `make_coord`, `make_step`, `make_tile`, `make_tuple` are `(a,b)`;
/// - `Shape<_4,_8>{}`, `Stride<...>`, `Step<...>`, `Coord<...>`, `Tile<...>`, `tuple<...>` are
///   `(_4,_8)` (`X` / `Underscore` inside them is `_`);
/// - `Layout<Shape<...>,Stride<...>>{}` is `S:D`, `Layout<Shape<...>>{}` is `make_layout(S)`;
/// - `MMA_Atom<OP>{}` is `mma_atom(OP)`, `Copy_Atom<OP,T>{}` is `copy_atom(OP,T)`;
/// - `T{}` for any other type (a swizzle, an atom, a mode order such as `LayoutRight{}`) is `T`;
/// - `size<I>(x)` (and `shape`, `stride`, `cosize`, `rank`, `depth`) is `size(get(x,I))`, `get<I>(x)` is `get(x,I)`;
/// - a leading `cute::` is dropped.
pub mod cpp {
    use super::{Ident, Name, TemplateArg};
    use crate::expr::op::Op;

    /// What a C++ name is in the language.
    pub enum Form {
        /// `make_shape(...)` and the like: a tuple of the arguments.
        Maker,
        /// A type whose value is an integer, `_` or a tuple / layout of them.
        Type,
        /// `MMA_Atom<OP>` / `Copy_Atom<OP,T>`: the operation's call on the template arguments.
        Atom(Op),
        /// `size<I>(x)`, `shape<I>(x)`, `stride<I>(x)`, `cosize<I>(x)`, `rank<I>(x)`,
        /// `depth<I>(x)`: the operation on `get(x, I)`; `get<I>(x)` is `get(x, I)`.
        Moded(Op, i64),
        /// `ComposedLayout<Swizzle<B,M,S>, _0, L>`: `composition(Swizzle<B,M,S>, L)`.
        Composed,
    }

    /// What a type's value is.
    pub enum ValueType {
        Int(i64),
        Underscore,
        Tuple,
        Layout,
    }

    /// The name without a leading `cute::`.
    pub fn strip_cute(mut n: Name) -> Name {
        if n.path.len() > 1 && n.path[0] == "cute" {
            n.path.remove(0);
        }
        n
    }

    /// The name of an operation, as the parser names it.
    pub fn op_name(op: Op) -> Name {
        Name { path: smallvec::smallvec![Ident::Borrowed(op.name())], targs: None }
    }

    /// The queries CuTe also spells with a mode index, `size<I>(x)`.
    const MODED: [Op; 6] = [Op::Size, Op::Shape, Op::Stride, Op::Cosize, Op::Rank, Op::Depth];

    pub fn form(n: &Name) -> Option<Form> {
        if n.path.len() != 1 {
            return None;
        }
        let id: &str = &n.path[0];
        match (id, n.targs.is_some()) {
            ("make_shape" | "make_stride" | "make_coord" | "make_step" | "make_tile" | "make_tuple", false) => {
                Some(Form::Maker)
            }
            ("MMA_Atom", true) => Some(Form::Atom(Op::MmaAtom)),
            ("Copy_Atom", true) => Some(Form::Atom(Op::CopyAtom)),
            ("ComposedLayout", true) => Some(Form::Composed),
            (_, true) if Op::by_name(id).is_some_and(|op| MODED.contains(&op) || op == Op::Get) => {
                match n.targs.as_deref() {
                    Some([super::TemplateArg::Int(i)]) => Op::by_name(id).map(|op| Form::Moded(op, *i)),
                    _ => None,
                }
            }
            _ => value_type(n).is_some_and(|t| !matches!(t, ValueType::Underscore) || id != "_").then_some(Form::Type),
        }
    }

    /// The value a C++ type stands for, if it is one of the language's.
    pub fn value_type(n: &Name) -> Option<ValueType> {
        let n = strip_cute(n.clone());
        if n.path.len() != 1 {
            return None;
        }
        let id: &str = &n.path[0];
        match (id, n.targs.as_deref()) {
            ("Int" | "C", Some([TemplateArg::Int(v)])) => Some(ValueType::Int(*v)),
            ("X" | "Underscore" | "_", None) => Some(ValueType::Underscore),
            ("Shape" | "Stride" | "Step" | "Coord" | "Tile" | "tuple", Some(_)) => Some(ValueType::Tuple),
            ("Layout", Some(_)) => Some(ValueType::Layout),
            (_, None) => {
                let digits = id.strip_prefix('_')?;
                let v: i64 = digits.parse().ok().filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
                (v <= i32::MAX as i64).then_some(ValueType::Int(v))
            }
            _ => None,
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn round_trip(s: &str) -> String {
        parse(s).unwrap().to_string()
    }

    #[test]
    fn parses_the_forms() {
        assert_eq!(round_trip(" (4, (2,4)) : (2,(1,8)) "), "(4,(2,4)):(2,(1,8))");
        assert_eq!(round_trip("logical_divide(_24:_1, _4:_2)"), "logical_divide(_24:_1,_4:_2)");
        assert_eq!(round_trip("(_4):(_1)"), "(_4):(_1)");
        assert_eq!(round_trip("_-1"), "_-1");
        assert_eq!(round_trip("(4,8):(1,4)(1,2)"), "(4,8):(1,4)(1,2)");
        assert_eq!(round_trip("composition(_4:_1,(_,_2))"), "composition(_4:_1,(_,_2))");
        assert_eq!(
            round_trip("mma_layout_a(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K, GMMA::Major::K>)"),
            "mma_layout_a(SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>)"
        );
        assert_eq!(round_trip("Swizzle<2,0,3>"), "Swizzle<2,0,3>");
    }

    #[test]
    fn reads_the_cpp_spelling_into_the_short_one() {
        assert_eq!(round_trip("Layout<Shape<_8,_64>,Stride<_64,_1>>{}"), "(_8,_64):(_64,_1)");
        assert_eq!(round_trip("cute::Layout<cute::Shape<cute::_8>, cute::Stride<Int<2>>>{}"), "(_8):(_2)");
        assert_eq!(round_trip("Layout<Shape<_4,_8>>{}"), "make_layout((_4,_8))");
        assert_eq!(round_trip("Layout<_4,_2>{}"), "_4:_2");
        // CuTe's `size<I>(x)` is `size(get<I>(x))` (the sm80 mainloop's
        // `make_identity_tensor(make_shape(size<0>(sA), size<1>(sA)))`).
        assert_eq!(round_trip("size<0>(Layout<_4,_2>{})"), "size(get(_4:_2,0))");
        assert_eq!(round_trip("make_shape(size<0>(x), shape<1>(x))"), "(size(get(x,0)),shape(get(x,1)))");
        assert!(parse("size<0>(x, y)").is_err());
        // `get<I>(x)` is `get(x, I)` (the FP8 blockwise mainloop's `get<0>(shape(SmemLayoutSFA{}))`).
        assert_eq!(round_trip("get<1>(shape(Layout<Shape<_4,_2>>{}))"), "get(shape(make_layout((_4,_2))),1)");
        assert!(parse("get<0>(x, y)").is_err());
        assert_eq!(
            round_trip("make_layout(make_shape(Int<128>{}, 64), make_stride(_1{}, C<128>()))"),
            "make_layout((_128,64),(_1,_128))"
        );
        assert_eq!(round_trip("make_layout(make_shape(_4{},_8{}), LayoutRight{})"), "make_layout((_4,_8),LayoutRight)");
        assert_eq!(round_trip("Step<_1,X,_1>{}"), "(_1,_,_1)");
        assert_eq!(round_trip("make_coord(_, _, 2)"), "(_,_,2)");
        assert_eq!(round_trip("Shape<>{}"), "()");
        assert_eq!(round_trip("Int<-3>{}"), "_-3");
        assert_eq!(round_trip("Swizzle<3,3,3>{}"), "Swizzle<3,3,3>");
        assert_eq!(
            round_trip("ComposedLayout<Swizzle<1,0,2>, _0, Layout<Shape<_4,_4>, Stride<_1,_4>>>{}"),
            "composition(Swizzle<1,0,2>,(_4,_4):(_1,_4))"
        );
        assert_eq!(
            round_trip("cute::ComposedLayout<cute::Swizzle<3,3,3>,Int<0>,Layout<Shape<_8,_64>>>{}"),
            "composition(Swizzle<3,3,3>,make_layout((_8,_64)))"
        );
        for bad in [
            "ComposedLayout<Swizzle<0,0,2>,_0,Layout<_4,_1>>{}",
            "ComposedLayout<Swizzle<1,0,2>,_1,Layout<_4,_1>>{}",
            "ComposedLayout<Swizzle<1,0,2>,_0>{}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(round_trip("MMA_Atom<SM80_16x8x8_F16F16F16F16_TN>{}"), "mma_atom(SM80_16x8x8_F16F16F16F16_TN)");
        assert_eq!(
            round_trip("Copy_Atom<UniversalCopy<uint32_t>,float>{}"),
            "copy_atom(UniversalCopy<uint32_t>,float)"
        );
        assert_eq!(
            round_trip("tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{},Int<64>{},Int<3>{}))"),
            "tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>,(_128,_64,_3))"
        );
        // The short spelling is unchanged, and a name that is not a C++ form stays a name.
        assert_eq!(round_trip("make_shape"), "make_shape");
        assert_eq!(round_trip("Int"), "Int");
    }

    #[test]
    fn integer_arithmetic_on_literals_is_folded() {
        assert_eq!(round_trip("Int<128>{}+Int<1>{}"), "_129");
        assert_eq!(round_trip("make_stride(Int<1>{}, Int<128>{} + Int<1>{})"), "(_1,_129)");
        assert_eq!(round_trip("128+_1"), "129");
        assert_eq!(round_trip("2+3*_4-1"), "13");
        assert_eq!(round_trip("_2+_3*_4-_1"), "_13");
        assert_eq!(round_trip("_0*7"), "_0");
        assert_eq!(round_trip("(_4,-1)"), "(_4,-1)");
        let e = parse("_4+size(_4:_1)").unwrap_err();
        assert_eq!(e.col, 4, "{e}");
        let e = parse("2147483647+1").unwrap_err();
        assert!(e.msg.contains("32-bit"), "{e}");
        assert!(parse("_4+").is_err());
    }

    #[test]
    fn cpp_spelling_errors_point_at_the_column() {
        let e = parse("size(Shape<4,_8>{})").unwrap_err();
        assert_eq!(e.col, 6, "{e}");
        assert!(e.msg.contains("not the number 4"), "{e}");
        let e = parse("size(Shape<_4,foo>{})").unwrap_err();
        assert_eq!(e.col, 6, "{e}");
        let e = parse("make_layout(Layout<Shape<_4>,Stride<_1>,Stride<_1>>{})").unwrap_err();
        assert_eq!(e.col, 13, "{e}");
        let e = parse("Int<4>{3}").unwrap_err();
        assert_eq!(e.col, 8, "{e}");
        let e = parse("make_shape(_4{},").unwrap_err();
        assert_eq!(e.col, 17, "{e}");
        let e = parse("Copy_Atom<UniversalCopy<uint32_t>>{}").unwrap_err();
        assert_eq!(e.col, 1, "{e}");
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = parse("(4,8:(1,4)").unwrap_err();
        assert_eq!(e.col, 11, "{e}");
        let e = parse("(4,8)):(1,4)").unwrap_err();
        assert_eq!(e.col, 6, "{e}");
        let e = parse("99999999999").unwrap_err();
        assert_eq!(e.col, 1);
        assert!(parse("").is_err());
        assert!(parse(&"(".repeat(10_000)).is_err());
    }

    #[test]
    fn columns_count_characters() {
        // Non-ASCII whitespace is skipped like ASCII whitespace; a column counts characters.
        let e = parse("\u{3000}(1,\u{3000}é)").unwrap_err();
        assert_eq!((e.col, e.msg.as_str()), (6, "unexpected 'é'"));
        let e = parse("(1,2)\u{a0}x").unwrap_err();
        assert_eq!((e.col, e.msg.as_str()), (7, "unexpected 'x' after the expression"));
        let e = parse("(é\u{3000}").unwrap_err();
        assert_eq!((e.col, e.msg.as_str()), (2, "unexpected 'é'"));
        let e = parse("f<é>").unwrap_err();
        assert_eq!((e.col, e.msg.as_str()), (3, "expected a name"));
        let e = parse("\u{2003}(1,\u{2003}99999999999)").unwrap_err();
        assert_eq!((e.col, e.msg.as_str()), (6, "integer 99999999999 does not fit CuTe's 32-bit int"));
        assert_eq!(round_trip("\u{3000}_4\u{2003}:\u{3000}(_1\u{a0},2)"), "_4:(_1,2)");
    }

    /// Int tuple literals at the edges of the fast path (whitespace, limits, forms that leave it).
    pub(crate) fn literal_edge_cases() -> Vec<String> {
        let mut lines: Vec<String> = [
            "()",
            "( )",
            "(())",
            "((),())",
            "(1 ,2 )",
            "( _4 , ( _8 ,\t_2\n) )",
            "(_-0,-0)",
            "(2147483647,-2147483648)",
            "(2147483648)",
            "(-2147483649)",
            "(_ 4)",
            "(- 4)",
            "(_-)",
            "(4abc)",
            "(_,_4)",
            "((1,2):(3,4),5)",
            "((1)(0),2)",
            "(1,2)(0)",
            "(1,2):(3,4)",
            "(1,2",
            "(1,,2)",
            "(,)",
            "(1,)",
            "(\u{3000}1,2)",
            "(1,\u{a0}2)",
            "(é)",
            "((1,2),(3,(4,5)))x",
            "(99999999999999999999999)",
            "(1)(2)(3)",
            "((_1:_0),2)",
            "(size(_4:_1),2)",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // At and around the nesting limit, alone and under a call and an application.
        for d in [MAX_NESTING - 2, MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1] {
            let t = format!("{}1{}", "(".repeat(d), ")".repeat(d));
            lines.push(format!("size({t})"));
            lines.push(format!("{t}(0)"));
            lines.push(format!("({t},{t})"));
            lines.push(t);
        }
        lines
    }

    #[test]
    fn evaluation_chains_count_as_nesting() {
        // 48 KB of `(0)` under the 64 KiB input limit: refused by depth, not by a stack overflow.
        let long = format!("_1{}", "(0)".repeat(16_000));
        let e = parse(&long).unwrap_err();
        assert!(e.msg.contains("nesting deeper than"), "{e}");
        let ok = format!("(_4,_4):(_1,_4){}", "(0)".repeat(MAX_NESTING / 2));
        assert!(parse(&ok).is_ok());
        let too_deep = format!("(_4,_4):(_1,_4){}", "(0)".repeat(MAX_NESTING));
        assert!(parse(&too_deep).is_err());
        // Chains inside nested tuples add up with the tuples' depth.
        let mixed = format!("{}_1{}{}", "(".repeat(40), "(0)".repeat(30), ")".repeat(40));
        assert!(parse(&mixed).is_err());
    }
}
