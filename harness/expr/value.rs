//! Values of the expression language and their CuTe-style printing.

use std::fmt;

use crate::engine::atom::{copy, mma, partition, tiled_copy, tiled_mma};
use crate::engine::scaled_basis::{self, BasisLayout, BasisValue};
use crate::engine::swizzle::{ComposedLayout, Swizzle, SwizzledLayout};
use crate::engine::{Error, Int, IntTuple, Layout, Result, Tup, View};

/// What an expression evaluates to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A static or dynamic integer.
    Int(Int),
    /// CuTe's `_` (Underscore).
    Underscore,
    /// A tuple: an int tuple when every leaf is an Int, otherwise a tuple of layouts (a tiler).
    Tuple(Vec<Value>),
    Layout(Layout),
    /// Atom names, swizzles and swizzled layouts (see builtins/atoms.rs).
    Atom(AtomValue),
}

impl Value {
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Underscore => "_",
            Value::Tuple(_) => "a tuple",
            Value::Layout(_) => "a layout",
            Value::Atom(a) => a.kind(),
        }
    }
    /// This value as an int tuple (an integer or a tuple of only integers).
    pub fn to_int_tuple(&self) -> Result<IntTuple> {
        match self {
            Value::Int(i) => Ok(IntTuple::leaf(*i)),
            Value::Tuple(v) => Ok(IntTuple::tuple(v.iter().map(Value::to_int_tuple).collect::<Result<Vec<_>>>()?)),
            other => Err(Error::Type(format!("expected an int tuple, found {}", other.kind()))),
        }
    }
    pub fn to_int(&self) -> Result<Int> {
        match self {
            Value::Int(i) => Ok(*i),
            other => Err(Error::Type(format!("expected an integer, found {}", other.kind()))),
        }
    }
    pub fn to_layout(&self) -> Result<Layout> {
        match self {
            Value::Layout(l) => Ok(l.clone()),
            other => Err(Error::Type(format!("expected a layout, found {}", other.kind()))),
        }
    }
    /// A value of the basis arithmetic as a value of the language (an integer stays one).
    pub fn from_basis(v: BasisValue) -> Value {
        match v {
            BasisValue::Int(i) => Value::Int(i),
            other => Value::Atom(AtomValue::Basis(other)),
        }
    }
    /// This value as a stride that may hold basis elements (`None`: it holds something else).
    pub fn to_basis(&self) -> Option<BasisValue> {
        match self {
            Value::Int(i) => Some(BasisValue::Int(*i)),
            Value::Atom(AtomValue::Basis(b @ BasisValue::Basis(_))) => Some(b.clone()),
            Value::Tuple(v) => Some(BasisValue::Tuple(v.iter().map(Value::to_basis).collect::<Option<_>>()?)),
            _ => None,
        }
    }
    /// A layout with basis strides, when the value is one.
    pub fn as_basis_layout(&self) -> Option<&BasisLayout> {
        match self {
            Value::Atom(AtomValue::BasisLayout(l)) => Some(l),
            _ => None,
        }
    }
    /// `shape:stride` for any stride value: a layout, or a layout with basis strides.
    pub fn layout_of(shape: IntTuple, stride: &Value) -> Result<Value> {
        match stride.to_basis() {
            Some(d) if d.has_basis() => Ok(Value::Atom(AtomValue::BasisLayout(BasisLayout::new(shape, d)?))),
            _ => Ok(Value::Layout(Layout::new(shape, stride.to_int_tuple()?)?)),
        }
    }
    pub fn from_int_tuple(t: &Tup) -> Value {
        match t.view() {
            View::Leaf(i) => Value::Int(i),
            View::Tuple(v) => Value::Tuple(v.iter().map(Value::from_int_tuple).collect()),
        }
    }
}

impl From<Layout> for Value {
    fn from(l: Layout) -> Self {
        Value::Layout(l)
    }
}
impl From<SwizzledLayout> for Value {
    fn from(x: SwizzledLayout) -> Value {
        match x {
            SwizzledLayout::Plain(l) => Value::Layout(l),
            SwizzledLayout::Composed(c) => Value::Atom(AtomValue::Composed(c)),
        }
    }
}

impl From<Int> for Value {
    fn from(i: Int) -> Self {
        Value::Int(i)
    }
}

