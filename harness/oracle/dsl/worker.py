# The CuTe DSL worker of cutecheck (harness/oracle/dsl/mod.rs starts one per core).
#
# argv[1]: the private site directory the DSL wheels were installed into (never a global install).
# Protocol: one JSON request per stdin line, {"cases": [AST, ...]}; for each case, in order, one
# JSON line on the protocol channel, then {"end": N}. The worker imports the DSL once, traces one
# case to warm it, then forks a long-lived child that serves the requests: each request's cases
# are evaluated inside one @cute.jit function (one trace, CUTE_DSL_DRYRUN: IR only, nothing is
# compiled for a GPU). A child that dies (an abort in the DSL's C++) or takes longer than the
# request's "timeout" on a case costs only that case: it is answered {"crashed": ...} or
# {"error": ...} and a freshly forked child takes the cases after it.
# Everything else that writes to stdout (the DSL, MLIR) is sent to stderr, so the protocol
# channel carries only these lines.
#
# An AST node is a JSON array written by the Rust side from the parsed expression:
#   ["i", value, is_static]   an integer: a Python int (static) or cutlass.Int32 (dynamic)
#   ["u"]                     CuTe's Underscore, the DSL's None
#   ["t", [node, ...]]        a tuple
#   ["l", shape, stride]      a layout
#   ["c", name, [node, ...]]  a call of an allow-listed operation (CALLS below, implemented by OPS);
#                             nothing else is called
#   ["a", target, [node...]]  a layout evaluated at a coordinate
#   ["m", member, atom]       a member of an MMA atom (MMA_OPS, DTYPES, ENUMS and MMA_MEMBERS below),
#                             atom = {"op": "warpgroup.MmaF16BF16Op", "args": [...]}
#   ["k", member, atom]       a member of a copy atom (COPY_OPS, COPY_MEMBERS below), atom = {"op": ...,
#                             "args": [...], "dtype": value type, "bits": num_bits_per_copy or null}
# Answers: {"value": V, "text": str} where V is an int (static), {"d": div|null, "v": value|null}
# (dynamic), {"u": 1}, a list (tuple) or {"shape": V, "stride": V} (layout);
# {"rejected": "Type: message"} when the DSL raised; {"unsupported": why} when the case has no DSL
# form; {"crashed": why} / {"error": why} as above; {"fatal": why} when the trace itself failed.
import json
import os
import re
import select
import signal
import site
import sys
import tempfile

os.environ.setdefault("CUTE_DSL_DRYRUN", "1")
os.environ.setdefault("CUTE_DSL_NO_CACHE", "1")
os.environ.setdefault("CUTE_DSL_DISABLE_FILE_CACHING", "1")
# The warpgroup (SM90 GMMA) operations check the target; nothing is compiled for it (DRYRUN).
os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")

# The protocol channel is a private copy of fd 1; fd 1 itself then points at stderr.
PROTO = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

site.addsitedir(sys.argv[1])
import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass.cute import nvgpu  # noqa: E402
from cutlass.cute.nvgpu import cpasync, tcgen05, warp, warpgroup  # noqa: E402


class Unsupported(Exception):
    pass


def leaf_order(shape, counter):
    """The order of make_layout_right: leaves numbered from the last (compact row-major)."""
    if isinstance(shape, tuple):
        return tuple(leaf_order(s, counter) for s in shape)
    counter[0] -= 1
    return counter[0]


def count_leaves(shape):
    return sum(count_leaves(s) for s in shape) if isinstance(shape, tuple) else 1


def is_layout(v):
    return isinstance(v, cute.Layout)


def need_layout(name, v):
    if not is_layout(v):
        raise Unsupported(f"{name} of {type(v).__name__} (the DSL takes a layout)")
    return v


def op_make_layout(args):
    if args and all(is_layout(a) for a in args):
        return cute.make_layout(tuple(args))
    if len(args) == 1:
        return cute.make_layout(args[0])
    if len(args) == 2:
        return cute.make_layout(args[0], stride=args[1])
    raise Unsupported("make_layout takes (shape), (shape, stride) or layouts")


