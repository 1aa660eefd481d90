// The attention's sequence guard on CUDA (label "gpu"; skipped without a GPU): hostile packed and
// paged metadata mark exactly the flawed sequences (NaN rows, status bits) while every sound one
// keeps the bits it has alone; under compute-sanitizer memcheck *Control* must be caught.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "harness/device_choice.h"
#include "kernels/attention/binding.h"
#include "kernels/attention/sequence_guard.h"
#include "kernels/common/row_guard.h"
#include "tests/kernels/bit_compare.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace attention_guard_gpu_test_file {}
using namespace attention_guard_gpu_test_file;
namespace attention_guard_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

using kernels::kNegativeCacheLength, kernels::kPageOutside, kernels::kPagesBeyondTable;
using kernels::kRowDecreasing, kernels::kRowOutside, kernels::kRowTooLong;
constexpr std::int64_t kHeads = 4, kKvHeads = 2, kDim = 64;
constexpr std::int64_t kHi = std::numeric_limits<std::int64_t>::max();

at::Tensor seeded(std::vector<std::int64_t> shape, std::uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat)).to(at::kBFloat16).cuda();
}

at::Tensor longs(const std::vector<std::int64_t>& v) {
  return at::tensor(v, at::kLong).cuda();
}

// Whether rows [first, end) of out [T, H, d] and lse [H, T] are all NaN (the guard's mark).
bool marked(const AttentionOutputs& o, std::int64_t first, std::int64_t end) {
  return at::isnan(o.out.slice(0, first, end).to(at::kFloat)).all().item<bool>() &&
         at::isnan(o.lse.slice(1, first, end)).all().item<bool>();
}

// The scales that pick each CUDA path: tensor cores (positive) and the exact one (negative).
struct Path {
  std::string name;
  double scale;
};
const std::vector<Path> kPaths = {{"tensor_cores", 0.125}, {"exact", -0.125}};

// A varlen case: offsets and bounds as given, each sequence's flaws stated by hand.
struct VarlenCase {
  std::string name;
  std::vector<std::int64_t> q_offsets, kv_offsets;
  std::int64_t max_q_len, max_kv_len;
  std::vector<std::int32_t> flaws;
};

// q: 150 rows, k and v: 150 rows; the sound layout is [0, 50, 120, 150] for both.
std::vector<VarlenCase> varlen_cases() {
  const std::vector<std::int64_t> sound{0, 50, 120, 150};
  return {
      {"clean", sound, sound, -1, -1, {0, 0, 0}},  // the negative control
      {"q_past_end", {0, 50, 120, 151}, sound, -1, -1, {0, 0, kRowOutside}},
      {"kv_far_past_end", sound, {0, 50, 120, 4000}, -1, -1, {0, 0, kRowOutside | kRowTooLong}},
      {"q_decreasing", {50, 150, 0, 50}, sound, -1, -1, {0, kRowDecreasing, 0}},
      {"kv_decreasing", sound, {0, 50, 30, 150}, -1, -1, {0, kRowDecreasing, 0}},
      {"q_negative_start", {-5, 50, 120, 150}, sound, -1, -1, {kRowOutside, 0, 0}},
      {"q_above_max_q_len", sound, sound, 60, -1, {0, kRowTooLong, 0}},
      {"kv_above_max_kv_len", sound, sound, -1, 60, {0, kRowTooLong, 0}},
      {"q_int64_extremes",
       {0, 50, kHi, 150},
       sound,
       -1,
       -1,
       {0, kRowOutside | kRowTooLong, kRowOutside | kRowDecreasing}},
  };
}

class AttentionGuardGpuVarlen : public ::testing::TestWithParam<std::tuple<VarlenCase, Path>> {};

