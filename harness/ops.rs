//! The one table of operations: every operation of the expression language is declared once, in
//! [`OPS`], with all its parts:
//!
//! - `name`, `area`, `operands` (the operand kinds, as the expression language spells them),
//!   `targs` (template arguments the name takes, e.g. `upcast<N>`) and `arity` (the argument
//!   count both sides check before calling the entry);
//! - `eval`: the engine entry (a function of `expr/builtins/{core,algebra,atoms}.rs` on evaluated
//!   values), called by `expr::builtins::call`;
//! - `emit`: the C++ emitter (a function of `oracle/codegen/{core,algebra,atoms}.rs` on the
//!   argument expressions), called by the oracle's code generator;
//! - `check`: the definition check triage runs on a printed result (a function of
//!   `definition.rs`, which calls the engine module's `check_postconditions`), called by
//!   `definition::check`;
//! - `generate`: the random-case generator of `fuzz.rs` and its weight in the mix, read by
//!   `fuzz::case`;
//! - `pycute`: the function's name in pycute (the Python reference of the nvidia-cutlass wheel),
//!   read by `cargo xtask conformance --pycute`.
//!
//! Each part is [`Part::Has`] or [`Part::Absent`] with the reason it is absent; the tests below fail
//! on an absent part without a reason and on an operation name in the builtins or the code
//! generator that is not in the table. Adding an operation is one entry here plus its engine
//! module (and the functions the entry names). Forms that are not operations (a bare atom or type
//! name, `Swizzle<B,M,S>`, a GMMA shared-memory layout atom, the whole cases `print_layout(L)` and
//! `print_svg(X)`, an evaluation `L(c)`) are handled by the areas' `form` functions, the case
//! printer and the evaluator; the names among them are listed in [`FORMS`].

use std::sync::OnceLock;

use proptest::strategy::BoxedStrategy;

use crate::definition;
use crate::engine::postcondition::Checked;
use crate::engine::{blocked_product, flat_divide, flat_product, logical_divide, logical_product, max_common};
use crate::engine::{raked_product, tiled_divide, tiled_product, zipped_divide, zipped_product, Result};
use crate::expr::builtins;
use crate::expr::{Expr, Name, Value};
use crate::fuzz::{self, Case};
use crate::oracle::codegen::{self, CodegenError, Cpp, Gen};

/// One part of an operation: present, or absent with the reason.
#[derive(Clone, Copy, Debug)]
pub enum Part<T> {
    Has(T),
    Absent(&'static str),
}

use Part::{Absent, Has};

impl<T: Copy> Part<T> {
    pub fn get(&self) -> Option<T> {
        match self {
            Has(t) => Some(*t),
            Absent(_) => None,
        }
    }
    /// Why the part is absent (`None` when present).
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            Has(_) => None,
            Absent(why) => Some(why),
        }
    }
}

/// Which builtins / codegen file an operation's functions live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// Construction and queries (`core.rs`).
    Core,
    /// The layout algebra (`algebra.rs`).
    Algebra,
    /// MMA and copy atoms, tiled MMAs and copies, swizzles (`atoms.rs`).
    Atoms,
}

/// The engine entry: the called name (with its template arguments) and the evaluated arguments.
pub type Eval = fn(&Name, &[Value]) -> Result<Value>;
/// The C++ emitter (see `oracle::codegen::Emit`).
pub type Emit = fn(&mut Gen, &Name, &[Expr], &Expr) -> std::result::Result<Cpp, CodegenError>;
/// The definition check: the operands as the engine evaluates them and a printed result read
/// back; `None` when the check does not apply to these operands, `Some(Err(why))` naming the
/// violated postcondition.
pub type Check = fn(&[Value], &Value) -> Option<Checked>;
/// The random-case generator of `fuzz.rs`.
pub type Generate = fn() -> BoxedStrategy<Case>;

/// One operation and all its parts.
pub struct Op {
    pub name: &'static str,
    pub area: Area,
    /// The operand kinds, as the expression language spells them.
    pub operands: &'static str,
    /// The template arguments the name takes (`<N>`), or none.
    pub targs: Option<&'static str>,
    /// Smallest and largest argument count.
    pub arity: (usize, usize),
    pub eval: Part<Eval>,
    pub emit: Part<Emit>,
    pub check: Part<Check>,
    /// The generator and its weight among all generated cases.
    pub generate: Part<(u32, Generate)>,
    pub pycute: Part<&'static str>,
}

