// The gradient kinds: a row-wise op's input gradients hold both; a backward that reads the batch or
// moves from run to run is caught (the forward kinds hold); no backward is a skip with its reason.
#include <gtest/gtest.h>
#include <torch/csrc/autograd/custom_function.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cases/generators.h"
#include "common/errors.h"
#include "harness/plan.h"
#include "tests/support/run_contracts.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace gradient_checks_test_file {}
using namespace gradient_checks_test_file;
namespace gradient_checks_test_file {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// 2 x, whose backward is 2 g: the same bits for any batch (every product is exact).
at::Tensor doubled(const at::Tensor& x) {
  return x * 2;
}

// 2 x, whose backward adds a thousandth of the batch's summed upstream gradients to each item's:
// the forward is row-wise, the backward reads the neighbours.
struct CoupledBackward : public torch::autograd::Function<CoupledBackward> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list g) {
    return {g[0] * 2 + g[0].sum(0, true) * 1e-3};
  }
};

// 2 x, whose backward scales by a factor that moves with every backward run (an atomic's order).
struct NoisyBackward : public torch::autograd::Function<NoisyBackward> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& x) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list g) {
    static std::atomic<int> runs{0};
    return {g[0] * (2.0 + 1e-3 * ++runs)};
  }
};

// Items: float32 [2, L] rows, batched as [B, 2, L]; one output "out" per item. Implementations:
// "aten" (doubled), "coupled_backward", "noisy_backward", and "samebits" (no autograd, as the
// samebits kernels). It lists only the forward kinds: the gradient kinds need no listing.
class GradientTestOp final : public Op {
 public:
  std::string name() const override { return "gradient_test"; }
  std::string description() const override { return "test-only: 2 x with planted backwards"; }
  std::vector<ImplSpec> implementations() const override {
    return {{"aten", "2 x through autograd", true, true},
            {"coupled_backward", "a backward that reads the batch", true, true},
            {"noisy_backward", "a backward that moves from run to run", true, true},
            {"samebits", "2 x outside autograd", true, true}};
  }
  std::vector<AxisSpec> axes() const override {
    return {{"L", AxisSpec::Type::integer, 8, {}, "row length"}};
  }
  std::vector<std::string> outputs() const override { return {"out"}; }
  std::vector<CheckKind> checks() const override {
    return {CheckKind::determinism, CheckKind::batch_invariance};
  }
  Item make_item(const Point& p, const Shared&, const ItemSpec&, const at::Device& device,
                 at::Generator& gen) const override {
    return {{generate("normal", {2, p.integer("L")}, at::kFloat, device, gen)}, 0};
  }
  std::vector<Outputs> run(const Point&, const Shared&, const BatchRequest& r) const override {
    std::vector<at::Tensor> xs;
    for (const Item* item : r.items) xs.push_back(item->inputs.at(0));
    const at::Tensor batch = at::stack(xs);
    at::Tensor out;
    if (r.impl == "aten") out = doubled(batch);
    if (r.impl == "coupled_backward") out = CoupledBackward::apply(batch);
    if (r.impl == "noisy_backward") out = NoisyBackward::apply(batch);
    if (r.impl == "samebits") out = doubled(batch.detach());
    std::vector<Outputs> per_item;
    for (std::int64_t b = 0; b < out.size(0); ++b) per_item.push_back({{"out", out[b]}});
    return per_item;
  }
};

OpRegistry test_registry() {
  OpRegistry registry;
  registry.add(std::make_unique<GradientTestOp>());
  return registry;
}

std::vector<std::unique_ptr<Contract>> contracts_of(const std::string& text) {
  std::vector<std::unique_ptr<Contract>> out;
  out.push_back(std::make_unique<Contract>(parse_contract(text, "gradients/test.json")));
  return out;
}

std::string describe(const CaseResult& r) {
  return r.id + ": " + to_string(r.verdict) + (r.reason.empty() ? "" : " (" + r.reason + ")");
}

// Every case of `kind` (by check name) for `impl` has `verdict`; at least one case does.
void expect_all(const std::vector<CaseResult>& results, const std::string& check,
                const std::string& impl, Verdict verdict) {
  int seen = 0;
  for (const auto& r : results) {
    if (r.check != check || r.impl != impl) continue;
    ++seen;
    EXPECT_EQ(r.verdict, verdict) << describe(r);
  }
  EXPECT_GT(seen, 0) << check << " " << impl;
}

