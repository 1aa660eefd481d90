// The platform fingerprint: what a machine is, as far as it can change which kernel runs and so
// the bits (device, GPU and SM count, CPU and vector ISA, threads, library versions).
#include "contracts/platform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "contracts/contract_error.h"

namespace samebits {
namespace {

const std::vector<std::string>& field_names() {
  static const std::vector<std::string> names = {"device",  "gpu",   "sm_count", "cpu",   "isa",
                                                 "threads", "torch", "cuda",     "cudnn", "cublas"};
  return names;
}

std::string* field(PlatformFingerprint& f, const std::string& name) {
  std::string* all[] = {&f.device,  &f.gpu,   &f.sm_count, &f.cpu,   &f.isa,
                        &f.threads, &f.torch, &f.cuda,     &f.cudnn, &f.cublas};
  for (std::size_t i = 0; i < field_names().size(); ++i) {
    if (field_names()[i] == name) return all[i];
  }
  return nullptr;
}

// A JSON value at `pointer` as text: strings as they are, numbers as written, else "".
std::string text_at(const Json& j, const Json::json_pointer& pointer) {
  if (!j.contains(pointer)) return "";
  const Json& v = j.at(pointer);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return "";
}

// Where each field but the device sits in a report's environment block: the GPU's fields on
// CUDA, the CPU's on the CPU (a CPU run's kernels do not follow the GPU, nor a GPU run's the CPU).
const std::vector<std::pair<std::string, std::string>>& environment_fields(bool cuda) {
  static const std::vector<std::pair<std::string, std::string>> gpu = {
      {"gpu", "/gpu/name"},          {"sm_count", "/gpu/sm_count"}, {"torch", "/torch/version"},
      {"cuda", "/gpu/cuda_runtime"}, {"cudnn", "/gpu/cudnn"},       {"cublas", "/gpu/cublas"}};
  static const std::vector<std::pair<std::string, std::string>> cpu = {
      {"cpu", "/host/cpu"},
      {"isa", "/host/cpu_capability"},
      {"threads", "/flags/cpu_threads"},
      {"torch", "/torch/version"}};
  return cuda ? gpu : cpu;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> PlatformFingerprint::fields() const {
  return {{"device", device}, {"gpu", gpu},         {"sm_count", sm_count}, {"cpu", cpu},
          {"isa", isa},       {"threads", threads}, {"torch", torch},       {"cuda", cuda},
          {"cudnn", cudnn},   {"cublas", cublas}};
}

std::string PlatformFingerprint::describe() const {
  std::vector<std::string> parts;
  const auto add = [&](const std::string& value, const std::string& text) {
    if (!value.empty()) parts.push_back(text);
  };
  if (device == "cuda") {
    add(gpu, sm_count.empty() ? gpu : fmt::format("{} ({} SMs)", gpu, sm_count));
  } else {
    add(cpu, cpu);
    add(isa, isa);
    add(threads, threads + " threads");
  }
  add(torch, "torch " + torch);
  add(cuda, "CUDA " + cuda);
  add(cudnn, "cuDNN " + cudnn);
  add(cublas, "cuBLAS " + cublas);
  return fmt::format("{}: {}", device.empty() ? "?" : device, fmt::join(parts, ", "));
}

bool covers(const PlatformFingerprint& recorded, const PlatformFingerprint& current) {
  const auto a = recorded.fields(), b = current.fields();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].second.empty() && a[i].second != b[i].second) return false;
  }
  return true;
}

std::vector<std::string> differences(const PlatformFingerprint& recorded,
                                     const PlatformFingerprint& current) {
  std::vector<std::string> out;
  const auto a = recorded.fields(), b = current.fields();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].second.empty() && a[i].second != b[i].second) {
      out.push_back(fmt::format("{}: {} there, {} here", a[i].first, a[i].second,
                                b[i].second.empty() ? "unknown" : b[i].second));
    }
  }
  return out;
}

Json fingerprint_to_json(const PlatformFingerprint& f) {
  Json j = Json::object();
  for (const auto& [name, value] : f.fields()) {
    if (!value.empty()) j[name] = value;
  }
  return j;
}

PlatformFingerprint fingerprint_from_json(const Json& json, const std::string& source,
                                          const std::string& path) {
  if (!json.is_object()) throw_contract_error(source, path, "expected an object of fields");
  PlatformFingerprint f;
  for (const auto& item : json.items()) {
    std::string* target = field(f, item.key());
    if (!target) {
      throw_contract_error(source, path + "/" + item.key(),
                           fmt::format("unknown field \"{}\"; accepted: {}", item.key(),
                                       fmt::join(field_names(), ", ")));
    }
    if (!item.value().is_string()) {
      throw_contract_error(source, path + "/" + item.key(), "expected a string");
    }
    *target = item.value().get<std::string>();
  }
  return f;
}

PlatformFingerprint fingerprint_of_environment(const Json& env) {
  PlatformFingerprint f;
  f.device = text_at(env, Json::json_pointer("/device"));
  for (const auto& [name, pointer] : environment_fields(f.device == "cuda")) {
    *field(f, name) = text_at(env, Json::json_pointer(pointer));
  }
  return f;
}

void override_environment(Json& env, const Json& fields, const std::string& source) {
  const PlatformFingerprint wanted = fingerprint_from_json(fields, source, "");
  const PlatformFingerprint detected = fingerprint_of_environment(env);
  const auto places = environment_fields(detected.device == "cuda");
  std::vector<std::string> accepted;
  for (const auto& [name, pointer] : places) accepted.push_back(name);
  for (const auto& field : wanted.fields()) {
    // (not a structured binding: C++17 lambdas cannot capture those)
    const std::string& name = field.first;
    const std::string& value = field.second;
    if (value.empty()) continue;
    if (name == "device") {
      if (value == detected.device) continue;
      throw_contract_error(source, "/device",
                           fmt::format("this run is on {}; an override cannot move it to {} "
                                       "(set the fields of its platform: {})",
                                       detected.device, value, fmt::join(accepted, ", ")));
    }
    const auto place = std::find_if(places.begin(), places.end(),
                                    [&](const auto& p) { return p.first == name; });
    if (place == places.end()) {
      throw_contract_error(source, "/" + name,
                           fmt::format("a {} run has no field \"{}\"; accepted: {}",
                                       detected.device, name, fmt::join(accepted, ", ")));
    }
    Json& slot = env[Json::json_pointer(place->second)];
    // A count stays a number where the block writes one (threads, SMs).
    const bool digits = value.find_first_not_of("0123456789") == std::string::npos;
    slot = slot.is_number() && digits && value.size() < 10 ? Json(std::stoll(value)) : Json(value);
  }
  env["platform_override"] =
      Json{{"source", source}, {"fields", fields}, {"detected", fingerprint_to_json(detected)}};
}

}  // namespace samebits
