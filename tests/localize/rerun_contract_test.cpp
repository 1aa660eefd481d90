// localize's first divergent op as a contract, on small callables whose answer is known by
// construction: a scan over the batch's rows fails alone as it did in the model (the negative
// control), a row-wise op fed a batch-computed input holds alone, row-wise runs write none; each
// comparison's check kind; and what no contract can describe is said, not written.
#include "harness/localize/rerun_contract.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "harness/localize/op_recorder.h"
#include "harness/plan.h"
#include "tests/support/run_contracts.h"

namespace samebits::localize {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace rerun_contract_test_file {}
using namespace rerun_contract_test_file;
namespace rerun_contract_test_file {

// A batch of 9 packed rows, 3 sequences, whose rows 2 .. 5 are the item's (alone: 4 rows).
RowMap batch_map() {
  return {9, 2, 4, 3, 1, 4};  // tokens, offset, length, sequences, sequence, padded_rows
}

at::Tensor batch_input() {
  return at::arange(27, at::kFloat).view({9, 3}).mul_(0.37).sin_().add_(2);
}

at::Tensor alone_input() {
  return batch_input().narrow(0, 2, 4).clone();
}

// The item alone and in the batch, each through `f`, compared as localize does.
Finding alone_vs_batch(const std::function<void(const at::Tensor&)>& f) {
  Finding out;
  out.subject = Json{{"model", "test"}, {"compare", "alone_vs_batch"}, {"device", "cpu"}};
  const at::Tensor alone = alone_input(), batch = batch_input();
  out.a = {"alone", record([&] { f(alone); }, {whole_run(4), false, {}})};
  out.b = {"batch", record([&] { f(batch); }, {batch_map(), false, {}})};
  out.result = localize(out.a.recording, out.b.recording);
  return out;
}

std::size_t index_of(const Recording& r, const std::string& name) {
  for (std::size_t i = 0; i < r.ops.size(); ++i)
    if (r.ops[i].depth == 0 && full_name(r.ops[i]) == name) return i;
  throw std::runtime_error("not recorded: " + name);
}

// a and b with `name` made their first divergence by hand: the contract's mapping alone.
Finding forced(Recording a, Recording b, const std::string& name, const std::string& compare) {
  Finding f;
  f.subject = Json{{"model", "test"}, {"compare", compare}, {"device", "cpu"}};
  OpComparison c;
  c.a = index_of(a, name);
  c.b = index_of(b, name);
  c.status = OpStatus::differs;
  f.a = {"a", std::move(a)};
  f.b = {"b", std::move(b)};
  f.result.ops = {c};
  f.result.first = 0;
  return f;
}

// The contract parsed and validated as `samebits validate` does, then run on the CPU.
std::vector<CaseResult> run(const Json& contract) {
  std::vector<std::unique_ptr<Contract>> contracts;
  contracts.push_back(
      std::make_unique<Contract>(parse_contract(contract.dump(2), "first-divergence.json")));
  const OpRegistry registry = OpRegistry::builtin();
  validate_contract(*contracts.front(), registry);
  auto cases = run_contracts(contracts, registry, "cpu");
  EXPECT_FALSE(cases.empty());
  return cases;
}

TEST(RerunContract, AScanOverTheBatchFailsAloneAsInTheModel) {
  const Finding f = alone_vs_batch([](const at::Tensor& x) { at::cumsum(x, 0); });
  ASSERT_EQ(verdict(f), "diverges");
  const RerunContract r = rerun_contract(f);
  ASSERT_TRUE(r.contract) << r.why_not;
  const Json& c = *r.contract;
  EXPECT_EQ(r.check, "batch_invariance");
  EXPECT_EQ(c["op"], "aten::cumsum");
  EXPECT_EQ(c["inputs"], Json::parse(R"([
      {"arg": "self", "shape": ["T", 3], "dtype": "float32", "batch_dim": 0},
      {"arg": "dim", "value": 0}])"))
      << "dtype None is left to its default";
  EXPECT_EQ(c["outputs"], Json::parse(R"([{"name": "out0", "batch_dim": 0}])"));
  EXPECT_EQ(c["sweep"], Json::parse(R"({"T": [4]})"));
  // The batch's 9 rows need 3 items of 4; the item sat in the middle.
  EXPECT_EQ(c["checks"][0]["sweep"], Json::parse(R"({"batch": [2, 3], "position": ["middle"]})"));
  EXPECT_EQ(c["checks"][0]["expect"], Json::parse(R"({"aten": "holds"})"));
  EXPECT_NE(c["description"].get<std::string>().find("alone: self [4, 3]; batch: self [9, 3]"),
            std::string::npos)
      << c["description"];
  // Every item after the first sums its neighbours' rows too: violated in every case.
  for (const auto& result : run(c)) EXPECT_EQ(result.verdict, Verdict::violated) << result.id;
}

TEST(RerunContract, ARowWiseOpFedTheBatchHoldsAloneAndNamesTheSharedInput) {
  // The planted control's pattern: the rows minus their batch's mean, in two ops.
  const Finding f = alone_vs_batch([](const at::Tensor& x) { at::sub(x, x.mean(0, true)); });
  ASSERT_EQ(verdict(f), "diverges");
  EXPECT_EQ(full_name(f.b.recording.ops[*f.result.ops[*f.result.first].b]), "aten::sub.Tensor");
  const RerunContract r = rerun_contract(f);
  ASSERT_TRUE(r.contract) << r.why_not;
  EXPECT_EQ((*r.contract)["inputs"][1],
            Json::parse(R"({"arg": "other", "shape": [1, 3], "dtype": "float32",
                            "batch_dim": "none"})"));
  EXPECT_NE((*r.contract)["description"].get<std::string>().find(
                "other [1, 3] holds none of the item's rows"),
            std::string::npos);
  for (const auto& result : run(*r.contract))
    EXPECT_EQ(result.verdict, Verdict::holds) << result.id;
}

TEST(RerunContract, RowWiseRunsWriteNone) {
  Finding f = alone_vs_batch([](const at::Tensor& x) { at::mul(x, 3.0).relu(); });
  ASSERT_EQ(verdict(f), "identical");
  EXPECT_FALSE(rerun_contract(f).contract);
  const auto path = std::filesystem::temp_directory_path() / "samebits-rerun-none.json";
  std::filesystem::remove(path);
  attach_rerun(f, path.string());
  EXPECT_FALSE(f.rerun);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(RerunContract, AttachedItIsWrittenWithTheCommandThatRunsIt) {
  Finding f = alone_vs_batch([](const at::Tensor& x) { at::cumsum(x, 0); });
  const auto path = std::filesystem::temp_directory_path() / "samebits rerun.json";
  attach_rerun(f, path.string());
  ASSERT_TRUE(f.rerun);
  EXPECT_EQ(f.rerun->file, path.string());
  EXPECT_EQ(f.rerun->command, "samebits run '" + path.string() + "' --device cpu");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(rerun_line(*f.rerun), "rerun alone (batch_invariance): " + f.rerun->command);
  std::filesystem::remove(path);
}

TEST(RerunContract, RunVsRunIsDeterminismOverTheWholeRun) {
  const at::Tensor x = batch_input();
  const auto once = [&] { return record([&] { at::cumsum(x, 0); }, {batch_map(), false, {}}); };
  const RerunContract r = rerun_contract(forced(once(), once(), "aten::cumsum", "run_vs_run"));
  ASSERT_TRUE(r.contract) << r.why_not;
  EXPECT_EQ(r.check, "determinism");
  EXPECT_EQ((*r.contract)["sweep"], Json::parse(R"({"T": [9]})"));
  EXPECT_EQ((*r.contract)["checks"][0]["sweep"], Json::parse(R"({"batch": [1]})"));
  for (const auto& result : run(*r.contract))
    EXPECT_EQ(result.verdict, Verdict::holds) << result.id;
}

TEST(RerunContract, ChunkedVsWholeIsChunkingInvarianceInTheOthersChunks) {
  const at::Tensor x = alone_input();
  const Recording whole = record([&] { at::cumsum(x, 0); }, {whole_run(4), false, {}});
  const Recording chunk =
      record([&] { at::cumsum(x.narrow(0, 0, 2), 0); }, {whole_run(2), false, {}});
  const RerunContract r = rerun_contract(forced(whole, chunk, "aten::cumsum", "chunked_vs_whole"));
  ASSERT_TRUE(r.contract) << r.why_not;
  EXPECT_EQ(r.check, "chunking_invariance");
  EXPECT_EQ((*r.contract)["sequence"], "T");
  EXPECT_EQ((*r.contract)["inputs"][0]["sequence_dim"], 0);
  EXPECT_EQ((*r.contract)["checks"][0]["sweep"], Json::parse(R"({"chunk": [2], "batch": [1]})"));
  // The second chunk's scan starts afresh: violated.
  for (const auto& result : run(*r.contract))
    EXPECT_EQ(result.verdict, Verdict::violated) << result.id;
}

TEST(RerunContract, WhatNoContractDescribesIsSaid) {
  const auto why = [](const Finding& f) {
    const RerunContract r = rerun_contract(f);
    EXPECT_FALSE(r.contract);
    return r.why_not;
  };
  Finding f = alone_vs_batch([](const at::Tensor& x) { at::cumsum(x, 0); });
  const std::size_t a = *f.result.ops[*f.result.first].a, b = *f.result.ops[*f.result.first].b;
  Finding renamed = f;
  renamed.a.recording.ops[a].name = renamed.b.recording.ops[b].name = "samebits::scan";
  EXPECT_EQ(why(renamed),
            "samebits::scan is not an aten:: op: a schema contract names ATen ops only");
  Finding listed = f;
  listed.a.recording.ops[a].args[0].not_described = "a list of tensors";
  EXPECT_EQ(why(listed), "argument \"self\" (Tensor) is a list of tensors");
  Finding sideways = f;
  sideways.subject["compare"] = "sideways";
  EXPECT_NE(why(sideways).find("\"sideways\" maps to no check kind; known: alone_vs_batch,"),
            std::string::npos);
  const at::Tensor alone_x = alone_input(), wide = at::ones({9, 6});
  const Finding widened = forced(record([&] { at::cumsum(alone_x, 0); }, {whole_run(4), false, {}}),
                                 record([&] { at::cumsum(wide, 0); }, {batch_map(), false, {}}),
                                 "aten::cumsum", "alone_vs_batch");
  EXPECT_EQ(why(widened),
            "argument \"self\" (Tensor) is [4, 3] on one side and [9, 6] on the "
            "other: more than the item's rows (4 and 9) differ");
  // A reduction over the item's rows: no item's output to cut out of the batch's.
  const auto mean = [](const at::Tensor& x) { at::mean(x, {0}, true); };
  const at::Tensor alone = alone_input(), batch = batch_input();
  const Finding reduced = forced(record([&] { mean(alone); }, {whole_run(4), false, {}}),
                                 record([&] { mean(batch); }, {batch_map(), false, {}}),
                                 "aten::mean.dim", "alone_vs_batch");
  EXPECT_EQ(why(reduced),
            "output \"out0\" [1, 3] holds none of the item's rows apart: the op "
            "mixes them, so no item's output can be cut out of a batch's");
}

}  // namespace rerun_contract_test_file
}  // namespace samebits::localize
