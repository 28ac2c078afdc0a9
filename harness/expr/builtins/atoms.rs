//! Builtins on CuTe's atoms and swizzles.
//!
//! Bare names: an MMA atom, a copy operation or a value type written as in C++
//! (`SM80_16x8x16_F32F16F16F32_TN`, `SM80_CP_ASYNC_CACHEALWAYS<uint128_t>`, `half_t`) evaluates to
//! itself, to be passed to the functions below; `Swizzle<B,M,S>` evaluates to the swizzle
//! (printed `Sw<B,M,S>`), and `Swizzle<B,M,S>(x)` to the swizzled integer.
//!
//! - `mma_layout_a(ATOM)`, `mma_layout_b`, `mma_layout_c`, `mma_shape`, `mma_thr_id`: the atom's
//!   `MMA_Traits` members `ALayout`, `BLayout`, `CLayout`, `Shape_MNK`, `ThrID`.
//! - `copy_atom_src(OP, T)`, `copy_atom_dst`, `copy_atom_ref`, `copy_atom_thr_id`: `Copy_Atom<OP,T>`'s
//!   `ValLayoutSrc`, `ValLayoutDst`, `ValLayoutRef`, `ThrID`; `copy_traits_src(OP)`, `copy_traits_dst`,
//!   `copy_traits_ref`: `Copy_Traits<OP>`'s layouts in bits.
//! - `composition(Swizzle<B,M,S>, L)`: CuTe's `ComposedLayout` (`Sw<B,M,S> o _0 o L`), which can be
//!   evaluated at a coordinate like a layout.

use std::fmt;

use crate::engine::atom::{copy, mma};
use crate::engine::swizzle::{compose_swizzle, ComposedLayout, Swizzle, SwizzledLayout};
use crate::engine::{Error, Int, IntTuple, Result};
use crate::expr::parse::{Name, TemplateArg};
use crate::expr::value::Value;

use super::arity;

/// Values of this area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtomValue {
    /// A C++ atom, copy operation or value type name, canonical spelling.
    Name(String),
    Swizzle(Swizzle),
    Composed(ComposedLayout),
}

impl AtomValue {
    pub fn kind(&self) -> &'static str {
        match self {
            AtomValue::Name(_) => "a C++ name",
            AtomValue::Swizzle(_) => "a swizzle",
            AtomValue::Composed(_) => "a swizzled layout",
        }
    }
    /// `X(coord)`: a swizzle applied to an integer, a composed layout evaluated at a coordinate.
    pub fn apply(&self, coord: &IntTuple) -> Result<Value> {
        match self {
            AtomValue::Swizzle(sw) => {
                let i = coord.as_leaf().ok_or_else(|| Error::Type(format!("a swizzle takes an integer, got {coord}")))?;
                Ok(Value::Int(Int::new(sw.apply(i.value), i.is_static)))
            }
            AtomValue::Composed(c) => Ok(Value::Int(c.call(coord)?)),
            AtomValue::Name(n) => Err(Error::Type(format!("{n} cannot be evaluated at a coordinate"))),
        }
    }
}

impl fmt::Display for AtomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtomValue::Name(n) => f.write_str(n),
            AtomValue::Swizzle(s) => write!(f, "{s}"),
            AtomValue::Composed(c) => write!(f, "{c}"),
        }
    }
}

pub fn call(name: &Name, args: &[Value], called: bool) -> Option<Result<Value>> {
    if name.path.len() == 1 && name.path[0] == "Swizzle" {
        return Some(swizzle(name, args, called));
    }
    if !called {
        return bare_name(name);
    }
    let n = name.simple()?;
    let r = match n {
        "mma_layout_a" | "mma_layout_b" | "mma_layout_c" | "mma_shape" | "mma_thr_id" => mma_member(n, args),
        "copy_atom_src" | "copy_atom_dst" | "copy_atom_ref" | "copy_atom_thr_id" => copy_atom_member(n, args),
        "copy_traits_src" | "copy_traits_dst" | "copy_traits_ref" => copy_traits_member(n, args),
        "composition" if args.first().is_some_and(|a| matches!(a, Value::Atom(AtomValue::Swizzle(_)))) => {
            compose(args)
        }
        _ => return None,
    };
    Some(r)
}

