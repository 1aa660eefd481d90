// Contract parser, invalid input: one test per kind of mistake, each asserting that the message
// names the file, the JSON path of the mistake and, where there is a choice, the accepted values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

constexpr const char* kFile = "bad/contract.json";

struct BadContract {
  std::string name;                   // the test's name (CamelCase, no underscores)
  std::string text;                   // the contract
  std::vector<std::string> must_say;  // substrings of the message, the "file: path:" part first
};
void PrintTo(const BadContract& p, std::ostream* os) {
  *os << p.name;
}

// A valid contract, so each bad one differs from it in one place (see ValidBaselineParses).
std::string with(const std::string& sweep, const std::string& checks,
                 const std::string& impls = R"(["aten", "fast"])", const std::string& extra = "") {
  return R"({"op": "sum", "implementations": )" + impls + R"(, "sweep": )" + sweep +
         R"(, "checks": )" + checks + extra + "}";
}
const std::string kSweep = R"({"N": [3]})";
const std::string kExpect = R"("expect": {"aten": "holds", "fast": "holds"})";
std::string one_check(const std::string& fields) {
  return "[{" + fields + ", " + kExpect + "}]";
}

TEST(ContractErrors, ValidBaselineParses) {
  EXPECT_NO_THROW(parse_contract(with(kSweep, one_check(R"("kind": "determinism")")), kFile));
  EXPECT_NO_THROW(parse_contract(
      with(kSweep, R"([{"kind": "equivalence", "against": "fast", "expect": {"aten": "holds"}}])"),
      kFile));
}

class ContractErrorTest : public ::testing::TestWithParam<BadContract> {};

TEST_P(ContractErrorTest, MessageNamesFilePathAndAcceptedValues) {
  const BadContract& bad = GetParam();
  try {
    parse_contract(bad.text, kFile);
    FAIL() << "parsed without error:\n" << bad.text;
  } catch (const ContractError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(kFile, 0), 0u) << "the message must start with the file: " << message;
    for (const auto& part : bad.must_say) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << message;
    }
  }
}

const std::string kKinds =
    "accepted: determinism, batch_invariance, position_invariance, layout_invariance, "
    "padding_invariance, chunking_invariance, equivalence, reference";
const std::string kModes = "accepted: bitwise, ulp, allclose, indices";
const std::string kOutcomes = "holds, violated, unknown";

