//! Builtins of the layout algebra: coalesce, filter, filter_zeros, composition, complement,
//! right_inverse, left_inverse, max_common_vector, max_common_layout, the divides, the products,
//! local_tile and local_partition. A tuple value of layouts, integers and `_` is a tiler.

use crate::engine::slice::Coord;
use crate::engine::tiler::{Elem, TilerView};
use crate::engine::{coalesce, complement, composition, filter, left_inverse, local_partition, local_tile, max_common};
use crate::engine::{right_inverse, Error, Layout, Result, Tiler};
use crate::expr::parse::Name;
use crate::expr::value::{AtomValue, Value};

/// A value as a tiler: a layout, an integer (`n:_1`), `_`, or a tuple of tilers.
pub fn to_tiler(v: &Value) -> Result<Tiler> {
    match v {
        Value::Layout(l) => Ok(Tiler::Layout(l.clone())),
        Value::Int(i) => Ok(Tiler::Int(*i)),
        Value::Underscore => Ok(Tiler::Underscore),
        Value::Tuple(items) => Ok(Tiler::Tuple(items.iter().map(to_tiler).collect::<Result<_>>()?)),
        Value::Atom(a) => Err(Error::Type(format!("expected a tiler, found {}", a.kind()))),
    }
}

/// The layout inside `v`, borrowed (the operations never need their operands by value).
fn layout<'a>(v: &'a Value, what: &str) -> Result<&'a Layout> {
    match v {
        Value::Layout(l) => Ok(l),
        other => Err(Error::Type(format!("{what} needs a layout, found {}", other.kind()))),
    }
}

// The engine entries of the algebra (see the table in `harness/expr/op.rs`, which checks the argument
// counts before calling them).

/// An operation `f(A, tiler)`: the divides and the by-tiler products.
pub fn by_tiler(name: &Name, args: &[Value], op: fn(&Layout, &Tiler) -> Result<Layout>) -> Result<Value> {
    Ok(Value::Layout(op(layout(&args[0], name.base())?, &to_tiler(&args[1])?)?))
}

/// [`by_tiler`] for an operation with a small path on a borrowed tiler (`small`, tried first on
/// a layout, an integer, or a tuple of at most 4 of them, without building the [`Tiler`]).
pub fn by_tiler_view(
    name: &Name,
    args: &[Value],
    op: fn(&Layout, &Tiler) -> Result<Layout>,
    small: fn(&Layout, TilerView<'_>) -> Option<Layout>,
) -> Result<Value> {
    if let Some(r) = divide_tensor(args, op) {
        return r;
    }
    let a = layout(&args[0], name.base())?;
    fn elem(v: &Value) -> Option<Elem<'_>> {
        match v {
            Value::Layout(l) => Some(Elem::Layout(l)),
            Value::Int(i) => Some(Elem::Int(*i)),
            _ => None,
        }
    }
    let r = match &args[1] {
        Value::Tuple(items) if items.len() <= 4 => {
            let elems: Option<arrayvec::ArrayVec<Elem<'_>, 4>> = items.iter().map(elem).collect();
            elems.and_then(|e| small(a, TilerView::Tuple(&e)))
        }
        v => elem(v).and_then(|e| small(a, TilerView::One(e))),
    };
    match r {
        Some(r) => Ok(Value::Layout(r)),
        None => Ok(Value::Layout(op(a, &to_tiler(&args[1])?)?)),
    }
}

/// A divide of a tensor that is a partition value (a slice of as_position_independent_swizzle_tensor's,
/// the RS mainloop's B transposition `zipped_divide(sB(_,_,read_stage), WarpTileShape)`,
/// sm90_wgmma_transpose.hpp): `make_tensor(T.data(), D(T.layout(), tiler))` (tensor_impl.hpp),
/// [`Partition::with_layout`](crate::engine::atom::partition::Partition::with_layout); `None`
/// for any other first operand.
pub fn divide_tensor(args: &[Value], op: fn(&Layout, &Tiler) -> Result<Layout>) -> Option<Result<Value>> {
    let Value::Atom(AtomValue::Partition(p)) = args.first()? else { return None };
    Some((|| {
        let t = to_tiler(&args[1])?;
        Ok(Value::Atom(AtomValue::Partition(p.with_layout(|l| op(l, &t))?)))
    })())
}

