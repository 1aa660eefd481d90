// Negative controls: the invariant implementation holds every check kind; each violator is caught
// on its own check, with one-ULP evidence, and holds the others: every "holds" verdict can fail.
// Also for the built-in ops: top-k tie orders, fp8 indexer items, a dropped bias, a wrong dtype.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "contracts/embedded_suite.h"
#include "harness/check_spec.h"
#include "harness/ops/ops.h"
#include "kernels/linear/binding.h"
#include "kernels/softmax/binding.h"
#include "reports/model/outcome.h"
#include "tests/support/control_contract.h"
#include "tests/support/control_op.h"
#include "tests/support/miniature.h"
#include "tests/support/run_contracts.h"
#include "tests/support/test_names.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace negative_controls_test_file {}
using namespace negative_controls_test_file;
namespace negative_controls_test_file {

// The implementation that breaks `kind`.
std::string violator_of(CheckKind kind) {
  for (const auto& v : control_violators()) {
    if (v.breaks == kind) return v.impl;
  }
  return "";
}

std::string describe(const CaseResult& r) {
  std::string out = r.id + ": " + to_string(r.verdict);
  if (!r.reason.empty()) out += " (" + r.reason + ")";
  for (const auto& o : r.outputs) {
    out += "\n  " + o.name + ": " + std::to_string(o.diff.mismatched) + " of " +
           std::to_string(o.diff.numel) + " differ";
    for (const auto& m : o.diff.first_mismatches) {
      out += "\n    [";
      for (std::size_t i = 0; i < m.index.size(); ++i)
        out += (i ? "," : "") + std::to_string(m.index[i]);
      out += "] baseline " + std::to_string(m.baseline) + " (" + m.baseline_bits + ") variant " +
             std::to_string(m.variant) + " (" + m.variant_bits + ") ulp " +
             (m.ulp ? std::to_string(*m.ulp) : std::string("-"));
    }
  }
  return out;
}

using ControlParam = std::tuple<CheckKind, std::string>;  // check kind, implementation

class NegativeControlTest : public ::testing::TestWithParam<ControlParam> {
 protected:
  CheckKind kind() const { return std::get<0>(GetParam()); }
  const std::string& impl() const { return std::get<1>(GetParam()); }
  bool breaks() const { return violator_of(kind()) == impl(); }
};

TEST_P(NegativeControlTest, VerdictMatchesTheFlaw) {
  const auto cases = run_control_cases(kind(), impl(), "cpu");
  ASSERT_FALSE(cases.empty()) << "no cases planned for " << impl() << " / " << to_string(kind());
  const auto groups = judge_checks(cases);
  ASSERT_EQ(groups.size(), 1u);
  const CheckResult& group = groups[0];
  const std::string expected = breaks() ? "violated" : "holds";
  EXPECT_EQ(to_string(group.expected), expected);
  EXPECT_EQ(to_string(group.observed), expected) << impl() << " on " << to_string(kind());
  EXPECT_EQ(group.outcome, Outcome::as_expected);
  EXPECT_EQ(group.skipped, 0);
  EXPECT_EQ(group.errors, 0);
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    // A violator's flaw shows in every case of its check; everything else holds everywhere.
    EXPECT_EQ(r.verdict, breaks() ? Verdict::violated : Verdict::holds);
    ASSERT_EQ(r.outputs.size(), 2u) << "prefix and head";
    for (const auto& o : r.outputs) {
      EXPECT_GT(o.diff.numel, 0) << o.name;
      if (r.verdict == Verdict::holds) {
        EXPECT_EQ(o.diff.mismatched, 0) << o.name;
        // Bitwise agreement between two float32 runs means equal digests too (the reference side
        // is float64, and the equivalence check allows one ULP).
        if (kind() != CheckKind::reference && kind() != CheckKind::equivalence) {
          EXPECT_EQ(o.baseline_sha256, o.variant_sha256) << o.name;
        }
      }
    }
  }
}

class ViolationEvidenceTest : public ::testing::TestWithParam<CheckKind> {
 protected:
  CheckKind kind() const { return GetParam(); }
};

