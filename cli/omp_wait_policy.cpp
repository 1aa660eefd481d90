// OMP_WAIT_POLICY=PASSIVE for the samebits executables unless the caller set a policy: ATen's
// OpenMP threads then sleep between parallel regions instead of spinning.
//
// Why: a run is thousands of small ops, each a parallel region. On a loaded machine (CI's two
// cores beside a compiler or another test) spinning threads take the core from the thread they
// wait for: a 2,000-case CPU sum sweep took 61 s spinning and 4.8 s passive, on the same loaded
// 2-core EPYC (2026-11-26). The policy changes how threads wait, never how work is split, so no
// bits change; `threads` stays in the platform fingerprint and the report's env records the policy.
//
// How: libgomp reads the variable once, in its constructor, from the environment the process was
// started with (libc's own start puts that environment back after anything set earlier). So, with
// the variable unset, the executable starts itself again with it set, from its .preinit_array:
// that runs before any shared library's constructor, so the first start costs only the dynamic
// loader's work (about 10 ms), not LibTorch's initialisation. If the new start fails, the process
// goes on as it was, spinning.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

constexpr const char kPassive[] = "OMP_WAIT_POLICY=PASSIVE";

void restart_passive_unless_set(int, char** argv, char** envp) {
  std::size_t n = 0;
  for (; envp && envp[n]; ++n) {
    if (std::strncmp(envp[n], "OMP_WAIT_POLICY=", 16) == 0) return;  // the caller chose
  }
  char** env = static_cast<char**>(std::malloc((n + 2) * sizeof(char*)));
  if (!env) return;
  for (std::size_t i = 0; i < n; ++i) env[i] = envp[i];
  env[n] = const_cast<char*>(kPassive);
  env[n + 1] = nullptr;
  ::execve("/proc/self/exe", argv, env);
  std::free(env);  // execve returned: it failed; run as started
}

__attribute__((section(".preinit_array"), used)) void (*const kPassiveOmp)(int, char**, char**) =
    &restart_passive_unless_set;

}  // namespace