/// An operation `f(A, B)` of two layouts: blocked_product, raked_product, max_common_layout.
/// An operation `f(L)` of one layout.
pub fn of_layout(name: &Name, args: &[Value], op: fn(&Layout) -> Result<Layout>) -> Result<Value> {
    Ok(Value::Layout(op(layout(&args[0], name.base())?)?))
}

/// An operation on the layout of a layout or of a tensor: CuTe's `make_fragment_like(T)` and
/// `make_tensor_like(T)` of a tensor T are the layout operations on `T.layout()`
/// (tensor_impl.hpp). A partition's tensor layout is its layout, unless its counting tensor kept a
/// swizzle (`Sw o off o L`, a ComposedLayout, refused here).
pub fn of_tensor_layout(name: &Name, args: &[Value], op: fn(&Layout) -> Result<Layout>) -> Result<Value> {
    use crate::engine::atom::partition::Over;
    match &args[0] {
        Value::Atom(AtomValue::Partition(p)) if !matches!(p.over, Over::Composed(..)) => {
            Ok(Value::Layout(op(&p.layout)?))
        }
        v => Ok(Value::Layout(op(layout(v, name.base())?)?)),
    }
}

pub fn of_layouts(name: &Name, args: &[Value], op: fn(&Layout, &Layout) -> Result<Layout>) -> Result<Value> {
    let n = name.base();
    Ok(Value::Layout(op(layout(&args[0], n)?, layout(&args[1], n)?)?))
}

pub fn coalesce(name: &Name, args: &[Value]) -> Result<Value> {
    let l = layout(&args[0], name.base())?;
    if let (None, Some(r)) = (args.get(1), coalesce::small(l)) {
        return Ok(Value::Layout(r));
    }
    Ok(Value::Layout(match args.get(1) {
        None => coalesce::coalesce(l)?,
        Some(p) => coalesce::coalesce_by(l, &p.to_int_tuple()?)?,
    }))
}

pub fn filter(name: &Name, args: &[Value]) -> Result<Value> {
    let l = layout(&args[0], name.base())?;
    Ok(Value::Layout(match args.get(1) {
        None => filter::filter(l)?,
        Some(p) => filter::filter_by(l, &p.to_int_tuple()?)?,
    }))
}

/// `filter_zeros(L)` of a layout; of a tensor T (a partition, or its slice, over a plain layout)
/// the tensor `make_tensor(T.data(), filter_zeros(T.layout()))` (tensor_impl.hpp): the kernels'
/// predicate shape `make_tensor<bool>(shape(filter_zeros(tSFAsSFA(_,_,_,_0{}))))`.
pub fn filter_zeros(name: &Name, args: &[Value]) -> Result<Value> {
    use crate::engine::atom::partition::Over;
    if let Value::Atom(AtomValue::Partition(p)) = &args[0] {
        if matches!(p.over, Over::Counting | Over::SmemSwizzle(..) | Over::PlainSmem(_, None)) {
            return Ok(Value::Atom(AtomValue::Partition(p.with_layout(filter::filter_zeros)?)));
        }
    }
    Ok(Value::Layout(filter::filter_zeros(layout(&args[0], name.base())?)?))
}

/// `composition(A, B)` for a layout or tiler `B`; a swizzle operand is the atom area's
/// (`builtins::atoms::composition`).
pub fn composition(name: &Name, args: &[Value]) -> Result<Value> {
    if let Some(r) = super::atoms::composition(args) {
        return r;
    }
    let a = layout(&args[0], name.base())?;
    Ok(Value::Layout(match &args[1] {
        Value::Layout(b) => composition::composition(a, b)?,
        other => composition::composition_tiler(a, &to_tiler(other)?)?,
    }))
}