const std::string kTestChecks = R"([
  {"kind": "determinism", "sweep": {"batch": [3]}, "expect": {"any_impl": "observed"}},
  {"kind": "batch_invariance", "sweep": {"batch": [1, 3, 5], "position": ["first", "middle", "last"]},
   "expect": {"any_impl": "observed"}},
  {"kind": "gradient_determinism", "sweep": {"batch": [1, 3]}, "expect": {"any_impl": "observed"}},
  {"kind": "gradient_invariance",
   "sweep": {"batch": [1, 3, 5], "position": ["first", "middle", "last"]},
   "expect": {"any_impl": "observed"}}])";

std::string test_contract(const std::string& impl) {
  std::string checks = kTestChecks;
  for (std::size_t pos; (pos = checks.find("any_impl")) != std::string::npos;)
    checks.replace(pos, 8, impl);
  return R"({"op": "gradient_test", "implementations": [")" + impl + R"("], "checks": )" + checks +
         "}";
}

std::vector<CaseResult> run_test_op(const std::string& impl) {
  const OpRegistry registry = test_registry();
  return run_contracts(contracts_of(test_contract(impl)), registry, "cpu");
}

TEST(GradientChecks, RowWiseBackwardHoldsBothKinds) {
  const auto results = run_test_op("aten");
  for (const char* check :
       {"determinism", "batch_invariance", "gradient_determinism", "gradient_invariance"})
    expect_all(results, check, "aten", Verdict::holds);
  for (const auto& r : results) {
    if (r.kind != CheckKind::gradient_invariance) continue;
    ASSERT_EQ(r.outputs.size(), 1u) << describe(r);
    EXPECT_EQ(r.outputs[0].name, "grad:0");
    EXPECT_EQ(r.outputs[0].diff.numel, 16) << "one item's [2, 8] input gradient";
  }
}

TEST(GradientChecks, BackwardThatReadsTheBatchBreaksGradientInvariance) {
  const auto results = run_test_op("coupled_backward");
  expect_all(results, "batch_invariance", "coupled_backward", Verdict::holds);
  expect_all(results, "gradient_determinism", "coupled_backward", Verdict::holds);
  for (const auto& r : results) {
    if (r.kind != CheckKind::gradient_invariance) continue;
    const bool alone = r.id.find("batch=1,") != std::string::npos;
    EXPECT_EQ(r.verdict, alone ? Verdict::holds : Verdict::violated) << describe(r);
  }
}

TEST(GradientChecks, BackwardThatMovesBreaksGradientDeterminism) {
  const auto results = run_test_op("noisy_backward");
  expect_all(results, "determinism", "noisy_backward", Verdict::holds);
  expect_all(results, "gradient_determinism", "noisy_backward", Verdict::violated);
}

TEST(GradientChecks, ImplementationWithoutBackwardIsSkippedWithTheReason) {
  const auto results = run_test_op("samebits");
  expect_all(results, "batch_invariance", "samebits", Verdict::holds);
  for (const char* check : {"gradient_determinism", "gradient_invariance"}) {
    expect_all(results, check, "samebits", Verdict::skipped);
    for (const auto& r : results) {
      if (r.check == check) {
        EXPECT_EQ(r.reason, "implementation samebits has no backward");
      }
    }
  }
}

// The shipped softmax adapter: its samebits kernel (the CPU twin here) has no autograd formula.
TEST(GradientChecks, SamebitsSoftmaxHasNoBackwardYet) {
  const OpRegistry registry = OpRegistry::builtin();
  const auto results = run_contracts(contracts_of(R"({"op": "softmax",
      "implementations": ["aten", "samebits"], "sweep": {"N": [7]},
      "checks": [{"kind": "gradient_invariance", "sweep": {"batch": [3]},
                  "expect": {"aten": "observed", "samebits": "observed"}}]})"),
                                     registry, "cpu");
  expect_all(results, "gradient_invariance", "samebits", Verdict::skipped);
  for (const auto& r : results) {
    if (r.impl == "samebits") {
      EXPECT_EQ(r.reason, "implementation samebits has no backward");
    } else {
      EXPECT_NE(r.verdict, Verdict::error) << describe(r);
    }
  }
}

// ---- ATen ops by schema: padding and packing, and a scan along the batch dim ----

