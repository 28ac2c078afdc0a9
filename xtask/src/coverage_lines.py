# cutecheck `cargo xtask coverage`: the code lines of CuTe's headers, read with libclang.
#
# Usage: python3 coverage_lines.py PLATLIB SOURCE OUT.json -- CLANG-ARGS...
# PLATLIB holds the `clang` Python package of the provisioned PyPI libclang wheel; SOURCE is a
# C++ file that includes what the oracle's translation units include. Writes, per CuTe header
# (path from `cute/`):
#   "stmts":  the first line of every statement of every function body (templates included,
#             instantiated or not), less declarations that make no code (using, typedef,
#             static_assert) and the lines of `if constexpr` themselves (their branches count);
#   "traits": per specialization of a *_Traits class template (MMA_Traits, Copy_Traits, ...):
#             the qualified name of the operation it describes and the first lines of its members.
# This is the denominator of the coverage figures; xtask/src/coverage.rs says what is counted.
import json
import sys

sys.path.insert(0, sys.argv[1])
import clang.cindex as ci  # noqa: E402

source, out_path = sys.argv[2], sys.argv[3]
args = sys.argv[sys.argv.index("--") + 1:]
K = ci.CursorKind
FUNCS = {K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
         K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}
NO_CODE = {K.TYPE_ALIAS_DECL, K.TYPEDEF_DECL, K.TYPE_ALIAS_TEMPLATE_DECL, K.USING_DECLARATION,
           K.USING_DIRECTIVE, K.STATIC_ASSERT, K.NAMESPACE_ALIAS}
TRAIT_KINDS = {K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION}

tu = ci.Index.create().parse(source, args=args)
fatal = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Fatal]
if fatal:
    sys.exit("libclang could not parse the headers: " + "; ".join(fatal[:3]))

out = {}


def header(c):
    f = c.location.file
    if f is None:
        return None
    name = f.name
    k = name.rfind("/cute/")
    return name[k + 1:] if k >= 0 else None


def entry(h):
    return out.setdefault(h, {"stmts": set(), "traits": []})


def is_constexpr_if(c):
    toks = [t.spelling for t in c.get_tokens()][:2]
    return toks == ["if", "constexpr"]


def statements(body, h):
    """Record the statements under a compound statement `body` (recursively)."""
    for c in body.get_children():
        if header(c) != h:
            continue
        if c.kind == K.DECL_STMT and all(d.kind in NO_CODE for d in c.get_children()):
            continue
        if c.kind == K.NULL_STMT or c.kind in NO_CODE:
            continue
        if c.kind == K.COMPOUND_STMT:
            statements(c, h)
            continue
        if not (c.kind == K.IF_STMT and is_constexpr_if(c)):
            entry(h)["stmts"].add(c.location.line)
        nested(c, h)


def nested(c, h):
    """Bodies below a statement: branches of if/for/while/switch, and lambdas in expressions."""
    for d in c.get_children():
        if d.kind == K.COMPOUND_STMT:
            statements(d, h)
        elif d.kind == K.LAMBDA_EXPR:
            for b in d.get_children():
                if b.kind == K.COMPOUND_STMT:
                    statements(b, h)
        elif d.kind.is_statement() and d.kind != K.DECL_STMT:
            # A branch that is a single statement (`if (x) return y;`).
            if not (d.kind == K.IF_STMT and is_constexpr_if(d)):
                entry(h)["stmts"].add(d.location.line)
            nested(d, h)
        else:
            nested(d, h)


def qualified(c):
    parts = []
    while c is not None and c.kind != K.TRANSLATION_UNIT:
        if c.spelling:
            parts.append(c.spelling)
        c = c.semantic_parent
    return "::".join(reversed(parts))


def trait_name(c):
    """The qualified name of the operation a trait specialization describes:
    `MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>` -> `cute::SM80_16x8x8_F16F16F16F16_TN`; through an
    alias template (`SM90_64x8x16_F16F16F16_SS<...>`) to the class it names
    (`cute::SM90::GMMA::MMA_64x8x16_F16F16F16_SS`), as compilers spell it in symbols."""
    for k in c.get_children():
        if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF) or k.referenced is None:
            continue
        r = k.referenced
        if r.spelling.endswith("_Traits") or r.kind in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER):
            continue
        if r.kind == K.TYPE_ALIAS_TEMPLATE_DECL:
            r = next((a for a in r.get_children() if a.kind == K.TYPE_ALIAS_DECL), r)
        if r.kind in (K.TYPE_ALIAS_DECL, K.TYPEDEF_DECL):
            d = r.underlying_typedef_type.get_declaration()
            if d.kind != K.NO_DECL_FOUND:
                r = d
        return qualified(r)
    return None


def walk(c):
    for d in c.get_children():
        h = header(d)
        if h is None:
            continue
        if d.kind in FUNCS:
            for b in d.get_children():
                if b.kind == K.COMPOUND_STMT:
                    statements(b, h)
        elif d.kind in TRAIT_KINDS and d.is_definition() and d.spelling.endswith("_Traits"):
            name = trait_name(d)
            if name:
                lines = sorted({m.location.line for m in d.get_children()
                                if m.kind not in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER,
                                                  K.TYPE_REF, K.TEMPLATE_REF, K.CXX_BASE_SPECIFIER)
                                and header(m) == h and m.location.line > d.location.line})
                entry(h)["traits"].append({"name": name, "line": d.location.line, "lines": lines})
            walk(d)
        elif d.kind in (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE,
                        K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            walk(d)


walk(tu.cursor)
with open(out_path, "w") as f:
    json.dump({h: {"stmts": sorted(v["stmts"]), "traits": v["traits"]} for h, v in out.items()}, f)
