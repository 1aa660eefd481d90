// ATen ops by schema name (harness/ops/schema_op.*): the errors only the schema can show, and
// controls with known answers. A copy-like row-wise op holds every invariance; ops whose result
// for one item reads the others (a scan or a softmax along the batch or sequence dim) are
// violated by the checks that move those others; a planted flaw in each check kind is caught.
#include "harness/ops/schema_op.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.h"
#include "harness/plan.h"
#include "tests/support/planted_flaw.h"
#include "tests/support/run_contracts.h"
#include "tests/support/test_names.h"

namespace samebits {
namespace {

constexpr const char* kFile = "schema/test.json";

// A contract of `op` with these inputs, sweep and checks (each check's "expect" filled in).
std::string contract(const std::string& op, const std::string& inputs, const std::string& sweep,
                     const std::string& checks, const std::string& extra = "") {
  return R"({"op": ")" + op + R"(", "implementations": ["aten"], "inputs": )" + inputs +
         R"(, "sweep": )" + sweep + R"(, "checks": )" + checks + extra + "}";
}
const std::string kObserved = R"("expect": {"aten": "observed"})";
std::string check(const std::string& kind, const std::string& sweep = "{}",
                  const std::string& compare = "\"bitwise\"") {
  return R"({"name": ")" + kind + R"(", "kind": ")" + kind + R"(", "compare": )" + compare +
         R"(, "sweep": )" + sweep + ", " + kObserved + "}";
}

// `text` with its first `from` replaced by `to` (which must be there).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("no \"" + from + "\" in " + text);
  return text.replace(at, from.size(), to);
}

std::vector<std::unique_ptr<Contract>> contracts_of(const std::string& text) {
  std::vector<std::unique_ptr<Contract>> out;
  out.push_back(std::make_unique<Contract>(parse_contract(text, kFile)));
  return out;
}

std::string describe(const CaseResult& r) {
  std::string out = r.id + ": " + to_string(r.verdict);
  if (!r.reason.empty()) out += " (" + r.reason + ")";
  return out;
}

// ---- errors only the schema shows ----

struct BadBinding {
  std::string name;
  std::string text;
  std::vector<std::string> must_say;
};
void PrintTo(const BadBinding& p, std::ostream* os) {
  *os << p.name;
}

const std::string kGeluSelf = R"({"arg": "self", "shape": ["R", "N"], "batch_dim": 0})";
const std::string kSweep = R"({"R": [2], "N": [5]})";
std::string gelu_with(const std::string& more, const std::string& op = "aten::gelu") {
  return contract(op, "[" + kGeluSelf + more + "]", kSweep, "[" + check("determinism") + "]");
}
std::string layer_norm_with(const std::string& args, const std::string& extra = "") {
  return contract("aten::layer_norm",
                  R"([{"arg": "input", "shape": ["R", "N"], "batch_dim": 0})" + args + "]", kSweep,
                  "[" + check("determinism") + "]", extra);
}

class SchemaBindingErrorTest : public ::testing::TestWithParam<BadBinding> {};

TEST_P(SchemaBindingErrorTest, ValidateNamesFilePathAndAcceptedValues) {
  const BadBinding& bad = GetParam();
  const OpRegistry registry = OpRegistry::builtin();
  try {
    validate_contract(parse_contract(bad.text, kFile), registry);
    FAIL() << "validated without error:\n" << bad.text;
  } catch (const ContractError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(kFile, 0), 0u) << message;
    for (const auto& part : bad.must_say)
      EXPECT_NE(message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << message;
  }
}

const BadBinding kBadBindings[] = {
    {"UnknownSchema",
     gelu_with("", "aten::gelu_fast"),
     {"schema/test.json: /op: unknown schema op \"aten::gelu_fast\""}},
    {"UnknownOverload",
     gelu_with("", "aten::gelu.Tensr"),
     {"schema/test.json: /op: aten::gelu has no overload \"Tensr\"; accepted: aten::gelu"}},
    {"MissingArgument",
     layer_norm_with(""),
     {"schema/test.json: /inputs: argument \"normalized_shape\"", "is missing and has no default",
      "aten::layer_norm(Tensor input"}},
    {"UnknownArgument",
     gelu_with(R"(, {"arg": "approx", "value": "tanh"})"),
     {"schema/test.json: /inputs/1/arg: aten::gelu has no argument \"approx\"; accepted: self, "
      "approximate"}},
    {"TensorForAnInteger",
     contract("aten::cumsum",
              "[" + kGeluSelf + R"(, {"arg": "dim", "shape": [1], "batch_dim": "none"}])", kSweep,
              "[" + check("determinism") + "]"),
     {"/inputs/1: argument \"dim\" of aten::cumsum is a int, not a tensor"}},
    {"ValueForATensor",
     contract("aten::add.Tensor", "[" + kGeluSelf + R"(, {"arg": "other", "value": 1.5}])", kSweep,
              "[" + check("determinism") + "]"),
     {"/inputs/1: argument \"other\" is a Tensor: give its \"shape\""}},
    {"LiteralOfTheWrongType",
     layer_norm_with(R"(, {"arg": "normalized_shape", "value": ["N"]},
                                               {"arg": "eps", "value": "small"})"),
     {"/inputs/2/value: argument \"eps\" is a float: expected a number, got \"small\""}},
    {"UnknownDtypeArgument",
     contract(
         "aten::cumsum",
         "[" + kGeluSelf + R"(, {"arg": "dim", "value": 1}, {"arg": "dtype", "value": "f32"}])",
         kSweep, "[" + check("determinism") + "]"),
     {"/inputs/2/value: argument \"dtype\"", "accepted: float32, float16"}},
    {"UnknownTensorDtype",
     edit(gelu_with(""), R"("batch_dim": 0})", R"("batch_dim": 0, "dtype": "f32"})"),
     {"/inputs/0/dtype: unknown dtype \"f32\"; accepted: float32"}},
    {"UnknownGenerator",
     edit(gelu_with(""), R"("batch_dim": 0})", R"("batch_dim": 0, "generator": "gauss"})"),
     {"/inputs/0/generator: unknown generator \"gauss\"; accepted: normal, uniform"}},
    {"IntegerTensorWithoutIntegers",
     edit(gelu_with(""), R"("batch_dim": 0})", R"("batch_dim": 0, "dtype": "int64"})"),
     {"/inputs/0/generator: a int64 tensor needs integer values"}},
    {"ExpressionReadsUnknownAxis",
     layer_norm_with(R"(, {"arg": "normalized_shape", "value": ["E"]})"),
     {"/inputs/1/value: unknown axis \"E\"", "accepted: R, N"}},
    {"UnknownOutput",
     layer_norm_with(R"(, {"arg": "normalized_shape", "value": ["N"]})",
                     R"(, "outputs": [{"name": "mean"}])"),
     {"/outputs/0/name: aten::layer_norm returns no \"mean\"; accepted: out0"}},
    {"UnknownImplementation",
     edit(edit(gelu_with(""), R"(["aten"])", R"(["samebits"])"),
          R"("expect": {"aten": "observed"})", R"("expect": {"samebits": "observed"})"),
     {"/implementations/0: op aten::gelu has no implementation \"samebits\"; accepted: aten"}},
    {"AxisTheSpecDoesNotRead",
     edit(gelu_with(""), R"("N": [5])", R"("N": [5], "Q": [1])"),
     {"unknown axis \"Q\" for op aten::gelu", "accepted: R, N"}},
};

INSTANTIATE_TEST_SUITE_P(Schema, SchemaBindingErrorTest, ::testing::ValuesIn(kBadBindings),
                         [](const auto& info) { return info.param.name; });

// ---- controls with known answers ----

// Every case of `text` that runs on the CPU, none an error.
std::vector<CaseResult> run_cpu(const std::string& text, const OpRegistry& registry) {
  const auto contracts = contracts_of(text);
  auto cases = run_contracts(contracts, registry, "cpu");
  for (const auto& r : cases) EXPECT_NE(r.verdict, Verdict::error) << describe(r);
  return cases;
}
std::vector<CaseResult> run_cpu(const std::string& text) {
  return run_cpu(text, OpRegistry::builtin());
}

// Sequences of [T, D] rows, concatenated along T: every check kind of a sequence op.
const std::string kSequenceSweep = R"({"T": [5], "D": [7, 64], "dtype": ["float32", "bfloat16"]})";
std::string sequence_input(const std::string& arg = "self") {
  return R"({"arg": ")" + arg +
         R"(", "shape": ["T", "D"], "dtype": {"axis": "dtype"}, "batch_dim": 0, "sequence_dim": 0})";
}
std::string every_kind(const std::string& reference_compare = "\"allclose\"") {
  return "[" + check("determinism") + ", " +
         check("batch_invariance",
               R"({"batch": [2, 5], "position": ["first", "middle", "last"]})") +
         ", " + check("position_invariance", R"({"batch": [4], "position": ["middle", "last"]})") +
         ", " +
         check("layout_invariance", R"({"layout": ["strided:1", "offset:3"], "batch": [3]})") +
         ", " +
         check("padding_invariance",
               R"({"padding": ["right", "left", "packed"], "lengths": [[5, 2, 7]]})") +
         ", " + check("chunking_invariance", R"({"chunk": [1, 2, 3], "batch": [1, 2]})") + ", " +
         check("reference", R"({"batch": [2]})", reference_compare) + "]";
}
// aten::neg: one exact operation per element, so no batch, place, layout, padding or chunking can
// change a bit, and the float64 reference agrees exactly once rounded.
const std::string kNeg = contract("aten::neg", "[" + sequence_input() + "]", kSequenceSweep,
                                  every_kind(), R"(, "sequence": "T")");

