// `--jobs`: cases worked on several threads come out as the one-thread run does (same ids in the
// same order, same verdicts, same bits); a bad value is refused, naming the accepted ones.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// A case as the report keeps it, less how long it took.
Json without_duration(Json c) {
  c.erase("duration_ms");
  return c;
}

TEST_F(CliTest, JobsGiveTheOneThreadRunsCasesInItsOrder) {
  const std::string subset = " --device cpu --filter '^(softmax|topk|sum_rows)/'";
  const fs::path one = dir / "one.json";
  const fs::path three = dir / "three.json";
  Result r = samebits("run" + subset + " --jobs 1 --report " + quoted(one));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  r = samebits("run" + subset + " -j 3 --report " + quoted(three));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  const Json a = Json::parse(read_text(one));
  const Json b = Json::parse(read_text(three));
  EXPECT_EQ(a["settings"]["jobs"], 1);
  EXPECT_EQ(b["settings"]["jobs"], 3);
  ASSERT_GT(a["cases"].size(), 300u) << "the subset should hold several ops' cases";
  ASSERT_EQ(a["cases"].size(), b["cases"].size());
  for (std::size_t i = 0; i < a["cases"].size(); ++i) {
    ASSERT_EQ(without_duration(a["cases"][i]), without_duration(b["cases"][i])) << "case " << i;
  }
  EXPECT_EQ(a["checks"], b["checks"]);
}

// On the CPU, auto is one job (ATen's own threads use the cores).
TEST_F(CliTest, JobsAutoIsOneOnTheCpu) {
  const Result r = samebits("run --device cpu --filter '^sum_rows/determinism' --report " +
                            quoted(report));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(Json::parse(read_text(report))["settings"]["jobs"], 1);
}

TEST_F(CliTest, BadJobsAreRefusedNamingTheAcceptedValues) {
  for (const std::string bad : {"0", "257", "two", "-1", "1.5"}) {
    const Result r = samebits("run --device cpu --jobs " + bad + " --report " + quoted(report));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << explain(r);
    EXPECT_NE(r.err.find("--jobs takes auto or a whole number from 1 to 256"), std::string::npos)
        << bad << ": " << explain(r);
    EXPECT_FALSE(fs::exists(report)) << bad;
  }
  const Result s = samebits("sweep sum --vary N=5:6 --device cpu --jobs 0 --report " +
                            quoted(report));
  EXPECT_EQ(s.exit_code, 2) << explain(s);
  EXPECT_NE(s.err.find("--jobs takes auto"), std::string::npos) << explain(s);
}

}  // namespace
}  // namespace samebits
