// The CPU twin of the batched top-k: each row's elements become the sort words of
// invariant_topk_order.h and the k smallest words, in order, are the result, as on the GPU; a
// flawed packed row (kernels/common/row_guard.h) is marked as the kernels mark it.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/common/half_bits.h"
#include "kernels/topk/invariant_topk.h"
#include "kernels/topk/invariant_topk_order.h"

namespace samebits::kernels {
namespace {

using namespace topk_order;

std::uint32_t float_bits_at(const void* values, DType dtype, std::int64_t i) {
  switch (dtype) {
    case DType::f32: {
      std::uint32_t bits;
      std::memcpy(&bits, static_cast<const unsigned char*>(values) + 4 * i, 4);
      return bits;
    }
    case DType::f16:
      return float_to_bits(float16_to_float(static_cast<const std::uint16_t*>(values)[i]));
    case DType::bf16:
      return float_to_bits(bfloat16_to_float(static_cast<const std::uint16_t*>(values)[i]));
  }
  return 0;
}

std::size_t element_bytes(DType dtype) {
  return dtype == DType::f32 ? 4 : 2;
}

// Slot `slot` of the output: a constant given by its bits in each dtype.
void write_constant(void* out, DType dtype, std::int64_t slot, std::uint32_t f32, std::uint16_t f16,
                    std::uint16_t bf16) {
  if (dtype == DType::f32) {
    std::memcpy(static_cast<unsigned char*>(out) + 4 * slot, &f32, 4);
  } else {
    const std::uint16_t bits = dtype == DType::f16 ? f16 : bf16;
    std::memcpy(static_cast<unsigned char*>(out) + 2 * slot, &bits, 2);
  }
}

// -inf, for slots past a short row's end.
void write_negative_infinity(void* out, DType dtype, std::int64_t slot) {
  write_constant(out, dtype, slot, 0xff800000u, 0xfc00, 0xff80);
}

// A flawed row's slots, as the kernels mark them: NaN in the output dtype and index -1.
void mark_row(const TopkProblem& p, std::int64_t r) {
  for (std::int64_t slot = r * p.k; slot < (r + 1) * p.k; ++slot) {
    write_constant(p.out_values, p.dtype, slot, 0x7fc00000u, 0x7e00, 0x7fc0);
    p.out_indices[slot] = -1;
  }
}

}  // namespace

bool topk_problem_valid(const TopkProblem& p) {
  return p.rows >= 0 && p.rows <= 0x7fffffff && p.k >= 1 && p.max_length >= 0 &&
         p.max_length <= kMaxRowLength && (p.offsets != nullptr || p.length <= p.max_length);
}

Status invariant_topk_cpu(const TopkProblem& p) {
  if (!topk_problem_valid(p)) return Status::invalid_argument;
  const std::size_t bytes = element_bytes(p.dtype);
  std::vector<std::uint64_t> words;
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const GuardedRow at = p.offsets ? guarded_row(p.offsets, r, p.total, p.max_length)
                                    : GuardedRow{r * p.row_stride, p.length, 0};
    if (at.flaws) {  // read nowhere, marked (and reported), as on the GPU
      mark_row(p, r);
      if (p.status) *p.status |= at.flaws;
      continue;
    }
    const std::int64_t start = at.start, length = at.length;
    const void* row = static_cast<const unsigned char*>(p.values) + bytes * start;
    words.resize(static_cast<std::size_t>(length));
    for (std::int64_t i = 0; i < length; ++i) {
      words[static_cast<std::size_t>(i)] =
          sort_word(key_of_bits(float_bits_at(row, p.dtype, i)), static_cast<std::uint32_t>(i));
    }
    const std::int64_t taken = std::min(length, p.k);
    std::partial_sort(words.begin(), words.begin() + taken, words.end());
    for (std::int64_t j = 0; j < p.k; ++j) {
      const std::int64_t slot = r * p.k + j;
      if (j < taken) {
        const std::uint32_t index = index_of_word(words[static_cast<std::size_t>(j)]);
        std::memcpy(static_cast<unsigned char*>(p.out_values) + bytes * slot,
                    static_cast<const unsigned char*>(row) + bytes * index, bytes);
        p.out_indices[slot] = index;
      } else {
        write_negative_infinity(p.out_values, p.dtype, slot);
        p.out_indices[slot] = -1;
      }
    }
  }
  return Status::ok;
}

}  // namespace samebits::kernels
