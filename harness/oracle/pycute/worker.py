# The pycute oracle's worker (harness/oracle/pycute/mod.rs): one python3 process that imports the
# pycute shipped in the nvidia-cutlass wheel and answers cases, one per line, in order.
#
#   python3 -c <this> ROOT WALK MEMORY_MB
#
# ROOT holds pycute/ (the wheel's top directory); WALK is the most coordinates a layout's values
# are listed for (cutecheck's limits::WALK); MEMORY_MB bounds this process's address space.
#
# Protocol (stdin/stdout, one JSON object a line): first {"ready": ...} once pycute is imported;
# then for each line of Python read (one case, written by cutecheck from the parsed AST, see
# cutecheck::oracle::pycute::spelling::pycute_text) one answer:
#   {"text": str(r), "layout": true, "size": n, "values": [r(0), ..., r(n-1)]}  a Layout
#       ("values" left out when n > WALK or a value is not a 64-bit integer, "size" when n is not)
#   {"text": str(r), "number": r}                                             an integer
#   {"text": str(r)}                                                          anything else
#   {"error": "TypeName: message"}                                            pycute raised
#   {"failed": "..."}                                                         out of memory
# The time limit of a case is kept by the Rust side (it kills a worker that does not answer).

import json
import sys

ROOT = sys.argv[1]
WALK = int(sys.argv[2])
MEMORY_MB = int(sys.argv[3])

if MEMORY_MB > 0:
    try:
        import resource

        limit = MEMORY_MB << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass

sys.path.insert(0, ROOT)
import pycute  # noqa: E402
from pycute import *  # noqa: E402,F401,F403

I64 = (-(1 << 63), 1 << 63)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def walk(r, n):
    """[r(0), ..., r(n-1)]: built mode by mode over the flattened shape, first mode fastest (the
    colexicographic order in which r(i) reads i), about a hundred times faster than calling r(i)
    n times; r(i) itself where a stride is not an integer."""
    shape, stride = pycute.flatten(r.shape), pycute.flatten(r.stride)
    if is_int(shape):
        shape, stride = (shape,), (stride,)
    if len(shape) != len(stride) or not all(is_int(x) for x in shape + stride):
        return [r(i) for i in range(n)]
    values = [0]
    for s, d in zip(shape, stride):
        values = [v + j * d for j in range(s) for v in values]
    return values


def answer(line):
    r = eval(line)
    if isinstance(r, pycute.Layout):
        out = {"text": str(r), "layout": True}
        n = pycute.size(r)
        if is_int(n) and I64[0] <= n < I64[1]:
            out["size"] = n
            if 0 <= n <= WALK:
                values = walk(r, n)
                if all(is_int(v) and I64[0] <= v < I64[1] for v in values):
                    out["values"] = values
        return out
    if is_int(r) and I64[0] <= r < I64[1]:
        return {"text": str(r), "number": r}
    return {"text": str(r)}


def main():
    print(json.dumps({"ready": getattr(pycute, "__file__", "pycute")}), flush=True)
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        line = line.strip()
        try:
            out = answer(line)
        except MemoryError:
            out = {"failed": "pycute ran out of memory (%d MiB address space)" % MEMORY_MB}
        except Exception as e:  # pycute's own refusal (assert, TypeError, ...)
            out = {"error": (type(e).__name__ + ": " + str(e)).strip()}
        print(json.dumps(out), flush=True)


main()
