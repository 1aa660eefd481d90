// Every op adapter under test the way users call it: its shipped contracts' checks, run on the CPU
// at test scale, and per check kind a negative control (the adapter with a planted flaw, and one in
// a second output alone: samebits' attention's log-sum-exp, add_rms_norm's h).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/errors.h"
#include "contracts/embedded_suite.h"
#include "harness/ops/ops.h"
#include "harness/plan.h"
#include "tests/support/miniature.h"
#include "tests/support/planted_flaw.h"
#include "tests/support/run_contracts.h"
#include "tests/support/test_names.h"

namespace samebits {
namespace {

// The shipped contracts, parsed once.
const std::vector<Contract>& shipped() {
  static const std::vector<Contract> contracts = [] {
    std::vector<Contract> out;
    for (const auto& file : embedded_contracts())
      out.push_back(parse_contract(file.text, "embedded:" + file.name));
    return out;
  }();
  return contracts;
}

const Contract& shipped_named(const std::string& name) {
  for (const auto& c : shipped()) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("no shipped contract " + name);
}

std::vector<std::string> contract_names() {
  std::vector<std::string> names;
  for (const auto& c : shipped()) names.push_back(c.name);
  return names;
}

std::string describe(const CaseResult& r) {
  std::string out = r.id + ": " + to_string(r.verdict);
  if (!r.reason.empty()) out += " (" + r.reason + ")";
  for (const auto& o : r.outputs) {
    out += "\n  " + o.name + ": " + std::to_string(o.diff.mismatched) + " of " +
           std::to_string(o.diff.numel) + " differ";
  }
  return out;
}

// The miniature of one shipped contract with only the checks of `kind` (all when empty).
std::vector<std::unique_ptr<Contract>> miniature_of(const std::string& name,
                                                    std::optional<CheckKind> kind = {}) {
  Contract small = miniature(shipped_named(name));
  if (kind) {
    std::vector<CheckDecl> kept;
    for (const auto& check : small.checks) {
      if (check.kind == *kind) kept.push_back(check);
    }
    small.checks = kept;
  }
  std::vector<std::unique_ptr<Contract>> out;
  out.push_back(std::make_unique<Contract>(std::move(small)));
  return out;
}

TEST(OpContracts, EveryOpHasAShippedContract) {
  std::set<std::string> with_contract;
  for (const auto& c : shipped()) with_contract.insert(c.op);
  for (const auto& op : make_builtin_ops())
    EXPECT_EQ(with_contract.count(op->name()), 1u) << op->name() << " has no contract to test";
}

class OpContractTest : public ::testing::TestWithParam<std::string> {};

// Every check of the contract runs; nothing errors; what must hold on any machine holds: a call
// repeated gives the same bits, and samebits keeps every promise its contract makes.
TEST_P(OpContractTest, ChecksRunAndPromisesHold) {
  const auto contracts = miniature_of(GetParam());
  const OpRegistry registry = OpRegistry::builtin();
  const Report report = run_contracts_report(contracts, registry, "cpu");
  ASSERT_FALSE(report.cases.empty());
  std::set<std::string> ran;
  for (const auto& r : report.cases) {
    SCOPED_TRACE(describe(r));
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict != Verdict::holds && r.verdict != Verdict::violated) continue;
    ran.insert(r.check);
    for (const auto& o : r.outputs) EXPECT_GT(o.diff.numel, 0) << o.name;
    if (r.kind == CheckKind::determinism) {
      EXPECT_EQ(r.verdict, Verdict::holds);
    }
    // "samebits" and its variants ("samebits.exact": the indexer's other algorithm).
    if (r.impl.rfind("samebits", 0) == 0 && r.expected == Expectation::holds) {
      EXPECT_EQ(r.verdict, Verdict::holds) << "a promise of the bundled kernels";
    }
  }
  // Each check ran somewhere, unless every one of its cases needs CUDA or a dtype the CPU lacks.
  for (const auto& check : contracts.front()->checks) {
    if (ran.count(check.name)) continue;
    for (const auto& r : report.cases) {
      if (r.check == check.name) {
        EXPECT_EQ(r.verdict, Verdict::skipped) << describe(r);
      }
    }
  }
  EXPECT_GE(ran.size() * 2, contracts.front()->checks.size()) << "most checks run on the CPU";
}

INSTANTIATE_TEST_SUITE_P(Shipped, OpContractTest, ::testing::ValuesIn(contract_names()),
                         [](const auto& info) { return camel_case(info.param); });

using FlawParam = std::tuple<std::string, CheckKind>;  // contract, the kind its flaw breaks

std::vector<FlawParam> flaw_params() {
  std::vector<FlawParam> out;
  for (const auto& c : shipped()) {
    std::set<CheckKind> kinds;
    for (const auto& check : c.checks) kinds.insert(check.kind);
    for (CheckKind kind : kinds) out.emplace_back(c.name, kind);
  }
  return out;
}

class PlantedFlawTest : public ::testing::TestWithParam<FlawParam> {};

// The negative control: with one side of every case changed, every case that runs is violated,
// and at least one runs. A check that compared nothing, or the wrong side, would hold here.
TEST_P(PlantedFlawTest, EveryCaseThatRunsIsViolated) {
  const auto& [name, kind] = GetParam();
  const auto contracts = miniature_of(name, kind);
  const Contract& c = *contracts.front();
  std::string against;
  for (const auto& check : c.checks) against = check.against.empty() ? against : check.against;
  OpRegistry registry;
  for (auto& op : make_builtin_ops()) {
    registry.add(op->name() == c.op ? make_planted_flaw(std::move(op), kind, against)
                                    : std::move(op));
  }
  const auto cases = run_contracts(contracts, registry, "cpu");
  std::size_t ran = 0;
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    ++ran;
    EXPECT_EQ(r.verdict, Verdict::violated);
  }
  EXPECT_GT(ran, 0u) << "no case of " << to_string(kind) << " ran on the CPU";
}

