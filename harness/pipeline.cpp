// The one way a run is made, from loaded contracts to a judged report: plan, select, run, judge,
// summarize. `samebits run`, `samebits sweep` and the tests all call it.
#include "harness/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "common/digest.h"
#include "common/errors.h"
#include "harness/capture_choice.h"
#include "harness/device_choice.h"
#include "harness/environment.h"
#include "harness/expectations.h"
#include "harness/runner.h"
#include "reports/model/case_journal.h"
#include "reports/model/outcome.h"

namespace samebits {

PlannedRun plan_run(const RunRequest& request) {
  std::string requested = request.device;
  const std::string& case_id = request.selection.case_id;
  if (!case_id.empty()) {
    const std::string wanted = device_of_case(case_id);
    if (requested == "auto" && !wanted.empty()) requested = wanted;
    if (!wanted.empty() && requested != wanted) {
      throw ContractError(
          fmt::format("--case {} runs on {}, but --device says {}", case_id, wanted, requested));
    }
  }
  PlannedRun plan;
  plan.device = choose_device(requested);
  plan.device_name = plan.device.is_cuda() ? "cuda" : "cpu";
  // `--capture on` where there is nothing to capture is a usage error, before any line of a run.
  check_capture_request(request.capture, plan.device);
  auto all = plan_cases(*request.contracts, *request.registry, plan.device_name, request.seed);
  for (const auto& c : all)
    ++plan.planned[planned_key(c.contract->name, c.check->name, c.impl, c.device)];
  SelectedCases selected = select_cases(std::move(all), request.selection);
  plan.cases = std::move(selected.cases);
  plan.whole.cases = selected.run_cases;
  std::string whole = fmt::format("device {}\nseed {}\n", plan.device_name, request.seed);
  for (const auto& c : *request.contracts)
    whole += fmt::format("contract {} {}\n", c->name, c->sha256);
  plan.whole.sha256 = sha256_hex(whole + "cases " + selected.run_ids_sha256 + "\n");
  std::set<const Contract*> contracts;
  for (const auto& c : plan.cases) contracts.insert(c.contract);
  plan.contracts_selected = contracts.size();
  return plan;
}

int resolve_jobs(int asked, const at::Device& device) {
  if (asked > 0) return asked;
  if (!device.is_cuda()) return 1;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores / 2, 1, 8);
}

std::string plan_sha256(const RunRequest& request, const PlannedRun& plan) {
  std::string text = fmt::format("device {}\nseed {}\n", plan.device_name, request.seed);
  for (const auto& c : *request.contracts)
    text += fmt::format("contract {} {}\n", c->name, c->sha256);
  for (const auto& c : plan.cases) text += c.id + "\n";
  return sha256_hex(text);
}

namespace {

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

}  // namespace