TEST_P(ViolationEvidenceTest, MismatchesWithBitsAndUlps) {
  const auto cases = run_control_cases(kind(), violator_of(kind()), "cpu");
  ASSERT_FALSE(cases.empty());
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    ASSERT_EQ(r.verdict, Verdict::violated);
    EXPECT_FALSE(r.baseline.empty());
    EXPECT_FALSE(r.variant.empty());
    std::int64_t violated_outputs = 0;
    for (const auto& o : r.outputs) {
      const DiffStats& d = o.diff;
      if (d.mismatched == 0 && kind() == CheckKind::equivalence) {
        // The accumulators part ways only over enough terms: "head" (k values) may agree.
        continue;
      }
      ++violated_outputs;
      EXPECT_NE(o.baseline_sha256, o.variant_sha256) << o.name;
      EXPECT_GT(d.mismatched, 0) << o.name;
      EXPECT_FALSE(d.within) << o.name;
      ASSERT_FALSE(d.first_mismatches.empty()) << o.name;
      ASSERT_TRUE(d.max_ulp.has_value()) << o.name;
      for (const auto& m : d.first_mismatches) {
        EXPECT_NE(m.baseline_bits, m.variant_bits);
        ASSERT_TRUE(m.ulp.has_value());
        EXPECT_GT(*m.ulp, 0u);
      }
      if (kind() == CheckKind::equivalence) {
        // float64 accumulation against the float32 sequence: more than the one ULP allowed.
        EXPECT_GE(*d.max_ulp, 2u) << o.name;
      } else {
        // Every other flaw adds exactly one ULP upwards, to every element of the affected item.
        EXPECT_EQ(*d.max_ulp, 1u) << o.name;
        for (const auto& m : d.first_mismatches) {
          EXPECT_EQ(*m.ulp, 1u);
          EXPECT_GT(m.variant, m.baseline);
        }
      }
    }
    EXPECT_GT(violated_outputs, 0);
  }
}

std::vector<ControlParam> all_pairs() {
  std::vector<ControlParam> pairs;
  for (const auto& v : control_violators()) {
    for (const auto& impl : control_impl_names()) {
      // The equivalence check compares every implementation with the invariant one.
      if (v.breaks == CheckKind::equivalence && impl == kInvariantImpl) continue;
      pairs.emplace_back(v.breaks, impl);
    }
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(Controls, NegativeControlTest, ::testing::ValuesIn(all_pairs()),
                         [](const ::testing::TestParamInfo<ControlParam>& info) {
                           return camel_case(to_string(std::get<0>(info.param))) +
                                  camel_case(std::get<1>(info.param));
                         });

std::vector<CheckKind> all_kinds() {
  std::vector<CheckKind> kinds;
  for (const auto& v : control_violators()) kinds.push_back(v.breaks);
  return kinds;
}

INSTANTIATE_TEST_SUITE_P(Controls, ViolationEvidenceTest, ::testing::ValuesIn(all_kinds()),
                         [](const ::testing::TestParamInfo<CheckKind>& info) {
                           return camel_case(to_string(info.param)) +
                                  camel_case(violator_of(info.param));
                         });

// The control op has no backward: the kinds that differentiate have their planted flaws in
// gradient_checks_test.cpp; nor does it generate tokens: logprob_consistency has its flaws in
// logprob_checks_test.cpp.
TEST(NegativeControls, EveryCheckKindHasOneViolator) {
  for (const auto& name : check_kind_names()) {
    if (check_spec_for(parse_check_kind(name)).differentiates()) continue;
    if (parse_check_kind(name) == CheckKind::logprob_consistency) continue;
    int violators = 0;
    for (const auto& v : control_violators()) violators += to_string(v.breaks) == name;
    EXPECT_EQ(violators, 1) << name;
  }
}

TEST(NegativeControls, UnsupportedDtypeIsSkippedWithAReason) {
  const OpRegistry registry = control_registry();
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(
      R"({"op": "control", "implementations": ["invariant"],
          "sweep": {"L": [4], "dtype": ["float16"]},
          "checks": [{"kind": "determinism", "expect": {"invariant": "holds"}}]})",
      "tests/skip.json")));
  const auto results = run_contracts(contracts, registry, "cpu");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::skipped);
  EXPECT_EQ(results[0].reason, "the control op computes in float32 only");
  const auto groups = judge_checks(results);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].outcome, Outcome::not_run);
}

TEST(NegativeControls, SecondStreamIsSkippedOnTheCpu) {
  const OpRegistry registry = control_registry();
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(
      R"({"op": "control", "implementations": ["invariant"], "sweep": {"L": [4]},
          "checks": [{"kind": "determinism", "sweep": {"repeat": ["second_stream"]},
                      "expect": {"invariant": "holds"}}]})",
      "tests/stream.json")));
  const auto results = run_contracts(contracts, registry, "cpu");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::skipped);
  EXPECT_NE(results[0].reason.find("second stream"), std::string::npos) << results[0].reason;
}

