// Validation and planning against a test registry: each unknown, unsupported, missing or impossible
// thing names file, JSON path and accepted values; case ids and seeds are stable and distinct.
#include "harness/plan.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/errors.h"
#include "tests/support/control_contract.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace plan_test_file {}
using namespace plan_test_file;
namespace plan_test_file {

constexpr const char* kFile = "plan/bad.json";

// A contract over op `op` with implementations ["invariant"], contract sweep `sweep` and one check
// whose fields (kind, sweep, compare, ...) are `check`.
std::string contract(const std::string& sweep, const std::string& check,
                     const std::string& op = "control") {
  return R"({"op": ")" + op + R"(", "implementations": ["invariant"], "sweep": )" + sweep +
         R"(, "checks": [{)" + check + R"(, "expect": {"invariant": "holds"}}]})";
}

struct BadPlan {
  std::string name;
  std::string text;
  std::vector<std::string> must_say;
};
void PrintTo(const BadPlan& p, std::ostream* os) {
  *os << p.name;
}

class PlanErrorTest : public ::testing::TestWithParam<BadPlan> {};

TEST_P(PlanErrorTest, MessageNamesFilePathAndAcceptedValues) {
  const BadPlan& bad = GetParam();
  const OpRegistry registry = control_registry();
  const Contract c = parse_contract(bad.text, kFile);  // structurally valid
  try {
    validate_contract(c, registry);
    FAIL() << "validated without error:\n" << bad.text;
  } catch (const ContractError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(kFile, 0), 0u) << "the message must start with the file: " << message;
    for (const auto& part : bad.must_say) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << message;
    }
  }
}

const std::string kL5 = R"({"L": [5]})";
const std::string kImpls =
    "accepted: invariant, warm_cache, batch_dependent, position_dependent, stride_dependent, "
    "padding_dependent, chunk_dependent, double_accumulator, one_ulp_high";

