// Where a run ran, typed: host, torch, the ATen flags in force, the variables that steer kernels,
// the GPU. Its platform fingerprint is read from these fields; JSON only at the edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json_document.h"
#include "reports/model/platform.h"

namespace samebits {

struct HostInfo {
  std::string hostname;
  std::string os;
  std::string cpu;             // the model name (/proc/cpuinfo)
  std::string cpu_capability;  // ATen's CPU capability: DEFAULT, AVX2, AVX512, ...
  std::int64_t cpu_cores = 0;
};

struct TorchInfo {
  std::string version;
  bool cuda_available = false;
  bool cudnn_compiled = false;
};

// The ATen switches that choose kernels or their precision, as the run found them.
struct AtenFlags {
  bool deterministic_algorithms = false;
  bool deterministic_algorithms_warn_only = false;
  bool fill_uninitialized_memory = false;
  bool allow_tf32_cublas = false;
  bool allow_tf32_cudnn = false;
  std::string float32_matmul_precision;
  std::string allow_fp16_reduction_cublas;
  std::string allow_bf16_reduction_cublas;
  bool allow_fp16_accumulation_cublas = false;
  bool cudnn_enabled = false;
  bool cudnn_benchmark = false;
  bool cudnn_deterministic = false;
  bool sdp_flash = false;
  bool sdp_mem_efficient = false;
  bool sdp_math = false;
  bool sdp_cudnn = false;
  std::string blas_preferred_backend;
  std::int64_t cpu_threads = 0;
};

// The GPU and the CUDA libraries as loaded. Optional where a library may be missing.
struct GpuInfo {
  std::string cuda_runtime;
  std::optional<std::string> driver;  // from NVML, where it is there
  std::string cuda_driver_api;
  std::optional<std::int64_t> cudnn;
  std::optional<std::string> cublas;
  std::optional<std::uint64_t> cublaslt;
  std::string name;
  std::string compute_capability;
  std::int64_t sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t max_threads_per_sm = 0;
  std::string uuid;
  std::int64_t device_count = 0;
};

// SAMEBITS_PLATFORM_OVERRIDE stated these fingerprint fields over the detected ones (tests).
struct PlatformOverride {
  std::string source;
  PlatformFingerprint fields;    // as stated
  PlatformFingerprint detected;  // the machine's own
};

struct Environment {
  std::string device;  // "cpu" or "cuda"
  HostInfo host;
  TorchInfo torch;
  std::string compiler;
  AtenFlags flags;
  // The variables that steer kernels (CUBLAS_WORKSPACE_CONFIG, ...), unset ones as none, in order.
  std::vector<std::pair<std::string, std::optional<std::string>>> variables;
  std::optional<GpuInfo> gpu;  // on CUDA
  std::optional<PlatformOverride> platform_override;
};

// What the environment says about kernel choice: on CUDA the GPU's fields, on the CPU the CPU's
// (reports/model/platform.h says why each field).
PlatformFingerprint fingerprint_of(const Environment& environment);

// Writes the set fields of `stated` over the environment's and records the override (source,
// stated, detected), so the report says it was not the machine's own. Throws ContractError naming
// `source` and the field for a field the device has no place for (a GPU field on the CPU), or
// another device.
void override_platform(Environment& environment, const PlatformFingerprint& stated,
                       const std::string& source);

// The layout of 2.x and later ("env" holds the variables); read back leniently: what an older
// report lacks takes its default, and a field of the wrong type is a FieldError naming its path.
void to_json(Json& j, const Environment& environment);
void from_json(const Json& j, Environment& environment);

}  // namespace samebits
