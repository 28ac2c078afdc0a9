// cutecheck oracle driver: runs the cases of one generated translation unit (see driver.hpp).
//
// Usage: <binary>            run every case
//        <binary> ID ...     run only the cases with these ids
// Each case runs in a forked child with a time limit of $CUTECHECK_CASE_TIMEOUT seconds (20).
#include "driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

namespace {

bool selected(int id, int argc, char** argv) {
  if (argc <= 1) return true;
  for (int k = 1; k < argc; ++k) {
    if (std::atoi(argv[k]) == id) return true;
  }
  return false;
}

unsigned case_timeout() {
  const char* t = std::getenv("CUTECHECK_CASE_TIMEOUT");
  int n = t ? std::atoi(t) : 0;
  return n > 0 ? static_cast<unsigned>(n) : 20u;
}

void run_one(const cutecheck::Case& c) {
  std::printf("\n@@cutecheck-begin %d\n", c.id);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    // No child: run in-process (a crash then ends the batch; the runner retries the rest).
    c.fn();
    std::printf("\n@@cutecheck-end %d ok\n", c.id);
    std::fflush(stdout);
    return;
  }
  if (pid == 0) {
    // Child: an assert's message goes to stderr; send it into the case's record.
    dup2(1, 2);
    // A case that loops forever is ended by SIGALRM (reported as signal 14).
    alarm(case_timeout());
    c.fn();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::printf("\n@@cutecheck-end %d ok\n", c.id);
  } else if (WIFSIGNALED(status)) {
    std::printf("\n@@cutecheck-end %d signal %d\n", c.id, WTERMSIG(status));
  } else {
    std::printf("\n@@cutecheck-end %d exit %d\n", c.id, WEXITSTATUS(status));
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  for (int k = 0; k < cutecheck_num_cases; ++k) {
    if (selected(cutecheck_cases[k].id, argc, argv)) run_one(cutecheck_cases[k]);
  }
  return 0;
}