Report execute_run(const RunRequest& request, const PlannedRun& plan) {
  const auto t0 = std::chrono::steady_clock::now();
  Report report;
  report.created = utc_timestamp();
  report.tool = tool_info();
  report.command = request.command;
  report.plan = plan.whole;
  const CaseSelection& s = request.selection;
  RunSettings& settings = report.settings;
  settings.device = plan.device_name;
  settings.seed = request.seed;
  if (!s.filter.empty()) settings.filter = s.filter;
  if (!s.case_id.empty()) settings.case_id = s.case_id;
  if (s.shard_count > 1) settings.shard = fmt::format("{}/{}", s.shard_index, s.shard_count);
  settings.contracts = request.named;
  report.environment = environment_block(plan.device);
  const ExpectationResolver expectations(request.recorded, fingerprint_of(report.environment));
  settings.platform = expectations.here();
  if (expectations.covering()) settings.observed_platform = expectations.covering()->name;
  if (!expectations.covering() && expectations.nearest()) {
    const Baseline& near = *expectations.nearest();
    settings.nearest_platform =
        NearestPlatform{near.name, differences(near.platform, expectations.here())};
  }
  for (const auto& c : *request.contracts) {
    report.contracts.push_back({c->name, c->source, c->sha256, c->op, c->description, c->text});
  }
  CaptureChoice capture = start_capture(request.capture, plan.device);
  settings.kernel_capture = capture.state;
  RunnerOptions options;
  options.jobs = resolve_jobs(request.jobs, plan.device);
  settings.jobs = options.jobs;
  options.progress = request.progress;
  options.capture = capture.capture.get();
  options.record_properties = request.record_properties;
  options.expectations = &expectations;
  // A resumed run takes the finished cases of the journal of the same plan; every new case goes
  // to this run's journal (the same file, appended to, or a new one with the resumed cases first).
  const std::string digest = plan_sha256(request, plan);
  std::map<std::string, CaseResult> finished;
  std::map<std::string, CaseFault> faults;
  if (!request.resume.empty()) {
    JournalContents resumed;
    try {
      resumed = read_journal(request.resume);
    } catch (const ContractError& e) {
      throw ContractError(fmt::format("--resume: {}", e.what()));
    }
    if (resumed.header.plan_sha256 != digest) {
      throw ContractError(fmt::format(
          "--resume {}: the journal belongs to another run (its {} cases on {} with seed {}); "
          "resume with the same contracts, selection, seed and device, or run without --resume",
          request.resume, resumed.header.cases, resumed.header.device, resumed.header.seed));
    }
    for (auto& c : resumed.cases) finished.emplace(c.id, std::move(c));
    for (auto& f : resumed.faults) faults.emplace(f.id, std::move(f));
    settings.resumed = ResumedRun{request.resume, static_cast<std::int64_t>(finished.size()),
                                  static_cast<std::int64_t>(faults.size())};
  }
  std::unique_ptr<CaseJournal> journal;
  if (!request.journal.empty()) {
    std::error_code ec;
    const bool same =
        !request.resume.empty() && std::filesystem::equivalent(request.journal, request.resume, ec);
    try {
      journal =
          std::make_unique<CaseJournal>(request.journal,
                                        JournalHeader{digest, request.seed, plan.device_name,
                                                      static_cast<std::int64_t>(plan.cases.size())},
                                        same);
    } catch (const std::runtime_error& e) {
      // Before any case runs: a run that could not keep what it finishes does not start.
      throw ContractError(
          fmt::format("{}; the run needs its journal (--journal names another)", e.what()));
    }
    if (journal && !same) {
      for (const auto& c : plan.cases) {
        const auto it = finished.find(c.id);
        if (it != finished.end()) journal->append(it->second);
        const auto f = faults.find(c.id);
        if (f != faults.end()) journal->append(f->second);
      }
    }
  }
  options.journal = journal.get();
  options.finished = finished.empty() ? nullptr : &finished;
  options.faults = faults.empty() ? nullptr : &faults;
  options.stop = request.stop;
  options.journal_every_case = request.journal_every_case;
  options.events = request.events;
  options.context_broken = request.context_broken;
  RunnerResult ran = run_cases(plan.cases, plan.device, options);
  report.cases = std::move(ran.cases);
  if (journal && !journal->error().empty()) settings.journal_error = journal->error();
  journal.reset();  // flushed and closed
  const bool broken = !ran.context_broken_in.empty();
  if (broken) {
    settings.context_broken = BrokenContext{ran.context_broken_in, report.cases.back().reason,
                                            static_cast<std::int64_t>(report.cases.size()),
                                            static_cast<std::int64_t>(plan.cases.size())};
  }
  const bool interrupted = !broken && report.cases.size() < plan.cases.size();
  if (interrupted) {
    settings.interrupted = Interruption{
        signal_name(request.stop ? *request.stop : 0),
        static_cast<std::int64_t>(report.cases.size()),
        static_cast<std::int64_t>(plan.cases.size()),
        request.journal.empty() ? std::nullopt : std::optional<std::string>(request.journal)};
  }
  if (capture.capture && capture.capture->dropped_records() > 0) {
    settings.kernel_capture_dropped_records = capture.capture->dropped_records();
  }
  report.checks = judge_checks(report.cases, plan.planned);
  for (auto& g : report.checks) {
    if (g.outcome != Outcome::finding) continue;
    const NearestOutcome near =
        expectations.nearest_outcome(check_key(g.contract, g.check, g.impl));
    g.nearest_observed = near.outcome;
    g.nearest_varying = near.varying;
  }
  report.summary = summarize(report.cases, report.checks);
  if (interrupted || broken) report.summary.exit_code = kExitInfrastructure;
  report.summary.duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace samebits