pub fn complement(name: &Name, args: &[Value]) -> Result<Value> {
    let a = layout(&args[0], name.base())?;
    if let Some(Value::Int(n)) = args.get(1) {
        if let Some(r) = complement::small_int(a, *n) {
            return Ok(Value::Layout(r));
        }
    }
    // Before 3.5 the cotarget is an integer only ([`crate::engine::release::COMPLEMENT_TAKES_A_SHAPE`]).
    if let Some(v) = args.get(1) {
        if !matches!(v, Value::Int(_)) && !crate::engine::release::COMPLEMENT_TAKES_A_SHAPE.on() {
            return Err(crate::engine::Error::Rejected {
                condition: "Expected integral codomain size in complement.",
                detail: format!("a cotarget that is not an integer (modelled: {})", crate::engine::release::current()),
            });
        }
    }
    // CuTe takes shape(cotarget): an int tuple, or a layout's shape.
    let cot = match args.get(1) {
        None => None,
        Some(Value::Layout(l)) => Some(l.shape.clone()),
        Some(Value::Int(i)) => Some(crate::engine::IntTuple::leaf(*i)),
        Some(v) => Some(v.to_int_tuple()?),
    };
    Ok(Value::Layout(complement::complement(a, cot.as_deref())?))
}

pub fn right_inverse(name: &Name, args: &[Value]) -> Result<Value> {
    match &args[0] {
        Value::Underscore => Ok(Value::Underscore),
        v => Ok(Value::Layout(right_inverse::right_inverse(layout(v, name.base())?)?)),
    }
}

pub fn left_inverse(name: &Name, args: &[Value]) -> Result<Value> {
    match &args[0] {
        Value::Underscore => Ok(Value::Underscore),
        v => Ok(Value::Layout(left_inverse::left_inverse(layout(v, name.base())?)?)),
    }
}

pub fn max_common_vector(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    Ok(Value::Int(max_common::max_common_vector(layout(&args[0], n)?, layout(&args[1], n)?)?))
}

pub fn local_tile(name: &Name, args: &[Value]) -> Result<Value> {
    let (tiler, coord) = projected_tile(args)?;
    let coord = Coord::from_tiler(&to_tiler(&coord)?)?;
    Ok(Value::Layout(local_tile::local_tile(layout(&args[0], name.base())?, &to_tiler(&tiler)?, &coord)?))
}

/// CuTe's `dice(proj, t)` on values (underscore.hpp): the parts of `t` that `proj` pairs with an
/// integer (a nested projection's kept parts flattened one level, as `filter_tuple` does).
pub fn dice_value(proj: &Value, t: &Value) -> Result<Value> {
    fn lift(p: &Value, t: &Value, out: &mut Vec<Value>) -> Result<()> {
        match p {
            Value::Underscore => Ok(()),
            Value::Int(_) => {
                out.push(t.clone());
                Ok(())
            }
            Value::Tuple(ps) => {
                let Value::Tuple(ts) = t else {
                    return Err(Error::OutOfRange(format!("a projection of rank {} for {t}", ps.len())));
                };
                if ps.len() != ts.len() {
                    return Err(Error::MismatchedRanks {
                        detail: format!("projecting {t} by a Step of rank {}", ps.len()),
                    });
                }
                ps.iter().zip(ts).try_for_each(|(p, t)| lift(p, t, out))
            }
            other => Err(Error::Type(format!("a projection holds integers and _, found {}", other.kind()))),
        }
    }
    match proj {
        Value::Underscore => Ok(Value::Tuple(vec![])),
        Value::Int(_) => Ok(t.clone()),
        _ => {
            let mut out = Vec::new();
            lift(proj, t, &mut out)?;
            Ok(Value::Tuple(out))
        }
    }
}