TEST(SchemaOpControls, AnExactRowWiseOpHoldsEveryCheckKind) {
  const auto cases = run_cpu(kNeg);
  std::set<CheckKind> ran;
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    if (r.verdict == Verdict::skipped) continue;
    EXPECT_EQ(r.verdict, Verdict::holds);
    for (const auto& o : r.outputs) EXPECT_GT(o.diff.numel, 0);
    ran.insert(r.kind);
  }
  EXPECT_EQ(ran.size(), 7u) << "every kind ran";
}

// aten::gather along the rows: a copy with integer indices, batched with its index tensor.
TEST(SchemaOpControls, AGatherOfRowsHoldsBatchPositionAndLayout) {
  const std::string text =
      contract("aten::gather",
               R"([{"arg": "self", "shape": ["R", "N"], "batch_dim": 0}, {"arg": "dim", "value": 1},
          {"arg": "index", "shape": ["R", "K"], "generator": {"integers": [0, "N"]},
           "batch_dim": 0}])",
               R"({"R": [2], "N": [9, 300], "K": [16]})",
               "[" + check("batch_invariance", R"({"batch": [3, 8]})") + ", " +
                   check("position_invariance", R"({"batch": [5]})") + ", " +
                   check("layout_invariance", R"({"layout": ["strided:2", "offset:1"]})") + "]");
  const auto cases = run_cpu(text);
  ASSERT_EQ(cases.size(), 2u * 2 + 2 + 2 * 2);
  for (const auto& r : cases) EXPECT_EQ(r.verdict, Verdict::holds) << describe(r);
}