/// Names that the builtins and the code generator handle without being operations.
pub const FORMS: &[(&str, &str)] = &[
    ("Swizzle", "Swizzle<B,M,S> is a value and Swizzle<B,M,S>(x) its application (atoms::form)"),
    ("print_layout", "a whole case, print_layout(L): CuTe's grid (cli::eval_line, codegen::case_body)"),
    (
        "print_svg",
        "a whole case, print_svg(X): CuTe's picture of an MMA atom or tiled MMA (codegen::case_body, svg.rs)",
    ),
];

/// The operation `name` calls, if any (template arguments must match the entry's `targs`).
pub fn lookup(name: &Name) -> Option<&'static Op> {
    if name.path.len() != 1 {
        return None;
    }
    let op = by_name(&name.path[0])?;
    (op.targs.is_some() == name.targs.is_some()).then_some(op)
}

/// The operation named `n` (an index keyed by the table's names; Fx hashing, as rustc's own
/// symbol tables use, since the keys are short trusted strings and the lookup is on every call).
pub fn by_name(n: &str) -> Option<&'static Op> {
    static INDEX: OnceLock<rustc_hash::FxHashMap<&'static str, &'static Op>> = OnceLock::new();
    INDEX.get_or_init(|| OPS.iter().map(|o| (o.name, o)).collect()).get(n).copied()
}