/// The tiler and coordinate of `local_tile(L, tiler, coord[, proj])`: with a projection (a Step such
/// as `(_1,_,_1)`, CuTe's `Step<_1,X,_1>`), `dice(proj, tiler)` and `dice(proj, coord)` (tensor_impl.hpp).
pub(crate) fn projected_tile(args: &[Value]) -> Result<(Value, Value)> {
    match args.get(3) {
        None => Ok((args[1].clone(), args[2].clone())),
        Some(p) => Ok((dice_value(p, &args[1])?, dice_value(p, &args[2])?)),
    }
}

/// The thread layout of `local_partition(L, thr, index[, proj])`: `dice(proj, thr)` with a projection.
pub(crate) fn projected_threads(args: &[Value], n: &str) -> Result<Layout> {
    let thr = layout(&args[1], n)?;
    match args.get(3) {
        None => Ok(thr.clone()),
        Some(p) => crate::engine::dice::dice(&to_coord(p)?, thr),
    }
}

/// The offset of local_tile's tensor into the original one (where its pointer moves): CuTe's
/// `*local_tile(counting tensor, ...).data()`, a plain `int`.
pub fn local_tile_offset(name: &Name, args: &[Value]) -> Result<Value> {
    let (tiler, coord) = projected_tile(args)?;
    let coord = Coord::from_tiler(&to_tiler(&coord)?)?;
    let (_, off) = local_tile::local_tile_with_offset(layout(&args[0], name.base())?, &to_tiler(&tiler)?, &coord)?;
    Ok(Value::Int(crate::engine::Int::dy(off.value)))
}

/// The offset of local_partition's tensor into the original one, as [`local_tile_offset`].
pub fn local_partition_offset(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let idx = args[2].to_int()?;
    let (_, off) =
        local_partition::local_partition_with_offset(layout(&args[0], n)?, &projected_threads(args, n)?, idx)?;
    Ok(Value::Int(crate::engine::Int::dy(off.value)))
}

pub fn local_partition(name: &Name, args: &[Value]) -> Result<Value> {
    let n = name.base();
    let idx = args[2].to_int()?;
    Ok(Value::Layout(local_partition::local_partition(layout(&args[0], n)?, &projected_threads(args, n)?, idx)?))
}

/// `tile_to_shape(L, shape[, order])`: the order is a Step (an int tuple) or a mode-order tag
/// (`GenColMajor`, `GenRowMajor`, `LayoutLeft`, `LayoutRight`); a swizzled layout is the atom
/// area's (`atoms::on_composed`).
pub fn tile_to_shape(name: &Name, args: &[Value]) -> Result<Value> {
    use crate::engine::tile_to_shape as tts;
    let block = layout(&args[0], name.base())?;
    Ok(Value::Layout(tts::tile_to_shape(block, &args[1].to_int_tuple()?, &order_arg(name, args.get(2))?)?))
}

/// `tile_to_mma_shape(atom, S[, order])` of a layout atom (a swizzled one: `atoms::on_composed`).
/// cute/atom/mma_traits_sm100.hpp declares it from CUTLASS 3.8 (with the SM100 atoms, whose
/// first release `atom::since` records: `SM100_MMA_F16BF16_SS`).
pub fn tile_to_mma_shape(name: &Name, args: &[Value]) -> Result<Value> {
    crate::engine::atom::check_declared(
        "SM100_MMA_F16BF16_SS",
        "namespace \"cute::UMMA\" has no member \"tile_to_mma_shape\"",
    )?;
    let block = layout(&args[0], name.base())?;
    let order = order_arg(name, args.get(2))?;
    Ok(Value::Layout(crate::engine::tile_to_mma_shape::tile_to_mma_shape(block, &args[1].to_int_tuple()?, &order)?))
}