INSTANTIATE_TEST_SUITE_P(Shipped, PlantedFlawTest, ::testing::ValuesIn(flaw_params()),
                         [](const auto& info) {
                           return camel_case(std::get<0>(info.param)) +
                                  camel_case(to_string(std::get<1>(info.param)));
                         });

// The invariance kinds of the shipped contracts that run sdpa (attention, sdpa): each compares
// samebits with itself, so its lse as well as its out. The gradient kinds compare the inputs'
// gradients instead, which lse (not differentiable) does not reach.
bool compares_gradients(CheckKind kind) {
  return kind == CheckKind::gradient_invariance || kind == CheckKind::gradient_determinism;
}

std::vector<FlawParam> lse_flaw_params() {
  std::vector<FlawParam> out;
  for (const auto& c : shipped()) {
    if (c.op != "sdpa") continue;
    std::set<CheckKind> kinds;
    for (const auto& check : c.checks) {
      if (check.kind != CheckKind::equivalence && check.kind != CheckKind::reference &&
          !compares_gradients(check.kind))
        kinds.insert(check.kind);
    }
    for (CheckKind kind : kinds) out.emplace_back(c.name, kind);
  }
  return out;
}

const OutputResult* output_named(const CaseResult& r, const std::string& name) {
  for (const auto& o : r.outputs) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

class LseFlawTest : public ::testing::TestWithParam<FlawParam> {};

// The LSE negative control: samebits' attention with its log-sum-exp moved and its out untouched
// (a decode path, or the sequences after the first of a packed batch, writing another lse). Every
// samebits case of the kind that runs is violated, in lse alone; when only out was compared, each
// of them held.
TEST_P(LseFlawTest, AnLseOnlyChangeIsViolated) {
  const auto& [name, kind] = GetParam();
  const auto contracts = miniature_of(name, kind);
  OpRegistry registry;
  for (auto& op : make_builtin_ops()) {
    registry.add(op->name() == "sdpa" ? make_planted_flaw(std::move(op), kind, "", "lse")
                                      : std::move(op));
  }
  const auto cases = run_contracts(contracts, registry, "cpu", "samebits/");
  std::size_t ran = 0;
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    ASSERT_EQ(r.impl, "samebits");
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    ++ran;
    EXPECT_EQ(r.verdict, Verdict::violated);
    const OutputResult* out = output_named(r, "out");
    const OutputResult* lse = output_named(r, "lse");
    ASSERT_NE(out, nullptr);
    ASSERT_NE(lse, nullptr) << "samebits' lse is not compared";
    EXPECT_EQ(out->diff.mismatched, 0) << "the flaw leaves out as it was";
    EXPECT_GT(lse->diff.mismatched, 0);
    EXPECT_NE(lse->baseline_sha256, lse->variant_sha256);
  }
  EXPECT_GT(ran, 0u) << "no samebits case of " << to_string(kind) << " ran on the CPU";
}

