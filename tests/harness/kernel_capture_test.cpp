// Kernel capture (label "gpu"; skipped without a CUDA GPU): CUPTI sees the reduce kernel ATen picks
// for [64, N].sum(0) by N's alignment, tags keep launches apart, and a second capture is refused.
#include "harness/kernel_capture.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "harness/device_choice.h"

namespace samebits {
namespace {

#define SAMEBITS_REQUIRE_CUDA() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU visible"

std::string names(const std::vector<KernelLaunch>& launches) {
  std::string out;
  for (const auto& k : launches) out += k.name + "\n";
  return out;
}

// Reduce.cuh launches reduce_kernel<max_threads / vec, vec> with output_vec_size vec = 4, 2, 1 from
// N's divisibility (and the row stride's): reference/000 measured these three on an H100.
struct SumCase {
  std::string name;
  std::int64_t n;
  std::string kernel;
};
void PrintTo(const SumCase& c, std::ostream* os) {
  *os << c.name;
}

class CapturedSumTest : public ::testing::TestWithParam<SumCase> {};

TEST_P(CapturedSumTest, NamesTheReduceKernelForTheAlignment) {
  SAMEBITS_REQUIRE_CUDA();
  std::string why;
  auto capture = KernelCapture::start(&why);
  ASSERT_TRUE(capture) << why;
  const at::Tensor x = at::randn({64, GetParam().n}, at::device(at::kCUDA));
  {
    const KernelCapture::Tag tag(capture.get(), 7);
    x.sum(0);
  }
  auto by_tag = capture->take();
  ASSERT_EQ(by_tag.count(7), 1u) << "no kernel recorded under tag 7";
  const auto& launches = by_tag.at(7);
  ASSERT_EQ(launches.size(), 1u) << names(launches);
  EXPECT_NE(launches[0].name.find(GetParam().kernel), std::string::npos) << launches[0].name;
  EXPECT_EQ(launches[0].count, 1u);
  EXPECT_GT(launches[0].block[0] * launches[0].block[1], 0u);
  EXPECT_GT(launches[0].registers, 0u);
}

INSTANTIATE_TEST_SUITE_P(Gpu, CapturedSumTest,
                         ::testing::Values(SumCase{"N128Vec4", 128, "reduce_kernel<128, 4"},
                                           SumCase{"N130Vec2", 130, "reduce_kernel<256, 2"},
                                           SumCase{"N127Vec1", 127, "reduce_kernel<512, 1"}),
                         [](const auto& info) { return info.param.name; });

TEST(KernelCapture, TagsKeepLaunchesApartAndMergeRepeats) {
  SAMEBITS_REQUIRE_CUDA();
  std::string why;
  auto capture = KernelCapture::start(&why);
  ASSERT_TRUE(capture) << why;
  const at::Tensor x = at::randn({64, 128}, at::device(at::kCUDA));
  x.sum(0);  // untagged: not reported
  {
    const KernelCapture::Tag tag(capture.get(), 1);
    for (int i = 0; i < 3; ++i) x.sum(0);
  }
  {
    const KernelCapture::Tag tag(capture.get(), 2);
    x.mul(2.0);
  }
  auto by_tag = capture->take();
  ASSERT_EQ(by_tag.size(), 2u);
  ASSERT_EQ(by_tag.at(1).size(), 1u) << names(by_tag.at(1));
  EXPECT_EQ(by_tag.at(1)[0].count, 3u);
  ASSERT_EQ(by_tag.at(2).size(), 1u) << names(by_tag.at(2));
  EXPECT_EQ(by_tag.at(2)[0].name.find("reduce_kernel"), std::string::npos) << by_tag.at(2)[0].name;
  EXPECT_TRUE(capture->take().empty()) << "take() hands each launch over once";
}

TEST(KernelCapture, ASecondCaptureIsRefusedWithAReason) {
  SAMEBITS_REQUIRE_CUDA();
  std::string why;
  auto first = KernelCapture::start(&why);
  ASSERT_TRUE(first) << why;
  std::string second_why;
  EXPECT_EQ(KernelCapture::start(&second_why), nullptr);
  EXPECT_NE(second_why.find("already running"), std::string::npos) << second_why;
  first.reset();
  auto again = KernelCapture::start(&why);
  EXPECT_TRUE(again) << "capture must start again once the first one ended: " << why;
}

TEST(Demangle, ReadsCxxSymbolsAndKeepsOthers) {
  EXPECT_EQ(demangle("_Z3fooi"), "foo(int)");
  EXPECT_EQ(demangle("not_mangled"), "not_mangled");
  EXPECT_EQ(demangle(nullptr), "");
}

}  // namespace
}  // namespace samebits
