// Kernel signatures (what makes two points' dispatch the same) and the short kernel names people
// read in tables and findings.
#include "dispatch/kernel_names.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace samebits {
namespace {

KernelLaunch launch(const std::string& name, std::array<std::uint32_t, 3> block,
                    std::array<std::uint32_t, 3> grid = {1, 1, 1}) {
  KernelLaunch k;
  k.name = name;
  k.block = block;
  k.grid = grid;
  k.count = 1;
  return k;
}

TEST(KernelSignature, NamesAndBlocksInLaunchOrder) {
  const std::vector<KernelLaunch> kernels = {launch("fill", {128, 1, 1}),
                                             launch("reduce", {32, 4, 1})};
  EXPECT_EQ(kernel_signature(kernels, false), "fill [128x1x1]; reduce [32x4x1]");
  EXPECT_EQ(kernel_signature({kernels[1], kernels[0]}, false), "reduce [32x4x1]; fill [128x1x1]");
}

TEST(KernelSignature, RepeatsCountOnce) {
  const KernelLaunch a = launch("reduce", {32, 4, 1}, {5, 1, 1});
  const KernelLaunch a_again = launch("reduce", {32, 4, 1}, {9, 1, 1});
  EXPECT_EQ(kernel_signature({a, a_again}, false), kernel_signature({a}, false));
  EXPECT_EQ(kernel_signature({a, launch("reduce", {32, 8, 1})}, false),
            "reduce [32x4x1]; reduce [32x8x1]");
}

TEST(KernelSignature, GridOnlyWhenAsked) {
  const KernelLaunch small = launch("reduce", {32, 4, 1}, {5, 1, 1});
  const KernelLaunch large = launch("reduce", {32, 4, 1}, {9, 2, 1});
  EXPECT_EQ(kernel_signature({small}, false), kernel_signature({large}, false));
  EXPECT_EQ(kernel_signature({large}, true), "reduce [32x4x1] grid [9x2x1]");
  EXPECT_NE(kernel_signature({small}, true), kernel_signature({large}, true));
}

TEST(KernelSignature, NoKernelsIsEmpty) {
  EXPECT_EQ(kernel_signature({}, true), "");
}

struct NameCase {
  std::string name;
  std::string demangled;
  std::string shown;
};
void PrintTo(const NameCase& c, std::ostream* os) {
  *os << c.name;
}

class ShortKernelNameTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(ShortKernelNameTest, KeepsHeadAndSimpleArguments) {
  EXPECT_EQ(short_kernel_name(GetParam().demangled), GetParam().shown);
}

const NameCase kNameCases[] = {
    // cuBLAS's gemv: a return type with its own brackets and a space inside them.
    {"ReturnTypeWithTemplate",
     "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, false, 9, "
     "cublasGemvParamsEx<int, float> >(cublasGemvParamsEx<int, float>)",
     "kernel<int, int, float, false, 9>"},
    {"ReduceKernel",
     "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
     "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
     "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, "
     "4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_functor<float, float, "
     "float>::operator()(at::TensorIterator&)::{lambda(float, "
     "float)#1}>, unsigned int, float, 4, 4>)",
     "reduce_kernel<128, 4>"},
    {"LambdaArgument",
     "void at::native::elementwise_kernel<128, 2, "
     "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
     "at::native::BinaryFunctor<float, float, float, "
     "at::native::binary_internal::MulFunctor<float> "
     "> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<...>::{lambda(int)#1})",
     "elementwise_kernel<128, 2>"},
    {"AnonymousNamespace",
     "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
     "cunn_SoftMaxForward<4, float, float, float>"},
    {"QualifiedWordsKeepLastPart",
     "void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::"
     "DeviceRadixSortPolicy<float, long, unsigned int>::Policy900, false, c10::Half, long, "
     "unsigned "
     "int, int, at_cuda_detail::cub::detail::identity_decomposer_t>(int*, int*, long*)",
     "DeviceRadixSortOnesweepKernel<false, Half, long, unsigned int, int, identity_decomposer_t>"},
    {"WordArgument",
     "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>("
     "cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4::Params)",
     "Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4>"},
    {"NoTemplate",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_"
     "k_off_kernel__5x_cublas",
     "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_"
     "k_off_kernel__5x_cublas"},
    {"NoSimpleArguments", "void at::native::apply<at::native::Op<float> >(int)", "apply"},
    {"Mangled", "_Z13reduce_kernelILi128ELi4EEvv", "_Z13reduce_kernelILi128ELi4EEvv"},
};
INSTANTIATE_TEST_SUITE_P(Names, ShortKernelNameTest, ::testing::ValuesIn(kNameCases),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace samebits
