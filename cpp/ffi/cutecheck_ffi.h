/* cutecheck in-process CuTe: one layout-algebra operation on all-dynamic layouts, behind a plain
 * C ABI (the Rust side's declarations are generated from this header by bindgen in build.rs).
 *
 * A layout is given as a nesting-profile code (an index into the menu of profiles, see
 * cc_ffi_profile) and its shape and stride values, flattened in mode order; every value is a
 * dynamic `int`, exactly as the compiled driver writes `int(N)`. CuTe's result is printed with
 * CuTe's own print() into the caller's buffer.
 *
 * Not thread-safe: print() writes to stdout, which cc_ffi_eval redirects into the buffer for the
 * duration of the call. The Rust side calls it from forked worker processes only, one call at a
 * time, so CuTe's asserts, aborts and SIGFPE end a worker, never the harness.
 */
#ifndef CUTECHECK_FFI_H
#define CUTECHECK_FFI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most leaves of one operand (the rank-3 profile of triples has 9). */
#define CC_FFI_MAX_LEAVES 9

/* The operations. Unary ones read `a` (and `arg` where noted); binary ones read `a` and `b`. The
   rows, CC_FFI_OP(ID, name, binary, find), are written by `cargo xtask sourcegen` from the Rust
   side's table (harness/oracle/inproc/gen.rs, ffi_form) into ops_generated.inc. */
enum cc_op {
#define CC_FFI_OP(ID, NAME, BINARY, FIND) CC_OP_##ID,
#include "ops_generated.inc"
#undef CC_FFI_OP
  CC_OP_COUNT
};

enum cc_status {
  CC_OK = 0,
  /* This (op, profiles) pair is not instantiated: not in the menu, or CuTe rejects it at compile
     time for every value (a static_assert on dynamic operands); ask the compiled driver. */
  CC_UNSUPPORTED = 1,
  /* The result did not fit into the buffer. */
  CC_TRUNCATED = 2,
  /* Unknown op or profile code. */
  CC_BAD_REQUEST = 3,
  /* The output buffer could not be opened as a stream. */
  CC_IO_ERROR = 4,
  /* (cc_ffi_eval_guarded) CuTe raised a signal: *signal holds it, out what CuTe wrote to stderr. */
  CC_SIGNAL = 5
};

/* One operand: profile code and its leaves' values in mode order. */
typedef struct cc_layout {
  int32_t profile;
  int32_t shape[CC_FFI_MAX_LEAVES];
  int32_t stride[CC_FFI_MAX_LEAVES];
} cc_layout;

/* One operation. */
typedef struct cc_request {
  int32_t op;  /* enum cc_op */
  int32_t arg; /* the cotarget of CC_OP_COMPLEMENT_TO, the index of CC_OP_EVALUATE */
  cc_layout a;
  cc_layout b;
} cc_request;

/* Evaluate one request; CuTe's print() of the result goes to out[0..*len) (NUL-terminated when
   cap > *len). Returns an enum cc_status. */
int32_t cc_ffi_eval(const cc_request* req, char* out, uint64_t cap, uint64_t* len);

/* cc_ffi_eval, but a signal CuTe raises (SIGFPE, SIGABRT from a failed assert, SIGSEGV, SIGBUS,
   SIGILL, or SIGALRM from an alarm() the caller set) is caught: the call returns CC_SIGNAL with the
   signal in *signal and what CuTe wrote to stderr in out. The process lives on; the Rust side runs
   it in forked workers anyway, so a corrupted process only ends a worker. */
int32_t cc_ffi_eval_guarded(const cc_request* req, char* out, uint64_t cap, uint64_t* len, int32_t* signal);

/* The menu of nesting profiles: codes 0 .. cc_ffi_num_profiles()-1. cc_ffi_profile(p) spells
   profile p with `x` for each leaf, as CuTe prints a shape: "x", "(x)", "(x,(x,x))", ... */
int32_t cc_ffi_num_profiles(void);
const char* cc_ffi_profile(int32_t profile);
/* Number of leaves of profile p (0 for an unknown code). */
int32_t cc_ffi_profile_leaves(int32_t profile);

/* The expression-language name of an op ("coalesce", "complement", "evaluate", ...). */
const char* cc_ffi_op_name(int32_t op);
/* 1 when the op takes a second layout `b`. */
int32_t cc_ffi_op_is_binary(int32_t op);
/* 1 when (op, pa, pb) is instantiated (pb is ignored for unary ops). */
int32_t cc_ffi_supported(int32_t op, int32_t pa, int32_t pb);

/* CUTLASS's version as "major.minor.patch" (from cutlass/version.h). */
const char* cc_ffi_cutlass_version(void);

#ifdef __cplusplus
}
#endif

#endif /* CUTECHECK_FFI_H */
