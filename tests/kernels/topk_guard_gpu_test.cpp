// The row guard of top-k and the indexer on CUDA (label "gpu"; skipped without a GPU): every
// hostile case of hostile_offsets.h, every kernel, returns with the twin's marks, selection and
// status, and never reads outside its buffers: run it under compute-sanitizer memcheck, where
// *Unguarded* (the control, guard off) must be reported and everything else must be clean.
#include <ATen/ATen.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/indexer/invariant_indexer.h"
#include "kernels/topk/invariant_topk.h"
#include "tests/kernels/hostile_offsets.h"
#include "tests/kernels/topk_oracle.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace topk_guard_gpu_test_file {}
using namespace topk_guard_gpu_test_file;
namespace topk_guard_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

// One cudaMalloc of exactly these bytes (not torch's caching allocator, whose blocks are larger
// than the tensor, so that memcheck sees a read one element past the end).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) {
    EXPECT_EQ(cudaMalloc(&data_, bytes == 0 ? 1 : bytes), cudaSuccess);
  }
  DeviceBuffer(const void* host, std::size_t bytes) : DeviceBuffer(bytes) {
    EXPECT_EQ(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  explicit DeviceBuffer(const at::Tensor& host)
      : DeviceBuffer(host.contiguous().const_data_ptr(), host.nbytes()) {}
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }
  // Back into `host` (of the buffer's size).
  void to(const at::Tensor& host) const {
    EXPECT_EQ(cudaMemcpy(host.mutable_data_ptr(), data_, host.nbytes(), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }

 private:
  void* data_ = nullptr;
};

// A launch's end: it was accepted and ran without a CUDA error; its status word.
std::int32_t finish(kernels::Status launched, const DeviceBuffer& status, const std::string& what) {
  EXPECT_EQ(launched, kernels::Status::ok) << what;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  std::int32_t word = -1;
  EXPECT_EQ(cudaMemcpy(&word, status.get(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
  return word;
}

using kernels::TopkAlgorithm;

const char* name_of(TopkAlgorithm a) {
  switch (a) {
    case TopkAlgorithm::radix_select: return "radix_select";
    case TopkAlgorithm::warp_select: return "warp_select";
    case TopkAlgorithm::split_select: return "split_select";
    default: return "auto";
  }
}

// The CUDA top-k of the case on exact-size buffers; unguarded: the control.
TopkOutcome cuda_topk(const at::Tensor& values, const HostileCase& c, std::int64_t k,
                      TopkAlgorithm algorithm, bool unguarded = false) {
  const DeviceBuffer v(values), offsets(c.offsets.data(), c.offsets.size() * 8);
  const std::int64_t slots = rows_of(c) * k;
  const DeviceBuffer out_values(slots * values.element_size()), out_indices(slots * 8), status(4);
  EXPECT_EQ(cudaMemset(status.get(), 0, 4), cudaSuccess);
  kernels::TopkProblem p;
  p.values = v.get();
  p.dtype = kernel_dtype(values, "test");
  p.rows = rows_of(c);
  p.offsets = offsets.get<std::int64_t>();
  p.max_length = c.max_length;
  p.total = c.total;
  p.k = k;
  p.out_values = out_values.get();
  p.out_indices = out_indices.get<std::int64_t>();
  p.status = status.get<std::int32_t>();
  p.algorithm = algorithm;
  p.unguarded_for_tests = unguarded;
  const std::int64_t bytes = kernels::topk_split_workspace_bytes(p);
  const DeviceBuffer workspace(static_cast<std::size_t>(bytes));
  if (algorithm == TopkAlgorithm::split_select || algorithm == TopkAlgorithm::automatic) {
    p.workspace = bytes > 0 ? workspace.get() : nullptr;
    p.workspace_bytes = bytes;
  }
  TopkOutcome out;
  out.status = finish(kernels::invariant_topk_cuda(p, nullptr), status, c.name);
  out.values = at::empty({rows_of(c), k}, values.options());
  out.indices = at::empty({rows_of(c), k}, values.options().dtype(at::kLong));
  out_values.to(out.values);
  out_indices.to(out.indices);
  return out;
}

// Every kernel that takes the case: the twin's marks, selection and status, bit for bit.
TEST(TopkGuardCuda, HostileOffsetsGiveTheTwinsMarksAndStatus) {
  SAMEBITS_REQUIRE_CUDA();
  for (const HostileCase& c : hostile_cases()) {
    for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      const at::Tensor values = at::randn({c.total}, at::kFloat).to(dtype);
      for (const std::int64_t k : {5, 300}) {
        const TopkOutcome want = twin_topk(values, c, k);
        ASSERT_EQ(want.status, stated_status(c)) << c.name;
        for (const TopkAlgorithm a : {TopkAlgorithm::automatic, TopkAlgorithm::radix_select,
                                      TopkAlgorithm::warp_select, TopkAlgorithm::split_select}) {
          if (a == TopkAlgorithm::warp_select &&
              (k > kernels::kWarpSelectMaxK || c.max_length > kernels::kWarpSelectMaxLength))
            continue;
          const TopkOutcome got = cuda_topk(values, c, k, a);
          const std::string what = c.name + " " + name_of(a) + " k " + std::to_string(k);
          EXPECT_TRUE(same_selection(want.values, want.indices, got.values, got.indices)) << what;
          EXPECT_EQ(got.status, want.status) << what;
        }
      }
    }
  }
}

// The control: the same call with the guard off reads the row as its offsets say, past the end
// of values (memcheck reports it); unmarked, unreported. Proves the guard is what saves the call.
TEST(TopkGuardCuda, UnguardedRowReadsPastItsTensor) {
  SAMEBITS_REQUIRE_CUDA();
  // Row 1 runs past values (outside) and past max_length (too long): both flaws are reported.
  const HostileCase c{"control", 300, 300, {0, 100, 300 + 4096},
                      {0, kernels::kRowOutside | kernels::kRowTooLong}};
  const at::Tensor values = at::randn({c.total});
  const TopkOutcome guarded = cuda_topk(values, c, 5, TopkAlgorithm::radix_select);
  EXPECT_EQ(guarded.status, kernels::kRowOutside | kernels::kRowTooLong);
  EXPECT_EQ(guarded.indices[1][0].item<std::int64_t>(), -1);
  const TopkOutcome unguarded = cuda_topk(values, c, 5, TopkAlgorithm::radix_select, true);
  EXPECT_EQ(unguarded.status, 0) << "the control reported a flaw: the guard is not off";
  EXPECT_GE(unguarded.indices[1][0].item<std::int64_t>(), 0) << "row 1 was read, not marked";
}

// The indexer on exact-size buffers: exact gives the twin's bits (scores of clean items, marks,
// status, scores of flawed items left alone); tensor_cores the same marks and status.
IndexerOutcome cuda_indexer(const IndexerInputs& in, const HostileCase& c, std::int64_t k,
                            kernels::IndexerAlgorithm algorithm) {
  const DeviceBuffer q(in.q), keys(in.keys), weights(in.weights),
      offsets(c.offsets.data(), c.offsets.size() * 8);
  IndexerOutcome out;
  out.scores = at::full({c.total}, kUnwrittenScore, at::kFloat);
  out.top_values = at::empty({rows_of(c), k}, at::kFloat);
  out.top_indices = at::empty({rows_of(c), k}, at::kLong);
  const DeviceBuffer scores(out.scores), top_values(out.top_values.nbytes()),
      top_indices(out.top_indices.nbytes()), status(4);
  EXPECT_EQ(cudaMemset(status.get(), 0, 4), cudaSuccess);
  kernels::IndexerProblem p = indexer_problem(in, c, offsets.get<std::int64_t>(), k, algorithm);
  p.q = q.get();
  p.keys = keys.get();
  p.weights = weights.get<float>();
  p.scores = scores.get<float>();
  p.top_values = top_values.get<float>();
  p.top_indices = top_indices.get<std::int64_t>();
  p.status = status.get<std::int32_t>();
  out.status = finish(kernels::invariant_indexer_cuda(p, nullptr), status, c.name);
  scores.to(out.scores);
  top_values.to(out.top_values);
  top_indices.to(out.top_indices);
  return out;
}

TEST(IndexerGuardCuda, HostileOffsetsGiveTheTwinsMarksAndStatus) {
  SAMEBITS_REQUIRE_CUDA();
  using kernels::IndexerAlgorithm;
  for (const HostileCase& c : hostile_cases()) {
    const IndexerInputs in = indexer_inputs(c, 17);
    for (const IndexerAlgorithm a : {IndexerAlgorithm::exact, IndexerAlgorithm::tensor_cores}) {
      const std::int64_t k = 5;
      const IndexerOutcome want = twin_indexer(in, c, k, a);
      const IndexerOutcome got = cuda_indexer(in, c, k, a);
      const std::string what = c.name + " " + kernels::indexer_algorithm_name(a);
      EXPECT_EQ(got.status, want.status) << what;
      for (std::int64_t r = 0; r < rows_of(c); ++r) {
        if (c.flaws[r]) {  // marked as the twin marks
          EXPECT_TRUE(same_selection(want.top_values[r], want.top_indices[r], got.top_values[r],
                                     got.top_indices[r]))
              << what << " item " << r;
          continue;
        }
        if (overlaps_clean_row(c, r)) continue;  // unspecified, unmarked
        const auto slice = [&](const at::Tensor& s) {
          return s.slice(0, c.offsets[r], c.offsets[r + 1]);
        };
        if (a == IndexerAlgorithm::exact) {
          EXPECT_TRUE(same_selection(want.top_values[r], want.top_indices[r], got.top_values[r],
                                     got.top_indices[r]))
              << what << " item " << r;
          EXPECT_TRUE(at::equal(slice(want.scores), slice(got.scores))) << what << " item " << r;
        } else {
          EXPECT_FALSE(slice(got.scores).eq(kUnwrittenScore).any().item<bool>()) << what;
        }
      }
      // Positions no clean item covers hold what they held on the GPU as in the twin.
      EXPECT_TRUE(at::equal(want.scores.eq(kUnwrittenScore), got.scores.eq(kUnwrittenScore)))
          << what;
    }
  }
}

}  // namespace topk_guard_gpu_test_file
}  // namespace samebits