def op_make_layout_right(args):
    (shape,) = args
    n = count_leaves(shape)
    return cute.make_ordered_layout(shape, order=leaf_order(shape, [n]))


def op_coalesce(args):
    if len(args) == 1:
        return cute.coalesce(args[0])
    return cute.coalesce(args[0], target_profile=args[1])


def op_complement(args):
    layout = need_layout("complement", args[0])
    # CuTe C++: complement(layout) is complement(layout, cosize(layout)).
    cotarget = args[1] if len(args) == 2 else cute.cosize(layout)
    return cute.complement(layout, cotarget)


def op_filter(args):
    if len(args) != 1:
        raise Unsupported("filter with a profile")
    return cute.filter(args[0])


def one(f):
    def g(args):
        if len(args) != 1:
            raise Unsupported(f"{f.__name__} takes one argument")
        return f(args[0])
    return g


def two(f):
    def g(args):
        if len(args) != 2:
            raise Unsupported(f"{f.__name__} takes two arguments")
        return f(args[0], args[1])
    return g


def int_tiler(f):
    """An integer tiler is a layout in CuTe C++ (layout.hpp: logical_divide and logical_product take
    is_integral<Tiler> as make_layout(tiler), the zipped/tiled/flat divides call logical_divide,
    composition composes with (rhs):(_1)); the DSL's operations take a Value there, so they get
    make_layout(N), CuTe's own reading."""
    def g(args):
        if len(args) != 2:
            raise Unsupported(f"{f.__name__} takes two arguments")
        b = args[1]
        if isinstance(b, (int, cutlass.Int32)) and not isinstance(b, bool):
            b = cute.make_layout(b)
        return f(args[0], b)
    return g


def layout_tiler(f):
    """The DSL's zipped/tiled/flat/blocked/raked products take a layout as the tiler, no tuple."""
    def g(args):
        if len(args) != 2:
            raise Unsupported(f"{f.__name__} takes two arguments")
        if not is_layout(args[1]):
            raise Unsupported(f"the DSL's {f.__name__} takes a layout as its tiler, not {type(args[1]).__name__}")
        return f(args[0], args[1])
    return g


def op_shape(args):
    return need_layout("shape", args[0]).shape


def op_stride(args):
    return need_layout("stride", args[0]).stride


def op_cosize(args):
    return cute.cosize(need_layout("cosize", args[0]))


# The names a case may ask for (CALLS, MMA_MEMBERS, COPY_MEMBERS), written from the Rust side's
# table (harness/oracle/dsl/spelling.rs, dsl_form) by `cargo xtask sourcegen`.
# generated by cargo xtask sourcegen; do not edit
# The plain calls a case may make, ["c", name, args].
CALLS = frozenset({
    "make_layout",
    "make_layout_right",
    "size",
    "cosize",
    "rank",
    "depth",
    "shape",
    "stride",
    "get",
    "flatten",
    "coalesce",
    "filter",
    "filter_zeros",
    "composition",
    "complement",
    "right_inverse",
    "left_inverse",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
    "max_common_vector",
    "max_common_layout",
})
# The members of an MMA atom, ["m", name, atom], and the DSL MmaAtom's property of each.
MMA_MEMBERS = {
    "mma_layout_a": "tv_layout_A",
    "mma_layout_b": "tv_layout_B",
    "mma_layout_c": "tv_layout_C",
    "mma_shape": "shape_mnk",
    "mma_thr_id": "thr_id",
}
# The members of a copy atom, ["k", name, atom], and the DSL CopyAtom's property of each.
COPY_MEMBERS = {
    "copy_atom_src": "layout_src_tv",
    "copy_atom_dst": "layout_dst_tv",
    "copy_atom_thr_id": "thr_id",
}
# end of the generated block


