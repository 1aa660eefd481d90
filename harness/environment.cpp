// The environment block of a report: everything that scopes a bitwise result (GPU, SM count,
// driver, CUDA, cuDNN, cuBLAS, torch, the math flags in force, CPU, samebits commit).
#include "harness/environment.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/utsname.h>
#include <torch/headeronly/version.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "contracts/platform.h"
#include "harness/git_info.h"
#include "reports/report.h"

namespace samebits {
namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string version_from_int(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

Json env_vars() {
  Json j = Json::object();
  for (const char* name :
       {"CUBLAS_WORKSPACE_CONFIG", "CUBLASLT_WORKSPACE_SIZE", "NVIDIA_TF32_OVERRIDE",
        "CUDA_LAUNCH_BLOCKING", "TORCH_CUDNN_SDPA_DEPRIORITIZED", "TORCH_BLAS_PREFER_CUBLASLT",
        "PYTORCH_TUNABLEOP_ENABLED", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "CUDA_VISIBLE_DEVICES"}) {
    const char* v = std::getenv(name);
    j[name] = v ? Json(v) : Json(nullptr);
  }
  return j;
}

std::string reduction_option(at::CuBLASReductionOption o) {
  switch (o) {
    case at::CuBLASReductionOption::AllowReducedPrecisionWithSplitK:
      return "allow_reduced_precision_with_splitk";
    case at::CuBLASReductionOption::DisallowReducedPrecisionAllowSplitK:
      return "disallow_reduced_precision_allow_splitk";
    case at::CuBLASReductionOption::DisallowReducedPrecisionDisallowSplitK:
      return "disallow_reduced_precision_disallow_splitk";
  }
  return "?";
}

std::string matmul_precision(at::Float32MatmulPrecision p) {
  switch (p) {
    case at::Float32MatmulPrecision::HIGHEST: return "highest";
    case at::Float32MatmulPrecision::HIGH: return "high";
    case at::Float32MatmulPrecision::MEDIUM: return "medium";
  }
  return "?";
}

Json torch_flags() {
  auto& ctx = at::globalContext();
  Json j;
  j["deterministic_algorithms"] = ctx.deterministicAlgorithms();
  j["deterministic_algorithms_warn_only"] = ctx.deterministicAlgorithmsWarnOnly();
  j["fill_uninitialized_memory"] = ctx.deterministicFillUninitializedMemory();
  j["allow_tf32_cublas"] = ctx.allowTF32CuBLAS();
  j["allow_tf32_cudnn"] = ctx.allowTF32CuDNN();
  j["float32_matmul_precision"] = matmul_precision(ctx.float32MatmulPrecision());
  j["allow_fp16_reduction_cublas"] = reduction_option(ctx.allowFP16ReductionCuBLAS());
  j["allow_bf16_reduction_cublas"] = reduction_option(ctx.allowBF16ReductionCuBLAS());
  j["allow_fp16_accumulation_cublas"] = ctx.allowFP16AccumulationCuBLAS();
  j["cudnn_enabled"] = ctx.userEnabledCuDNN();
  j["cudnn_benchmark"] = ctx.benchmarkCuDNN();
  j["cudnn_deterministic"] = ctx.deterministicCuDNN();
  j["sdp_flash"] = ctx.userEnabledFlashSDP();
  j["sdp_mem_efficient"] = ctx.userEnabledMemEfficientSDP();
  j["sdp_math"] = ctx.userEnabledMathSDP();
  j["sdp_cudnn"] = ctx.userEnabledCuDNNSDP();
  j["blas_preferred_backend"] = at::BlasBackendToString(ctx.blasPreferredBackend());
  j["cpu_threads"] = at::get_num_threads();
  return j;
}

// cuBLAS as loaded by LibTorch (looked up in the process, not linked by samebits, so a second copy
// of the library can never be the one reported).
Json loaded_cublas_version() {
  at::cuda::getCurrentCUDABlasHandle();  // makes sure LibTorch has loaded cuBLAS
  using GetProperty = int (*)(int, int*);
  auto get = reinterpret_cast<GetProperty>(::dlsym(RTLD_DEFAULT, "cublasGetProperty"));
  if (!get) return nullptr;
  int v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) get(i, &v[i]);  // MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  return fmt::format("{}.{}.{}", v[0], v[1], v[2]);
}

Json loaded_cublaslt_version() {
  using GetVersion = std::size_t (*)();
  auto get = reinterpret_cast<GetVersion>(::dlsym(RTLD_DEFAULT, "cublasLtGetVersion"));
  return get ? Json(static_cast<std::uint64_t>(get())) : Json(nullptr);
}

// The kernel driver's version (e.g. 580.159.04) from NVML, loaded at run time so that samebits
// does not link against a library only GPU hosts have. null where NVML is missing.
Json nvidia_driver_version() {
  void* nvml = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!nvml) return nullptr;
  using Init = int (*)();
  using GetVersion = int (*)(char*, unsigned int);
  auto init = reinterpret_cast<Init>(::dlsym(nvml, "nvmlInit_v2"));
  auto get = reinterpret_cast<GetVersion>(::dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(::dlsym(nvml, "nvmlShutdown"));
  Json version = nullptr;
  char text[96] = {0};
  if (init && get && shutdown && init() == 0) {
    if (get(text, sizeof(text)) == 0) version = std::string(text);
    shutdown();
  }
  ::dlclose(nvml);
  return version;
}

Json gpu_block(const at::Device& device) {
  at::zeros({1}, at::TensorOptions().device(device));  // initializes the context and allocator
  Json j;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  j["cuda_runtime"] = version_from_int(runtime);
  j["driver"] = nvidia_driver_version();
  j["cuda_driver_api"] = version_from_int(driver);
  const auto& hooks = at::detail::getCUDAHooks();
  j["cudnn"] = hooks.hasCuDNN() ? Json(hooks.versionRuntimeCuDNN()) : Json(nullptr);
  j["cublas"] = loaded_cublas_version();
  j["cublaslt"] = loaded_cublaslt_version();
  const cudaDeviceProp* prop =
      at::cuda::getDeviceProperties(device.index() < 0 ? 0 : device.index());
  j["name"] = prop->name;
  j["compute_capability"] = fmt::format("{}.{}", prop->major, prop->minor);
  j["sm_count"] = prop->multiProcessorCount;
  j["memory_bytes"] = static_cast<std::uint64_t>(prop->totalGlobalMem);
  j["l2_bytes"] = prop->l2CacheSize;
  j["max_threads_per_sm"] = prop->maxThreadsPerMultiProcessor;
  std::string uuid;
  for (int i = 0; i < 16; ++i) {
    uuid += fmt::format("{:02x}", static_cast<unsigned char>(prop->uuid.bytes[i]));
  }
  j["uuid"] = uuid;
  j["device_count"] = at::cuda::device_count();
  return j;
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json tool_block() {
  Json j;
  j["name"] = "samebits";
  j["version"] = SAMEBITS_VERSION;
  j["git_commit"] = git_commit();
  j["git_dirty"] = git_dirty();
  return j;
}

std::string version_line() {
  const std::string commit = git_commit();
  return fmt::format("samebits {} (commit {}{}, torch {}, report schema {})", SAMEBITS_VERSION,
                     commit.substr(0, 12), std::string(git_dirty()) == "true" ? ", dirty" : "",
                     TORCH_VERSION, kReportSchemaVersion);
}

Json environment_block(const at::Device& device) {
  Json j;
  j["device"] = device.is_cuda() ? "cuda" : "cpu";
  utsname u{};
  ::uname(&u);
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  j["host"] = Json{{"hostname", host},
                   {"os", fmt::format("{} {}", u.sysname, u.release)},
                   {"cpu", cpu_model()},
                   {"cpu_capability", at::get_cpu_capability()},
                   {"cpu_cores", std::thread::hardware_concurrency()}};
  j["torch"] = Json{{"version", TORCH_VERSION},
                    {"cuda_available", at::hasCUDA()},
                    {"cudnn_compiled", at::detail::getCUDAHooks().hasCuDNN()}};
  j["compiler"] = fmt::format("{} {}", "g++", __VERSION__);
  j["flags"] = torch_flags();
  j["env"] = env_vars();
  j["gpu"] = device.is_cuda() ? gpu_block(device) : Json(nullptr);
  const char* stated = std::getenv(kPlatformOverrideVariable);
  if (stated && *stated) {
    override_environment(j, parse_json_document(stated, kPlatformOverrideVariable),
                         kPlatformOverrideVariable);
  }
  return j;
}

}  // namespace samebits
