// Schema-op contracts ("op": "aten::...", "inputs"), invalid input the parser catches without the
// schema: one test per kind of mistake, each message naming the file, the JSON path and the
// accepted values or forms. (Mistakes only the schema shows: tests/ops/schema_op_test.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

constexpr const char* kFile = "bad/schema.json";

// A valid schema contract: gelu over [T, D] sequences, so each bad one differs in one place.
const std::string kInput =
    R"({"arg": "self", "shape": ["T", "D*2"], "dtype": {"axis": "dtype"}, "batch_dim": 0,
        "sequence_dim": 0})";
std::string contract(const std::string& inputs, const std::string& checks = "",
                     const std::string& extra = R"(, "sequence": "T")") {
  const std::string checked =
      checks.empty() ? R"([{"kind": "batch_invariance", "expect": {"aten": "observed"}}])" : checks;
  return R"({"op": "aten::gelu", "implementations": ["aten"], "inputs": )" + inputs +
         R"(, "sweep": {"T": [3], "D": [4], "dtype": ["float32"]}, "checks": )" + checked + extra +
         "}";
}

TEST(InputSpec, ValidContractParsesItsInputs) {
  const Contract c =
      parse_contract(contract("[" + kInput + R"(, {"arg": "approximate", "value": "tanh"}])",
                              R"([{"kind": "chunking_invariance", "sweep": {"chunk": [2]},
                    "expect": {"aten": "observed"}}])"),
                     kFile);
  ASSERT_TRUE(c.inputs.has_value());
  ASSERT_EQ(c.inputs->args.size(), 2u);
  const InputArg& self = c.inputs->args[0];
  ASSERT_TRUE(self.tensor.has_value());
  EXPECT_EQ(self.tensor->shape.at(1).text(), "D*2");
  EXPECT_EQ(self.tensor->batch_dim, 0);
  EXPECT_EQ(self.tensor->sequence_dim, 0);
  EXPECT_EQ(self.tensor->dtype_axis, "dtype");
  EXPECT_FALSE(c.inputs->args[1].tensor.has_value());
  EXPECT_EQ(c.inputs->args[1].value.literal, "tanh");
  EXPECT_EQ(c.inputs->sequence, "T");
}

struct BadSpec {
  std::string name;
  std::string text;
  std::vector<std::string> must_say;
};
void PrintTo(const BadSpec& p, std::ostream* os) {
  *os << p.name;
}

class InputSpecErrorTest : public ::testing::TestWithParam<BadSpec> {};

TEST_P(InputSpecErrorTest, MessageNamesFilePathAndAcceptedValues) {
  const BadSpec& bad = GetParam();
  try {
    parse_contract(bad.text, kFile);
    FAIL() << "parsed without error:\n" << bad.text;
  } catch (const ContractError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(kFile, 0), 0u) << message;
    for (const auto& part : bad.must_say)
      EXPECT_NE(message.find(part), std::string::npos)
          << "missing \"" << part << "\" in: " << message;
  }
}