# The implementations of the plain calls: our name -> the DSL call (every name of CALLS but get,
# which build() evaluates; tests.rs checks that the two agree). Nothing outside CALLS is reached.
OPS = {
    "make_layout": op_make_layout,
    "make_layout_right": op_make_layout_right,
    "size": one(cute.size),
    "cosize": op_cosize,
    "rank": one(cute.rank),
    "depth": one(cute.depth),
    "shape": op_shape,
    "stride": op_stride,
    "flatten": one(cute.flatten),
    "coalesce": op_coalesce,
    "filter": op_filter,
    "filter_zeros": one(cute.filter_zeros),
    "composition": int_tiler(cute.composition),
    "complement": op_complement,
    "right_inverse": one(cute.right_inverse),
    "left_inverse": one(cute.left_inverse),
    "logical_divide": int_tiler(cute.logical_divide),
    "zipped_divide": int_tiler(cute.zipped_divide),
    "tiled_divide": int_tiler(cute.tiled_divide),
    "flat_divide": int_tiler(cute.flat_divide),
    "logical_product": int_tiler(cute.logical_product),
    "zipped_product": layout_tiler(cute.zipped_product),
    "tiled_product": layout_tiler(cute.tiled_product),
    "flat_product": layout_tiler(cute.flat_product),
    "blocked_product": layout_tiler(cute.blocked_product),
    "raked_product": layout_tiler(cute.raked_product),
    "max_common_vector": two(cute.max_common_vector),
    "max_common_layout": two(cute.max_common_layout),
}


# The atoms a case may name: the DSL operations (cute.nvgpu), element types and enum values the
# Rust side (atoms.rs) writes; an atom is {"op": name, "args": [arg, ...]} where an arg is an int, a
# bool, a list (a tuple), {"dtype": name} or {"enum": name}, each looked up here.
MMA_OPS = {
    "warp.MmaF16BF16Op": lambda: warp.MmaF16BF16Op,
    "warp.MmaTF32Op": lambda: warp.MmaTF32Op,
    "warp.MmaFP8Op": lambda: warp.MmaFP8Op,
    "warpgroup.MmaF16BF16Op": lambda: warpgroup.MmaF16BF16Op,
    "warpgroup.MmaF8Op": lambda: warpgroup.MmaF8Op,
    "tcgen05.MmaF16BF16Op": lambda: tcgen05.MmaF16BF16Op,
    "tcgen05.MmaTF32Op": lambda: tcgen05.MmaTF32Op,
    "tcgen05.MmaI8Op": lambda: tcgen05.MmaI8Op,
    "tcgen05.MmaF8F6F4Op": lambda: tcgen05.MmaF8F6F4Op,
    "tcgen05.MmaF16BF16SparseOp": lambda: tcgen05.MmaF16BF16SparseOp,
    "tcgen05.MmaFP8SparseOp": lambda: tcgen05.MmaFP8SparseOp,
    "tcgen05.MmaMXF8F6F4Op": lambda: tcgen05.MmaMXF8F6F4Op,
    "tcgen05.MmaMXF4Op": lambda: tcgen05.MmaMXF4Op,
    "tcgen05.MmaMXF4NVF4Op": lambda: tcgen05.MmaMXF4NVF4Op,
}
COPY_OPS = {
    "warp.LdMatrix8x8x16bOp": lambda: warp.LdMatrix8x8x16bOp,
    "warp.StMatrix8x8x16bOp": lambda: warp.StMatrix8x8x16bOp,
    "cpasync.CopyG2SOp": lambda: cpasync.CopyG2SOp,
    "CopyUniversalOp": lambda: nvgpu.CopyUniversalOp,
}
DTYPES = {
    n: (lambda n=n: getattr(cutlass, n))
    for n in ["Float16", "BFloat16", "Float32", "Float64", "TFloat32", "Float8E4M3FN", "Float8E5M2", "Int4", "Int8",
              "Uint8", "Int16", "Uint16", "Int32", "Uint32", "Int64", "Uint64", "Uint128", "Float6E2M3FN",
              "Float6E3M2FN", "Float4E2M1FN", "Float8E8M0FNU"]
}
ENUMS = {
    "OperandSource.SMEM": lambda: warpgroup.OperandSource.SMEM,
    "OperandSource.RMEM": lambda: warpgroup.OperandSource.RMEM,
    "OperandMajorMode.K": lambda: nvgpu.OperandMajorMode.K,
    "OperandMajorMode.MN": lambda: nvgpu.OperandMajorMode.MN,
    "LoadCacheMode.ALWAYS": lambda: cpasync.LoadCacheMode.ALWAYS,
    "LoadCacheMode.GLOBAL": lambda: cpasync.LoadCacheMode.GLOBAL,
    "CtaGroup.ONE": lambda: tcgen05.CtaGroup.ONE,
    "CtaGroup.TWO": lambda: tcgen05.CtaGroup.TWO,
    "OperandSource.TMEM": lambda: tcgen05.OperandSource.TMEM,
    "SparseMetadataFormat.TID": lambda: tcgen05.SparseMetadataFormat.TID,
}