// An embedding bag per item: its offset moves by the bags before it, so a wrong shift would
// change the sums (or fail on an index out of range).
TEST(SchemaOpControls, EmbeddingBagOffsetsFollowTheirItem) {
  const std::string text =
      contract("aten::embedding_bag",
               R"([{"arg": "weight", "shape": ["V", 8], "generator": "exact", "batch_dim": "none"},
          {"arg": "indices", "shape": ["L"], "generator": {"integers": [0, "V"]}, "batch_dim": 0},
          {"arg": "offsets", "shape": [1], "generator": {"integers": [0, 1]}, "batch_dim": 0,
           "indexes": "indices"}])",
               R"({"V": [50], "L": [6]})",
               "[" + check("batch_invariance", R"({"batch": [4], "position": ["last"]})") + "]",
               R"(, "outputs": [{"name": "out0", "batch_dim": 0}])");
  const auto cases = run_cpu(text);
  ASSERT_EQ(cases.size(), 1u);
  // "exact" values: sums of 6 sixteenths are exact, so any order gives the same bits.
  EXPECT_EQ(cases[0].verdict, Verdict::holds) << describe(cases[0]);
}

// A scan along the batch dim: the first item's prefix is its own, every later item's adds the
// items before it.
TEST(SchemaOpControls, AScanAlongTheBatchDimIsViolatedWhereItemsPrecedeIt) {
  const std::string text = contract(
      "aten::cumsum",
      R"([{"arg": "self", "shape": ["R", "N"], "batch_dim": 0}, {"arg": "dim", "value": 0}])",
      R"({"R": [2], "N": [5]})",
      "[" + check("batch_invariance", R"({"batch": [4], "position": ["first", "last"]})") + ", " +
          check("position_invariance", R"({"batch": [4], "position": ["last"]})") + "]");
  for (const auto& r : run_cpu(text)) {
    const bool first = r.id.find("position=first") != std::string::npos;
    EXPECT_EQ(r.verdict, first ? Verdict::holds : Verdict::violated) << describe(r);
  }
}