/// A bare name: an atom, a copy operation or a value type evaluates to itself.
fn bare_name(name: &Name) -> Option<Result<Value>> {
    let text = name.to_string();
    let known = mma::mma_atom(&text).is_ok() || copy::copy_traits(&text).is_ok() || copy::type_bits(&text).is_ok();
    if known {
        return Some(Ok(Value::Atom(AtomValue::Name(text))));
    }
    // Names that look like atoms get the atom tables' own refusal rather than "unknown name".
    let base = name.base();
    let looks_sm = base.len() > 3 && base.starts_with("SM") && base.as_bytes()[2].is_ascii_digit();
    if looks_sm || base.starts_with("Universal") {
        let copyish = ["LDSM", "STSM", "MOVM", "CP_ASYNC", "Copy"].iter().any(|k| base.contains(k));
        let err = if copyish { copy::copy_traits(&text).err() } else { mma::mma_atom(&text).err() };
        return err.map(Err);
    }
    None
}

fn name_arg(fname: &str, v: &Value) -> Result<String> {
    match v {
        Value::Atom(AtomValue::Name(n)) => Ok(n.clone()),
        other => Err(Error::Type(format!("{fname} expects an atom or type name, found {}", other.kind()))),
    }
}

fn mma_member(n: &str, args: &[Value]) -> Result<Value> {
    arity(n, args, 1..=1)?;
    let atom = mma::mma_atom(&name_arg(n, &args[0])?)?;
    Ok(match n {
        "mma_layout_a" => Value::Layout(atom.a),
        "mma_layout_b" => Value::Layout(atom.b),
        "mma_layout_c" => Value::Layout(atom.c),
        "mma_shape" => Value::from_int_tuple(&atom.shape_mnk),
        _ => Value::Layout(atom.thr_id),
    })
}

fn copy_atom_member(n: &str, args: &[Value]) -> Result<Value> {
    arity(n, args, 2..=2)?;
    let atom = copy::copy_atom(&name_arg(n, &args[0])?, &name_arg(n, &args[1])?)?;
    Ok(Value::Layout(match n {
        "copy_atom_src" => atom.src,
        "copy_atom_dst" => atom.dst,
        "copy_atom_ref" => atom.ref_,
        _ => atom.thr_id,
    }))
}

fn copy_traits_member(n: &str, args: &[Value]) -> Result<Value> {
    arity(n, args, 1..=1)?;
    let (_, s, d, r) = copy::copy_traits(&name_arg(n, &args[0])?)?;
    Ok(Value::Layout(match n {
        "copy_traits_src" => s,
        "copy_traits_dst" => d,
        _ => r,
    }))
}

/// `Swizzle<B,M,S>` (bare) or `Swizzle<B,M,S>(x)`.
fn swizzle(name: &Name, args: &[Value], called: bool) -> Result<Value> {
    let bad = || Error::Type(format!("expected Swizzle<B,M,S> with three integers, got {name}"));
    let t = name.targs.as_ref().ok_or_else(bad)?;
    let ints: Vec<i64> = t
        .iter()
        .map(|a| match a {
            TemplateArg::Int(i) => Ok(*i),
            TemplateArg::Name(_) => Err(bad()),
        })
        .collect::<Result<_>>()?;
    let [b, m, s] = ints[..] else { return Err(bad()) };
    let sw = AtomValue::Swizzle(Swizzle::new(b, m, s)?);
    if !called {
        return Ok(Value::Atom(sw));
    }
    arity("Swizzle", args, 1..=1)?;
    sw.apply(&args[0].to_int_tuple()?)
}

/// `composition(Swizzle, Layout)`.
fn compose(args: &[Value]) -> Result<Value> {
    arity("composition", args, 2..=2)?;
    let Value::Atom(AtomValue::Swizzle(sw)) = &args[0] else {
        return Err(Error::Type("composition expects a swizzle first".into()));
    };
    let l = args[1].to_layout()?;
    Ok(match compose_swizzle(*sw, &l) {
        SwizzledLayout::Plain(l) => Value::Layout(l),
        SwizzledLayout::Composed(c) => Value::Atom(AtomValue::Composed(c)),
    })
}
