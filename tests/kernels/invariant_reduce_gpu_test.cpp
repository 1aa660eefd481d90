// The invariant reduction on CUDA (label "gpu"; skipped without a GPU): every kernel path gives the
// CPU twin's bits, for each dtype, length class, layout and packed rows, NaNs and signed zeros too.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "harness/device_choice.h"
#include "kernels/reduce/binding.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace invariant_reduce_gpu_test_file {}
using namespace invariant_reduce_gpu_test_file;
namespace invariant_reduce_gpu_test_file {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

struct GpuCase {
  std::string name;
  at::ScalarType dtype;
  std::vector<std::int64_t> shape;
  std::int64_t dim;
  std::string layout;  // contiguous, transposed, strided, offset, every_other
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
  if (layout == "every_other") {  // columns two apart: stride_inner 2, so never the column kernels
    at::Tensor wide_buffer = at::full({x.size(0), 2 * x.size(1)}, NAN, x.options());
    at::Tensor v = wide_buffer.slice(1, 0, 2 * x.size(1), 2);
    v.copy_(x);
    return v;
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
    // Column reductions [L, N].sum(0): the column kernel (L <= 128), then short_columns.cu's
    // shapes of 32 x 2, 32 x 4 and 64 x 4 lanes (L <= 256, <= 512, <= 1024), then long_columns.cu.
    for (std::int64_t l : {1, 64, 128, 129, 256, 257, 300, 512, 513, 1024, 1025}) {
      for (const char* layout : {"contiguous", "transposed", "offset"}) {
        out.push_back({std::string(dname) + "Columns" + std::to_string(l) + layout,
                       dtype,
                       {l, 1001},
                       0,
                       layout});
      }
    }
    // Short columns (short_columns.cu) at each shape's borders: 64 columns (whole 16-byte groups,
    // a block's width in 16-bit types, vector reads), strided rows (scalar reads), 1001 columns
    // (a partial group, rows not 16-byte aligned), 3 columns (one partial group in a block).
    for (std::int64_t l : {130, 255, 256, 257, 511, 512, 513, 777, 1023, 1024}) {
      for (const auto& [width, layout] :
           std::vector<std::pair<std::int64_t, const char*>>{{64, "contiguous"},
                                                             {64, "strided"},
                                                             {1001, "contiguous"},
                                                             {1001, "offset"},
                                                             {3, "contiguous"}}) {
        out.push_back({std::string(dname) + "ShortColumns" + std::to_string(l) + "x" +
                           std::to_string(width) + layout,
                       dtype,
                       {l, width},
                       0,
                       layout});
      }
    }
    // A transposed matrix's rows (adjacent in memory) of 129..1024 elements: short_columns.cu
    // through adjacent_as_inner, 2048 of them (16-byte aligned rows) or 2051 (not).
    for (std::int64_t n : {129, 256, 300, 512, 1000, 1024}) {
      for (std::int64_t rows : {2048, 2051}) {
        out.push_back(
            {std::string(dname) + "TransposedRows" + std::to_string(rows) + "x" + std::to_string(n),
             dtype,
             {rows, n},
             1,
             "transposed"});
      }
    }
    // Few rows of 1025 to 16384 elements (wide_rows.cu, a block per row: one, two or four chunks
    // of lanes); contiguous (vector reads when aligned), offset (not aligned), every other element
    // (stride 2: scalar reads); one row, and 1023 rows (the most it takes).
    for (std::int64_t n : {1025, 2051, 4096, 4097, 8192, 3 * 4096 + 1, 16384}) {
      for (const char* layout : {"contiguous", "offset", "every_other"}) {
        for (std::int64_t rows : {1, 5}) {
          out.push_back({std::string(dname) + "WideRows" + std::to_string(rows) + "x" +
                             std::to_string(n) + layout,
                         dtype,
                         {rows, n},
                         1,
                         layout});
        }
      }
    }
    out.push_back({std::string(dname) + "WideRows1023x5000", dtype, {1023, 5000}, 1, "contiguous"});
    // Rows of 129 to 1024 elements, any number of them, and 16-bit rows of up to 4096 when there
    // are at least 1024 (medium_rows.cu, a warp per 8, 4, 2 or 1 rows of 16-byte words). Its shapes
    // by length: up to 256 (16-bit: one word per thread, 8 rows a warp; f32: two, 4 rows), 512,
    // 1024, and (16-bit) one chunk of four steps. Contiguous rows are read as 16-byte words where
    // aligned (odd lengths in 16-bit types: every other row is not), offset rows (no row aligned)
    // and every other element (stride 2) element by element; 1, 5 and 1023 rows leave a warp's
    // rows partly empty.
    for (std::int64_t n : {129, 255, 256, 257, 511, 512, 1000, 1024}) {
      for (const char* layout : {"contiguous", "offset", "every_other"}) {
        for (std::int64_t rows : {1, 5, 1023}) {
          out.push_back({std::string(dname) + "MediumRows" + std::to_string(rows) + "x" +
                             std::to_string(n) + layout,
                         dtype,
                         {rows, n},
                         1,
                         layout});
        }
      }
    }
    // Many rows: 65536 of 256 (the bench's shape; 16-bit: 8192 warps of 8 rows), 4100 of 1000
    // (rows 8-byte but not 16-byte aligned in f32), rows 3 elements apart (strided); 1100 rows of
    // 1025, 2051 and 4096 (16-bit: medium_rows.cu's four-step shape; f32: row_sums.cu).
    out.push_back({std::string(dname) + "MediumRows65536x256contiguous",
                   dtype,
                   {65536, 256},
                   1,
                   "contiguous"});
    out.push_back({std::string(dname) + "MediumRows4100x1000contiguous",
                   dtype,
                   {4100, 1000},
                   1,
                   "contiguous"});
    out.push_back(
        {std::string(dname) + "MediumRows4100x300strided", dtype, {4100, 300}, 1, "strided"});
    for (std::int64_t n : {1025, 2051, 4096}) {
      for (const char* layout : {"contiguous", "offset", "every_other", "strided"}) {
        out.push_back({std::string(dname) + "MediumRows1100x" + std::to_string(n) + layout,
                       dtype,
                       {1100, n},
                       1,
                       layout});
      }
    }
    // Columns two apart ([L, 3] with stride_inner 2): rows of the row kernels, read at stride 6.
    for (std::int64_t l : {300, 4097}) {
      out.push_back({std::string(dname) + "EveryOtherColumn" + std::to_string(l),
                     dtype,
                     {l, 3},
                     0,
                     "every_other"});
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

// Few packed rows of at most four chunks (wide_rows.cu reads them through the offsets), empty and
// one-element rows among them.
TEST(CudaInvariantReduce, FewPackedRowsMatchTwin) {
  SAMEBITS_REQUIRE_CUDA();
  std::vector<std::int64_t> offsets = {0};
  for (const std::int64_t n : {0, 1, 1025, 4096, 4097, 16384, 300, 12289})
    offsets.push_back(offsets.back() + n);
  const at::Tensor values = wide({offsets.back()});
  const at::Tensor off = at::tensor(offsets, at::kLong);
  for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const at::Tensor v = values.to(dtype);
    const at::Tensor packed = invariant_reduce_varlen(v.cuda(), off.cuda(), false).cpu();
    const at::Tensor twin = invariant_reduce_varlen(v, off, false);
    EXPECT_TRUE(at::equal(packed.view(at::kInt), twin.view(at::kInt))) << dtype;
  }
}

// Signed zeros, infinities and NaN through the column and row kernels that take short columns and
// few long rows (l <= 1024: medium_rows.cu's shapes for rows): a column (row) of -0.0 alone sums
// to +0.0 (the order starts from +0.0), one infinity stays, +inf and -inf give NaN, and NaN comes
// out canonical; the bits are the twin's.
TEST(CudaInvariantReduce, SpecialsMatchTwinInShortColumnsAndWideRows) {
  SAMEBITS_REQUIRE_CUDA();
  for (const std::int64_t l : {1, 100, 256, 300, 513, 1024, 5000, 16384}) {
    at::Tensor x = wide({l, 16});
    x.select(1, 0).fill_(-0.0);
    x.select(1, 1)[l - 1] = INFINITY;
    x.select(1, 2)[0] = INFINITY;
    x.select(1, 2)[l / 2] = -INFINITY;  // (l = 1: the same element, -inf)
    x.select(1, 3)[l / 3] = NAN;
    x.select(1, 4).fill_(0.0);
    x.select(1, 4)[l - 1] = -0.0;
    for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      const at::Tensor xd = x.to(dtype);
      // Columns ([l, 16].sum(0)) and the same values as few rows ([16, l].sum(1)).
      for (const at::Tensor& input : {xd, xd.t().contiguous()}) {
        const std::int64_t dim = input.size(0) == l ? 0 : 1;
        const at::Tensor cuda = invariant_reduce(input.cuda(), dim, false).cpu();
        const at::Tensor twin = invariant_reduce(input, dim, false);
        EXPECT_TRUE(at::equal(cuda.view(at::kInt), twin.view(at::kInt)))
            << "l " << l << " dim " << dim << " " << dtype;
        EXPECT_EQ(cuda.view(at::kInt)[0].item<int>(), 0) << "-0.0 alone sums to +0.0, l " << l;
        EXPECT_EQ(cuda.view(at::kInt)[4].item<int>(), 0) << "+0.0 and -0.0 sum to +0.0, l " << l;
        EXPECT_EQ(cuda.view(at::kInt)[3].item<int>(), 0x7fffffff) << "canonical NaN, l " << l;
        EXPECT_TRUE(std::isinf(cuda[1].item<float>())) << "one infinity stays, l " << l;
      }
    }
  }
}

// Packed rows of at most 1024 elements (medium_rows.cu, through the offsets: rows of any alignment,
// empty, one-element and short rows among them), then over a thousand of at most 4096 (16-bit:
// medium_rows.cu's four-step shape), in every dtype.
TEST(CudaInvariantReduce, MediumPackedRowsMatchTwin) {
  SAMEBITS_REQUIRE_CUDA();
  std::vector<std::vector<std::int64_t>> sets = {{0, 1, 129, 256, 1000, 7, 1024, 0, 255, 512, 513}};
  sets.emplace_back();
  for (std::int64_t r = 0; r < 1100; ++r) sets.back().push_back((r * 37) % 4097);
  for (const auto& lengths : sets) {
    std::vector<std::int64_t> offsets = {0};
    for (const std::int64_t n : lengths) offsets.push_back(offsets.back() + n);
    const at::Tensor values = wide({offsets.back()});
    const at::Tensor off = at::tensor(offsets, at::kLong);
    for (const at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
      const at::Tensor v = values.to(dtype);
      for (const bool mean : {false, true}) {
        const at::Tensor packed = invariant_reduce_varlen(v.cuda(), off.cuda(), mean).cpu();
        const at::Tensor twin = invariant_reduce_varlen(v, off, mean);
        EXPECT_TRUE(at::equal(packed.view(at::kInt), twin.view(at::kInt)))
            << dtype << " rows " << lengths.size() << " mean " << mean;
      }
    }
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

}  // namespace invariant_reduce_gpu_test_file
}  // namespace samebits