// Every flawed sequence's rows (those of [start, end) inside q, when it does not decrease) are
// NaN; every sound one has the bits of its own call alone; the status is the OR of the flaws.
TEST_P(AttentionGuardGpuVarlen, FlawedSequencesAreMarkedAndSoundOnesKeepTheirBits) {
  SAMEBITS_REQUIRE_CUDA();
  const auto& [c, path] = GetParam();
  const at::Tensor q = seeded({150, kHeads, kDim}, 1), k = seeded({150, kKvHeads, kDim}, 2),
                   v = seeded({150, kKvHeads, kDim}, 3);
  const at::Tensor status = at::zeros({1}, at::dtype(at::kInt).device(at::kCUDA));
  const AttentionOutputs got =
      invariant_attention_varlen(q, k, v, longs(c.q_offsets), longs(c.kv_offsets), c.max_q_len,
                                 false, path.scale, c.max_kv_len, status);
  std::int32_t all = 0;
  for (std::size_t b = 0; b < c.flaws.size(); ++b) {
    const std::int64_t qs = c.q_offsets[b], qe = c.q_offsets[b + 1];
    all |= c.flaws[b];
    const std::string what = c.name + " " + path.name + " sequence " + std::to_string(b);
    if (c.flaws[b]) {
      if (qs <= qe) {
        EXPECT_TRUE(marked(got, std::max<std::int64_t>(qs, 0), std::min<std::int64_t>(qe, 150)))
            << what;
      }
      continue;
    }
    const std::int64_t ks = c.kv_offsets[b], ke = c.kv_offsets[b + 1];
    const AttentionOutputs alone =
        invariant_attention_varlen(q.slice(0, qs, qe), k.slice(0, ks, ke), v.slice(0, ks, ke),
                                   longs({0, qe - qs}), longs({0, ke - ks}), -1, false, path.scale);
    EXPECT_TRUE(same_bits(alone.out, got.out.slice(0, qs, qe))) << what;
    EXPECT_TRUE(same_bits(alone.lse, got.lse.slice(1, qs, qe))) << what;
  }
  EXPECT_EQ(status.item<std::int32_t>(), all) << c.name << " " << path.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionGuardGpuVarlen,
                         ::testing::Combine(::testing::ValuesIn(varlen_cases()),
                                            ::testing::ValuesIn(kPaths)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
                         });

// A paged case: three sequences appending new tokens (1, 2 and 1 of them) to a cache of 12 pages
// of 16 keys, a block table of 4 pages per sequence (sequence b's pages 4 b .. 4 b + 3).
struct PagedCase {
  std::string name;
  std::vector<std::int64_t> cache_lengths, q_offsets;
  std::int64_t max_kv_len;
  std::vector<std::int32_t> table;  // [3][4]
  std::vector<std::int32_t> flaws;
};

std::vector<std::int32_t> sound_table() {
  std::vector<std::int32_t> t(12);
  for (int i = 0; i < 12; ++i) t[i] = (i * 5) % 12;  // a scrambled permutation of the pages
  return t;
}

std::vector<PagedCase> paged_cases() {
  const std::vector<std::int64_t> cached{40, 20, 30}, q{0, 1, 3, 4};
  std::vector<std::int32_t> outside = sound_table(), unused = sound_table();
  outside[4 + 1] = 12;  // sequence 1's second page: one past the cache
  unused[8 + 3] = -7;   // sequence 2's fourth page, which its 31 keys never reach: no flaw
  return {
      {"clean", cached, q, -1, sound_table(), {0, 0, 0}},
      {"unused_entry_is_no_flaw", cached, q, -1, unused, {0, 0, 0}},
      {"negative_cache_length", {40, -3, 30}, q, -1, sound_table(), {0, kNegativeCacheLength, 0}},
      {"keys_above_the_table_reach", {40, 70, 30}, q, -1, sound_table(), {0, kRowTooLong, 0}},
      {"pages_beyond_the_table", {40, 70, 30}, q, 100, sound_table(), {0, kPagesBeyondTable, 0}},
      {"keys_above_max_kv_len", cached, q, 32, sound_table(), {kRowTooLong, 0, 0}},
      {"table_entry_outside", cached, q, -1, outside, {0, kPageOutside, 0}},
      {"q_past_end", cached, {0, 1, 3, 5}, -1, sound_table(), {0, 0, kRowOutside}},
      {"cache_length_int64_max", {40, kHi, 30}, q, -1, sound_table(), {0, kRowTooLong, 0}},
  };
}

class AttentionGuardGpuPaged : public ::testing::TestWithParam<std::tuple<PagedCase, Path>> {};