const BadPlan kBadPlans[] = {
    {"UnknownOp",
     contract(kL5, R"("kind": "determinism")", "nope"),
     {"plan/bad.json: /op: unknown op \"nope\"; accepted: control, narrow_control"}},
    {"UnknownImplementation",
     R"({"op": "control", "implementations": ["invariant", "fast"], "sweep": {"L": [5]},
         "checks": [{"kind": "determinism", "expect": {"invariant": "holds", "fast": "holds"}}]})",
     {"plan/bad.json: /implementations/1: op control has no implementation \"fast\"", kImpls}},
    {"UnsupportedCheckKind",
     contract(kL5, R"("kind": "chunking_invariance")", "narrow_control"),
     {"plan/bad.json: /checks/0/kind: op narrow_control does not support check "
      "\"chunking_invariance\"; accepted: determinism, layout_invariance, padding_invariance"}},
    {"UnknownAxis",
     contract(R"({"L": [5], "Q": [1]})", R"("kind": "determinism")"),
     {"plan/bad.json: /sweep/Q: unknown axis \"Q\" for op control and check determinism; "
      "accepted: L, rows, k, dtype, generator, batch, repeat"}},
    {"AxisOfAnotherCheckKind",
     contract(kL5, R"("kind": "determinism", "sweep": {"chunk": [1]})"),
     {"plan/bad.json: /checks/0/sweep/chunk: unknown axis \"chunk\""}},
    {"WrongValueType",
     contract(R"({"L": [5, "five"]})", R"("kind": "determinism")"),
     {"plan/bad.json: /sweep/L/1: axis \"L\" takes an integer, got \"five\""}},
    {"WrongValueTypeOnADevice",
     contract(R"({"L": {"cpu": [5], "cuda": [5, 2.5]}})", R"("kind": "determinism")"),
     {"plan/bad.json: /sweep/L/cuda/1: axis \"L\" takes an integer, got 2.5"}},
    {"ScalarForAListAxis",
     contract(kL5,
              R"("kind": "padding_invariance", "sweep": {"padding": ["right"], "lengths": [3]})"),
     {"plan/bad.json: /checks/0/sweep/lengths/0: axis \"lengths\" takes an array of integers, "
      "got 3"}},
    {"UnknownChoice",
     contract(kL5, R"("kind": "determinism", "sweep": {"repeat": ["third_stream"]})"),
     {"plan/bad.json: /checks/0/sweep/repeat/0: unknown repeat \"third_stream\"; accepted: "
      "same_stream, second_stream"}},
    {"UnknownDtype",
     contract(R"({"L": [5], "dtype": ["float33"]})", R"("kind": "determinism")"),
     {"plan/bad.json: /sweep/dtype/0: unknown dtype \"float33\"; accepted: float32, float16, "
      "bfloat16, float64, float8_e4m3fn, float8_e5m2, int64, int32"}},
    {"UnknownGenerator",
     contract(R"({"L": [5], "generator": ["gaussian"]})", R"("kind": "determinism")"),
     {"plan/bad.json: /sweep/generator/0: unknown generator \"gaussian\"; accepted: normal, "
      "uniform, relu, rounded, wide, outliers, exact, distinct"}},
    {"UnknownLayout",
     contract(kL5, R"("kind": "layout_invariance", "sweep": {"layout": ["diagonal:2"]})"),
     {"plan/bad.json: /checks/0/sweep/layout/0: unknown layout \"diagonal:2\"; accepted: "
      "contiguous, strided:<gap>, offset:<elements>, padded:<multiple>"}},
    {"LayoutWithoutAmount",
     contract(kL5, R"("kind": "layout_invariance", "sweep": {"layout": ["strided"]})"),
     {"plan/bad.json: /checks/0/sweep/layout/0: unknown layout \"strided\""}},
    {"LayoutWithZeroAmount",
     contract(kL5,
              R"("kind": "layout_invariance", "sweep": {"layout": ["contiguous", "offset:0"]})"),
     {"plan/bad.json: /checks/0/sweep/layout/1: unknown layout \"offset:0\""}},
    {"UnsupportedLayout",
     contract(kL5, R"("kind": "layout_invariance", "sweep": {"layout": ["offset:1"]})",
              "narrow_control"),
     {"plan/bad.json: /checks/0/sweep/layout/0: op narrow_control does not take layout "
      "\"offset:1\"; accepted kinds: contiguous, strided"}},
    {"UnknownPadding",
     contract(
         kL5,
         R"("kind": "padding_invariance", "sweep": {"padding": ["middle"], "lengths": [[3]]})"),
     {"plan/bad.json: /checks/0/sweep/padding/0: unknown padding \"middle\"; accepted: right, "
      "left, packed"}},
    {"UnsupportedPadding",
     contract(kL5,
              R"("kind": "padding_invariance", "sweep": {"padding": ["left"], "lengths": [[3]]})",
              "narrow_control"),
     {"plan/bad.json: /checks/0/sweep/padding/0: op narrow_control does not take padding "
      "\"left\"; accepted: right"}},
    {"MissingOpAxis",
     contract("{}", R"("kind": "determinism")"),
     {"plan/bad.json: /checks/0: check determinism needs axis \"L\""}},
    {"MissingCheckAxis",
     contract(kL5, R"("kind": "layout_invariance")"),
     {"plan/bad.json: /checks/0: check layout_invariance needs axis \"layout\""}},
    {"MissingSecondCheckAxis",
     contract(kL5, R"("kind": "padding_invariance", "sweep": {"padding": ["right"]})"),
     {"plan/bad.json: /checks/0: check padding_invariance needs axis \"lengths\""}},
    {"ImpossibleForTheOp",
     contract(R"({"L": [5], "k": [2, 6]})", R"("kind": "determinism")"),
     {"plan/bad.json: /checks/0: impossible point L=5,k=6 on cpu: k=6 must lie in [1, L=5]"}},
    {"ImpossibleOnlyOnCuda",
     contract(R"({"L": {"cpu": [5], "cuda": [2]}, "k": [3]})", R"("kind": "determinism")"),
     {"plan/bad.json: /checks/0: impossible point L=2,k=3 on cuda: k=3 must lie in [1, L=2]"}},
    {"ChunkLongerThanTheItem",
     contract(kL5, R"("kind": "chunking_invariance", "sweep": {"chunk": [2, 6]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,chunk=6 on cpu: chunk 6 exceeds L=5"}},
    {"ItemShorterThanK",
     contract(
         R"({"L": [5], "k": [4]})",
         R"("kind": "padding_invariance", "sweep": {"padding": ["right"], "lengths": [[3, 5]]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,k=4,padding=right,lengths=3_5 on cpu: k=4 "
      "exceeds an item's length 3"}},
    {"PositionFirst",
     contract(kL5, R"("kind": "position_invariance", "sweep": {"position": ["last", "first"]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,position=first on cpu",
      "its position must not be 0"}},
    {"PositionInABatchOfOne",
     contract(kL5, R"("kind": "position_invariance", "sweep": {"batch": [1]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,batch=1 on cpu: position_invariance needs a "
      "batch of at least 2"}},
    {"BatchOfZero",
     contract(kL5, R"("kind": "determinism", "sweep": {"batch": [0]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,batch=0 on cpu: batch must be at least 1"}},
    {"ChunkOfZero",
     contract(kL5, R"("kind": "chunking_invariance", "sweep": {"chunk": [0]})"),
     {"plan/bad.json: /checks/0: impossible point L=5,chunk=0 on cpu: chunk must be at least 1"}},
    {"NonPositiveLength",
     contract(
         kL5,
         R"("kind": "padding_invariance", "sweep": {"padding": ["right"], "lengths": [[0, 3]]})"),
     {"plan/bad.json: /checks/0: impossible point", "lengths must be positive, got 0"}},
    {"UnknownOutput",
     contract(kL5, R"("kind": "determinism", "compare": {"mode": "bitwise", "outputs": ["tail"]})"),
     {"plan/bad.json: /checks/0/compare/outputs/0: op control has no output \"tail\"; accepted: "
      "prefix, head"}},
    {"OverAMillionPoints",
     contract(R"({"L": {"range": [1, 1000]}, "rows": {"range": [1, 1001]}})",
              R"("kind": "determinism")"),
     {"plan/bad.json: /checks/0: the sweep has 1001000 points on cpu; the limit is a million"}},
};