// Top-k tie order. The built-in topk op plus one implementation that breaks ties the other way
// round (larger index first): it returns the same values wherever no two of them tie, so only
// the tie order can fail the samebits-style check (bitwise equivalence with samebits' stable
// descending order). at::topk on the CPU, which orders ties by its partition, is the real one.
constexpr const char* kTiesReversed = "ties_reversed";

class TopkWithReversedTies final : public Op {
 public:
  std::string name() const override { return topk_->name(); }
  std::string description() const override { return topk_->description(); }
  std::vector<ImplSpec> implementations() const override {
    auto impls = topk_->implementations();
    impls.push_back({kTiesReversed,
                     "stable descending argsort of the reversed row: ties in descending index "
                     "order",
                     true, true});
    return impls;
  }
  std::vector<AxisSpec> axes() const override { return topk_->axes(); }
  std::vector<std::string> outputs() const override { return topk_->outputs(); }
  std::vector<CheckKind> checks() const override { return topk_->checks(); }
  std::vector<LayoutKind> layouts() const override { return topk_->layouts(); }
  std::vector<PaddingMode> paddings() const override { return topk_->paddings(); }
  std::optional<std::string> impossible(const Point& p) const override {
    return topk_->impossible(p);
  }
  Item make_item(const Point& p, const Shared& shared, const ItemSpec& spec,
                 const at::Device& device, at::Generator& gen) const override {
    return topk_->make_item(p, shared, spec, device, gen);
  }
  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    if (r.impl != kTiesReversed) return topk_->run(p, shared, r);
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
    const at::Tensor batch = at::stack(rows);
    const std::int64_t last = batch.size(1) - 1;
    const at::Tensor flipped_order =
        at::argsort(batch.flip(1), /*stable=*/true, 1, /*descending=*/true)
            .narrow(1, 0, p.integer("k"));
    const at::Tensor indices = flipped_order.neg().add(last);
    const at::Tensor values = batch.gather(1, indices);
    std::vector<Outputs> out;
    for (std::int64_t b = 0; b < batch.size(0); ++b)
      out.push_back({{"values", values[b]}, {"indices", indices[b]}});
    return out;
  }

 private:
  std::unique_ptr<Op> topk_ = make_topk_op();
};

// Runs a contract over the wrapped topk op on the CPU: every implementation compared bitwise with
// samebits on `generator` rows, with the given expectations.
std::vector<CaseResult> run_topk_tie_contract(const std::string& generator,
                                              const std::string& expect) {
  OpRegistry registry;
  registry.add(std::make_unique<TopkWithReversedTies>());
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(
      R"({"name": "topk_ties", "op": "topk",
          "implementations": ["samebits", "aten.topk", "aten.stable_argsort", "ties_reversed"],
          "sweep": {"generator": [")" +
          generator + R"("], "N": [100, 1000], "k": [16, 64], "batch": [4]},
          "checks": [{"kind": "equivalence", "against": "samebits", "compare": "bitwise",
                      "expect": )" +
          expect + "}]}",
      "tests/topk_ties.json")));
  return run_contracts(contracts, registry, "cpu");
}

TEST(NegativeControls, TopkTieOrderOtherThanTheStableSortsViolatesEquivalence) {
  const auto results = run_topk_tie_contract(
      "rounded",
      R"({"aten.topk": "violated", "aten.stable_argsort": "holds", "ties_reversed": "violated"})");
  std::map<std::string, const CheckResult*> by_impl;
  const auto groups = judge_checks(results);
  for (const auto& g : groups) by_impl[g.impl] = &g;
  ASSERT_EQ(by_impl.size(), 3u);
  for (const auto& [impl, group] : by_impl) {
    EXPECT_EQ(group->outcome, Outcome::as_expected)
        << impl << " observed " << to_string(group->observed);
    EXPECT_EQ(group->skipped + group->errors, 0) << impl;
  }
  // The reversed tie order shows in every case, in the indices; the stable argsort in none.
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r));
    if (r.impl == "aten.topk") continue;  // violated as a group, not necessarily at every point
    const bool reversed = r.impl == kTiesReversed;
    EXPECT_EQ(r.verdict, reversed ? Verdict::violated : Verdict::holds);
    ASSERT_EQ(r.outputs.size(), 2u);
    const OutputResult& indices = r.outputs[1];
    ASSERT_EQ(indices.name, "indices");
    if (reversed) {
      EXPECT_GT(indices.diff.mismatched, 0);
      EXPECT_FALSE(indices.diff.first_mismatches.empty());
    } else {
      EXPECT_EQ(indices.diff.mismatched, 0);
    }
  }
}

