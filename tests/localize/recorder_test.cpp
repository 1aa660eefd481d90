// The recorder and the comparison on small callables, as a binding would use them: ops with their
// call tree and regions, none of the recorder's own; an extra op unmatched; outputs without the
// item's rows never compared; a batch-dependent op found; digests where the runs share a layout.
#include <ATen/record_function.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/localize/divergence.h"
#include "harness/localize/op_recorder.h"

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace recorder_test_file {}
using namespace recorder_test_file;
namespace recorder_test_file {

// A batch of 9 packed rows whose rows 2 .. 5 are the item's (alone: 4 rows).
RowMap batch_map() {
  // tokens, offset, length, sequences, sequence, padded_rows
  return {9, 2, 4, 3, 1, 4};
}

at::Tensor batch_input() {
  return at::arange(27, at::kFloat).view({9, 3}).mul_(0.37).sin_();
}

at::Tensor alone_input() {
  return batch_input().narrow(0, 2, 4).clone();
}

const OpRecord& find(const Recording& r, const std::string& name) {
  const auto it = std::find_if(r.ops.begin(), r.ops.end(),
                               [&](const OpRecord& op) { return full_name(op) == name; });
  EXPECT_NE(it, r.ops.end()) << name;
  return *it;
}

TEST(Recorder, RecordsTheCallTreeAndRegionsButNotItsOwnOps) {
  const at::Tensor x = alone_input(), w = at::ones({2, 3});
  const Recording r = record(
      [&] {
        RECORD_USER_SCOPE("block");
        at::linear(x, w);
      },
      {whole_run(4), false, [] { return std::string("the caller's stack"); }});
  const OpRecord& linear = find(r, "aten::linear");
  EXPECT_EQ(linear.region, "block");
  EXPECT_EQ(linear.depth, 0);
  EXPECT_EQ(linear.parent, -1);
  EXPECT_EQ(linear.stack, "the caller's stack");
  EXPECT_NE(linear.schema.find("aten::linear(Tensor input, Tensor weight"), std::string::npos)
      << linear.schema;
  ASSERT_EQ(linear.outputs.size(), 1u);
  EXPECT_EQ(linear.outputs[0].meta.shape, (std::vector<std::int64_t>{4, 2}));
  EXPECT_TRUE(linear.outputs[0].item.rows.defined());
  EXPECT_FALSE(linear.outputs[0].digest.empty());
  // Its calls are recorded by name and shapes only: their outputs are intermediate states.
  const std::vector<std::size_t> inside = calls(r, static_cast<std::size_t>(linear.ordinal));
  ASSERT_FALSE(inside.empty());
  for (const auto i : inside) {
    EXPECT_GT(r.ops[i].depth, 0) << r.ops[i].name;
    EXPECT_TRUE(r.ops[i].stack.empty()) << "the hook is asked for top-level ops only";
    for (const auto& o : r.ops[i].outputs) EXPECT_FALSE(o.item.rows.defined()) << r.ops[i].name;
  }
  for (const auto& op : r.ops) {
    EXPECT_NE(op.name, "aten::remainder") << "the recorder's own digest ops were recorded";
    if (op.depth > 0) {
      ASSERT_GE(op.parent, 0) << op.name;
      EXPECT_GT(op.parent, op.ordinal) << op.name << ": a parent completes after its calls";
      EXPECT_EQ(r.ops[static_cast<std::size_t>(op.parent)].depth, op.depth - 1) << op.name;
    }
  }
  EXPECT_FALSE(r.kernels_captured);
  EXPECT_FALSE(r.kernels_note.empty());
}

// y = (x * 2 + 1) - mean over rows: the mean is the batch's, so the subtraction is the first op
// whose item rows differ; the mean itself ([1, 3], no token dim) is not comparable, and the
// batch's extra clone is unmatched.
TEST(Recorder, FindsTheBatchDependentOpPastAnExtraOp) {
  const auto f = [](const at::Tensor& x) {
    const at::Tensor y = x.mul(2).add(1);
    return y - y.mean(0, /*keepdim=*/true);
  };
  const at::Tensor xa = alone_input(), xb = batch_input();
  const Recording a = record([&] { f(xa); }, {whole_run(4), false, {}});
  const Recording b = record([&] { f(xb.clone()); }, {batch_map(), false, {}});
  const Localization l = localize(a, b);
  ASSERT_TRUE(l.first.has_value());
  const OpComparison& c = l.ops[*l.first];
  EXPECT_EQ(full_name(b.ops[*c.b]), "aten::sub.Tensor");
  ASSERT_TRUE(l.first_diff.has_value());
  EXPECT_GT(l.first_diff->mismatched, 0);
  EXPECT_GE(l.unmatched_b, 1u);
  EXPECT_EQ(l.unmatched_a, 0u);
  for (const auto& op : l.ops) {
    if (op.status != OpStatus::unmatched) continue;
    EXPECT_FALSE(op.a.has_value());
  }
  for (const auto& op : l.ops) {
    if (!op.b || b.ops[*op.b].name != "aten::mean") continue;
    EXPECT_EQ(op.status, OpStatus::not_comparable) << op.note;
    EXPECT_NE(op.note.find("no dim of the run's"), std::string::npos) << op.note;
  }
}

// Without the mean the item's rows never see the others: identical, with the per-row ops equal.
TEST(Recorder, RowWiseOpsAreIdenticalAloneAndInABatch) {
  const auto f = [](const at::Tensor& x) { return x.mul(2).add(1).exp(); };
  const Recording a = record([&] { f(alone_input()); }, {whole_run(4), false, {}});
  const Recording b = record([&] { f(batch_input()); }, {batch_map(), false, {}});
  const Localization l = localize(a, b);
  EXPECT_FALSE(l.first.has_value());
  EXPECT_GE(l.equal, 3u);
  EXPECT_EQ(l.differs, 0u);
}

// The same layout twice: outputs without the item's rows are compared by their digests, and a
// change in one of them (a weight) is found there.
TEST(Recorder, RunVsRunComparesDigestsOfTheWholeTensors) {
  const at::Tensor x = batch_input();
  const auto f = [&](double scale) { return x.matmul(at::full({3, 3}, scale).exp()); };
  const Recording r1 = record([&] { f(0.5); }, {batch_map(), false, {}});
  const Recording r2 = record([&] { f(0.5); }, {batch_map(), false, {}});
  const Localization same = localize(r1, r2);
  EXPECT_FALSE(same.first.has_value());
  for (const auto& op : same.ops) {
    if (r2.ops[*op.b].name != "aten::exp") continue;
    EXPECT_EQ(op.status, OpStatus::equal) << op.note;
  }
  const Recording r3 = record([&] { f(0.25); }, {batch_map(), false, {}});
  const Localization changed = localize(r1, r3);
  ASSERT_TRUE(changed.first.has_value());
  const OpComparison& c = changed.ops[*changed.first];
  EXPECT_EQ(r3.ops[*c.b].name, "aten::full");
  EXPECT_EQ(c.note, "whole-tensor digests differ");
}

}  // namespace recorder_test_file
}  // namespace samebits::localize
