// cutecheck oracle driver: the fixed part of every generated translation unit.
//
// A generated TU defines one function per case and a table of them, then links with driver.cpp,
// whose main() runs each case in a forked child so a crash (SIGFPE, a failed assert) loses only
// that case. Every case's output is framed by marker lines the Rust runner parses:
//
//   @@cutecheck-begin <id>
//   <whatever CuTe's print() wrote>
//   @@cutecheck-end <id> ok | signal <n> | exit <n>
//
// Nothing in this file or driver.cpp depends on the cases; the generator only emits case bodies.
#pragma once

namespace cutecheck {

using CaseFn = void (*)();

struct Case {
  int id;
  CaseFn fn;
};

}  // namespace cutecheck

// Defined by the generated translation unit.
extern const cutecheck::Case cutecheck_cases[];
extern const int cutecheck_num_cases;
