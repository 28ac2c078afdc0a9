// cutecheck in-process CuTe: the C ABI (cutecheck_ffi.h) over the op tables of the other TUs.
#include <algorithm>
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <cutlass/version.h>

#include "common.hpp"

namespace cutecheck_ffi {
namespace {

struct OpInfo {
  const char* name;
  bool binary;
  Fn (*find)(int32_t, int32_t);
};

// Indexed by enum cc_op: the rows of ops_generated.inc (`cargo xtask sourcegen`).
constexpr OpInfo kOps[CC_OP_COUNT] = {
#define CC_FFI_OP(ID, NAME, BINARY, FIND) {NAME, BINARY, FIND},
#include "ops_generated.inc"
#undef CC_FFI_OP
};

// Profile spellings, in the order of `Profiles` (common.hpp).
constexpr const char* kProfileText[kProfiles] = {
    "x",
    "(x)",
    "((x,x))",
    "((x,x,x))",
    "(x,x)",
    "(x,(x,x))",
    "(x,(x,x,x))",
    "((x,x),x)",
    "((x,x),(x,x))",
    "((x,x),(x,x,x))",
    "((x,x,x),x)",
    "((x,x,x),(x,x))",
    "((x,x,x),(x,x,x))",
    "(x,x,x)",
    "(x,x,(x,x))",
    "(x,x,(x,x,x))",
    "(x,(x,x),x)",
    "(x,(x,x),(x,x))",
    "(x,(x,x),(x,x,x))",
    "(x,(x,x,x),x)",
    "(x,(x,x,x),(x,x))",
    "(x,(x,x,x),(x,x,x))",
    "((x,x),x,x)",
    "((x,x),x,(x,x))",
    "((x,x),x,(x,x,x))",
    "((x,x),(x,x),x)",
    "((x,x),(x,x),(x,x))",
    "((x,x),(x,x),(x,x,x))",
    "((x,x),(x,x,x),x)",
    "((x,x),(x,x,x),(x,x))",
    "((x,x),(x,x,x),(x,x,x))",
    "((x,x,x),x,x)",
    "((x,x,x),x,(x,x))",
    "((x,x,x),x,(x,x,x))",
    "((x,x,x),(x,x),x)",
    "((x,x,x),(x,x),(x,x))",
    "((x,x,x),(x,x),(x,x,x))",
    "((x,x,x),(x,x,x),x)",
    "((x,x,x),(x,x,x),(x,x))",
    "((x,x,x),(x,x,x),(x,x,x))",
    "(x,x,x,x)",
};

template <std::size_t... I>
constexpr std::array<int32_t, kProfiles> leaves_of(std::index_sequence<I...>) {
  return {Profile<int(I)>::leaves...};
}
constexpr std::array<int32_t, kProfiles> kLeaves = leaves_of(std::make_index_sequence<kProfiles>{});

// Signal recovery for cc_ffi_eval_guarded: the handler jumps back into the guarded call.
sigjmp_buf* g_jump = nullptr;
volatile sig_atomic_t g_signal = 0;
constexpr int kSignals[] = {SIGFPE, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGALRM};

void on_signal(int s) {
  if (g_jump != nullptr) {
    g_signal = s;
    siglongjmp(*g_jump, 1);
  }
  std::signal(s, SIG_DFL);
  std::raise(s);
}

void install_handlers() {
  static bool done = false;
  if (done) return;
  done = true;
  // An alternate stack, so a stack overflow's SIGSEGV can be handled too.
  static char stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = stack;
  ss.ss_size = sizeof(stack);
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaction(s, &sa, nullptr);
}

#define CUTECHECK_STR2(x) #x
#define CUTECHECK_STR(x) CUTECHECK_STR2(x)

}  // namespace
}  // namespace cutecheck_ffi