INSTANTIATE_TEST_SUITE_P(Shipped, LseFlawTest, ::testing::ValuesIn(lse_flaw_params()),
                         [](const auto& info) {
                           return camel_case(std::get<0>(info.param)) +
                                  camel_case(to_string(std::get<1>(info.param)));
                         });

// Every check kind of add_rmsnorm.json: each compares h beside y, for samebits and ATen.
std::vector<FlawParam> h_flaw_params() {
  std::set<CheckKind> kinds;
  for (const auto& check : shipped_named("add_rmsnorm").checks) kinds.insert(check.kind);
  std::vector<FlawParam> out;
  for (CheckKind kind : kinds) out.emplace_back("add_rmsnorm", kind);
  return out;
}

class HFlawTest : public ::testing::TestWithParam<FlawParam> {};

// The h negative control: add_rms_norm with its h (x + residual, the next layer's residual) moved
// and its y untouched. Every case of the kind that runs, samebits' and ATen's, is violated in h
// alone: a check that compared y only would hold here.
TEST_P(HFlawTest, AnHOnlyChangeIsViolated) {
  const auto& [name, kind] = GetParam();
  const auto contracts = miniature_of(name, kind);
  OpRegistry registry;
  for (auto& op : make_builtin_ops()) {
    registry.add(op->name() == "add_rmsnorm" ? make_planted_flaw(std::move(op), kind, "", "h")
                                             : std::move(op));
  }
  const auto cases = run_contracts(contracts, registry, "cpu");
  std::set<std::string> impls;
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    impls.insert(r.impl);
    EXPECT_EQ(r.verdict, Verdict::violated);
    const OutputResult* y = output_named(r, "y");
    const OutputResult* h = output_named(r, "h");
    ASSERT_NE(y, nullptr);
    ASSERT_NE(h, nullptr) << "h is not compared";
    EXPECT_TRUE(y->diff.within) << "the flaw leaves y as it was";
    EXPECT_GT(h->diff.mismatched, 0);
    EXPECT_FALSE(h->diff.within);
  }
  EXPECT_EQ(impls, (std::set<std::string>{"aten.composed", "aten.rms_norm", "samebits"}))
      << to_string(kind) << " ran for every implementation";
}

INSTANTIATE_TEST_SUITE_P(Shipped, HFlawTest, ::testing::ValuesIn(h_flaw_params()),
                         [](const auto& info) {
                           return camel_case(std::get<0>(info.param)) +
                                  camel_case(to_string(std::get<1>(info.param)));
                         });