/// The mode order of `tile_to_shape` / `tile_to_mma_shape`: a Step (an int tuple) or a tag.
fn order_arg(name: &Name, o: Option<&Value>) -> Result<crate::engine::tile_to_shape::Order> {
    use crate::engine::tile_to_shape::Order;
    Ok(match o {
        None => Order::ColMajor,
        Some(Value::Atom(crate::expr::value::AtomValue::Name(tag))) if super::atoms::is_row_major(tag) => {
            Order::RowMajor
        }
        Some(Value::Atom(crate::expr::value::AtomValue::Name(tag)))
            if tag.ends_with("Left") || tag.ends_with("ColMajor") =>
        {
            Order::ColMajor
        }
        Some(v @ (Value::Int(_) | Value::Tuple(_))) => Order::Steps(v.to_int_tuple()?),
        Some(other) => {
            return Err(Error::Type(format!(
                "{}: the order must be a Step or GenColMajor/GenRowMajor, found {}",
                name.base(),
                other.kind()
            )))
        }
    })
}

/// Whether a value holds CuTe's `_` anywhere (then `L(c)` slices rather than evaluates).
pub fn has_underscore(v: &Value) -> bool {
    match v {
        Value::Underscore => true,
        Value::Tuple(items) => items.iter().any(has_underscore),
        _ => false,
    }
}

/// A value as a slicing coordinate: `_`, an integer, or a tuple of them.
pub fn to_coord(v: &Value) -> Result<Coord> {
    match v {
        Value::Underscore => Ok(Coord::Under),
        Value::Int(i) => Ok(Coord::Int(*i)),
        Value::Tuple(items) => Ok(Coord::Tuple(items.iter().map(to_coord).collect::<Result<_>>()?)),
        other => Err(Error::Type(format!("a coordinate holds integers and _, found {}", other.kind()))),
    }
}

/// `slice(c, L)` (and `L(c)` for a coordinate with `_`): the modes `c` pairs with `_`.
pub fn slice(name: &Name, args: &[Value]) -> Result<Value> {
    if let Value::Atom(AtomValue::Composed(x)) = &args[1] {
        let (r, _) = crate::engine::swizzle_slice::slice_and_offset(&to_coord(&args[0])?, x)?;
        return Ok(r.into());
    }
    let l = layout(&args[1], name.base())?;
    Ok(Value::Layout(crate::engine::slice::slice(&to_coord(&args[0])?, l)?))
}

/// `dice(c, L)`: the modes `c` pairs with an integer.
pub fn dice(name: &Name, args: &[Value]) -> Result<Value> {
    let l = layout(&args[1], name.base())?;
    Ok(Value::Layout(crate::engine::dice::dice(&to_coord(&args[0])?, l)?))
}

/// `slice_and_offset(c, L)`: the tuple `(slice(c, L), L(c with _ as 0))`, printed as CuTe prints it.
pub fn slice_and_offset(name: &Name, args: &[Value]) -> Result<Value> {
    if let Value::Atom(AtomValue::Composed(x)) = &args[1] {
        let (r, off) = crate::engine::swizzle_slice::slice_and_offset(&to_coord(&args[0])?, x)?;
        return Ok(Value::Tuple(vec![r.into(), Value::Int(off)]));
    }
    let l = layout(&args[1], name.base())?;
    let (r, off) = crate::engine::slice::slice_and_offset(&to_coord(&args[0])?, l)?;
    Ok(Value::Tuple(vec![Value::Layout(r), Value::Int(off)]))
}

#[cfg(test)]
mod tests {
    use crate::expr::eval_str;