impl fmt::Display for Value {
    /// CuTe's `print` of the corresponding C++ object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Value {
    /// `Display` into any writer (`eval -` writes its answers into a `String` directly).
    pub fn write_to<W: fmt::Write + ?Sized>(&self, f: &mut W) -> fmt::Result {
        match self {
            Value::Int(i) => i.write_to(f),
            Value::Underscore => f.write_str("_"),
            Value::Layout(l) => l.write_to(f),
            Value::Atom(a) => write!(f, "{a}"),
            Value::Tuple(v) => crate::engine::int_tuple::write_tuple(f, v),
        }
    }
}

/// The atom area's values: atom and type names, swizzles, swizzled layouts, atoms, tiled MMAs and
/// copies, partitions (see `builtins/atoms.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtomValue {
    /// A C++ atom, copy operation or value type name, canonical spelling.
    Name(String),
    Swizzle(Swizzle),
    Composed(ComposedLayout),
    /// A composed layout whose inner layout is composed (`Sw o _0 o Sw' o _0 o L`: what
    /// `composition` makes of two swizzled layouts, engine/composed_composition.rs).
    Nested(Box<crate::engine::composed_composition::Nested>),
    /// `MMA_Atom<Op>{}`, `Copy_Atom<Op,T>{}`, a TiledMMA, a TiledCopy: printed as CuTe prints them.
    Mma(Box<mma::MmaAtom>),
    Copy(Box<copy::CopyAtom>),
    TiledMma(Box<tiled_mma::TiledMma>),
    TiledCopy(Box<tiled_copy::TiledCopy>),
    /// One thread's part of a tensor over a counting iterator (`counting_iter(N) o L`).
    Partition(partition::Partition),
    /// What one warp-wide load costs (`warp_access`).
    Access(crate::engine::warp_access::Cost),
    /// A basis element (`_1@0`, `3@1`) or an arithmetic tuple (`L(c)` of a basis layout).
    Basis(scaled_basis::BasisValue),
    /// The arguments of CuTe's `cuTensorMapEncodeIm2col` call (`tma_im2col_desc_args`).
    Im2colDesc(Box<crate::engine::tma_im2col::Im2colDescriptor>),
    /// CuTe's static ratio `R<a,b>`, or a basis element with one as its value (`_1/_16@1`).
    Ratio(crate::engine::equality::RatioBasis),
    /// A layout whose strides hold basis elements (`make_identity_layout(S)`, `(_4,_8):(_1@0,_1@1)`).
    BasisLayout(scaled_basis::BasisLayout),
    /// A tensor over an arithmetic-tuple iterator (`make_identity_tensor(S)` and its partitions,
    /// `ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1)`).
    CoordTensor(crate::engine::coord_tensor::CoordTensor),
    /// A TMA copy (`make_tma_copy`, printed as its TiledCopy; `make_tma_atom`, printed as its
    /// Copy_Atom) with what CuTe computed on the host (see `builtins/tma.rs`).
    Tma(Box<crate::engine::tma::TmaCopy>, TmaView),
    /// The `cuTensorMapEncodeTiled` arguments of a TMA (`tma_desc_args`).
    TmaDesc(Box<crate::engine::tma::TmaDescriptor>),
    /// A `GmmaDescriptor` made on the host (`make_gmma_desc`).
    GmmaDesc(crate::engine::make_gmma_desc::OnHost<crate::engine::make_gmma_desc::GmmaDescriptor>),
    /// A `UMMA::SmemDescriptor` made on the host (`make_umma_desc`).
    UmmaDesc(crate::engine::make_gmma_desc::OnHost<crate::engine::make_umma_desc::SmemDescriptor>),
    /// A UMMA atom's instruction descriptor (`make_instr_desc`).
    InstrDesc(crate::engine::make_instr_desc::InstrDesc),
    /// `cute::lazy::transform(T, pred)` of a coordinate tensor (`lazy_transform_elem_less`) and its
    /// parts: `trans_ArithTuple(...) o L`.
    Transform(crate::engine::lazy_transform::TransformTensor),
    /// A tensor of MMA smem descriptors (`mma_make_fragment_a/b`: `UMMA::DescriptorIterator o L`).
    DescTensor(crate::engine::make_fragment_a::DescTensor),
}

/// What a TMA value is in CuTe: the TiledCopy of `make_tma_copy` or the Copy_Atom of `make_tma_atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaView {
    TiledCopy,
    Atom,
}