std::string schema_contract(const std::string& op, const std::string& extra_args) {
  return R"({"op": ")" + op + R"(", "implementations": ["aten"], "sequence": "T",
    "inputs": [{"arg": "self", "shape": ["T", "D"], "dtype": "float32", "batch_dim": 0,
                "sequence_dim": 0})" +
         extra_args + R"(],
    "sweep": {"T": [3], "D": [5]},
    "checks": [
      {"kind": "gradient_invariance", "sweep": {"batch": [3, 4], "position": ["first", "last"]},
       "expect": {"aten": "observed"}},
      {"name": "padded", "kind": "gradient_invariance",
       "sweep": {"padding": ["right", "left", "packed"], "lengths": [[3, 1, 5]],
                 "pad_fill": ["neutral", "canary"]}, "expect": {"aten": "observed"}},
      {"kind": "gradient_determinism",
       "sweep": {"batch": [4], "padding": ["right", "packed"], "lengths": [[3, 1, 5]]},
       "expect": {"aten": "observed"}}]})";
}

TEST(GradientChecks, RowWiseSchemaOpHoldsUnderPaddingAndPacking) {
  const OpRegistry registry = OpRegistry::builtin();
  const auto results =
      run_contracts(contracts_of(schema_contract("aten::relu", "")), registry, "cpu");
  for (const char* check : {"gradient_invariance", "padded", "gradient_determinism"})
    expect_all(results, check, "aten", Verdict::holds);
}

// cumsum along dim 0, where items are concatenated: an item's gradient sums the upstream
// gradients of every row after it, its neighbours' included.
TEST(GradientChecks, ScanAlongTheBatchDimBreaksGradientInvariance) {
  const OpRegistry registry = OpRegistry::builtin();
  const auto results = run_contracts(
      contracts_of(schema_contract("aten::cumsum", R"(, {"arg": "dim", "value": 0})")), registry,
      "cpu");
  expect_all(results, "gradient_determinism", "aten", Verdict::holds);
  for (const auto& r : results) {
    if (r.check == "gradient_determinism") continue;
    // The last item of a dense batch and the last of a right-padded one have no rows after them.
    const bool last = r.id.find("position=last") != std::string::npos;
    if (!last) {
      EXPECT_EQ(r.verdict, Verdict::violated) << describe(r);
    }
  }
}

// ---- validation ----

TEST(GradientChecks, OpWithoutFloatingInputIsRefusedNamingWhatItTakes) {
  const OpRegistry registry = OpRegistry::builtin();
  const auto contracts = contracts_of(R"({"op": "aten::bitwise_not", "implementations": ["aten"],
    "inputs": [{"arg": "self", "shape": ["R", "D"], "dtype": "int64",
                "generator": {"integers": [0, 100]}, "batch_dim": 0}],
    "sweep": {"R": [2], "D": [5]},
    "checks": [{"kind": "determinism", "expect": {"aten": "observed"}},
               {"kind": "gradient_invariance", "expect": {"aten": "observed"}}]})");
  try {
    validate_contract(*contracts.front(), registry);
    FAIL() << "validate accepted gradients of an integer-only op";
  } catch (const ContractError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gradients/test.json: /checks/1/kind"), std::string::npos) << what;
    EXPECT_NE(what.find("op aten::bitwise_not's items have no floating-point input (they hold "
                        "int64), so gradient_invariance has nothing to differentiate"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("takes determinism, batch_invariance"), std::string::npos) << what;
  }
}

TEST(GradientChecks, OpWithFloatingInputTakesTheKindsUnlisted) {
  const OpRegistry registry = test_registry();
  EXPECT_NO_THROW(validate_contract(*contracts_of(test_contract("aten")).front(), registry));
  // The padding axes still need an op that pads (this one does not).
  const auto padded = contracts_of(R"({"op": "gradient_test", "implementations": ["aten"],
    "checks": [{"kind": "gradient_invariance",
                "sweep": {"padding": ["right"], "lengths": [[2, 3]]},
                "expect": {"aten": "observed"}}]})");
  EXPECT_THROW(validate_contract(*padded.front(), registry), ContractError);
  const auto half = contracts_of(R"({"op": "gradient_test", "implementations": ["aten"],
    "checks": [{"kind": "gradient_determinism", "sweep": {"lengths": [[2, 3]]},
                "expect": {"aten": "observed"}}]})");
  EXPECT_THROW(validate_contract(*half.front(), registry), ContractError);
}

}  // namespace gradient_checks_test_file
}  // namespace samebits
