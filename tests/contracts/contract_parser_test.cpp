// Contract parser: valid files parse into the model; each kind of bad input gets a message naming
// the file, the JSON path (or line:column) and the accepted values.
#include <gtest/gtest.h>

#include "contracts/contract.h"
#include "contracts/contract_error.h"

namespace samebits {
namespace {

TEST(ContractParser, MinimalContractParses) {
  const Contract c = parse_contract(R"({"op": "sum", "implementations": ["aten"],
    "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})",
                                    "x/minimal.json");
  EXPECT_EQ(c.name, "minimal");
  EXPECT_EQ(c.op, "sum");
  ASSERT_EQ(c.checks.size(), 1u);
  EXPECT_EQ(c.checks[0].kind, CheckKind::determinism);
  EXPECT_EQ(c.checks[0].expected("aten", "cuda"), Expectation::holds);
  EXPECT_EQ(c.sha256.size(), 64u);
}

}  // namespace
}  // namespace samebits