impl AtomValue {
    pub fn kind(&self) -> &'static str {
        match self {
            AtomValue::Name(_) => "a C++ name",
            AtomValue::Swizzle(_) => "a swizzle",
            AtomValue::Composed(_) => "a swizzled layout",
            AtomValue::Nested(_) => "a composed layout of a composed layout",
            AtomValue::Mma(_) => "an MMA atom",
            AtomValue::Copy(_) => "a copy atom",
            AtomValue::TiledMma(_) => "a tiled MMA",
            AtomValue::TiledCopy(_) => "a tiled copy",
            AtomValue::Partition(_) => "a partitioned tensor",
            AtomValue::Access(_) => "a warp access's cost",
            AtomValue::Basis(_) => "a basis element or arithmetic tuple",
            AtomValue::Ratio(_) => "a ratio R<a,b> or a basis element with one as its value",
            AtomValue::Im2colDesc(_) => "the arguments of cuTensorMapEncodeIm2col",
            AtomValue::BasisLayout(_) => "a layout with basis strides",
            AtomValue::CoordTensor(_) => "an identity (coordinate) tensor",
            AtomValue::Tma(_, TmaView::TiledCopy) => "a TMA tiled copy",
            AtomValue::Tma(_, TmaView::Atom) => "a TMA copy atom",
            AtomValue::TmaDesc(_) => "a TMA descriptor's arguments",
            AtomValue::GmmaDesc(_) => "a GMMA shared-memory descriptor",
            AtomValue::UmmaDesc(_) => "a UMMA shared-memory descriptor",
            AtomValue::InstrDesc(_) => "a UMMA instruction descriptor",
            AtomValue::DescTensor(_) => "a tensor of MMA descriptors",
            AtomValue::Transform(_) => "a transform (predicate) tensor",
        }
    }
    /// `X(coord)`: a swizzle applied to an integer, a composed layout evaluated at a coordinate.
    pub fn apply(&self, coord: &Tup) -> Result<Value> {
        match self {
            AtomValue::Swizzle(sw) => {
                let i =
                    coord.as_leaf().ok_or_else(|| Error::Type(format!("a swizzle takes an integer, got {coord}")))?;
                Ok(Value::Int(Int::new(sw.apply(i.value), i.is_static)))
            }
            AtomValue::Composed(c) => Ok(Value::Int(c.call(coord)?)),
            AtomValue::Nested(n) => {
                Ok(Value::Int(crate::engine::composed_composition::Composite::Nested(n.clone()).call(coord)?))
            }
            AtomValue::BasisLayout(l) => Ok(Value::from_basis(l.call(coord)?)),
            AtomValue::CoordTensor(t) => Ok(Value::from_basis(t.at(coord)?)),
            other => Err(Error::Type(format!("{} cannot be evaluated at a coordinate", other.kind()))),
        }
    }
}

impl fmt::Display for AtomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtomValue::Name(n) => f.write_str(n),
            AtomValue::Swizzle(s) => write!(f, "{s}"),
            AtomValue::Composed(c) => write!(f, "{c}"),
            AtomValue::Nested(n) => write!(f, "{n}"),
            AtomValue::Mma(a) => f.write_str(&a.print()),
            AtomValue::Copy(a) => f.write_str(&a.print()),
            AtomValue::TiledMma(m) => f.write_str(&m.print()),
            AtomValue::TiledCopy(c) => f.write_str(&c.print()),
            AtomValue::Partition(p) => write!(f, "{p}"),
            AtomValue::Access(c) => write!(f, "{c}"),
            AtomValue::Basis(b) => write!(f, "{b}"),
            AtomValue::Ratio(r) => write!(f, "{r}"),
            AtomValue::Im2colDesc(d) => write!(f, "{d}"),
            AtomValue::BasisLayout(l) => write!(f, "{l}"),
            AtomValue::CoordTensor(t) => write!(f, "{t}"),
            AtomValue::Tma(t, TmaView::TiledCopy) => match &t.tiled {
                Some(tc) => f.write_str(&tc.print()),
                None => f.write_str(&t.atom.print()),
            },
            AtomValue::Tma(t, TmaView::Atom) => f.write_str(&t.atom.print()),
            AtomValue::TmaDesc(d) => write!(f, "{d}"),
            AtomValue::GmmaDesc(d) => write!(f, "{d}"),
            AtomValue::UmmaDesc(d) => write!(f, "{d}"),
            AtomValue::InstrDesc(d) => write!(f, "{d}"),
            AtomValue::DescTensor(t) => write!(f, "{t}"),
            AtomValue::Transform(t) => write!(f, "{t}"),
        }
    }
}