// What each sdpa case compares: samebits' invariance checks out and lse (one float32 per query row:
// out's elements over d), and they hold; ATen's SDPA returns no lse, and the reference and
// equivalence checks (against float64 or aten.math) compare out alone.
TEST(SdpaOutputs, SamebitsComparesLseBesideOut) {
  for (const auto& name : {std::string("attention"), std::string("sdpa")}) {
    const auto contracts = miniature_of(name);
    const auto cases =
        run_contracts(contracts, OpRegistry::builtin(), "cpu", "(samebits|aten\\.math)/");
    std::size_t with_lse = 0, without = 0;
    for (const auto& r : cases) {
      SCOPED_TRACE(describe(r));
      if (r.verdict != Verdict::holds && r.verdict != Verdict::violated) continue;
      std::vector<std::string> names;
      for (const auto& o : r.outputs) names.push_back(o.name);
      if (compares_gradients(r.kind)) {  // dq, dk and dv of the item's q, k and v
        EXPECT_EQ(names, (std::vector<std::string>{"grad:0", "grad:1", "grad:2"}));
        continue;
      }
      const bool invariance = r.kind != CheckKind::equivalence && r.kind != CheckKind::reference;
      if (r.impl != "samebits" || !invariance) {
        EXPECT_EQ(names, std::vector<std::string>{"out"});
        ++without;
        continue;
      }
      ASSERT_EQ(names, (std::vector<std::string>{"out", "lse"}));
      ++with_lse;
      EXPECT_EQ(r.verdict, Verdict::holds);
      const std::int64_t d = r.params.at("head_dim").get<std::int64_t>();
      EXPECT_GT(r.outputs[1].diff.numel, 0);
      EXPECT_EQ(r.outputs[0].diff.numel, r.outputs[1].diff.numel * d);
    }
    EXPECT_GT(with_lse, 0u) << name;
    EXPECT_GT(without, 0u) << name;
  }
}

// sdpa's padding_decode_determinism repeats padding_decode's batched side: one call over the
// items of `lengths` (one decode query each), right-padded, left-padded or packed, not `batch`
// items.
TEST(SdpaOutputs, PaddedDecodeDeterminismRepeatsThePaddedBatch) {
  const auto contracts = miniature_of("sdpa", CheckKind::determinism);
  const auto cases =
      run_contracts(contracts, OpRegistry::builtin(), "cpu", "padding_decode_determinism/");
  std::size_t ran = 0;
  for (const auto& r : cases) {
    SCOPED_TRACE(describe(r));
    ASSERT_EQ(r.check, "padding_decode_determinism");
    EXPECT_NE(r.verdict, Verdict::error);
    if (r.verdict == Verdict::skipped) continue;
    ++ran;
    EXPECT_EQ(r.verdict, Verdict::holds);
    const std::string padding = r.params.at("padding").get<std::string>();
    EXPECT_NE(r.baseline.find("in one " + padding + " batch"), std::string::npos) << r.baseline;
    const auto items = static_cast<std::int64_t>(r.params.at("lengths").size());
    const std::int64_t row =
        r.params.at("heads").get<std::int64_t>() * r.params.at("head_dim").get<std::int64_t>();
    ASSERT_FALSE(r.outputs.empty());
    EXPECT_EQ(r.outputs[0].diff.numel, items * row) << "one query per item of lengths";
    EXPECT_NE(items, r.params.at("batch").get<std::int64_t>()) << "batch would hide the difference";
  }
  EXPECT_GT(ran, 0u);
}

// A determinism check given padding without lengths is refused before anything runs, by name.
TEST(SdpaOutputs, DeterminismPaddingNeedsLengths) {
  const Contract c = parse_contract(
      R"({"op": "sdpa", "implementations": ["samebits"],
          "sweep": {"heads": [4], "head_dim": [64], "Lq": [1], "Lk": [16]},
          "checks": [{"name": "repeat_padded", "kind": "determinism",
                      "sweep": {"padding": ["right"]}, "expect": {"samebits": "holds"}}]})",
      "tests/padded_determinism.json");
  try {
    validate_contract(c, OpRegistry::builtin());
    FAIL() << "accepted padding without lengths";
  } catch (const ContractError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tests/padded_determinism.json"), std::string::npos) << what;
    EXPECT_NE(what.find("padding and lengths together"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace samebits