def atom_arg(a):
    if isinstance(a, (bool, int)):
        return a
    if isinstance(a, list):
        return tuple(atom_arg(x) for x in a)
    if isinstance(a, dict) and a.get("dtype") in DTYPES:
        return DTYPES[a["dtype"]]()
    if isinstance(a, dict) and a.get("enum") in ENUMS:
        return ENUMS[a["enum"]]()
    raise Unsupported(f"an atom argument the DSL oracle does not name: {a!r}")


def mma_member(member, atom):
    if member not in MMA_MEMBERS or atom.get("op") not in MMA_OPS:
        raise Unsupported(f"no DSL form for {member} of {atom.get('op')}")
    if atom["op"].startswith("tcgen05."):
        return tcgen05_member(member, atom)
    op = MMA_OPS[atom["op"]]()(*[atom_arg(a) for a in atom.get("args", [])])
    return getattr(cute.make_mma_atom(op), MMA_MEMBERS[member])


def tcgen05_member(member, atom):
    # The tcgen05 operations check the target is sm_100a (the warpgroup ones sm_90a): the DSL's
    # arch is switched for this call only.
    env = cutlass.base_dsl.BaseDSL._get_dsl().envar
    old = env.arch
    env.arch = "sm_100a"
    try:
        # SMEM is tcgen05's own OperandSource here (warpgroup's is another enum).
        args = [tcgen05.OperandSource.SMEM if a == {"enum": "OperandSource.SMEM"} else atom_arg(a)
                for a in atom.get("args", [])]
        op = MMA_OPS[atom["op"]]()(*args)
        return getattr(cute.make_mma_atom(op), MMA_MEMBERS[member])
    finally:
        env.arch = old


def copy_member(member, atom):
    if member not in COPY_MEMBERS or atom.get("op") not in COPY_OPS or atom.get("dtype") not in DTYPES:
        raise Unsupported(f"no DSL form for {member} of {atom.get('op')}")
    op = COPY_OPS[atom["op"]]()(*[atom_arg(a) for a in atom.get("args", [])])
    bits = atom.get("bits")
    kw = {"num_bits_per_copy": int(bits)} if isinstance(bits, int) else {}
    return getattr(cute.make_copy_atom(op, DTYPES[atom["dtype"]](), **kw), COPY_MEMBERS[member])


def build(n):
    tag = n[0]
    if tag == "i":
        return n[1] if n[2] else cutlass.Int32(n[1])
    if tag == "u":
        return None
    if tag == "t":
        return tuple(build(x) for x in n[1])
    if tag == "l":
        return cute.make_layout(build(n[1]), stride=build(n[2]))
    if tag == "c":
        name, args = n[1], n[2]
        if name not in CALLS:
            raise Unsupported(f"the DSL oracle has no {name}")
        if name == "get":
            # get(x, i, j, ...): the mode indices are literal integers (template arguments in C++).
            if len(args) < 2 or any(a[0] != "i" for a in args[1:]):
                raise Unsupported("get takes an object and literal mode indices")
            return cute.get(build(args[0]), mode=[a[1] for a in args[1:]])
        f = OPS.get(name)
        if f is None:
            raise Unsupported(f"the DSL worker has no implementation of {name}")
        return f([build(a) for a in args])
    if tag == "m":
        return mma_member(n[1], n[2])
    if tag == "k":
        return copy_member(n[1], n[2])
    if tag == "a":
        target = need_layout("evaluation", build(n[1]))
        coords = [build(a) for a in n[2]]
        return target(coords[0] if len(coords) == 1 else tuple(coords))
    raise Unsupported(f"unknown node {tag!r}")