    #[test]
    fn chapter_table() {
        // The chapter's table ("Must hold" list of the task; identical to real CuTe 4.2's prints).
        for (e, want) in [
            ("coalesce((_2,(_1,_6)):(_1,(_6,_2)))", "_12:_1"),
            ("coalesce((2,(1,6)):(1,(6,2)))", "(2,1,6):(1,6,2)"),
            ("composition((_6,_2):(_8,_2),(_4,_3):(_3,_1))", "((_2,_2),_3):((_24,_2),_8)"),
            ("composition(make_layout_right((_4,_8)),make_layout_right((_8,_4)))", "(_8,_4):(_1,_8)"),
            ("composition(make_layout_right((_4,_8)),(_2,_8):(_2,_4))", "(_2,_8):(_16,_1)"),
            ("complement(_4:_2,_24)", "(_2,_3):(_1,_8)"),
            ("logical_divide(make_layout(_24),_4:_2)", "(_4,(_2,_3)):(_2,(_1,_8))"),
            ("zipped_divide(make_layout((_16,_8)),(_2,_2))", "((_2,_2),(_8,_4)):((_1,_16),(_2,_32))"),
            ("zipped_divide(make_layout((_16,_8)),(_16,_2))", "((_16,_2),(_1,_4)):((_1,_16),(_0,_32))"),
            ("composition((_8,_8):(_8,_1),(_8,_4):(_1,_16))", "(_8,_4):(_8,_2)"),
        ] {
            assert_eq!(eval_str(e).unwrap().to_string(), want, "{e}");
        }
        let err = eval_str("composition((_6,_2):(_8,_2),_4:_2)").unwrap_err().to_string();
        assert!(err.contains("Shape Divisibility Condition"), "{err}");
    }

    use crate::engine::{logical_divide, zipped_divide, Layout, Tiler};
    use crate::expr::Value;
    use crate::gen::{self, Staticness};
    use proptest::prelude::*;

    /// The value a tiler is written as.
    fn value(t: &Tiler) -> Value {
        match t {
            Tiler::Layout(l) => Value::Layout(l.clone()),
            Tiler::Int(i) => Value::Int(*i),
            Tiler::Underscore => Value::Underscore,
            Tiler::Tuple(v) => Value::Tuple(v.iter().map(value).collect()),
        }
    }

    fn operands() -> impl Strategy<Value = (Layout, Tiler)> {
        prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::Mixed)].prop_flat_map(|s| {
            let a = prop_oneof![gen::compact_layout(2, 8, s), gen::layout(2, 8, 40, s)];
            let t = prop_oneof![
                3 => prop::collection::vec(gen::tiler_element(s), 1..6).prop_map(Tiler::Tuple),
                1 => gen::tiler_element(s),
            ];
            (a, t)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// complement's builtin (the small path on the integer cotarget as it is first) answers as
        /// the engine's entry on the int tuple.
        #[test]
        fn complement_by_an_integer_is_the_engine_s(
            a in prop_oneof![4 => Just(Staticness::AllStatic), 1 => Just(Staticness::Mixed)].prop_flat_map(|s| prop_oneof![gen::compact_layout(2, 8, s), gen::layout(2, 8, 40, s), (1i64..4).prop_flat_map(move |k| gen::small_compact(4, k, s))]),
            n in gen::int(-2, 600, Staticness::Mixed),
        ) {
            let crate::expr::Expr::Call { name, .. } = crate::expr::parse("complement(_1,_1)").unwrap() else { unreachable!("a call") };
            let via_builtin = super::super::call(&name, &[Value::Layout(a.clone()), Value::Int(n)], true);
            let engine = crate::engine::complement::complement(&a, Some(&crate::engine::IntTuple::leaf(n))).map(Value::Layout);
            prop_assert_eq!(via_builtin, engine, "complement({}, {})", a, n);
        }

        /// The divides' builtins (the small paths on the borrowed tiler first, `by_tiler_view`)
        /// answer as the engine's entry points on the built tiler.
        #[test]
        fn the_borrowed_tiler_path_is_the_tiler_path((a, t) in operands()) {
            let args = [Value::Layout(a.clone()), value(&t)];
            for (text, op) in [("logical_divide", logical_divide::logical_divide as fn(&Layout, &Tiler) -> crate::engine::Result<Layout>), ("zipped_divide", zipped_divide::zipped_divide)] {
                let crate::expr::Expr::Call { name, .. } = crate::expr::parse(&format!("{text}(_1,_1)")).unwrap() else { unreachable!("a call") };
                let via_builtin = super::super::call(&name, &args, true);
                // The builtins name the operation of an overflow the engine leaves unnamed
                // (builtins/mod.rs): the same overflow either way.
                let direct = op(&a, &t).map(Value::Layout).map_err(|e| match e {
                    crate::engine::Error::Overflow { what, op: "" } => crate::engine::Error::Overflow { what, op: text },
                    e => e,
                });
                prop_assert_eq!(via_builtin, direct, "{}({}, {})", text, a, t);
            }
        }
    }
}