INSTANTIATE_TEST_SUITE_P(Plan, PlanErrorTest, ::testing::ValuesIn(kBadPlans),
                         [](const ::testing::TestParamInfo<BadPlan>& info) {
                           return info.param.name;
                         });

// ---- planning a valid contract ----

std::vector<std::unique_ptr<Contract>> contracts_of(const std::vector<std::string>& texts) {
  std::vector<std::unique_ptr<Contract>> out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    out.push_back(std::make_unique<Contract>(
        parse_contract(texts[i], "plan/contract" + std::to_string(i) + ".json")));
  }
  return out;
}

const std::string kTwoImpls = R"({"name": "ctl", "op": "control",
  "implementations": ["invariant", "warm_cache"],
  "sweep": {"L": {"cpu": [3, 5], "cuda": [7]}},
  "checks": [
    {"kind": "determinism", "expect": {"invariant": "holds", "warm_cache": "violated"}},
    {"kind": "batch_invariance", "sweep": {"batch": [2]},
     "expect": {"invariant": "holds", "warm_cache": "holds"}}]})";

TEST(PlanCases, IdsInContractCheckImplementationPointOrder) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({kTwoImpls});
  std::vector<std::string> ids;
  for (const auto& c : plan_cases(contracts, registry, "cpu", 0)) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "ctl/determinism/invariant/cpu/L=3",
                     "ctl/determinism/invariant/cpu/L=5",
                     "ctl/determinism/warm_cache/cpu/L=3",
                     "ctl/determinism/warm_cache/cpu/L=5",
                     "ctl/batch_invariance/invariant/cpu/L=3,batch=2",
                     "ctl/batch_invariance/invariant/cpu/L=5,batch=2",
                     "ctl/batch_invariance/warm_cache/cpu/L=3,batch=2",
                     "ctl/batch_invariance/warm_cache/cpu/L=5,batch=2",
                 }));
}

TEST(PlanCases, PerDeviceValues) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({kTwoImpls});
  std::vector<std::string> ids;
  for (const auto& c : plan_cases(contracts, registry, "cuda", 0)) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "ctl/determinism/invariant/cuda/L=7",
                     "ctl/determinism/warm_cache/cuda/L=7",
                     "ctl/batch_invariance/invariant/cuda/L=7,batch=2",
                     "ctl/batch_invariance/warm_cache/cuda/L=7,batch=2",
                 }));
}

TEST(PlanCases, ResolvedPointHoldsEveryDefault) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({kTwoImpls});
  const auto cases = plan_cases(contracts, registry, "cpu", 0);
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(cases[0].declared.values(), Json::parse(R"({"L": 3})"));
  // Declared axes first, then the op's defaults, then the check's, in declaration order.
  EXPECT_EQ(cases[0].resolved.values().dump(),
            R"({"L":3,"rows":2,"k":1,"dtype":"float32","generator":"exact","batch":4,)"
            R"("repeat":"same_stream"})");
  EXPECT_EQ(cases[0].impl, "invariant");
  EXPECT_EQ(cases[0].device, "cpu");
  EXPECT_EQ(cases[0].check->name, "determinism");
  EXPECT_EQ(cases[0].op->name(), "control");
}