DYN = re.compile(r"^\?(\{div=(\d+)\})?$")
LAYOUT_TOKEN = re.compile(r"\?\{div=(\d+)\}|(\?)|(-?\d+)|([(),:])")


def encode_layout_text(text):
    """A layout's structure read from the DSL's print of it, "(?,4):(1,?{div=2})": the print comes
    from the layout's type, where a static leaf is its number and a dynamic one is ?, ?{div=N}.
    (Asking for .shape and .stride instead builds two IR operations per layout: a third of a
    case's time.)"""
    toks = []
    for m in LAYOUT_TOKEN.finditer(text):
        toks.append(m)
    if "".join(m.group(0) for m in toks) != text.replace(" ", ""):
        raise Unsupported(f"a layout printed as {text!r}")
    pos = [0]

    def tup():
        m = toks[pos[0]]
        pos[0] += 1
        if m.group(4) == "(":
            items = [tup()]
            while toks[pos[0]].group(4) == ",":
                pos[0] += 1
                items.append(tup())
            if toks[pos[0]].group(4) != ")":
                raise Unsupported(f"a layout printed as {text!r}")
            pos[0] += 1
            return items
        if m.group(3) is not None:
            return int(m.group(3))
        if m.group(2) is not None:
            return {"d": None, "v": None}
        if m.group(1) is not None:
            return {"d": int(m.group(1)), "v": None}
        raise Unsupported(f"a layout printed as {text!r}")

    try:
        shape = tup()
        if toks[pos[0]].group(4) != ":":
            raise Unsupported(f"a layout printed as {text!r}")
        pos[0] += 1
        stride = tup()
    except IndexError:
        raise Unsupported(f"a layout printed as {text!r}") from None
    if pos[0] != len(toks):
        raise Unsupported(f"a layout printed as {text!r}")
    return {"shape": shape, "stride": stride}


def encode(v):
    if isinstance(v, bool):
        raise Unsupported("a boolean result")
    if isinstance(v, int):
        return v
    if v is None:
        return {"u": 1}
    if isinstance(v, tuple):
        return [encode(x) for x in v]
    if is_layout(v):
        return encode_layout_text(str(v))
    if isinstance(v, cutlass.Numeric):
        s = str(v)
        m = DYN.match(s)
        if m:
            return {"d": int(m.group(2)) if m.group(2) else None, "v": None}
        if re.match(r"^-?\d+$", s):
            return {"d": None, "v": int(s)}
    raise Unsupported(f"a result of type {type(v).__name__} ({v})")


def message(e):
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    # MLIR errors: "Operation creation failed:" then "error: unknown: <the reason>".
    lines = [ln for ln in lines if ln != "Operation creation failed:"] or [""]
    return f"{type(e).__name__}: {' | '.join(lines)[:400]}"


def answer(case):
    try:
        r = build(case)
        return {"value": encode(r), "text": str(r)}
    except Unsupported as e:
        return {"unsupported": str(e)}
    except RecursionError:
        return {"unsupported": "too deeply nested for the DSL worker"}
    except Exception as e:  # the DSL refused the case: its message is the answer
        return {"rejected": message(e)}


CURRENT = []


def run_cases(out):
    for case in CURRENT:
        out.write(json.dumps(answer(case)) + "\n")


@cute.jit
def batch():
    run_cases(OUT[0])


OUT = [None]
PR_SET_PDEATHSIG = 1