// The same over the paged cache, with the append: a flawed sequence writes nothing into the
// caches, a sound one writes what it writes alone.
TEST_P(AttentionGuardGpuPaged, FlawedSequencesAreMarkedAndSoundOnesKeepTheirBits) {
  SAMEBITS_REQUIRE_CUDA();
  const auto& [c, path] = GetParam();
  const at::Tensor k0 = seeded({12, 16, kKvHeads, kDim}, 4),
                   v0 = seeded({12, 16, kKvHeads, kDim}, 5);
  const at::Tensor q = seeded({4, kHeads, kDim}, 6), kn = seeded({4, kKvHeads, kDim}, 7),
                   vn = seeded({4, kKvHeads, kDim}, 8);
  const at::Tensor table = at::tensor(c.table, at::kInt).view({3, 4}).cuda();
  at::Tensor kc = k0.clone(), vc = v0.clone();
  const at::Tensor status = at::zeros({1}, at::dtype(at::kInt).device(at::kCUDA));
  const AttentionOutputs got =
      invariant_attention_with_kvcache(q, kc, vc, table, longs(c.cache_lengths), longs(c.q_offsets),
                                       kn, vn, -1, true, path.scale, c.max_kv_len, status);
  // The caches as the sound sequences leave them, each called alone.
  at::Tensor k_want = k0.clone(), v_want = v0.clone();
  std::int32_t all = 0;
  for (std::size_t b = 0; b < c.flaws.size(); ++b) {
    const std::int64_t qs = c.q_offsets[b], qe = c.q_offsets[b + 1];
    all |= c.flaws[b];
    const std::string what = c.name + " " + path.name + " sequence " + std::to_string(b);
    if (c.flaws[b]) {
      EXPECT_TRUE(marked(got, qs, std::min<std::int64_t>(qe, 4))) << what;
      continue;
    }
    const AttentionOutputs alone = invariant_attention_with_kvcache(
        q.slice(0, qs, qe), k_want, v_want, table.slice(0, b, b + 1), longs({c.cache_lengths[b]}),
        longs({0, qe - qs}), kn.slice(0, qs, qe), vn.slice(0, qs, qe), -1, true, path.scale);
    EXPECT_TRUE(same_bits(alone.out, got.out.slice(0, qs, qe))) << what;
    EXPECT_TRUE(same_bits(alone.lse, got.lse.slice(1, qs, qe))) << what;
  }
  EXPECT_TRUE(same_bits(k_want, kc)) << c.name << ": k_cache";
  EXPECT_TRUE(same_bits(v_want, vc)) << c.name << ": v_cache";
  EXPECT_EQ(status.item<std::int32_t>(), all) << c.name << " " << path.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionGuardGpuPaged,
                         ::testing::Combine(::testing::ValuesIn(paged_cases()),
                                            ::testing::ValuesIn(kPaths)),
                         [](const auto& info) {
                           return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
                         });

