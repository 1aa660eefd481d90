// The invariant reduction on CUDA (label "gpu"; skipped without a GPU): every kernel path gives the
// CPU twin's bits, for each dtype, length class, layout and packed rows, NaNs and signed zeros too.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/device_choice.h"
#include "kernels/reduce/binding.h"

namespace samebits {
namespace {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

struct GpuCase {
  std::string name;
  at::ScalarType dtype;
  std::vector<std::int64_t> shape;
  std::int64_t dim;
  std::string layout;  // contiguous, transposed, strided, offset
};
void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << c.name;
}

// Wide values with random signs (within float16's range), a few exact zeros of both signs.
at::Tensor wide(const std::vector<std::int64_t>& shape) {
  at::Tensor x = at::randn(shape).mul(at::randn(shape).mul(4).exp2()).clamp(-6e4, 6e4);
  x.view({-1}).index_put_({at::arange(0, x.numel(), 97)}, at::scalar_tensor(-0.0));
  return x;
}

at::Tensor lay_out(const at::Tensor& x, const std::string& layout) {
  if (layout == "transposed") return x.t().contiguous().t();
  if (layout == "strided") {
    at::Tensor wide_buffer = at::full({x.size(0), x.size(1) + 3}, NAN, x.options());
    wide_buffer.narrow(1, 0, x.size(1)).copy_(x);
    return wide_buffer.narrow(1, 0, x.size(1));
  }
  if (layout == "offset") {
    at::Tensor storage = at::full({x.numel() + 1}, NAN, x.options());
    at::Tensor v = storage.narrow(0, 1, x.numel()).view(x.sizes());
    v.copy_(x);
    return v;
  }
  return x;
}

class CudaMatchesTwinTest : public ::testing::TestWithParam<GpuCase> {};

TEST_P(CudaMatchesTwinTest, SameBits) {
  SAMEBITS_REQUIRE_CUDA();
  const GpuCase& c = GetParam();
  const at::Tensor x = wide(c.shape).to(c.dtype);
  const at::Tensor twin = invariant_reduce(lay_out(x, c.layout), c.dim, false);
  const at::Tensor cuda = invariant_reduce(lay_out(x.cuda(), c.layout), c.dim, false).cpu();
  ASSERT_TRUE(twin.isfinite().all().item<bool>()) << "inputs must stay finite in " << c.dtype;
  ASSERT_GT(twin.abs().sum().item<double>(), 0.0) << "degenerate input";
  const at::Tensor differ = twin.view(at::kInt).ne(cuda.view(at::kInt)).view({-1});
  const std::int64_t mismatched = differ.sum().item<std::int64_t>();
  if (mismatched > 0) {
    const std::int64_t i = differ.nonzero().view({-1})[0].item<std::int64_t>();
    FAIL() << mismatched << " of " << twin.numel() << " differ; first at " << i << ": twin "
           << twin.view({-1})[i].item<float>() << " (0x" << std::hex
           << twin.view({-1}).view(at::kInt)[i].item<int>() << "), cuda " << std::dec
           << cuda.view({-1})[i].item<float>() << " (0x" << std::hex
           << cuda.view({-1}).view(at::kInt)[i].item<int>() << ")";
  }
  // The mean divides the same sum.
  const at::Tensor mean_twin = invariant_reduce(lay_out(x, c.layout), c.dim, true);
  const at::Tensor mean_cuda = invariant_reduce(lay_out(x.cuda(), c.layout), c.dim, true).cpu();
  EXPECT_TRUE(at::equal(mean_twin.view(at::kInt), mean_cuda.view(at::kInt)));
}

std::vector<GpuCase> cases() {
  std::vector<GpuCase> out;
  const std::pair<const char*, at::ScalarType> dtypes[] = {
      {"F32", at::kFloat}, {"F16", at::kHalf}, {"Bf16", at::kBFloat16}};
  for (const auto& [dname, dtype] : dtypes) {
    // Row reductions: short (one warp), one chunk, several chunks, several passes.
    for (std::int64_t n : {1, 7, 128, 129, 1000, 4096, 4097, 3 * 4096 + 5, 5000000}) {
      for (const char* layout : {"contiguous", "strided", "offset", "transposed"}) {
        if (n == 5000000 && std::string(layout) != "contiguous") continue;
        out.push_back(
            {std::string(dname) + "Rows" + std::to_string(n) + layout, dtype, {3, n}, 1, layout});
      }
    }
    // Enough rows of two to four chunks that one warp finishes each row (no second launch).
    // Transposed, rows adjacent in memory: the column kernels read them (adjacent_as_inner).
    for (std::int64_t n : {4097, 8192, 3 * 4096 + 5}) {
      for (const char* layout : {"contiguous", "strided", "offset", "transposed"}) {
        out.push_back({std::string(dname) + "ManyRows" + std::to_string(n) + layout,
                       dtype,
                       {1100, n},
                       1,
                       layout});
      }
    }
    // Column reductions [L, N].sum(0): the column kernel (L <= 128), then long_columns.cu's blocks
    // of 8, 16 and 32 slots (L <= 256, <= 512, more).
    for (std::int64_t l : {1, 64, 128, 129, 256, 257, 300, 512, 513}) {
      for (const char* layout : {"contiguous", "transposed", "offset"}) {
        out.push_back({std::string(dname) + "Columns" + std::to_string(l) + layout,
                       dtype,
                       {l, 1001},
                       0,
                       layout});
      }
    }
    // Long columns [L, N].sum(0) (long_columns.cu): one chunk, a chunk and a row, 4 and 20 chunks
    // (then summed by row_sums.cu); N a multiple of the 128-byte block width (64), a partial
    // group (1001) and fewer columns than a block's groups (8); strided and offset rows read
    // element by element.
    for (std::int64_t l : {4096, 4097, 3 * 4096 + 5, 20 * 4096}) {
      for (std::int64_t width : {8, 64, 1001}) {
        for (const char* layout : {"contiguous", "strided", "offset"}) {
          if (width == 1001 &&
              (l == 20 * 4096 || (l > 4097 && std::string(layout) != "contiguous")))
            continue;
          out.push_back({std::string(dname) + "LongColumns" + std::to_string(l) + "x" +
                             std::to_string(width) + layout,
                         dtype,
                         {l, width},
                         0,
                         layout});
        }
      }
    }
    // Columns of a 3-d tensor [3, L, N].sum(1): groups of adjacent reductions never straddle two
    // outer indices, whether N is a multiple of the group width (1000, 1024) or not (1001).
    for (std::int64_t width : {1000, 1001, 1024}) {
      for (const char* layout : {"contiguous", "offset"}) {
        for (std::int64_t l : {64, 4097}) {
          out.push_back({std::string(dname) + "Columns3d" + std::to_string(l) + "x" +
                             std::to_string(width) + layout,
                         dtype,
                         {3, l, width},
                         1,
                         layout});
        }
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Gpu, CudaMatchesTwinTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(CudaInvariantReduce, NanComesOutCanonical) {
  SAMEBITS_REQUIRE_CUDA();
  at::Tensor x = at::randn({2, 5000});
  x[1][4321] = NAN;
  const at::Tensor cuda = invariant_reduce(x.cuda(), 1, false).cpu();
  EXPECT_EQ(cuda.view(at::kInt)[1].item<int>(), 0x7fffffff);
  EXPECT_TRUE(at::equal(cuda.view(at::kInt), invariant_reduce(x, 1, false).view(at::kInt)));
}

TEST(CudaInvariantReduce, PackedRowsMatchRowsAlone) {
  SAMEBITS_REQUIRE_CUDA();
  const std::vector<std::int64_t> lengths = {1, 100, 4097, 50000, 129, 0, 8192};
  std::vector<at::Tensor> rows;
  std::vector<std::int64_t> offsets = {0};
  for (auto n : lengths) {
    rows.push_back(wide({n}));
    offsets.push_back(offsets.back() + n);
  }
  const at::Tensor values = at::cat(rows);
  const at::Tensor off = at::tensor(offsets, at::kLong);
  const at::Tensor packed = invariant_reduce_varlen(values.cuda(), off.cuda(), false).cpu();
  const at::Tensor twin = invariant_reduce_varlen(values, off, false);
  EXPECT_TRUE(at::equal(packed.view(at::kInt), twin.view(at::kInt)));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (lengths[r] == 0) continue;
    const at::Tensor alone = invariant_reduce(rows[r].cuda().unsqueeze(0), 1, false).cpu();
    EXPECT_EQ(alone.view(at::kInt)[0].item<int>(),
              packed.view(at::kInt)[static_cast<std::int64_t>(r)].item<int>())
        << "row " << r << " of length " << lengths[r];
  }
}

// Over a thousand packed rows of 0 to 16384 elements: one warp per row, whatever each row's chunks.
TEST(CudaInvariantReduce, ManyPackedRowsMatchTwin) {
  SAMEBITS_REQUIRE_CUDA();
  std::vector<std::int64_t> offsets = {0};
  for (std::int64_t r = 0; r < 1100; ++r) offsets.push_back(offsets.back() + (r * 37) % 16385);
  const at::Tensor values = wide({offsets.back()});
  const at::Tensor off = at::tensor(offsets, at::kLong);
  const at::Tensor packed = invariant_reduce_varlen(values.cuda(), off.cuda(), false).cpu();
  const at::Tensor twin = invariant_reduce_varlen(values, off, false);
  EXPECT_TRUE(at::equal(packed.view(at::kInt), twin.view(at::kInt)));
}

}  // namespace
}  // namespace samebits
