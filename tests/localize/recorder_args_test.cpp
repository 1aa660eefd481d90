// The recorder's arguments of the ops a callable calls itself: each by its schema's name, tensors
// as their place among the op's inputs, values as passed (a dtype by its contract name), what no
// contract can describe said so; nested calls keep none.
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/localize/op_recorder.h"

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace recorder_args_test_file {}
using namespace recorder_args_test_file;
namespace recorder_args_test_file {

const OpRecord& top_level(const Recording& r, const std::string& name) {
  const auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const OpRecord& op) {
    return op.depth == 0 && full_name(op) == name;
  });
  if (it == r.ops.end()) throw std::runtime_error("not recorded: " + name);
  return *it;
}

const ArgRecord& arg(const OpRecord& op, const std::string& name) {
  const auto it = std::find_if(op.args.begin(), op.args.end(),
                               [&](const ArgRecord& a) { return a.name == name; });
  if (it == op.args.end()) throw std::runtime_error(full_name(op) + " has no argument " + name);
  return *it;
}

TEST(RecorderArgs, TensorsValuesAndReturnsByTheSchemasNames) {
  const at::Tensor x = at::arange(12, at::kFloat).view({4, 3}), y = at::ones({1, 3});
  const Recording r = record(
      [&] {
        at::sub(x, y, 2);
        at::sum(x, {0}, /*keepdim=*/true, at::kDouble);
        at::cumsum(x, 1);
        at::clamp(x, std::nullopt, 0.5);
      },
      {whole_run(4), false, {}});

  const OpRecord& sub = top_level(r, "aten::sub.Tensor");
  ASSERT_EQ(sub.args.size(), 3u);
  EXPECT_EQ(sub.args[0].name, "self");
  EXPECT_EQ(sub.args[0].tensor, std::optional<std::size_t>(0));
  EXPECT_EQ(sub.inputs.at(0).shape, (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(sub.inputs.at(0).scalar_type, at::kFloat);
  EXPECT_EQ(sub.args[1].name, "other");
  EXPECT_EQ(sub.args[1].tensor, std::optional<std::size_t>(1));
  EXPECT_EQ(sub.inputs.at(1).shape, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(sub.args[2].name, "alpha");
  EXPECT_EQ(sub.args[2].type, "Scalar");
  EXPECT_EQ(sub.args[2].value, ArgValue(std::int64_t{2}));
  EXPECT_EQ(sub.returns, std::vector<std::string>{"out0"});

  const OpRecord& sum = top_level(r, "aten::sum.dim_IntList");
  EXPECT_EQ(arg(sum, "dim").value, ArgValue(std::vector<std::int64_t>{0}));
  EXPECT_EQ(arg(sum, "keepdim").value, ArgValue(true));
  EXPECT_EQ(arg(sum, "dtype").value, ArgValue(std::string("float64")));
  EXPECT_TRUE(arg(sum, "dtype").defaults_to_none);

  const OpRecord& cumsum = top_level(r, "aten::cumsum");
  EXPECT_EQ(arg(cumsum, "dim").value, ArgValue(std::int64_t{1}));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(arg(cumsum, "dtype").value)) << "None";

  const OpRecord& clamp = top_level(r, "aten::clamp");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(arg(clamp, "min").value));
  EXPECT_EQ(arg(clamp, "max").value, ArgValue(0.5));
  for (const auto& a : clamp.args) EXPECT_TRUE(a.not_described.empty()) << a.name;

  // Nested calls are recorded by name and shapes only.
  for (const auto& op : r.ops) {
    if (op.depth > 0) {
      EXPECT_TRUE(op.args.empty() && op.returns.empty()) << op.name;
    }
  }
}

TEST(RecorderArgs, ATensorListIsSaidNotDescribed) {
  const at::Tensor x = at::ones({2, 3});
  const Recording r = record([&] { at::cat({x, x}, 1); }, {whole_run(2), false, {}});
  const OpRecord& cat = top_level(r, "aten::cat");
  EXPECT_EQ(arg(cat, "tensors").not_described, "a list of tensors");
  EXPECT_FALSE(arg(cat, "tensors").tensor.has_value());
  EXPECT_EQ(arg(cat, "dim").value, ArgValue(std::int64_t{1}));
  EXPECT_EQ(cat.inputs.size(), 2u) << "the list's tensors are still the op's inputs";
}

}  // namespace recorder_args_test_file
}  // namespace samebits::localize