/// Every operation.
pub static OPS: &[Op] = &[
    Op {
        name: "make_layout",
        area: Area::Core,
        operands: "(shape[, stride]) or (L0, L1, ...)",
        targs: None,
        arity: (1, 8),
        eval: Has(builtins::core::make_layout),
        emit: Has(codegen::core::make_layout),
        check: Absent("a constructor: the result is the layout its operands spell, compared with CuTe's print as text"),
        generate: Absent("a constructor: the literals of every generated case already build layouts; its cases are in fixtures/cases"),
        pycute: Absent("not translated: pycute's make_layout is not cross-checked by the conformance run yet"),
    },
    Op {
        name: "make_layout_right",
        area: Area::Core,
        operands: "(shape)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::make_layout_right),
        emit: Has(codegen::core::make_layout_right),
        check: Absent("a constructor: the result is the layout its operands spell, compared with CuTe's print as text"),
        generate: Absent("a constructor: the literals of every generated case already build layouts; its cases are in fixtures/cases"),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no LayoutRight"),
    },
    Op {
        name: "size",
        area: Area::Core,
        operands: "(L) or (int tuple)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::size),
        emit: Has(codegen::core::size),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::unary("size"))),
        pycute: Has("size"),
    },
    Op {
        name: "cosize",
        area: Area::Core,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::cosize),
        emit: Has(codegen::core::cosize),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::unary("cosize"))),
        pycute: Has("cosize"),
    },
    Op {
        name: "rank",
        area: Area::Core,
        operands: "(L) or (int tuple)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::rank),
        emit: Has(codegen::core::rank),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::unary("rank"))),
        pycute: Absent("not translated: pycute's rank is an int-tuple helper the conformance run does not cross-check"),
    },
    Op {
        name: "depth",
        area: Area::Core,
        operands: "(L) or (int tuple)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::depth),
        emit: Has(codegen::core::depth),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::unary("depth"))),
        pycute: Absent("not translated: pycute's depth is an int-tuple helper the conformance run does not cross-check"),
    },
    Op {
        name: "shape",
        area: Area::Core,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::shape),
        emit: Has(codegen::core::shape),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::mode_query("shape"))),
        pycute: Absent("not translated: pycute layouts expose .shape/.stride attributes, not functions"),
    },
    Op {
        name: "stride",
        area: Area::Core,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::stride),
        emit: Has(codegen::core::stride),
        check: Absent("a query: its result is a number or tuple compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((1, || fuzz::mode_query("stride"))),
        pycute: Absent("not translated: pycute layouts expose .shape/.stride attributes, not functions"),
    },
    Op {
        name: "get",
        area: Area::Core,
        operands: "(x, i, j, ...) with literal indices",
        targs: None,
        arity: (2, 8),
        eval: Has(builtins::core::get),
        emit: Has(codegen::core::get),
        check: Absent("mode access: its result is compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((2, || fuzz::mode_query("get"))),
        pycute: Absent("not translated: pycute indexes with [] rather than a function"),
    },
    Op {
        name: "layout",
        area: Area::Core,
        operands: "(L, i, j, ...) with literal indices",
        targs: None,
        arity: (2, 8),
        eval: Has(builtins::core::get),
        emit: Has(codegen::core::layout),
        check: Absent("mode access: its result is compared with CuTe's print as text; there is no weaker definition to check"),
        generate: Has((2, || fuzz::mode_query("layout"))),
        pycute: Absent("not translated: pycute indexes with [] rather than a function"),
    },
    Op {
        name: "flatten",
        area: Area::Core,
        operands: "(L) or (int tuple)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::core::flatten),
        emit: Has(codegen::core::flatten),
        check: Absent("a regrouping: compared with CuTe's print as text; no definition check yet"),
        generate: Has((4, || fuzz::unary("flatten"))),
        pycute: Absent("not translated: pycute's flatten is an int-tuple helper, not a layout operation"),
    },
    Op {
        name: "coalesce",
        area: Area::Algebra,
        operands: "(L[, profile])",
        targs: None,
        arity: (1, 2),
        eval: Has(builtins::algebra::coalesce),
        emit: Has(|g, _, a, _| codegen::algebra::with_profile(g, "coalesce", a)),
        check: Has(definition::coalesce),
        generate: Has((4, || fuzz::simplify("coalesce"))),
        pycute: Has("coalesce"),
    },
    Op {
        name: "filter",
        area: Area::Algebra,
        operands: "(L[, profile])",
        targs: None,
        arity: (1, 2),
        eval: Has(builtins::algebra::filter),
        emit: Has(|g, _, a, _| codegen::algebra::with_profile(g, "filter", a)),
        check: Has(definition::filter),
        generate: Has((4, || fuzz::simplify("filter"))),
        pycute: Has("filter"),
    },
    Op {
        name: "filter_zeros",
        area: Area::Algebra,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::algebra::filter_zeros),
        emit: Has(|g, _, a, _| codegen::algebra::with_profile(g, "filter_zeros", a)),
        check: Absent("no definition check yet (issue 10 adds definitions)"),
        generate: Has((4, || fuzz::unary("filter_zeros"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no filter_zeros"),
    },
    Op {
        name: "composition",
        area: Area::Algebra,
        operands: "(L, layout or tiler); a swizzle on either side is the atom area's",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::algebra::composition),
        emit: Has(codegen::algebra::composition),
        check: Has(definition::composition),
        generate: Has((36, fuzz::composition)),
        pycute: Has("composition"),
    },
    Op {
        name: "complement",
        area: Area::Algebra,
        operands: "(L[, cotarget])",
        targs: None,
        arity: (1, 2),
        eval: Has(builtins::algebra::complement),
        emit: Has(|g, _, a, _| codegen::algebra::with_profile(g, "complement", a)),
        check: Has(definition::complement),
        generate: Has((24, fuzz::complement)),
        pycute: Has("complement"),
    },
    Op {
        name: "right_inverse",
        area: Area::Algebra,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::algebra::right_inverse),
        emit: Has(|g, _, a, _| codegen::algebra::unary(g, "right_inverse", a)),
        check: Has(definition::right_inverse),
        generate: Has((12, || fuzz::inverse("right_inverse"))),
        pycute: Has("right_inverse"),
    },
    Op {
        name: "left_inverse",
        area: Area::Algebra,
        operands: "(L)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::algebra::left_inverse),
        emit: Has(|g, _, a, _| codegen::algebra::unary(g, "left_inverse", a)),
        check: Has(definition::left_inverse),
        generate: Has((12, || fuzz::inverse("left_inverse"))),
        pycute: Has("left_inverse"),
    },
    Op {
        name: "logical_divide",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler_view(n, a, logical_divide::logical_divide, logical_divide::small_view)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "logical_divide", a)),
        check: Has(definition::logical_divide),
        generate: Has((27, fuzz::logical_divide)),
        pycute: Has("logical_divide"),
    },
    Op {
        name: "zipped_divide",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler_view(n, a, zipped_divide::zipped_divide, zipped_divide::small_view)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "zipped_divide", a)),
        check: Has(|v, r| definition::regrouped("zipped_divide", v, r)),
        generate: Has((3, || fuzz::regrouped_divide("zipped_divide"))),
        pycute: Has("zipped_divide"),
    },
    Op {
        name: "tiled_divide",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, tiled_divide::tiled_divide)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "tiled_divide", a)),
        check: Has(|v, r| definition::regrouped("tiled_divide", v, r)),
        generate: Has((3, || fuzz::regrouped_divide("tiled_divide"))),
        pycute: Has("tiled_divide"),
    },
    Op {
        name: "flat_divide",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, flat_divide::flat_divide)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "flat_divide", a)),
        check: Has(|v, r| definition::regrouped("flat_divide", v, r)),
        generate: Has((3, || fuzz::regrouped_divide("flat_divide"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no flat_divide"),
    },
    Op {
        name: "logical_product",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, logical_product::logical_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "logical_product", a)),
        check: Has(definition::logical_product),
        generate: Has((8, fuzz::logical_product)),
        pycute: Has("logical_product"),
    },
    Op {
        name: "zipped_product",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, zipped_product::zipped_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "zipped_product", a)),
        check: Has(|v, r| definition::regrouped("zipped_product", v, r)),
        generate: Has((4, || fuzz::regrouped_product("zipped_product"))),
        pycute: Has("zipped_product"),
    },
    Op {
        name: "tiled_product",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, tiled_product::tiled_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "tiled_product", a)),
        check: Has(|v, r| definition::regrouped("tiled_product", v, r)),
        generate: Has((4, || fuzz::regrouped_product("tiled_product"))),
        pycute: Has("tiled_product"),
    },
    Op {
        name: "flat_product",
        area: Area::Algebra,
        operands: "(L, layout or tiler)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::by_tiler(n, a, flat_product::flat_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "flat_product", a)),
        check: Has(|v, r| definition::regrouped("flat_product", v, r)),
        generate: Has((4, || fuzz::regrouped_product("flat_product"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no flat_product"),
    },
    Op {
        name: "blocked_product",
        area: Area::Algebra,
        operands: "(L, L)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::of_layouts(n, a, blocked_product::blocked_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "blocked_product", a)),
        check: Has(|v, r| definition::blocked(v, r, false)),
        generate: Has((2, || fuzz::blocked("blocked_product"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no blocked_product"),
    },
    Op {
        name: "raked_product",
        area: Area::Algebra,
        operands: "(L, L)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::of_layouts(n, a, raked_product::raked_product)),
        emit: Has(|g, _, a, _| codegen::algebra::binary(g, "raked_product", a)),
        check: Has(|v, r| definition::blocked(v, r, true)),
        generate: Has((2, || fuzz::blocked("raked_product"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no raked_product"),
    },
    Op {
        name: "max_common_vector",
        area: Area::Algebra,
        operands: "(L, L)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::algebra::max_common_vector),
        emit: Has(codegen::algebra::max_common_vector),
        check: Has(definition::max_common_vector),
        generate: Has((6, || fuzz::max_common("max_common_vector"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no max_common_vector"),
    },
    Op {
        name: "max_common_layout",
        area: Area::Algebra,
        operands: "(L, L)",
        targs: None,
        arity: (2, 2),
        eval: Has(|n, a| builtins::algebra::of_layouts(n, a, max_common::max_common_layout)),
        emit: Has(codegen::algebra::max_common_layout),
        check: Has(definition::max_common_layout),
        generate: Has((6, || fuzz::max_common("max_common_layout"))),
        pycute: Absent("pycute (the nvidia-cutlass wheel) has no max_common_layout"),
    },
    Op {
        name: "local_tile",
        area: Area::Algebra,
        operands: "(L, tiler, coord)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::algebra::local_tile),
        emit: Has(codegen::algebra::local_tile),
        check: Absent("not wired yet: engine::local_tile::check_postconditions exists, but triage has no definition check for it (issue 10)"),
        generate: Absent("not generated yet: coordinates must match the zipped divide's rest modes; cases in fixtures/cases/layout_partition.cases, properties in tests/properties.rs"),
        pycute: Absent("not translated: pycute has no tensors (local_tile works on a tensor)"),
    },
    Op {
        name: "local_partition",
        area: Area::Algebra,
        operands: "(L, thread layout, index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::algebra::local_partition),
        emit: Has(codegen::algebra::local_partition),
        check: Absent("not wired yet: engine::local_partition::check_postconditions exists, but triage has no definition check for it (issue 10)"),
        generate: Absent("not generated yet: thread layouts must tile L; cases in fixtures/cases/layout_partition.cases, properties in tests/properties.rs"),
        pycute: Absent("not translated: pycute has no tensors (local_partition works on a tensor)"),
    },
    Op {
        name: "local_tile_offset",
        area: Area::Algebra,
        operands: "(L, tiler, coord)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::algebra::local_tile_offset),
        emit: Has(codegen::algebra::local_tile_offset),
        check: Absent("no definition of its own: the offset is local_tile's tensor pointer, compared with CuTe's as an int"),
        generate: Absent("generated with local_tile by fuzz.rs's local() form (tilers on the modes' boundaries, coordinates in range)"),
        pycute: Absent("not translated: pycute has no tensors"),
    },
    Op {
        name: "local_partition_offset",
        area: Area::Algebra,
        operands: "(L, thread layout, index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::algebra::local_partition_offset),
        emit: Has(codegen::algebra::local_partition_offset),
        check: Absent("no definition of its own: the offset is local_partition's tensor pointer, compared with CuTe's as an int"),
        generate: Absent("generated with local_partition by fuzz.rs's local() form (thread layouts that tile L, indices in range)"),
        pycute: Absent("not translated: pycute has no tensors"),
    },
    Op {
        name: "mma_layout_a",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_member),
        emit: Has(codegen::atoms::mma_member),
        check: Has(|v, r| definition::atom("mma_layout_a", v, r)),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_layout_b",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_member),
        emit: Has(codegen::atoms::mma_member),
        check: Has(|v, r| definition::atom("mma_layout_b", v, r)),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_layout_c",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_member),
        emit: Has(codegen::atoms::mma_member),
        check: Has(|v, r| definition::atom("mma_layout_c", v, r)),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_shape",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_member),
        emit: Has(codegen::atoms::mma_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_thr_id",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_member),
        emit: Has(codegen::atoms::mma_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_atom_src",
        area: Area::Atoms,
        operands: "(copy op, value type)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::copy_atom_member),
        emit: Has(codegen::atoms::copy_atom_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_atom_dst",
        area: Area::Atoms,
        operands: "(copy op, value type)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::copy_atom_member),
        emit: Has(codegen::atoms::copy_atom_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_atom_ref",
        area: Area::Atoms,
        operands: "(copy op, value type)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::copy_atom_member),
        emit: Has(codegen::atoms::copy_atom_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_atom_thr_id",
        area: Area::Atoms,
        operands: "(copy op, value type)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::copy_atom_member),
        emit: Has(codegen::atoms::copy_atom_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_traits_src",
        area: Area::Atoms,
        operands: "(copy op)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::copy_traits_member),
        emit: Has(codegen::atoms::copy_traits_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_traits_dst",
        area: Area::Atoms,
        operands: "(copy op)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::copy_traits_member),
        emit: Has(codegen::atoms::copy_traits_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_traits_ref",
        area: Area::Atoms,
        operands: "(copy op)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::copy_traits_member),
        emit: Has(codegen::atoms::copy_traits_member),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: atom names come from the atom tables; cases in fixtures/cases/atoms_*.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_atom",
        area: Area::Atoms,
        operands: "(MMA atom name)",
        targs: None,
        arity: (1, 1),
        eval: Has(builtins::atoms::mma_atom),
        emit: Has(codegen::atoms::mma_atom),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_atom",
        area: Area::Atoms,
        operands: "(copy op, value type)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::copy_atom),
        emit: Has(codegen::atoms::copy_atom),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "make_tiled_copy",
        area: Area::Atoms,
        operands: "(copy_atom(OP,T), thread layout, value layout)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::make_tiled_copy),
        emit: Has(codegen::atoms::make_tiled_copy),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "make_tiled_copy_A",
        area: Area::Atoms,
        operands: "(copy_atom(OP,T), make_tiled_mma(...))",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::make_tiled_copy_for),
        emit: Has(codegen::atoms::make_tiled_copy_for),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "make_tiled_copy_B",
        area: Area::Atoms,
        operands: "(copy_atom(OP,T), make_tiled_mma(...))",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::make_tiled_copy_for),
        emit: Has(codegen::atoms::make_tiled_copy_for),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "make_tiled_copy_C",
        area: Area::Atoms,
        operands: "(copy_atom(OP,T), make_tiled_mma(...))",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::make_tiled_copy_for),
        emit: Has(codegen::atoms::make_tiled_copy_for),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_partition_a",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), L, thread index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::mma_partition),
        emit: Has(codegen::atoms::partition),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_partition_b",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), L, thread index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::mma_partition),
        emit: Has(codegen::atoms::partition),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "mma_partition_c",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), L, thread index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::mma_partition),
        emit: Has(codegen::atoms::partition),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "partition_shape_a",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), shape)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::partition_shape),
        emit: Has(codegen::atoms::partition_shape),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "partition_shape_b",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), shape)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::partition_shape),
        emit: Has(codegen::atoms::partition_shape),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "partition_shape_c",
        area: Area::Atoms,
        operands: "(make_tiled_mma(...), shape)",
        targs: None,
        arity: (2, 2),
        eval: Has(builtins::atoms::partition_shape),
        emit: Has(codegen::atoms::partition_shape),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_partition_s",
        area: Area::Atoms,
        operands: "(make_tiled_copy(...), L, thread index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::copy_partition),
        emit: Has(codegen::atoms::partition),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "copy_partition_d",
        area: Area::Atoms,
        operands: "(make_tiled_copy(...), L, thread index)",
        targs: None,
        arity: (3, 3),
        eval: Has(builtins::atoms::copy_partition),
        emit: Has(codegen::atoms::partition),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: partitions print tensors of several lines; cases in fixtures/cases/atoms_partition.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "make_tiled_mma",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated: prints an object of several lines; cases in fixtures/cases/atoms_print.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_copy_tv",
        area: Area::Atoms,
        operands: "(copy op, value type, thread layout, value layout)",
        targs: None,
        arity: (4, 4),
        eval: Has(builtins::atoms::tiled_copy),
        emit: Has(codegen::atoms::tiled_copy),
        check: Has(|v, r| definition::atom("tiled_copy_tv", v, r)),
        generate: Has((4, || fuzz::tiled_copy("tiled_copy_tv"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_copy_tiler",
        area: Area::Atoms,
        operands: "(copy op, value type, thread layout, value layout)",
        targs: None,
        arity: (4, 4),
        eval: Has(builtins::atoms::tiled_copy),
        emit: Has(codegen::atoms::tiled_copy),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Has((2, || fuzz::tiled_copy("tiled_copy_tiler"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_mma_tv_a",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Has(|v, r| definition::atom("tiled_mma_tv_a", v, r)),
        generate: Has((2, || fuzz::tiled_mma("tiled_mma_tv_a"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_mma_tv_b",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Has(|v, r| definition::atom("tiled_mma_tv_b", v, r)),
        generate: Has((1, || fuzz::tiled_mma("tiled_mma_tv_b"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_mma_tv_c",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Has(|v, r| definition::atom("tiled_mma_tv_c", v, r)),
        generate: Has((2, || fuzz::tiled_mma("tiled_mma_tv_c"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_mma_tile",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Has((1, || fuzz::tiled_mma("tiled_mma_tile"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "tiled_mma_thr_layout",
        area: Area::Atoms,
        operands: "(MMA atom name[, atom layout or shape[, permutations]])",
        targs: None,
        arity: (1, 3),
        eval: Has(builtins::atoms::tiled_mma),
        emit: Has(codegen::atoms::tiled_mma),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Absent("not generated yet: the thread layout is a rank-4 (V,M,N,K) layout the random atom grids would add little to; cases in fixtures/cases/atoms_tiled.cases"),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "upcast",
        area: Area::Atoms,
        operands: "<N>(layout, swizzle or swizzled layout)",
        targs: Some("<N>"),
        arity: (1, 1),
        eval: Has(builtins::atoms::recast),
        emit: Has(codegen::atoms::recast),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Has((2, || fuzz::recast("upcast"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
    Op {
        name: "downcast",
        area: Area::Atoms,
        operands: "<N>(layout, swizzle or swizzled layout)",
        targs: Some("<N>"),
        arity: (1, 1),
        eval: Has(builtins::atoms::recast),
        emit: Has(codegen::atoms::recast),
        check: Absent("no atom definition for this member yet (engine::atom::definition covers MMA operands and TV layouts)"),
        generate: Has((2, || fuzz::recast("downcast"))),
        pycute: Absent("pycute has no MMA or copy atoms"),
    },
];

/// The Python text of an expression for pycute, written from the AST (integers, `_` as `None`,
/// tuples, `Layout(shape, stride)`, and the calls the table names in each entry's `pycute` part), or
/// why pycute has no counterpart. Used by `conformance --pycute` and the whole-command bench.
pub fn pycute_text(e: &Expr) -> std::result::Result<String, String> {
    Ok(match e {
        Expr::Int { value, .. } => value.to_string(),
        Expr::Underscore { .. } => "None".into(),
        Expr::Tuple { items, .. } => {
            let v: Vec<String> = items.iter().map(pycute_text).collect::<std::result::Result<_, _>>()?;
            format!("({},)", v.join(","))
        }
        Expr::Layout { shape, stride, .. } => format!("Layout({},{})", pycute_text(shape)?, pycute_text(stride)?),
        Expr::Call { name, args, called: true, .. } => {
            // The spelling comes from the operation's entry in the table of operations.
            let n =
                lookup(name).and_then(|op| op.pycute.get()).ok_or_else(|| format!("pycute has no {}", name.base()))?;
            let v: Vec<String> = args.iter().map(pycute_text).collect::<std::result::Result<_, _>>()?;
            format!("{n}({})", v.join(","))
        }
        Expr::Apply { target, args, .. } if args.len() == 1 => {
            format!("({})({})", pycute_text(target)?, pycute_text(&args[0])?)
        }
        _ => return Err("no pycute form".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_finds_every_operation_and_nothing_else() {
        for op in OPS {
            assert!(std::ptr::eq(by_name(op.name).expect(op.name), op), "{}", op.name);
            // Near misses: a prefix, an extension, one byte changed.
            assert!(by_name(&op.name[..op.name.len() - 1]).is_none_or(|o| o.name != op.name));
            assert!(by_name(&format!("{}x", op.name)).is_none());
            let mut changed = op.name.as_bytes().to_vec();
            changed[0] ^= 0x20;
            assert!(by_name(std::str::from_utf8(&changed).unwrap()).is_none(), "{}", op.name);
        }
        assert!(by_name("").is_none());
    }

    /// A reason says why: a few words, not a placeholder.
    fn real_reason(why: &str) -> bool {
        let w = why.trim();
        w.split_whitespace().count() >= 4
            && !["todo", "tbd", "fixme", "xxx"].iter().any(|p| w.to_lowercase().contains(p))
    }

    #[test]
    fn every_part_is_present_or_absent_with_a_reason() {
        let mut missing = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for op in OPS {
            assert!(seen.insert(op.name), "{} is declared twice", op.name);
            assert!(op.arity.0 <= op.arity.1, "{}: arity {:?}", op.name, op.arity);
            assert!(!op.operands.trim().is_empty(), "{}: no operand kinds", op.name);
            let parts = [
                ("engine entry", op.eval.reason()),
                ("C++ emitter", op.emit.reason()),
                ("definition check", op.check.reason()),
                ("generator", op.generate.reason()),
                ("pycute spelling", op.pycute.reason()),
            ];
            for (part, why) in parts {
                if let Some(why) = why {
                    if !real_reason(why) {
                        missing.push(format!("{}: {part} absent without a reason ({why:?})", op.name));
                    }
                }
            }
            if let Has((w, _)) = op.generate {
                assert!(w > 0, "{}: generator with weight 0", op.name);
            }
            if let Has(py) = op.pycute {
                assert!(
                    py.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                    "{}: pycute spelling {py:?}",
                    op.name
                );
            }
        }
        assert!(missing.is_empty(), "{}", missing.join("\n"));
        assert!(!real_reason("todo later maybe soon") && !real_reason("n/a"), "the reason check can fail");
    }

    #[test]
    fn the_engine_and_the_oracle_dispatch_through_the_table() {
        use crate::expr::{eval_str, parse};
        for op in OPS {
            // One argument too many: both sides answer with the table's count (so they found the
            // entry), never "unknown".
            let targs = if op.targs.is_some() { "<2>" } else { "" };
            let args = vec!["_1"; op.arity.1 + 1].join(",");
            let text = format!("{}{targs}({args})", op.name);
            let want = format!("{} takes {}..={} arguments, got {}", op.name, op.arity.0, op.arity.1, op.arity.1 + 1);
            let e = eval_str(&text).unwrap_err().to_string();
            assert!(e.contains(&want), "{text}: engine says {e}");
            let c = codegen::expression(&parse(&text).unwrap()).unwrap_err().to_string();
            match op.emit {
                Has(_) => assert!(c.contains(&want), "{text}: codegen says {c}"),
                Absent(_) => assert!(c.contains("no C++"), "{text}: codegen says {c}"),
            }
        }
        // A name outside the table is unknown to both.
        assert!(eval_str("no_such_op(_1)").unwrap_err().to_string().contains("unknown"));
        assert!(codegen::expression(&parse("no_such_op(_1)").unwrap()).is_err());
    }

    /// The names the builtins' and the code generator's sources dispatch on by hand (match arms
    /// and comparisons with a name): each must be an operation of the table or a form.
    #[test]
    fn builtins_and_codegen_name_no_operation_outside_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("harness");
        let mut files = Vec::new();
        for dir in ["expr/builtins", "oracle/codegen"] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                files.push(e.unwrap().path());
            }
        }
        let known = |n: &str| by_name(n).is_some() || FORMS.iter().any(|(f, _)| *f == n);
        let mut unknown = Vec::new();
        let mut found = 0;
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            let src = src.split("#[cfg(test)]").next().unwrap_or("");
            for (k, line) in src.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for name in dispatched_names(code) {
                    found += 1;
                    if !known(&name) {
                        unknown.push(format!("{}:{}: '{name}'", f.display(), k + 1));
                    }
                }
            }
        }
        assert!(found >= 20, "the scan found only {found} names: it no longer sees the dispatch");
        assert!(unknown.is_empty(), "names dispatched outside the table of operations:\n{}", unknown.join("\n"));
        assert_eq!(dispatched_names(r#"        "frobnicate" | "size" => x,"#), vec!["frobnicate", "size"]);
    }

    /// Lower-case identifiers in string literals used as match patterns (`"x" =>`, `"x" |`) or
    /// compared with a name (`Some("x")`, `== "x"`).
    fn dispatched_names(code: &str) -> Vec<String> {
        let mut out = Vec::new();
        let parts: Vec<&str> = code.split('"').collect();
        for k in (1..parts.len()).step_by(2) {
            let lit = parts[k];
            let ident = !lit.is_empty()
                && lit.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && lit.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ident {
                continue;
            }
            let before = parts[k - 1].trim_end();
            let after = parts.get(k + 1).map(|s| s.trim_start()).unwrap_or("");
            let bar = |t: &str| t.starts_with('|') && !t.starts_with("||");
            let pattern = (after.starts_with("=>") || bar(after) || after.starts_with("if "))
                && (before.trim().is_empty() || before.ends_with('|') && !before.ends_with("||"));
            let compared = before.ends_with("==") || before.ends_with("== Some(");
            if pattern || compared {
                out.push(lit.to_string());
            }
        }
        out
    }
}
