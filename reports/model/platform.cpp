// The platform fingerprint: what a machine is, as far as it can change which kernel runs and so
// the bits (device, GPU and SM count, CPU and vector ISA, threads, library versions).
#include "reports/model/platform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "common/json_fields.h"

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

void to_json(Json& j, const PlatformFingerprint& f) {
  j = Json::object();
  for (const auto& [name, value] : f.fields()) {
    if (!value.empty()) j[name] = value;
  }
}

void from_json(const Json& j, PlatformFingerprint& f) {
  if (!j.is_object()) throw FieldError("", "expected an object of fields");
  f = PlatformFingerprint{};
  for (const auto& item : j.items()) {
    std::string* target = field(f, item.key());
    if (!target) {
      throw FieldError("/" + item.key(), fmt::format("unknown field \"{}\"; accepted: {}",
                                                     item.key(), fmt::join(field_names(), ", ")));
    }
    if (!item.value().is_string()) throw FieldError("/" + item.key(), "expected a string");
    *target = item.value().get<std::string>();
  }
}

PlatformFingerprint fingerprint_from_json(const Json& json, const std::string& source,
                                          const std::string& path) {
  try {
    return json.get<PlatformFingerprint>();
  } catch (const FieldError& e) {
    throw_contract_error(source, path + e.pointer(), e.what());
  }
}

}  // namespace samebits
