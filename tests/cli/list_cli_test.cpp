// `samebits list` beyond the registry's ops: the schema ops the shipped suites name (with their
// contracts' check kinds), and under each check kind the shipped contracts that use it, the
// gradient kinds included.
#include <gtest/gtest.h>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

using ListCli = CliTest;

// The block of `samebits list` from the line starting with `heading` to the next blank line.
std::string block(const std::string& out, const std::string& heading) {
  const auto at = out.find("\n" + heading);
  if (at == std::string::npos) return "";
  const auto end = out.find("\n\n", at + 1);
  return out.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

// The "used by" line under one check kind.
std::string users(const std::string& out, const std::string& kind) {
  const std::string kinds = block(out, "check kinds");
  const auto at = kinds.find("\n  " + kind + ": ");
  if (at == std::string::npos) return "";
  const auto line = kinds.find("    used by: ", at);
  return kinds.substr(line, kinds.find('\n', line) - line);
}

TEST_F(ListCli, ShowsTheSchemaOpsOfTheExtraSuite) {
  const Result r = samebits("list");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const std::string ops = block(r.out, "schema ops");
  ASSERT_FALSE(ops.empty()) << r.out;
  EXPECT_NE(ops.find("samebits list suite:extra"), std::string::npos) << ops;
  for (const char* line :
       {"aten::layer_norm", "aten::cumsum", "aten::bmm", "aten::embedding_bag", "aten::gelu"})
    EXPECT_NE(ops.find(std::string("\n  ") + line + " "), std::string::npos) << line << "\n" << ops;
  EXPECT_NE(ops.find(" cumsum (suite:extra): determinism, batch_invariance, position_invariance"),
            std::string::npos)
      << ops;
  EXPECT_EQ(ops.find("(suite:default)"), std::string::npos) << "the default suite names none";
}

TEST_F(ListCli, EachCheckKindNamesTheContractsThatUseIt) {
  const Result r = samebits("list");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  for (const char* kind : {"gradient_invariance", "gradient_determinism"}) {
    EXPECT_NE(block(r.out, "check kinds").find(std::string("\n  ") + kind + ": "),
              std::string::npos)
        << kind;
    EXPECT_EQ(users(r.out, kind),
              "    used by: sum, mean, softmax, log_softmax, rmsnorm, matmul, linear, attention "
              "(suite:default); linear_gradients (suite:extra)")
        << kind;
  }
  const std::string chunking = users(r.out, "chunking_invariance");
  EXPECT_NE(chunking.find("(suite:default)"), std::string::npos) << chunking;
  EXPECT_NE(chunking.find("layer_norm"), std::string::npos) << chunking;
  EXPECT_NE(users(r.out, "batch_invariance").find("sum_rows"), std::string::npos)
      << users(r.out, "batch_invariance");
}

}  // namespace
}  // namespace samebits
