// `samebits sweep` as a contract: its options become one contract (the op's axes held fixed, one
// axis swept, a check comparing layouts), so a sweep's points are cases `samebits run` reruns.
#include "cli/sweep_contract.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/errors.h"

namespace samebits {
namespace {

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ContractError(fmt::format("{} \"{}\": expected AXIS=VALUE", option, text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) out.push_back(part);
  return out;
}

// "127:6001" or "127:6001:2" as the contract's range object; "1,2,4,8" as a list of values.
Json parse_values(const std::string& spec) {
  if (spec.find(':') != std::string::npos) {
    Json bounds = Json::array();
    for (const auto& part : split(spec, ':')) {
      const Json v = parse_option_value(part);
      if (!v.is_number_integer())
        throw ContractError(
            fmt::format("--vary: \"{}\" is not FIRST:LAST[:STEP] (integers)", spec));
      bounds.push_back(v);
    }
    if (bounds.size() < 2 || bounds.size() > 3)
      throw ContractError(fmt::format("--vary: \"{}\" is not FIRST:LAST[:STEP]", spec));
    return Json{{"range", bounds}};
  }
  Json values = Json::array();
  for (const auto& part : split(spec, ',')) {
    if (!part.empty()) values.push_back(parse_option_value(part));
  }
  if (values.empty()) throw ContractError("--vary: no values");
  return values;
}

}  // namespace

Json parse_option_value(const std::string& text) {
  if (!text.empty() && (text.front() == '[' || text.front() == '{')) {
    return parse_json_document(text, "--set");
  }
  if (text == "true") return true;
  if (text == "false") return false;
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (end && *end == '\0' && !text.empty()) return static_cast<std::int64_t>(i);
  const double d = std::strtod(text.c_str(), &end);
  if (end && *end == '\0' && !text.empty()) return d;
  return text;
}

CheckKind sweep_check_kind(const SweepSpec& spec) {
  const bool other = std::any_of(spec.layouts.begin(), spec.layouts.end(),
                                 [](const std::string& l) { return l != "contiguous"; });
  if (spec.check.empty()) return other ? CheckKind::layout_invariance : CheckKind::determinism;
  if (spec.check == "determinism" && !other) return CheckKind::determinism;
  if (spec.check == "layout_invariance" && other) return CheckKind::layout_invariance;
  if (spec.check == "batch_invariance") {
    if (other) {
      throw ContractError(
          "--check batch_invariance compares an item alone with it in a batch; drop --layouts "
          "(a layout sweep is --check layout_invariance)");
    }
    const bool batch_swept = spec.vary.rfind("batch=", 0) == 0;
    if (!batch_swept && spec.batch < 2) {
      throw ContractError(
          "--check batch_invariance needs batches of more than one item: --vary batch=2:64, or "
          "--batch N with N >= 2 while another axis varies");
    }
    return CheckKind::batch_invariance;
  }
  if (spec.check == "determinism" || spec.check == "layout_invariance") {
    throw ContractError(fmt::format(
        "--check {} {}", spec.check,
        other ? "runs the contiguous batch twice; drop --layouts or use --check layout_invariance"
              : "compares layouts: name them with --layouts strided:1,padded:4,..."));
  }
  throw ContractError(fmt::format(
      "--check \"{}\": accepted: determinism, layout_invariance, batch_invariance", spec.check));
}

std::string swept_axis(const SweepSpec& spec) {
  return split_assignment(spec.vary, "--vary").first;
}

std::string sweep_contract_json(const SweepSpec& spec, const OpRegistry& registry) {
  const Op* op = registry.find(spec.op);
  if (!op) {
    throw ContractError(
        fmt::format("unknown op \"{}\"; accepted: {}", spec.op, fmt::join(registry.names(), ", ")));
  }
  const CheckKind kind = sweep_check_kind(spec);
  std::vector<std::string> op_axes;
  for (const auto& a : op->axes()) op_axes.push_back(a.name);
  const auto known = [&](const std::string& axis, bool sweepable_check_axis) {
    if (std::find(op_axes.begin(), op_axes.end(), axis) != op_axes.end()) return true;
    return sweepable_check_axis && axis == "batch";
  };

  Json sweep = Json::object();
  for (const auto& assignment : spec.set) {
    const auto [axis, value] = split_assignment(assignment, "--set");
    if (!known(axis, false)) {
      throw ContractError(fmt::format("--set: op {} has no axis \"{}\"; accepted: {}", op->name(),
                                      axis, fmt::join(op_axes, ", ")));
    }
    sweep[axis] = Json::array({parse_option_value(value)});
  }
  const auto [axis, values] = split_assignment(spec.vary, "--vary");
  if (!known(axis, true)) {
    throw ContractError(fmt::format("--vary: op {} has no axis \"{}\"; accepted: batch, {}",
                                    op->name(), axis, fmt::join(op_axes, ", ")));
  }
  sweep[axis] = parse_values(values);
  for (const auto& a : op->axes()) {
    if (a.fallback.is_null() && !sweep.contains(a.name)) {
      throw ContractError(fmt::format("op {} needs axis \"{}\" ({}): give it with --set {}=VALUE",
                                      op->name(), a.name, a.help, a.name));
    }
  }

  std::string impl = spec.impl;
  std::vector<std::string> impls;
  for (const auto& i : op->implementations()) impls.push_back(i.name);
  if (impl.empty()) impl = impls.at(0);
  if (std::find(impls.begin(), impls.end(), impl) == impls.end()) {
    throw ContractError(fmt::format("--impl: op {} has no implementation \"{}\"; accepted: {}",
                                    op->name(), impl, fmt::join(impls, ", ")));
  }
  if (spec.batch < 1) throw ContractError("--batch must be at least 1");

  Json check_sweep = Json::object();
  if (kind == CheckKind::batch_invariance) {
    check_sweep["position"] = Json::array({"first"});
  } else if (kind == CheckKind::layout_invariance) {
    Json layouts = Json::array();
    for (const auto& l : spec.layouts) {
      if (l != "contiguous") layouts.push_back(l);
    }
    check_sweep["layout"] = layouts;
  } else {
    check_sweep["repeat"] = Json::array({"same_stream"});
  }
  if (axis != "batch") check_sweep["batch"] = Json::array({spec.batch});

  Json check;
  check["name"] = kind == CheckKind::layout_invariance ? "layouts"
                  : kind == CheckKind::batch_invariance ? "batch"
                                                        : "repeat";
  check["kind"] = to_string(kind);
  check["description"] =
      kind == CheckKind::layout_invariance
          ? "each layout against the contiguous batch, on the same inputs"
      : kind == CheckKind::batch_invariance
          ? "the first item alone against the same item first in the batch"
          : "the contiguous batch, run twice";
  check["compare"] = "bitwise";
  check["sweep"] = check_sweep;
  check["expect"] = Json{{impl, "unknown"}};

  Json contract;
  contract["name"] = "sweep-" + op->name();
  contract["op"] = op->name();
  contract["description"] = fmt::format("built by: {}", fmt::join(spec.command, " "));
  contract["implementations"] = Json::array({impl});
  contract["sweep"] = sweep;
  contract["checks"] = Json::array({check});
  return contract.dump(2) + "\n";
}

}  // namespace samebits
