// invariant_linear_cuda: checks the problem and picks the launch: CUDA-core fmas for float32;
// for bf16 / f16 a tensor-core kernel by row count, each in the same order (the same bits).
#include <cstdint>

#include "kernels/common/cuda_status.h"
#include "kernels/linear/invariant_linear.h"
#include "kernels/linear/linear_kernels.h"

namespace samebits::kernels {

bool linear_problem_valid(const LinearProblem& p) {
  constexpr std::int64_t kMostN = 65535LL * 64;  // grid.y holds the column tiles
  if (p.rows < 0 || p.n < 0 || p.k < 0 || p.n > kMostN || p.k >= (1LL << 31)) return false;
  if (p.x_row_stride < p.k || p.w_row_stride < p.k) return false;
  if (p.rows > 0 && p.n > 0 && (p.out == nullptr || (p.k > 0 && (!p.x || !p.w)))) return false;
  return true;
}

bool linear_cuda_layout_ok(const LinearProblem& p) {
  if (p.dtype == DType::f32 || p.k == 0) return true;  // K = 0 reads nothing
  const auto aligned = [](const void* ptr) {
    return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
  };
  return aligned(p.x) && aligned(p.w) && p.x_row_stride % 8 == 0 && p.w_row_stride % 8 == 0;
}

Status invariant_linear_cuda_path(const LinearProblem& p, LinearPath path, cudaStream_t stream) {
  if (!linear_problem_valid(p) || !linear_cuda_layout_ok(p)) return Status::invalid_argument;
  if (p.rows == 0 || p.n == 0) return Status::ok;
  if (p.dtype == DType::f32) return launch_linear_fp32(p, stream);
  if (path == LinearPath::mma_sync || (path == LinearPath::automatic && !linear_warpgroups_take(p)))
    return launch_linear_tensor_cores(p, stream);
  return launch_linear_warpgroups(p, path, stream);
}

Status invariant_linear_cuda(const LinearProblem& p, cudaStream_t stream) {
  return invariant_linear_cuda_path(p, LinearPath::automatic, stream);
}

}  // namespace samebits::kernels