const BadSpec kBadSpecs[] = {
    {"ArgumentNamedTwice",
     contract("[" + kInput + R"(, {"arg": "self", "value": 1}])"),
     {"bad/schema.json: /inputs/1/arg: argument \"self\" is given twice (first at /inputs/0)"}},
    {"ExpressionReadsUnknownAxis",
     contract(R"([{"arg": "self", "shape": ["T", "M*2"], "batch_dim": 0, "sequence_dim": 0}])"),
     {"bad/schema.json: /inputs/0/shape/1: unknown axis \"M\"", "accepted: T, D, dtype"}},
    {"ValueReadsUnknownAxis",
     contract("[" + kInput + R"(, {"arg": "approximate", "axis": "mode"}])"),
     {"/inputs/1/axis: unknown axis \"mode\"", "accepted: T, D, dtype"}},
    {"AxisOnlyInOneCheck",
     contract(R"([{"arg": "self", "shape": ["T", "E"], "batch_dim": 0, "sequence_dim": 0}])",
              R"([{"kind": "determinism", "sweep": {"E": [2]}, "expect": {"aten": "observed"}},
                  {"kind": "batch_invariance", "expect": {"aten": "observed"}}])"),
     {"/inputs/0/shape/1: unknown axis \"E\"", "check \"batch_invariance\""}},
    {"MalformedExpression",
     contract(R"([{"arg": "self", "shape": ["T", "D /2"], "batch_dim": 0, "sequence_dim": 0}])"),
     {"/inputs/0/shape/1: expression \"D /2\"", "accepted: integers, axis names, + - *"}},
    {"ChunkingWithoutSequence",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": 0}])",
              R"([{"kind": "chunking_invariance", "sweep": {"chunk": [2]},
                   "expect": {"aten": "observed"}}])",
              ""),
     {"bad/schema.json: /checks/0/kind: check kind chunking_invariance cuts the items along a "
      "sequence dim",
      "give \"sequence\""}},
    {"PaddingWithoutSequence",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": 0}])",
              R"([{"kind": "padding_invariance", "sweep": {"padding": ["right"],
                   "lengths": [[2, 3]]}, "expect": {"aten": "observed"}}])",
              ""),
     {"/checks/0/kind: check kind padding_invariance"}},
    {"BatchDimOutOfRange",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": 2}])", "", ""),
     {"/inputs/0/batch_dim: expected a dim of the 2-dim shape", "or \"none\""}},
    {"BatchDimMissing",
     contract(R"([{"arg": "self", "shape": ["T", "D"]}])", "", ""),
     {"/inputs/0: missing field \"batch_dim\""}},
    {"NoBatchedInput",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": "none"}])", "", ""),
     {"bad/schema.json: /inputs: no tensor input has a batch_dim"}},
    {"SequenceDimWithoutSequence",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": 0, "sequence_dim": 0}])", "",
              ""),
     {"/inputs/0/sequence_dim: a sequence dim needs the contract's \"sequence\""}},
    {"SequenceDimOfAnotherExtent",
     contract(R"([{"arg": "self", "shape": ["T", "D"], "batch_dim": 0, "sequence_dim": 1}])"),
     {"/inputs/0/sequence_dim: the sequence dim's extent must be the sequence axis \"T\""}},
    {"UnknownTensorField",
     contract(R"([{"arg": "self", "shape": ["T"], "batch_dim": 0, "dims": 1}])", "", ""),
     {"/inputs/0/dims: unknown field \"dims\"", "accepted: arg, shape, dtype, generator"}},
    {"NeitherShapeNorValue",
     contract(R"([{"arg": "self", "batch_dim": 0}])", "", ""),
     {"/inputs/0: argument \"self\": give \"shape\" (a tensor), \"value\"", "or \"axis\""}},
    {"BadGeneratorForm",
     contract(R"([{"arg": "self", "shape": ["T"], "batch_dim": 0, "generator": 3}])", "", ""),
     {"/inputs/0/generator: expected a generator name", "{\"integers\": [low, high]}"}},
    {"IndexesANonBatchedInput",
     contract(R"([{"arg": "self", "shape": ["T"], "batch_dim": 0},
                  {"arg": "w", "shape": ["T"], "batch_dim": "none"},
                  {"arg": "o", "shape": [1], "generator": {"integers": [0, 1]}, "batch_dim": 0,
                   "indexes": "w"}])",
              "", ""),
     {"/inputs/2/indexes: \"w\" is not another batched tensor input; accepted: self"}},
    {"InputsOnARegistryOp",
     R"({"op": "sum", "implementations": ["aten"], "inputs": [], "checks": [{"kind":
         "determinism", "expect": {"aten": "holds"}}]})",
     {"bad/schema.json: /inputs: \"inputs\" describes a schema op's arguments",
      "\"aten::NAME.OVERLOAD\""}},
    {"SchemaOpWithoutInputs",
     R"({"op": "aten::gelu", "implementations": ["aten"], "checks": [{"kind":
         "determinism", "expect": {"aten": "observed"}}]})",
     {"bad/schema.json: /op: schema op \"aten::gelu\" needs \"inputs\""}},
    {"OutputListedTwice",
     contract("[" + kInput + "]", "",
              R"(, "sequence": "T", "outputs": [{"name": "out0"}, {"name": "out0"}])"),
     {"/outputs/1/name: output \"out0\" is listed twice"}},
};

INSTANTIATE_TEST_SUITE_P(Parser, InputSpecErrorTest, ::testing::ValuesIn(kBadSpecs),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace samebits
