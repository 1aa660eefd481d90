// The environment record both ways (to_json/from_json, found by ADL), its platform fingerprint,
// and the stated platform written over it: one place for each field's name, type and meaning.
#include "reports/model/run_environment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/errors.h"
#include "common/json_fields.h"

namespace samebits {
namespace {

template <typename T>
Json optional_json(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

template <typename T>
std::optional<T> optional_number(const Fields& f, const std::string& key) {
  if (!f.has(key)) return std::nullopt;
  return f.number<T>(key);
}

// A count stated as text ("132"): digits only, as the environment holds it as a number.
std::int64_t count_of(const std::string& value, const std::string& source,
                      const std::string& field) {
  if (value.empty() || value.size() > 18 ||
      value.find_first_not_of("0123456789") != std::string::npos) {
    throw_contract_error(source, "/" + field,
                         fmt::format("expected a count (digits), got \"{}\"", value));
  }
  return std::stoll(value);
}

Json host_json(const HostInfo& h) {
  return Json{{"hostname", h.hostname},
              {"os", h.os},
              {"cpu", h.cpu},
              {"cpu_capability", h.cpu_capability},
              {"cpu_cores", h.cpu_cores}};
}

Json flags_json(const AtenFlags& a) {
  return Json{{"deterministic_algorithms", a.deterministic_algorithms},
              {"deterministic_algorithms_warn_only", a.deterministic_algorithms_warn_only},
              {"fill_uninitialized_memory", a.fill_uninitialized_memory},
              {"allow_tf32_cublas", a.allow_tf32_cublas},
              {"allow_tf32_cudnn", a.allow_tf32_cudnn},
              {"float32_matmul_precision", a.float32_matmul_precision},
              {"allow_fp16_reduction_cublas", a.allow_fp16_reduction_cublas},
              {"allow_bf16_reduction_cublas", a.allow_bf16_reduction_cublas},
              {"allow_fp16_accumulation_cublas", a.allow_fp16_accumulation_cublas},
              {"cudnn_enabled", a.cudnn_enabled},
              {"cudnn_benchmark", a.cudnn_benchmark},
              {"cudnn_deterministic", a.cudnn_deterministic},
              {"sdp_flash", a.sdp_flash},
              {"sdp_mem_efficient", a.sdp_mem_efficient},
              {"sdp_math", a.sdp_math},
              {"sdp_cudnn", a.sdp_cudnn},
              {"blas_preferred_backend", a.blas_preferred_backend},
              {"cpu_threads", a.cpu_threads}};
}

AtenFlags flags_of(const Fields& f) {
  AtenFlags a;
  a.deterministic_algorithms = f.flag("deterministic_algorithms");
  a.deterministic_algorithms_warn_only = f.flag("deterministic_algorithms_warn_only");
  a.fill_uninitialized_memory = f.flag("fill_uninitialized_memory");
  a.allow_tf32_cublas = f.flag("allow_tf32_cublas");
  a.allow_tf32_cudnn = f.flag("allow_tf32_cudnn");
  a.float32_matmul_precision = f.text("float32_matmul_precision");
  a.allow_fp16_reduction_cublas = f.text("allow_fp16_reduction_cublas");
  a.allow_bf16_reduction_cublas = f.text("allow_bf16_reduction_cublas");
  a.allow_fp16_accumulation_cublas = f.flag("allow_fp16_accumulation_cublas");
  a.cudnn_enabled = f.flag("cudnn_enabled");
  a.cudnn_benchmark = f.flag("cudnn_benchmark");
  a.cudnn_deterministic = f.flag("cudnn_deterministic");
  a.sdp_flash = f.flag("sdp_flash");
  a.sdp_mem_efficient = f.flag("sdp_mem_efficient");
  a.sdp_math = f.flag("sdp_math");
  a.sdp_cudnn = f.flag("sdp_cudnn");
  a.blas_preferred_backend = f.text("blas_preferred_backend");
  a.cpu_threads = f.number<std::int64_t>("cpu_threads");
  return a;
}

Json gpu_json(const GpuInfo& g) {
  return Json{{"cuda_runtime", g.cuda_runtime},
              {"driver", optional_json(g.driver)},
              {"cuda_driver_api", g.cuda_driver_api},
              {"cudnn", optional_json(g.cudnn)},
              {"cublas", optional_json(g.cublas)},
              {"cublaslt", optional_json(g.cublaslt)},
              {"name", g.name},
              {"compute_capability", g.compute_capability},
              {"sm_count", g.sm_count},
              {"memory_bytes", g.memory_bytes},
              {"l2_bytes", g.l2_bytes},
              {"max_threads_per_sm", g.max_threads_per_sm},
              {"uuid", g.uuid},
              {"device_count", g.device_count}};
}

GpuInfo gpu_of(const Fields& f) {
  GpuInfo g;
  g.cuda_runtime = f.text("cuda_runtime");
  if (f.has("driver")) g.driver = f.text("driver");
  g.cuda_driver_api = f.text("cuda_driver_api");
  g.cudnn = optional_number<std::int64_t>(f, "cudnn");
  if (f.has("cublas")) g.cublas = f.text("cublas");
  g.cublaslt = optional_number<std::uint64_t>(f, "cublaslt");
  g.name = f.text("name");
  g.compute_capability = f.text("compute_capability");
  g.sm_count = f.number<std::int64_t>("sm_count");
  g.memory_bytes = f.number<std::uint64_t>("memory_bytes");
  g.l2_bytes = f.number<std::int64_t>("l2_bytes");
  g.max_threads_per_sm = f.number<std::int64_t>("max_threads_per_sm");
  g.uuid = f.text("uuid");
  g.device_count = f.number<std::int64_t>("device_count");
  return g;
}

}  // namespace

PlatformFingerprint fingerprint_of(const Environment& e) {
  PlatformFingerprint f;
  f.device = e.device;
  f.torch = e.torch.version;
  if (e.device == "cuda") {
    if (!e.gpu) return f;
    const GpuInfo& g = *e.gpu;
    f.gpu = g.name;
    f.sm_count = g.sm_count > 0 ? std::to_string(g.sm_count) : "";
    f.cuda = g.cuda_runtime;
    f.cudnn = g.cudnn ? std::to_string(*g.cudnn) : "";
    f.cublas = g.cublas.value_or("");
  } else {
    f.cpu = e.host.cpu;
    f.isa = e.host.cpu_capability;
    f.threads = e.flags.cpu_threads > 0 ? std::to_string(e.flags.cpu_threads) : "";
  }
  return f;
}

void override_platform(Environment& e, const PlatformFingerprint& stated,
                       const std::string& source) {
  const PlatformFingerprint detected = fingerprint_of(e);
  const bool cuda = detected.device == "cuda";
  const std::vector<std::string> accepted =
      cuda ? std::vector<std::string>{"gpu", "sm_count", "torch", "cuda", "cudnn", "cublas"}
           : std::vector<std::string>{"cpu", "isa", "threads", "torch"};
  for (const auto& [name, value] : stated.fields()) {
    if (value.empty()) continue;
    if (name == "device") {
      if (value == detected.device) continue;
      throw_contract_error(source, "/device",
                           fmt::format("this run is on {}; an override cannot move it to {} "
                                       "(set the fields of its platform: {})",
                                       detected.device, value, fmt::join(accepted, ", ")));
    }
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      throw_contract_error(source, "/" + name,
                           fmt::format("a {} run has no field \"{}\"; accepted: {}",
                                       detected.device, name, fmt::join(accepted, ", ")));
    }
    if (name == "torch") e.torch.version = value;
    if (name == "cpu") e.host.cpu = value;
    if (name == "isa") e.host.cpu_capability = value;
    if (name == "threads") e.flags.cpu_threads = count_of(value, source, name);
    if (!cuda) continue;
    GpuInfo& g = e.gpu ? *e.gpu : e.gpu.emplace();
    if (name == "gpu") g.name = value;
    if (name == "sm_count") g.sm_count = count_of(value, source, name);
    if (name == "cuda") g.cuda_runtime = value;
    if (name == "cudnn") g.cudnn = count_of(value, source, name);
    if (name == "cublas") g.cublas = value;
  }
  e.platform_override = PlatformOverride{source, stated, detected};
}

void to_json(Json& j, const Environment& e) {
  j = Json::object();
  j["device"] = e.device;
  j["host"] = host_json(e.host);
  j["torch"] = Json{{"version", e.torch.version},
                    {"cuda_available", e.torch.cuda_available},
                    {"cudnn_compiled", e.torch.cudnn_compiled}};
  j["compiler"] = e.compiler;
  j["flags"] = flags_json(e.flags);
  Json variables = Json::object();
  for (const auto& [name, value] : e.variables) variables[name] = optional_json(value);
  j["env"] = std::move(variables);
  j["gpu"] = e.gpu ? gpu_json(*e.gpu) : Json(nullptr);
  if (e.platform_override) {
    j["platform_override"] = Json{{"source", e.platform_override->source},
                                  {"fields", e.platform_override->fields},
                                  {"detected", e.platform_override->detected}};
  }
}

void from_json(const Json& j, Environment& e) {
  const Fields f(j);
  e = Environment{};
  e.device = f.text("device");
  if (f.has("host")) {
    e.host = within("/host", [&] {
      const Fields h(j.at("host"));
      return HostInfo{h.text("hostname"), h.text("os"), h.text("cpu"), h.text("cpu_capability"),
                      h.number<std::int64_t>("cpu_cores")};
    });
  }
  if (f.has("torch")) {
    e.torch = within("/torch", [&] {
      const Fields t(j.at("torch"));
      return TorchInfo{t.text("version"), t.flag("cuda_available"), t.flag("cudnn_compiled")};
    });
  }
  e.compiler = f.text("compiler");
  if (f.has("flags")) e.flags = within("/flags", [&] { return flags_of(Fields(j.at("flags"))); });
  if (f.has("env")) {
    within("/env", [&] {
      const Fields v(j.at("env"));
      for (const auto& item : j.at("env").items()) {
        e.variables.emplace_back(item.key(), v.has(item.key())
                                                 ? std::optional<std::string>(v.text(item.key()))
                                                 : std::nullopt);
      }
      return 0;
    });
  }
  if (f.has("gpu")) e.gpu = within("/gpu", [&] { return gpu_of(Fields(j.at("gpu"))); });
  if (f.has("platform_override")) {
    e.platform_override = within("/platform_override", [&] {
      const Fields o(j.at("platform_override"));
      return PlatformOverride{o.text("source"), o.as<PlatformFingerprint>("fields"),
                              o.as<PlatformFingerprint>("detected")};
    });
  }
}

}  // namespace samebits
