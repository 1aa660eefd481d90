// Faults planted on purpose for the sanitized build's negative controls: each mode must end in an
// ASan, LSan or UBSan report and a failing exit, which shows the sanitizers are live in that build.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#ifdef SAMEBITS_HAVE_TWINS
#include "kernels/reduce/invariant_reduce.h"
#endif

namespace {

// Reads one float past the end of a heap buffer; `past` comes from the command line, so the
// compiler cannot prove the read out of bounds and drop it.
int heap_overflow(int past) {
  const auto buffer = std::make_unique<float[]>(8);
  volatile float sink = buffer[7 + past];
  return sink > 0.0f ? 1 : 0;
}

// INT_MAX + 1: undefined, reported by -fsanitize=signed-integer-overflow.
int signed_overflow(int one) {
  volatile int big = INT_MAX;
  const int sum = big + one;
  return sum == 0 ? 1 : 0;
}

// A heap block whose last pointer is dropped: LeakSanitizer's report at exit.
void* volatile leaked = nullptr;
int leak(int size) {
  leaked = std::malloc(static_cast<std::size_t>(size) * 77);
  leaked = nullptr;
  return 0;
}

#ifdef SAMEBITS_HAVE_TWINS
// The reduction twin told its row is one element longer than the buffer holding it.
int twin_overflow(int past) {
  const auto buffer = std::make_unique<float[]>(100);
  samebits::kernels::ReduceProblem p;
  p.x = buffer.get();
  p.length = 100 + past;
  float out = 0.0f;
  p.out = &out;
  return samebits::kernels::invariant_reduce_cpu(p) == samebits::kernels::Status::ok ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const int one = argc > 1 ? 1 : 0;  // 1 whenever a mode is given
  if (std::strcmp(mode, "heap-overflow") == 0) return heap_overflow(one);
  if (std::strcmp(mode, "signed-overflow") == 0) return signed_overflow(one);
  if (std::strcmp(mode, "leak") == 0) return leak(one);
#ifdef SAMEBITS_HAVE_TWINS
  if (std::strcmp(mode, "twin-overflow") == 0) return twin_overflow(one);
#endif
  std::fprintf(stderr, "usage: planted_faults heap-overflow|signed-overflow|leak|twin-overflow\n");
  return 2;
}