#[cfg(test)]
mod tensor_divide_tests {
    use crate::engine::atom::partition::{Over, Partition};
    use crate::engine::swizzle::Offset;
    use crate::expr::eval::eval_str;
    use crate::expr::value::{AtomValue, Value};
    use proptest::prelude::*;

    fn tensor(text: &str) -> Partition {
        match eval_str(text).unwrap() {
            Value::Atom(AtomValue::Partition(p)) => p,
            v => panic!("{text}: not a tensor: {v}"),
        }
    }

    /// The element (from the shared-memory pointer the position-independent tensor starts at) the
    /// tensor `p` reads at coordinate `c`: `data() + Sw(O + L(c))` over a kept swizzle, else
    /// `data() + L(c)`.
    fn element(p: &Partition, c: &str) -> i64 {
        let c = eval_str(c).unwrap().to_int_tuple().unwrap();
        let l = p.layout.call(&c).unwrap().value;
        let inner = match &p.over {
            Over::PlainSmem(_, Some((sw, o))) | Over::Composed(sw, o) => {
                let o = match o {
                    Offset::Int(i) => i.value,
                    Offset::Mixed { s, d, .. } => i64::from(s | d),
                    Offset::SmemPtr(_) => panic!("a swizzle on the pointer"),
                };
                sw.apply(o + l)
            }
            _ => l,
        };
        p.offset.value + inner
    }

    proptest! {
        /// The divides and flatten of a tensor are make_tensor(T.data(), f(T.layout()))
        /// (tensor_impl.hpp): the same elements at the divided coordinates. For a stage of the
        /// position-independent swizzle tensor of every GMMA swizzle atom, each element of the
        /// warp tile (i, j) of `flatten(zipped_divide(T, (_8,_8))(_, (i, j)))` (the RS mainloop's B
        /// transposition) and of `tiled_divide(T, (_8,_8))` is T's element at (8i + r, 8j + c).
        #[test]
        fn a_divided_tensor_reads_the_elements_of_its_tiles(
            major in prop::sample::select(vec!["K", "MN"]),
            sw in prop::sample::select(vec!["INTER", "SW32", "SW64", "SW128"]),
            k in 0i64..2,
            i in 0i64..8,
            j in 0i64..4,
            r in 0i64..8,
            c in 0i64..8,
        ) {
            let t = format!("as_position_independent_swizzle_tensor(tile_to_shape(GMMA::Layout_{major}_{sw}_Atom<tfloat32_t>,(_64,_32,_2)))(_,_,{k})");
            let whole = element(&tensor(&t), &format!("({},{})", 8 * i + r, 8 * j + c));
            let tile = tensor(&format!("flatten(zipped_divide({t},(_8,_8))(_,({i},{j})))"));
            // flatten keeps the 1-D index of the (8,8) tile: (r, c) is r + 8c.
            prop_assert_eq!(element(&tile, &format!("{}", r + 8 * c)), whole);
            let tiled = tensor(&format!("tiled_divide({t},(_8,_8))"));
            prop_assert_eq!(element(&tiled, &format!("({},{i},{j})", r + 8 * c)), whole);
        }
    }
}