// float8 indexer items run in samebits only (both algorithms); the ATen pipelines are skipped with
// the reason, and samebits' scores match the float64 reference on the dequantized inputs.
TEST(NegativeControls, IndexerFloat8RunsInSamebitsOnly) {
  const OpRegistry registry = OpRegistry::builtin();
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(std::make_unique<Contract>(parse_contract(
      R"({"op": "indexer", "implementations": ["aten.loop", "samebits", "samebits.exact"],
          "sweep": {"heads": [4], "head_dim": [8], "L": [20], "k": [4],
                    "dtype": ["float8_e4m3fn"]},
          "checks": [
            {"kind": "batch_invariance", "sweep": {"batch": [3]},
             "expect": {"aten.loop": "unknown", "samebits": "holds", "samebits.exact": "holds"}},
            {"kind": "reference", "sweep": {"batch": [2]},
             "compare": {"mode": "allclose", "rtol": 0, "atol": 1e-5, "outputs": ["scores"]},
             "expect": {"aten.loop": "unknown", "samebits": "holds",
                        "samebits.exact": "holds"}}]})",
      "tests/indexer_fp8.json")));
  const auto results = run_contracts(contracts, registry, "cpu");
  ASSERT_EQ(results.size(), 6u);
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r));
    if (r.impl == "samebits" || r.impl == "samebits.exact") {
      EXPECT_EQ(r.verdict, Verdict::holds);
    } else {
      EXPECT_EQ(r.verdict, Verdict::skipped);
      EXPECT_NE(r.reason.find("no float8_e4m3fn kernel"), std::string::npos);
    }
  }
}

// A built-in op plus one flawed implementation of it, whose run() is `run_flawed`; everything
// else (axes, items, the reference) is the built-in op's, so the shipped checks judge it.
class WithFlawedImpl final : public Op {
 public:
  using Run = std::function<std::vector<Outputs>(const Point&, const Shared&,
                                                 const std::vector<at::Tensor>& rows)>;
  WithFlawedImpl(std::unique_ptr<Op> inner, std::string flawed, Run run_flawed)
      : inner_(std::move(inner)), flawed_(std::move(flawed)), run_flawed_(std::move(run_flawed)) {}

  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description(); }
  std::vector<ImplSpec> implementations() const override {
    auto impls = inner_->implementations();
    impls.push_back({flawed_, "samebits with a planted flaw", true, true});
    return impls;
  }
  std::vector<AxisSpec> axes() const override { return inner_->axes(); }
  std::vector<std::string> outputs() const override { return inner_->outputs(); }
  std::vector<CheckKind> checks() const override { return inner_->checks(); }
  std::vector<LayoutKind> layouts() const override { return inner_->layouts(); }
  std::vector<PaddingMode> paddings() const override { return inner_->paddings(); }
  std::optional<std::string> impossible(const Point& p) const override {
    return inner_->impossible(p);
  }
  Shared make_shared(const Point& p, const at::Device& device, at::Generator& gen) const override {
    return inner_->make_shared(p, device, gen);
  }
  Item make_item(const Point& p, const Shared& shared, const ItemSpec& spec,
                 const at::Device& device, at::Generator& gen) const override {
    return inner_->make_item(p, shared, spec, device, gen);
  }
  // The flawed implementation takes contiguous batches of first inputs only (reference checks).
  std::vector<Outputs> run(const Point& p, const Shared& shared,
                           const BatchRequest& r) const override {
    if (r.impl != flawed_) return inner_->run(p, shared, r);
    std::vector<at::Tensor> rows;
    for (const Item* item : r.items) rows.push_back(item->inputs.at(0));
    return run_flawed_(p, shared, rows);
  }
  Outputs reference(const Point& p, const Shared& shared, const Item& item) const override {
    return inner_->reference(p, shared, item);
  }

 private:
  std::unique_ptr<Op> inner_;
  std::string flawed_;
  Run run_flawed_;
};

std::vector<Outputs> per_row(const at::Tensor& all) {
  std::vector<Outputs> out;
  for (std::int64_t b = 0; b < all.size(0); ++b) out.push_back({{"out", all[b]}});
  return out;
}