// One cudaMalloc of exactly these bytes (not torch's caching allocator, whose blocks are larger
// than the tensor, so that memcheck sees a read past the end).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&data_, bytes), cudaSuccess); }
  explicit DeviceBuffer(const at::Tensor& t) : DeviceBuffer(t.nbytes()) {
    const at::Tensor host = t.cpu().contiguous();
    EXPECT_EQ(cudaMemcpy(data_, host.const_data_ptr(), t.nbytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

// One sequence of 1 query over 20 cached keys (pages of 16) whose table's second entry is 2, one
// page past a cache of 2 pages, at the kernels' level on exact-size buffers. Guarded: the guard
// runs first and the kernels read its verdicts; unguarded: the control, taking the table as it is.
struct ExactSizeCall {
  std::int32_t status = -1;
  bool marked = false;
};

ExactSizeCall paged_call(kernels::AttentionAlgorithm algorithm, bool guarded) {
  namespace k = kernels;
  const DeviceBuffer q(seeded({1, kHeads, kDim}, 9)), kc(seeded({2, 16, kKvHeads, kDim}, 10)),
      vc(seeded({2, 16, kKvHeads, kDim}, 11)), q_offsets(at::tensor({0L, 1L})),
      cache_lengths(at::tensor({19L})), kv_lengths(at::tensor({20L})),
      table(at::tensor({0, 2}, at::kInt)), flaws(4), status(at::zeros({1}, at::kInt)),
      out(kHeads * kDim * 2), lse(kHeads * 4);
  k::AttentionProblem p;
  p.dtype = k::DType::bf16;
  p.algorithm = algorithm;
  p.sequences = 1;
  p.heads = kHeads;
  p.kv_heads = kKvHeads;
  p.head_dim = kDim;
  p.scale = 0.125f;
  p.q = q.get();
  p.q_offsets = q_offsets.get<std::int64_t>();
  p.max_q_len = 1;
  p.q_token_stride = kHeads * kDim;
  p.q_head_stride = kDim;
  p.k = kc.get();
  p.v = vc.get();
  p.kv_lengths = kv_lengths.get<std::int64_t>();
  p.max_kv_len = 32;
  p.block_table = table.get<std::int32_t>();
  p.block_table_stride = 2;
  p.page_size = 16;
  p.k_page_stride = p.v_page_stride = 16 * kKvHeads * kDim;
  p.k_token_stride = p.v_token_stride = kKvHeads * kDim;
  p.k_head_stride = p.v_head_stride = kDim;
  p.out = out.get();
  p.out_token_stride = kHeads * kDim;
  p.out_head_stride = kDim;
  p.lse = lse.get<float>();
  p.lse_token_stride = 1;
  p.lse_head_stride = 1;
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  if (guarded) {
    k::SequenceGuard g;
    g.flaws = flaws.get<std::int32_t>();
    g.status = status.get<std::int32_t>();
    g.q_total = 1;
    g.cache_lengths = cache_lengths.get<std::int64_t>();
    g.kv_lengths = kv_lengths.get<std::int64_t>();
    g.pages = 2;
    EXPECT_EQ(k::attention_sequence_guard_cuda(p, g, stream), k::Status::ok);
    p.sequence_flaws = flaws.get<std::int32_t>();
  }
  EXPECT_EQ(k::invariant_attention_cuda(p, stream), k::Status::ok);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ExactSizeCall r;
  EXPECT_EQ(cudaMemcpy(&r.status, status.get(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<float> lse_host(kHeads);
  EXPECT_EQ(cudaMemcpy(lse_host.data(), lse.get(), kHeads * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  r.marked = std::isnan(lse_host[0]);
  return r;
}

const std::vector<kernels::AttentionAlgorithm> kAlgorithms = {
    kernels::AttentionAlgorithm::tensor_cores, kernels::AttentionAlgorithm::exact};

// Guarded on exact-size buffers: the sequence is marked and reported, nothing read past the cache
// (memcheck clean).
TEST(AttentionGuardGpu, GuardedPageOutsideIsMarkedOnExactSizeBuffers) {
  SAMEBITS_REQUIRE_CUDA();
  for (const auto algorithm : kAlgorithms) {
    const ExactSizeCall r = paged_call(algorithm, true);
    EXPECT_EQ(r.status, kPageOutside);
    EXPECT_TRUE(r.marked);
  }
}

// The control, one test per path (memcheck ends a process's CUDA work at the first bad read): the
// same call with the guard off reads page 2, past the end of the caches (memcheck reports it);
// unreported. Proves the guard is what keeps the call inside.
TEST(AttentionGuardGpu, ControlWithoutGuardTensorCoresReadPastTheCache) {
  SAMEBITS_REQUIRE_CUDA();
  const ExactSizeCall r = paged_call(kernels::AttentionAlgorithm::tensor_cores, false);
  EXPECT_EQ(r.status, 0) << "the control reported a flaw: the guard is not off";
}

TEST(AttentionGuardGpu, ControlWithoutGuardExactPathReadsPastTheCache) {
  SAMEBITS_REQUIRE_CUDA();
  const ExactSizeCall r = paged_call(kernels::AttentionAlgorithm::exact, false);
  EXPECT_EQ(r.status, 0) << "the control reported a flaw: the guard is not off";
}

}  // namespace attention_guard_gpu_test_file
}  // namespace samebits
