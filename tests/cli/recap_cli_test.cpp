// What a user reads in the terminal: the recap that ends a run (every unexpected outcome with its
// cases and rerun commands), -q and -v, colour only where asked, `samebits show` of a case.
#include "tests/cli/cli_fixture.h"

namespace samebits {
namespace {

// aten's float32 sums of 4096 random floats are not rounded as the float64 sums are: a broken
// promise with several violated cases (one per N), beside a determinism check that holds.
const char* const kRecapped = R"({"name": "recapped", "op": "sum", "implementations": ["aten"],
  "sweep": {"rows": [4096], "N": [5, 6, 7, 8, 9]},
  "checks": [{"kind": "determinism", "expect": {"aten": "holds"}},
             {"kind": "reference", "compare": "bitwise", "expect": {"aten": "holds"}}]})";

class RecapCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_text(contract, kRecapped);
  }
  // The report's violated case ids, in order.
  std::vector<std::string> violated() const {
    std::vector<std::string> ids;
    const Json written = Json::parse(read_text(report));
    for (const auto& c : written["cases"]) {
      if (c["verdict"] == "violated") ids.push_back(c["id"]);
    }
    return ids;
  }
};

// The run ends with the recap: the failing check, its first three cases each with a rerun command,
// and a `samebits show` line for the other two; the summary table comes before it.
TEST_F(RecapCli, ARunEndsWithWhatFailedAndHowToRerunIt) {
  const Result r = samebits(run_args(contract));
  ASSERT_EQ(r.exit_code, 1) << explain(r);
  const auto ids = violated();
  ASSERT_EQ(ids.size(), 5u) << "precondition: every N violates the float64 reference";
  const auto recap = r.out.find("Recap: 1 unexpected");
  ASSERT_NE(recap, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("violated/run"), recap) << "the table comes first";
  EXPECT_NE(r.out.find("UNEXPECTED recapped/reference/aten on cpu", recap), std::string::npos)
      << r.out;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NE(r.out.find("samebits run " + report.string() + " --case " + ids[i], recap),
              std::string::npos)
        << ids[i] << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("--case " + ids[3]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("... 2 more cases: samebits show " + report.string() +
                       " --filter recapped/reference/aten/cpu/"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << "no colour into a file";
}

// -q: the summary line and the recap, no table; -v: every case; neither with colour unless asked,
// and --color=always colours even under NO_COLOR (an explicit flag wins), never never does.
TEST_F(RecapCli, QuietVerboseAndColour) {
  Result r = samebits(run_args(contract) + " -q");
  ASSERT_EQ(r.exit_code, 1) << explain(r);
  EXPECT_EQ(r.out.find("violated/run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Recap: 1 unexpected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit 1"), std::string::npos) << r.out;

  r = samebits(run_args(contract) + " -v");
  for (const auto& id : violated()) {
    EXPECT_NE(r.out.find("--case " + id), std::string::npos) << id << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("more cases: samebits show"), std::string::npos) << r.out;

  r = samebits("run " + quoted(contract) + " --device cpu --report " + quoted(report) +
               " --color=always");
  EXPECT_NE(r.out.find("\033[1;31mUNEXPECTED\033[0m"), std::string::npos) << r.out;
  r = samebits("run " + quoted(contract) + " --device cpu --report " + quoted(report) +
               " --color=never");
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;

  r = samebits(run_args(contract) + " -q -v");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  r = samebits(run_args(contract) + " --color=sometimes");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("never"), std::string::npos) << r.err;
}

// A run with nothing unexpected has no recap.
TEST_F(RecapCli, NothingToRecapWhenAllIsAsExpected) {
  write_text(contract, kTiny);
  const Result r = samebits(run_args(contract));
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(r.out.find("Recap:"), std::string::npos) << r.out;
}

// `show REPORT ID` prints the case's diff with the first mismatches in hex and its rerun command;
// `show REPORT` the recap; `--filter` the cases it selects; an unknown id names the nearest ones.
TEST_F(RecapCli, ShowPrintsACasesDiff) {
  ASSERT_EQ(samebits(run_args(contract)).exit_code, 1);
  const auto ids = violated();
  ASSERT_FALSE(ids.empty());
  const Json rep = Json::parse(read_text(report));
  Json first;
  for (const auto& c : rep["cases"]) {
    if (c["id"] == ids[0]) first = c;
  }
  const Json& mismatch = first["outputs"][0]["diff"]["first_mismatches"][0];

  Result r = samebits("show " + quoted(report) + " '" + ids[0] + "'");
  ASSERT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(r.out.rfind(ids[0] + "\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(mismatch["baseline_bits"].get<std::string>() + " vs " +
                       mismatch["variant_bits"].get<std::string>()),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ULP histogram:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rerun: samebits run " + report.string()), std::string::npos) << r.out;

  r = samebits("show " + quoted(report));
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_NE(r.out.find("Recap: 1 unexpected"), std::string::npos) << r.out;

  r = samebits("show " + quoted(report) + " --filter 'recapped/reference/aten/cpu/rows=4096,N=[56]'");
  EXPECT_EQ(r.exit_code, 0) << explain(r);
  EXPECT_EQ(count_lines_starting(r.out, "recapped/reference/"), 2u) << r.out;

  r = samebits("show " + quoted(report) + " 'recapped/reference/aten/cpu/rows=4096,N=50'");
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("no case \"recapped/reference/aten/cpu/rows=4096,N=50\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(ids[0]), std::string::npos) << "the nearest ids are listed\n" << r.err;

  r = samebits("show " + quoted(dir / "missing.json"));
  EXPECT_EQ(r.exit_code, 2) << explain(r);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace samebits