// The shipped contract `name` at test scale with its checks of `kind` alone, `flawed` added to
// its implementations with samebits' promises, run on the CPU beside the others.
std::vector<CaseResult> run_shipped_with_flaw(const std::string& name, CheckKind kind,
                                              std::unique_ptr<Op> op, const std::string& flawed) {
  std::vector<std::unique_ptr<Contract>> contracts;
  for (const auto& file : embedded_contracts()) {
    Contract c = miniature(parse_contract(file.text, "embedded:" + file.name));
    if (c.name != name) continue;
    std::vector<CheckDecl> kept;
    for (auto& check : c.checks) {
      if (check.kind != kind) continue;
      check.expect[flawed] = check.expect.at("samebits");
      kept.push_back(check);
    }
    c.checks = kept;
    c.implementations.push_back(flawed);
    contracts.push_back(std::make_unique<Contract>(std::move(c)));
  }
  EXPECT_EQ(contracts.size(), 1u) << name;
  OpRegistry registry;
  registry.add(std::move(op));
  return run_contracts(contracts, registry, "cpu");
}

// linear.json's reference checks see a dropped bias: samebits.linear without its bias [N] is
// violated at every bias=true point (and holds where there is no bias to drop), beside samebits.
TEST(NegativeControls, LinearReferenceSeesADroppedBias) {
  const auto results = run_shipped_with_flaw(
      "linear", CheckKind::reference,
      std::make_unique<WithFlawedImpl>(
          make_linear_op(), "bias_dropped",
          [](const Point&, const Shared& shared, const std::vector<at::Tensor>& rows) {
            return per_row(invariant_linear(at::stack(rows), shared.tensors.at(0)));
          }),
      "bias_dropped");
  std::size_t dropped = 0;
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r));
    if (r.impl == "aten.linear") continue;  // observations
    const bool bias = r.params.at("bias").get<bool>();
    const bool flawed = r.impl == "bias_dropped";
    EXPECT_EQ(r.verdict, flawed && bias ? Verdict::violated : Verdict::holds);
    dropped += flawed && bias;
  }
  EXPECT_GE(dropped, 3u) << "float32, bfloat16 and float16 points with a bias";
}

// softmax.json's and log_softmax.json's reference_float32_out see an output in the wrong dtype:
// samebits on bfloat16 logits without dtype=float32 returns bfloat16, which misses float32's
// tolerances there, and holds the checks whose output is meant to be the input's dtype.
TEST(NegativeControls, SoftmaxReferenceSeesAWrongOutputDtype) {
  for (const bool log : {false, true}) {
    const std::string name = log ? "log_softmax" : "softmax";
    const auto results = run_shipped_with_flaw(
        name, CheckKind::reference,
        std::make_unique<WithFlawedImpl>(
            log ? make_log_softmax_op() : make_softmax_op(), "input_dtype_out",
            [log](const Point&, const Shared&, const std::vector<at::Tensor>& rows) {
              return per_row(invariant_softmax(at::stack(rows), std::nullopt, log));
            }),
        "input_dtype_out");
    std::size_t wrong = 0;
    for (const auto& r : results) {
      SCOPED_TRACE(name + ": " + describe(r));
      if (r.impl == "aten") continue;  // observations
      const bool float32_out = r.params.at("out_dtype").get<std::string>() == "float32";
      const bool flawed = r.impl == "input_dtype_out";
      EXPECT_EQ(r.verdict, flawed && float32_out ? Verdict::violated : Verdict::holds);
      if (flawed && float32_out) {
        ++wrong;
        ASSERT_EQ(r.outputs.size(), 1u);
        EXPECT_EQ(r.outputs[0].diff.dtype, "bfloat16");
      } else if (float32_out) {
        ASSERT_EQ(r.outputs.size(), 1u);
        EXPECT_EQ(r.outputs[0].diff.dtype, "float32");
      }
    }
    EXPECT_GE(wrong, 1u) << name;
  }
}

TEST(NegativeControls, TopkTieOrderIsInvisibleWithoutTies) {
  const auto results = run_topk_tie_contract(
      "distinct",
      R"({"aten.topk": "holds", "aten.stable_argsort": "holds", "ties_reversed": "holds"})");
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) {
    SCOPED_TRACE(describe(r));
    EXPECT_EQ(r.verdict, Verdict::holds);
  }
}

}  // namespace negative_controls_test_file
}  // namespace samebits