extern "C" {

int32_t cc_ffi_eval(const cc_request* req, char* out, uint64_t cap, uint64_t* len) {
  using namespace cutecheck_ffi;
  uint64_t dummy = 0;
  if (len == nullptr) len = &dummy;
  *len = 0;
  if (req == nullptr || out == nullptr || req->op < 0 || req->op >= CC_OP_COUNT) return CC_BAD_REQUEST;
  OpInfo const& op = kOps[req->op];
  if (req->a.profile < 0 || req->a.profile >= kProfiles) return CC_BAD_REQUEST;
  if (op.binary && (req->b.profile < 0 || req->b.profile >= kProfiles)) return CC_BAD_REQUEST;
  Fn fn = op.find(req->a.profile, req->b.profile);
  if (fn == nullptr) return CC_UNSUPPORTED;
  std::size_t n = 0;
  int32_t status = fn(*req, out, static_cast<std::size_t>(cap), &n);
  *len = n;
  return status;
}

int32_t cc_ffi_eval_guarded(const cc_request* req, char* out, uint64_t cap, uint64_t* len, int32_t* signal) {
  using namespace cutecheck_ffi;
  install_handlers();
  uint64_t dummy = 0;
  if (len == nullptr) len = &dummy;
  *len = 0;
  if (signal != nullptr) *signal = 0;
  if (out == nullptr || cap < 2) return CC_TRUNCATED;
  // CuTe's assert messages go to stderr: keep them for the crash report.
  char* err_text = nullptr;
  size_t err_len = 0;
  FILE* err = open_memstream(&err_text, &err_len);
  FILE* saved_out = stdout;
  FILE* saved_err = stderr;
  if (err != nullptr) stderr = err;
  static sigjmp_buf jump;  // one call at a time (see the header)
  int32_t status;
  if (sigsetjmp(jump, 1) == 0) {
    g_jump = &jump;
    status = cc_ffi_eval(req, out, cap, len);
    g_jump = nullptr;
  } else {
    g_jump = nullptr;
    stdout = saved_out;
    if (g_capture != nullptr) {
      std::fclose(g_capture);
      g_capture = nullptr;
    }
    if (signal != nullptr) *signal = g_signal;
    status = CC_SIGNAL;
    if (err != nullptr) std::fflush(err);
    size_t n = (err_text != nullptr) ? std::min<size_t>(err_len, cap - 1) : 0;
    if (n > 0) std::memcpy(out, err_text, n);
    out[n] = '\0';
    *len = n;
  }
  stderr = saved_err;
  if (err != nullptr) std::fclose(err);
  std::free(err_text);
  return status;
}

int32_t cc_ffi_num_profiles(void) { return cutecheck_ffi::kProfiles; }

const char* cc_ffi_profile(int32_t p) {
  return (p >= 0 && p < cutecheck_ffi::kProfiles) ? cutecheck_ffi::kProfileText[p] : nullptr;
}

int32_t cc_ffi_profile_leaves(int32_t p) {
  return (p >= 0 && p < cutecheck_ffi::kProfiles) ? cutecheck_ffi::kLeaves[p] : 0;
}

const char* cc_ffi_op_name(int32_t op) {
  return (op >= 0 && op < CC_OP_COUNT) ? cutecheck_ffi::kOps[op].name : nullptr;
}

int32_t cc_ffi_op_is_binary(int32_t op) {
  return (op >= 0 && op < CC_OP_COUNT && cutecheck_ffi::kOps[op].binary) ? 1 : 0;
}

int32_t cc_ffi_supported(int32_t op, int32_t pa, int32_t pb) {
  if (op < 0 || op >= CC_OP_COUNT) return 0;
  if (!cutecheck_ffi::kOps[op].binary) pb = 0;
  return cutecheck_ffi::kOps[op].find(pa, pb) != nullptr ? 1 : 0;
}

const char* cc_ffi_cutlass_version(void) {
  return CUTECHECK_STR(CUTLASS_MAJOR) "." CUTECHECK_STR(CUTLASS_MINOR) "." CUTECHECK_STR(CUTLASS_PATCH);
}

}  // extern "C"