def child_loop(req_r, ans_w, err_fd):
    """In the forked child: serve requests (one JSON list of cases per line on `req_r`) until
    the pipe closes; each request is one jit function, one answer line per case, then "done"."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # die with the worker
    except Exception:
        pass
    os.dup2(err_fd, 2)
    os.dup2(2, 1)
    out = os.fdopen(ans_w, "w", buffering=1)
    OUT[0] = out
    for line in os.fdopen(req_r, "r"):
        os.ftruncate(2, 0)  # stderr (O_APPEND) keeps only this request's messages
        CURRENT[:] = json.loads(line)
        try:
            batch()
        except BaseException as e:  # the trace itself failed after the answers were written
            out.write(json.dumps({"fatal": message(e)}) + "\n")
        out.write('{"done": 1}\n')
    os._exit(0)


class Child:
    """A forked child that evaluates cases; the worker keeps it until it dies or hangs."""

    def __init__(self):
        fd, path = tempfile.mkstemp(prefix="cutecheck-dsl-err-")
        os.close(fd)
        self.err = os.open(path, os.O_RDWR | os.O_APPEND)
        os.unlink(path)
        req_r, self.req_w = os.pipe()
        self.ans_r, ans_w = os.pipe()
        sys.stderr.flush()
        PROTO.flush()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.req_w)
            os.close(self.ans_r)
            child_loop(req_r, ans_w, self.err)
        os.close(req_r)
        os.close(ans_w)
        self.buf = b""

    def send(self, cases):
        data = (json.dumps(cases) + "\n").encode()
        while data:
            data = data[os.write(self.req_w, data):]

    def lines(self, timeout):
        """Answer lines as they come; None at a timeout, b"" when the child is gone."""
        while True:
            if b"\n" in self.buf:
                ln, self.buf = self.buf.split(b"\n", 1)
                yield ln
                continue
            ready, _, _ = select.select([self.ans_r], [], [], timeout)
            if not ready:
                yield None
                return
            chunk = os.read(self.ans_r, 1 << 16)
            if not chunk:
                yield b""
                return
            self.buf += chunk

    def end(self, kill):
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for fd in (self.req_w, self.ans_r):
            try:
                os.close(fd)
            except OSError:
                pass
        _, status = os.waitpid(self.pid, 0)
        err = tail(self.err)
        os.close(self.err)
        return status, err


def tail(fd, n=4):
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, min(size, 8192), max(0, size - 8192))
        lines = [ln.strip() for ln in data.decode("utf-8", "replace").splitlines() if ln.strip()]
        return " | ".join(lines[-n:])
    except OSError:
        return ""


CHILD = [None]


def run_request(cases, timeout):
    """Send the cases to the child; one that dies or hangs costs only its case, and a fresh child
    takes the cases after it."""
    i = 0
    while i < len(cases):
        if CHILD[0] is None:
            CHILD[0] = Child()
        c = CHILD[0]
        try:
            c.send(cases[i:])
        except OSError:  # the child is gone already: a fresh one takes the cases
            c.end(kill=True)
            CHILD[0] = None
            continue
        got, fatal, failed = 0, False, None
        for ln in c.lines(timeout):
            if ln is None:
                c.end(kill=True)
                CHILD[0] = None
                failed = {"error": f"the DSL took longer than {timeout} s on this case; its process was killed"}
                break
            if ln == b"":
                status, err = c.end(kill=False)
                CHILD[0] = None
                if os.WIFSIGNALED(status):
                    sig = os.WTERMSIG(status)
                    how = f"signal {sig} ({signal.Signals(sig).name})"
                else:
                    how = f"exit status {os.WEXITSTATUS(status)}"
                failed = {"crashed": f"the DSL died on this case: {how}" + (f"; stderr: {err}" if err else "")}
                break
            if ln.startswith(b'{"done"'):
                break
            PROTO.write(ln.decode("utf-8", "replace") + "\n")
            if ln.startswith(b'{"fatal"'):
                fatal = True
            else:
                got += 1
        if fatal:
            return
        if failed is not None:
            PROTO.write(json.dumps(failed) + "\n")
            got += 1
        elif i + got < len(cases):
            return  # the child said done early: the Rust side reports the missing answers
        i += got


def main():
    # One trace before any fork, so every child starts with the DSL's jit machinery warm.
    try:
        OUT[0] = open(os.devnull, "w")
        CURRENT[:] = [["c", "size", [["i", 1, True]]]]
        batch()
    except Exception:
        pass
    version = getattr(cutlass, "__version__", "?")
    PROTO.write(json.dumps({"ready": version}) + "\n")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        run_request(req["cases"], float(req.get("timeout", 30)))
        PROTO.write(json.dumps({"end": len(req["cases"])}) + "\n")
    if CHILD[0] is not None:  # stdin closed: end the child (EOF on its pipe) and reap it
        CHILD[0].end(kill=False)


main()