TEST(PlanCases, SeedsAreStableAcrossPlans) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({kTwoImpls});
  const auto first = plan_cases(contracts, registry, "cpu", 7);
  const auto second = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 7);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].id, second[i].id);
    EXPECT_EQ(first[i].seed, second[i].seed) << first[i].id;
  }
}

TEST(PlanCases, IdsAndSeedsAreDistinctPerPoint) {
  const OpRegistry registry = control_registry();
  const auto cases = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 0);
  std::set<std::string> ids;
  std::set<std::uint64_t> seeds_of_invariant;
  for (const auto& c : cases) {
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id " << c.id;
    if (c.impl == "invariant") {
      EXPECT_TRUE(seeds_of_invariant.insert(c.seed).second) << "seed repeated at " << c.id;
    }
  }
}

TEST(PlanCases, ImplementationsOfOnePointShareTheirInputs) {
  const OpRegistry registry = control_registry();
  const auto cases = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 0);
  ASSERT_EQ(cases.size(), 8u);
  EXPECT_EQ(cases[0].seed, cases[2].seed) << cases[0].id << " vs " << cases[2].id;
  EXPECT_NE(cases[0].seed, cases[1].seed) << cases[0].id << " vs " << cases[1].id;
}

TEST(PlanCases, RunSeedChangesEveryCaseSeed) {
  const OpRegistry registry = control_registry();
  const auto zero = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 0);
  const auto one = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 1);
  ASSERT_EQ(zero.size(), one.size());
  for (std::size_t i = 0; i < zero.size(); ++i) EXPECT_NE(zero[i].seed, one[i].seed) << zero[i].id;
}

TEST(PlanCases, SeedDoesNotDependOnWhatElseRuns) {
  const OpRegistry registry = control_registry();
  const std::string other = R"({"name": "other", "op": "control", "implementations": ["invariant"],
    "sweep": {"L": [9]}, "checks": [{"kind": "reference", "expect": {"invariant": "holds"}}]})";
  const auto alone = plan_cases(contracts_of({kTwoImpls}), registry, "cpu", 0);
  const auto after_other = plan_cases(contracts_of({other, kTwoImpls}), registry, "cpu", 0);
  ASSERT_EQ(after_other.size(), alone.size() + 1);
  for (std::size_t i = 0; i < alone.size(); ++i) {
    EXPECT_EQ(alone[i].id, after_other[i + 1].id);
    EXPECT_EQ(alone[i].seed, after_other[i + 1].seed) << alone[i].id;
  }
}

TEST(PlanCases, TwoContractsWithOneNameAreRefused) {
  const OpRegistry registry = control_registry();
  try {
    plan_cases(contracts_of({kTwoImpls, kTwoImpls}), registry, "cpu", 0);
    FAIL() << "two contracts named ctl must not plan";
  } catch (const ContractError& e) {
    EXPECT_NE(
        std::string(e.what()).find("two cases share the id ctl/determinism/invariant/cpu/L=3"),
        std::string::npos)
        << e.what();
  }
}

TEST(PlanCases, EquivalenceSkipsTheImplementationItComparesAgainst) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({R"({"name": "eq", "op": "control",
    "implementations": ["invariant", "double_accumulator", "one_ulp_high"], "sweep": {"L": [5]},
    "checks": [{"kind": "equivalence", "against": "invariant",
                "expect": {"double_accumulator": "holds", "one_ulp_high": "violated"}}]})"});
  std::vector<std::string> ids;
  for (const auto& c : plan_cases(contracts, registry, "cpu", 0)) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"eq/equivalence/double_accumulator/cpu/L=5",
                                           "eq/equivalence/one_ulp_high/cpu/L=5"}));
}

TEST(PlanCases, ControlContractIsValid) {
  const OpRegistry registry = control_registry();
  const auto contracts = contracts_of({control_contract_json()});
  EXPECT_NO_THROW(validate_contract(*contracts[0], registry));
  EXPECT_GT(plan_cases(contracts, registry, "cpu", 0).size(), 100u);
}

}  // namespace plan_test_file
}  // namespace samebits
