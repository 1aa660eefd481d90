// A one-op torch library whose only op fails with a number in its message: built once against
// samebits::torch and once with a static libstdc++ (the control the probe test must catch).
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor fail_with_number(const at::Tensor& x, std::int64_t k) {
  TORCH_CHECK(k <= x.size(-1), "k must be at most ", x.size(-1), ", got ", k);
  return x;
}

}  // namespace

TORCH_LIBRARY(samebits_probe, m) {
  m.def("fail_with_number(Tensor x, int k) -> Tensor");
  m.impl("fail_with_number", c10::DeviceType::CPU, &fail_with_number);
}