// A softmax along the batch dim normalises over every item of the call: the item alone differs
// from the item in a batch, but two copies of it in one batch share the denominator, so the
// position check (both sides from one call) holds.
TEST(SchemaOpControls, ASoftmaxAcrossItemsIsViolatedByBatchNotByPosition) {
  const std::string text = contract(
      "aten::softmax.int",
      R"([{"arg": "self", "shape": [1, "N"], "batch_dim": 0}, {"arg": "dim", "value": 0}])",
      R"({"N": [6]})",
      "[" + check("batch_invariance", R"({"batch": [2, 8], "position": ["first", "last"]})") +
          ", " + check("position_invariance", R"({"batch": [3]})") + "]");
  const auto cases = run_cpu(text);
  ASSERT_EQ(cases.size(), 5u);
  for (const auto& r : cases) {
    EXPECT_EQ(r.verdict, r.kind == CheckKind::batch_invariance ? Verdict::violated : Verdict::holds)
        << describe(r);
  }
}

// A log-softmax along the sequence dim: zero padding adds exp(0) to each sum, packing normalises
// over every sequence, and chunks normalise over the chunk alone.
TEST(SchemaOpControls, ANormalisationAlongTheSequenceIsViolatedByPaddingAndChunking) {
  const std::string text =
      contract("aten::log_softmax.int", "[" + sequence_input() + R"(, {"arg": "dim", "value": 0}])",
               R"({"T": [5], "D": [3], "dtype": ["float32"]})",
               "[" +
                   check("padding_invariance",
                         R"({"padding": ["right", "left", "packed"], "lengths": [[5, 2, 7]]})") +
                   ", " + check("chunking_invariance", R"({"chunk": [1, 2]})") + "]",
               R"(, "sequence": "T")");
  const auto cases = run_cpu(text);
  ASSERT_EQ(cases.size(), 5u);
  for (const auto& r : cases) EXPECT_EQ(r.verdict, Verdict::violated) << describe(r);
}

// ---- a planted flaw per check kind, through the schema op ----

class SchemaPlantedFlawTest : public ::testing::TestWithParam<CheckKind> {};

// aten::neg, which holds everything (above), with one side of each case changed: every case of
// the kind that runs is violated, and some run.
TEST_P(SchemaPlantedFlawTest, EveryCaseThatRunsIsViolated) {
  const CheckKind kind = GetParam();
  auto contracts = contracts_of(kNeg);
  std::vector<CheckDecl> kept;
  for (const auto& c : contracts.front()->checks) {
    if (c.kind == kind) kept.push_back(c);
  }
  contracts.front()->checks = kept;
  OpRegistry registry;
  registry.add(make_planted_flaw(make_schema_op(*contracts.front()), kind));
  std::size_t ran = 0;
  for (const auto& r : run_contracts(contracts, registry, "cpu")) {
    SCOPED_TRACE(describe(r));
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    ++ran;
    EXPECT_EQ(r.verdict, Verdict::violated);
  }
  EXPECT_GT(ran, 0u);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SchemaPlantedFlawTest,
                         ::testing::Values(CheckKind::determinism, CheckKind::batch_invariance,
                                           CheckKind::position_invariance,
                                           CheckKind::layout_invariance,
                                           CheckKind::padding_invariance,
                                           CheckKind::chunking_invariance, CheckKind::reference),
                         [](const auto& info) { return camel_case(to_string(info.param)); });

}  // namespace
}  // namespace samebits
