// `samebits list`: the ops with their implementations (and whether each can run here) and axes
// (type, default, meaning), the schema ops the extra suite names, the check kinds with the axes
// they add and the shipped contracts using each, the generators, the contracts.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "cases/dtypes.h"
#include "cases/generators.h"
#include "cli/command_ops.h"
#include "cli/commands.h"
#include "harness/check_spec.h"
#include "harness/contract_loading.h"
#include "harness/device_choice.h"
#include "harness/plan.h"

namespace samebits {
namespace {

std::string type_name(AxisSpec::Type type) {
  switch (type) {
    case AxisSpec::Type::integer: return "integer";
    case AxisSpec::Type::number: return "number";
    case AxisSpec::Type::text: return "string";
    case AxisSpec::Type::flag: return "bool";
    case AxisSpec::Type::integer_list: return "[integer]";
  }
  return "?";
}

// "64", "required", or a string default as written.
std::string default_text(const AxisSpec& a) {
  if (a.fallback.is_null()) return a.optional ? "optional" : "required";
  return a.fallback.is_string() ? a.fallback.get<std::string>() : a.fallback.dump();
}

std::string help_text(const AxisSpec& a) {
  std::vector<std::string> choices = a.choices;
  if (a.name == "dtype" && choices.empty()) choices = dtype_names();
  if (a.name == "generator") {
    for (const auto& g : generator_catalog()) choices.push_back(g.name);
  }
  if (choices.empty()) return a.help;
  return fmt::format("{}: {}", a.help, fmt::join(choices, ", "));
}

// The contracts of one shipped suite ("suite:default" or "suite:extra").
struct Suite {
  std::string name;
  std::vector<std::unique_ptr<Contract>> contracts;
};

std::vector<Suite> shipped_suites() {
  std::vector<Suite> suites;
  for (const char* name : {"suite:default", "suite:extra"})
    suites.push_back({name, load_contracts({name})});
  return suites;
}

// Each kind's checks, in order, once each.
std::vector<std::string> kinds_of(const Contract& c) {
  std::vector<std::string> kinds;
  for (const auto& check : c.checks) {
    const std::string kind = to_string(check.kind);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  }
  return kinds;
}

// The schema ops (aten::NAME[.OVERLOAD]) the shipped suites name, with their contracts' checks.
void print_schema_ops(const std::vector<Suite>& suites) {
  fmt::print(
      "\nschema ops (any ATen op by its schema name, from a contract that describes its "
      "\"inputs\"; these are the shipped ones, `samebits list suite:extra` lists their cases):\n");
  for (const auto& suite : suites) {
    for (const auto& c : suite.contracts) {
      if (!c->inputs) continue;
      fmt::print("  {:<28} {} ({}): {}\n", c->op, c->name, suite.name,
                 fmt::join(kinds_of(*c), ", "));
    }
  }
}

// The shipped contracts that use `kind`, by suite: "sum, topk (suite:default); ...".
std::string users_of(CheckKind kind, const std::vector<Suite>& suites) {
  std::vector<std::string> parts;
  for (const auto& suite : suites) {
    std::vector<std::string> names;
    for (const auto& c : suite.contracts) {
      const auto& checks = c->checks;
      if (std::any_of(checks.begin(), checks.end(),
                      [&](const CheckDecl& d) { return d.kind == kind; }))
        names.push_back(c->name);
    }
    if (!names.empty()) parts.push_back(fmt::format("{} ({})", fmt::join(names, ", "), suite.name));
  }
  return parts.empty() ? "no shipped contract" : fmt::format("{}", fmt::join(parts, "; "));
}

void print_axes(const std::vector<AxisSpec>& axes, const char* indent) {
  for (const auto& a : axes) {
    fmt::print("{}{:<12} {:<9} {:<12} {}\n", indent, a.name, type_name(a.type), default_text(a),
               help_text(a));
  }
}

int list(const std::vector<std::string>& paths) {
  const OpRegistry registry = command_ops();
  const bool gpu = cuda_available();
  fmt::print("ops (this machine: {}):\n", gpu ? "CPU and CUDA" : "CPU only, no CUDA GPU visible");
  for (const auto& op : registry.ops()) {
    std::vector<std::string> checks;
    for (auto k : op->checks()) checks.push_back(to_string(k));
    fmt::print("\n  {}: {}\n    implementations:\n", op->name(), op->description());
    for (const auto& impl : op->implementations()) {
      std::vector<std::string> devices;
      if (impl.cpu) devices.push_back("cpu");
      if (impl.cuda) devices.push_back("cuda");
      const bool here = impl.cpu || (impl.cuda && gpu);
      fmt::print("      {:<22} [{}] {}{}\n", impl.name, fmt::join(devices, ","), impl.description,
                 here ? "" : "  (cannot run here)");
    }
    fmt::print("    axes (name, type, default, meaning):\n");
    print_axes(op->axes(), "      ");
    fmt::print("    checks: {}\n", fmt::join(checks, ", "));
  }
  const std::vector<Suite> suites = shipped_suites();
  print_schema_ops(suites);
  fmt::print("\ncheck kinds (what each compares, and the axes it adds beside the op's):\n");
  for (CheckKind kind : all_check_kinds()) {
    const CheckSpec& check = check_spec_for(kind);
    fmt::print("  {}: {}\n", to_string(kind), check.compares());
    print_axes(check.axes(), "      ");
    fmt::print("    used by: {}\n", users_of(kind, suites));
  }
  fmt::print("\ngenerators:\n");
  for (const auto& g : generator_catalog()) fmt::print("  {:<10} {}\n", g.name, g.reason);
  const auto contracts = load_contracts(paths);
  fmt::print("\ncontracts{}:\n", paths.empty() ? " (embedded default suite)" : "");
  for (const auto& c : contracts) {
    validate_contract(*c, registry);
    fmt::print("  {} ({}, op {}): {}\n", c->name, c->source, c->op, c->description);
    for (const auto& check : c->checks) {
      std::vector<std::unique_ptr<Contract>> one;
      one.push_back(std::make_unique<Contract>(*c));
      one.back()->checks = {check};
      const auto cpu = plan_cases(one, registry, "cpu", 0).size();
      const auto cuda = plan_cases(one, registry, "cuda", 0).size();
      fmt::print("    {:<28} {:<20} {} cases on cpu, {} on cuda\n", check.name,
                 to_string(check.kind), cpu, cuda);
    }
  }
  return 0;
}

}  // namespace

std::shared_ptr<int> setup_list_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto code = std::make_shared<int>(-1);
  auto* cmd = app.add_subcommand(
      "list",
      "List ops (implementations, axes and defaults), schema ops, check kinds (and the shipped "
      "contracts using each), generators, contracts");
  cmd->add_option("contracts", *paths, "contract files or folders (default: embedded suite)");
  cmd->callback([paths, code] { *code = list(*paths); });
  return code;
}

}  // namespace samebits