const BadContract kBadContracts[] = {
    {"TopLevelIsNotAnObject", "[1, 2]", {"bad/contract.json: /: expected an object, got array"}},
    {"UnknownTopLevelField",
     with(kSweep, one_check(R"("kind": "determinism")"), R"(["aten", "fast"])",
          R"(, "opp": "sum")"),
     {"bad/contract.json: /opp: unknown field \"opp\"",
      "accepted: name, op, description, implementations, sweep, checks"}},
    {"MissingOp",
     R"({"implementations": ["aten"], "checks": []})",
     {"bad/contract.json: /: missing required field \"op\""}},
    {"OpIsNotAString",
     R"({"op": 3, "implementations": ["aten"], "checks": []})",
     {"bad/contract.json: /op: expected a string, got number"}},
    {"MissingImplementations",
     R"({"op": "sum", "checks": [{"kind": "determinism", "expect": {}}]})",
     {"bad/contract.json: /: missing required field \"implementations\""}},
    {"EmptyImplementations",
     with(kSweep, one_check(R"("kind": "determinism")"), "[]"),
     {"bad/contract.json: /implementations: name at least one implementation"}},
    {"ImplementationListedTwice",
     with(kSweep, one_check(R"("kind": "determinism")"), R"(["aten", "fast", "aten"])"),
     {"bad/contract.json: /implementations/2: implementation \"aten\" is listed twice"}},
    {"ImplementationNotAString",
     with(kSweep, one_check(R"("kind": "determinism")"), R"(["aten", 7])"),
     {"bad/contract.json: /implementations/1: expected a string"}},
    {"MissingChecks",
     R"({"op": "sum", "implementations": ["aten"]})",
     {"bad/contract.json: /: missing required field \"checks\""}},
    {"EmptyChecks",
     with(kSweep, "[]"),
     {"bad/contract.json: /checks: expected a non-empty array of checks"}},
    {"UnknownCheckField",
     with(kSweep, one_check(R"("kind": "determinism", "expected": "holds")")),
     {"bad/contract.json: /checks/0/expected: unknown field \"expected\"",
      "accepted: name, kind, description, compare, sweep, against, expect"}},
    {"MissingCheckKind",
     with(kSweep, one_check(R"("name": "x")")),
     {"bad/contract.json: /checks/0: missing required field \"kind\""}},
    {"UnknownCheckKind",
     with(kSweep, one_check(R"("kind": "batch_invariant")")),
     {"bad/contract.json: /checks/0/kind: unknown check kind \"batch_invariant\"", kKinds}},
    {"UnknownCompareModeAsString",
     with(kSweep, one_check(R"("kind": "determinism", "compare": "exact")")),
     {"bad/contract.json: /checks/0/compare: unknown comparison \"exact\"", kModes}},
    {"UnknownCompareModeInObject",
     with(kSweep, one_check(R"("kind": "determinism", "compare": {"mode": "exact"})")),
     {"bad/contract.json: /checks/0/compare/mode: unknown comparison \"exact\"", kModes}},
    {"CompareWithoutMode",
     with(kSweep, one_check(R"("kind": "determinism", "compare": {"max_mismatches": 1})")),
     {"bad/contract.json: /checks/0/compare: missing required field \"mode\""}},
    {"UnknownCompareField",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "ulp", "tolerance": 1})")),
     {"bad/contract.json: /checks/0/compare/tolerance: unknown field \"tolerance\"",
      "accepted: mode, rtol, atol, max_ulp, equal_nan, max_mismatches, max_mismatch_fraction, "
      "outputs"}},
    // The README once wrote a comparison's parameters beside "compare": the error shows the
    // object form, with the mode, rather than only calling the field unknown.
    {"MaxUlpBesideCompare",
     with(kSweep, one_check(R"("kind": "reference", "compare": "ulp", "max_ulp": 4)")),
     {"bad/contract.json: /checks/0/max_ulp: \"max_ulp\" belongs inside \"compare\"",
      R"("compare": {"mode": "ulp", "max_ulp": 4})"}},
    {"TolerancesBesideCompare",
     with(kSweep, one_check(R"("kind": "reference", "rtol": 0.001, "atol": 0.0001)")),
     {"bad/contract.json: /checks/0/rtol: \"rtol\" belongs inside \"compare\"",
      R"("compare": {"mode": "allclose", "rtol": 0.001})"}},
    {"RtolWithoutAtol",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "allclose", "rtol": 0.1})")),
     {"bad/contract.json: /checks/0/compare: give rtol and atol together"}},
    {"AtolWithoutRtol",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "allclose", "atol": 0.1})")),
     {"bad/contract.json: /checks/0/compare: give rtol and atol together"}},
    {"TolerancesOutsideAllclose",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "ulp", "rtol": 0, "atol": 0})")),
     {"bad/contract.json: /checks/0/compare/rtol: rtol/atol apply only to mode \"allclose\""}},
    {"NegativeTolerance",
     with(kSweep,
          one_check(
              R"("kind": "determinism", "compare": {"mode": "allclose", "rtol": -1, "atol": 0})")),
     {"bad/contract.json: /checks/0/compare/rtol: must not be negative"}},
    {"MaxUlpOutsideUlpMode",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "bitwise", "max_ulp": 2})")),
     {"bad/contract.json: /checks/0/compare/max_ulp: max_ulp applies only to mode \"ulp\""}},
    {"NegativeMaxUlp",
     with(kSweep, one_check(R"("kind": "determinism", "compare": {"mode": "ulp", "max_ulp": -1})")),
     {"bad/contract.json: /checks/0/compare/max_ulp: expected a non-negative integer, got -1"}},
    {"FractionalMaxMismatches",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "ulp", "max_mismatches": 1.5})")),
     {"bad/contract.json: /checks/0/compare/max_mismatches: expected a non-negative integer"}},
    {"MismatchFractionAboveOne",
     with(kSweep, one_check(R"("kind": "determinism", )"
                            R"("compare": {"mode": "bitwise", "max_mismatch_fraction": 1.5})")),
     {"bad/contract.json: /checks/0/compare/max_mismatch_fraction: a fraction lies in [0, 1]"}},
    {"EqualNanNotABoolean",
     with(kSweep,
          one_check(R"("kind": "determinism", "compare": {"mode": "ulp", "equal_nan": 1})")),
     {"bad/contract.json: /checks/0/compare/equal_nan: expected true or false, got 1"}},
    {"MissingExpect",
     with(kSweep, R"([{"kind": "determinism"}])"),
     {"bad/contract.json: /checks/0: missing required field \"expect\""}},
    {"UnknownExpectation",
     with(kSweep, R"([{"kind": "determinism", "expect": {"aten": "holdz", "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten: unknown expectation \"holdz\"",
      "accepted: " + kOutcomes}},
    {"UnknownExpectationForADevice",
     with(kSweep, R"([{"kind": "determinism", )"
                  R"("expect": {"aten": {"cpu": "hold", "cuda": "holds"}, "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten/cpu: unknown expectation \"hold\"",
      "accepted: " + kOutcomes}},
    {"ExpectationForAnUnknownDevice",
     with(kSweep, R"([{"kind": "determinism", )"
                  R"("expect": {"aten": {"tpu": "holds", "any": "holds"}, "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten/tpu: unknown field \"tpu\"",
      "accepted: any, cpu, cuda"}},
    {"ExpectationNotAString",
     with(kSweep, R"([{"kind": "determinism", )"
                  R"("expect": {"aten": {"cpu": true, "cuda": "holds"}, "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten/cpu: expected one of: " + kOutcomes}},
    {"MissingExpectationForAnImplementation",
     with(kSweep, R"([{"kind": "determinism", "expect": {"aten": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect: no expectation for implementation \"fast\"",
      kOutcomes}},
    {"MissingExpectationForADevice",
     with(kSweep,
          R"([{"kind": "determinism", "expect": {"aten": {"cpu": "holds"}, "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten: no expectation for device \"cuda\"", "\"any\""}},
    {"ExpectationForAnUnknownImplementation",
     with(kSweep, R"([{"kind": "determinism", )"
                  R"("expect": {"aten": "holds", "fast": "holds", "slow": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/slow: \"slow\" is not one of this contract's "
      "implementations",
      "accepted: aten, fast"}},
    {"DuplicateCheckNames",
     with(kSweep, "[{\"kind\": \"determinism\", " + kExpect + "}, {\"kind\": \"determinism\", " +
                      kExpect + "}]"),
     {"bad/contract.json: /checks/1: check name \"determinism\" is used twice"}},
    {"DuplicateExplicitCheckNames",
     with(kSweep, "[{\"name\": \"a\", \"kind\": \"determinism\", " + kExpect +
                      "}, {\"name\": \"a\", \"kind\": \"reference\", " + kExpect + "}]"),
     {"bad/contract.json: /checks/1: check name \"a\" is used twice"}},
    {"EquivalenceWithoutAgainst",
     with(kSweep, one_check(R"("kind": "equivalence")")),
     {"bad/contract.json: /checks/0: check kind equivalence needs \"against\": one of aten, fast"}},
    {"EquivalenceAgainstAnUnknownImplementation",
     with(kSweep, one_check(R"("kind": "equivalence", "against": "slow")")),
     {"bad/contract.json: /checks/0/against: \"slow\" is not one of this contract's "
      "implementations",
      "accepted: aten, fast"}},
    {"ExpectationForTheAgainstImplementation",
     with(kSweep, one_check(R"("kind": "equivalence", "against": "fast")")),
     {"bad/contract.json: /checks/0/expect/fast: \"fast\" is what this check compares "
      "against"}},
    {"MissingExpectationBesideAgainst",
     with(kSweep, R"([{"kind": "equivalence", "against": "fast", "expect": {}}])"),
     {"bad/contract.json: /checks/0/expect: no expectation for implementation \"aten\""}},
    {"EquivalenceWithOneImplementation",
     with(kSweep, R"([{"kind": "equivalence", "against": "aten", "expect": {}}])", R"(["aten"])"),
     {"bad/contract.json: /checks/0: check kind equivalence needs a second implementation"}},
    {"AgainstOutsideEquivalence",
     with(kSweep, one_check(R"("kind": "determinism", "against": "fast")")),
     {"bad/contract.json: /checks/0/against: \"against\" applies only to check kinds equivalence"}},
    {"SweepNotAnObject",
     with("[1]", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep: expected an object of named axes"}},
    {"EmptyAxis",
     with(R"({"N": []})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N: an axis needs at least one value"}},
    {"EmptyAxisOnADevice",
     with(R"({"N": {"cpu": [], "cuda": [1]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/cpu: an axis needs at least one value"}},
    {"AxisKeyedByNoDevice",
     with(R"({"N": {}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N: an axis keyed by device needs at least one device"}},
    {"AxisForAnUnknownDevice",
     with(R"({"N": {"tpu": [1]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/tpu: unknown device \"tpu\"", "accepted: any, cpu, cuda"}},
    {"AxisValueIsAnObject",
     with(R"({"N": [1, {"a": 2}]})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/1: axis values are numbers, strings, booleans or arrays"}},
    {"AxisValueIsNull",
     with(R"({"N": [null]})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/0: axis values are numbers, strings, booleans or arrays"}},
    {"AxisIsAScalar",
     with(R"({"N": 3})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N: expected an array of values, {\"range\": [first, last(, "
      "step)]}"}},
    {"AxisNameNeedsEscaping",
     with(R"({"a/b~c": []})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/a~1b~0c: an axis needs at least one value"}},
    {"CheckSweepErrorsNameTheCheck",
     with(kSweep, one_check(R"("kind": "determinism", "sweep": {"batch": []})")),
     {"bad/contract.json: /checks/0/sweep/batch: an axis needs at least one value"}},
    {"RangeStepZero",
     with(R"({"N": {"range": [1, 5, 0]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: step must be positive, got 0"}},
    {"RangeStepNegative",
     with(R"({"N": {"range": [5, 1, -1]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: step must be positive, got -1"}},
    {"RangeEmpty",
     with(R"({"N": {"range": [5, 3]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: empty range: last 3 < first 5"}},
    {"RangeOfFractions",
     with(R"({"N": {"range": [1.5, 3]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: range bounds and step must be integers"}},
    {"RangeWithOneBound",
     with(R"({"N": {"range": [1]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: expected [first, last] or [first, last, step]"}},
    {"RangeWithFourNumbers",
     with(R"({"N": {"range": [1, 2, 3, 4]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: expected [first, last] or [first, last, step]"}},
    {"RangeOverAMillionValues",
     with(R"({"N": {"range": [0, 2000000]}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: range has more than a million values"}},
    {"RangeAcrossTheWholeIntegerLine",
     with(R"({"N": {"range": [-9223372036854775807, 9223372036854775807, 2]}})",
          one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/range: range has more than a million values"}},
    {"RangeWithAnUnknownField",
     with(R"({"N": {"range": [1, 5], "step": 2}})", one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/step: unknown field \"step\"", "accepted: range"}},
    {"RangeOnADevice",
     with(R"({"N": {"cuda": {"range": [3, 1]}, "cpu": [1]}})",
          one_check(R"("kind": "determinism")")),
     {"bad/contract.json: /sweep/N/cuda/range: empty range: last 1 < first 3"}},
    // "observed" is for the whole implementation: what a platform saw is recorded per platform,
    // so a per-device object takes only promises.
    {"ObservedInsideADeviceObject",
     with(kSweep,
          R"([{"kind": "determinism", "expect": {"aten": {"cpu": "observed"}, "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten/cpu:", "holds, violated, unknown"}},
    {"MisspelledObserved",
     with(kSweep, R"([{"kind": "determinism", "expect": {"aten": "observe", "fast": "holds"}}])"),
     {"bad/contract.json: /checks/0/expect/aten:", "observed"}},
};

INSTANTIATE_TEST_SUITE_P(Parser, ContractErrorTest, ::testing::ValuesIn(kBadContracts),
                         [](const ::testing::TestParamInfo<BadContract>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace samebits
