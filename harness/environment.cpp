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

#include "harness/git_info.h"
#include "reports/model/platform.h"
#include "reports/model/report.h"

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

std::vector<std::pair<std::string, std::optional<std::string>>> env_vars() {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  for (const char* name :
       {"CUBLAS_WORKSPACE_CONFIG", "CUBLASLT_WORKSPACE_SIZE", "NVIDIA_TF32_OVERRIDE",
        "CUDA_LAUNCH_BLOCKING", "TORCH_CUDNN_SDPA_DEPRIORITIZED", "TORCH_BLAS_PREFER_CUBLASLT",
        "PYTORCH_TUNABLEOP_ENABLED", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "CUDA_VISIBLE_DEVICES"}) {
    const char* v = std::getenv(name);
    out.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
  }
  return out;
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

AtenFlags torch_flags() {
  auto& ctx = at::globalContext();
  AtenFlags a;
  a.deterministic_algorithms = ctx.deterministicAlgorithms();
  a.deterministic_algorithms_warn_only = ctx.deterministicAlgorithmsWarnOnly();
  a.fill_uninitialized_memory = ctx.deterministicFillUninitializedMemory();
  a.allow_tf32_cublas = ctx.allowTF32CuBLAS();
  a.allow_tf32_cudnn = ctx.allowTF32CuDNN();
  a.float32_matmul_precision = matmul_precision(ctx.float32MatmulPrecision());
  a.allow_fp16_reduction_cublas = reduction_option(ctx.allowFP16ReductionCuBLAS());
  a.allow_bf16_reduction_cublas = reduction_option(ctx.allowBF16ReductionCuBLAS());
  a.allow_fp16_accumulation_cublas = ctx.allowFP16AccumulationCuBLAS();
  a.cudnn_enabled = ctx.userEnabledCuDNN();
  a.cudnn_benchmark = ctx.benchmarkCuDNN();
  a.cudnn_deterministic = ctx.deterministicCuDNN();
  a.sdp_flash = ctx.userEnabledFlashSDP();
  a.sdp_mem_efficient = ctx.userEnabledMemEfficientSDP();
  a.sdp_math = ctx.userEnabledMathSDP();
  a.sdp_cudnn = ctx.userEnabledCuDNNSDP();
  a.blas_preferred_backend = at::BlasBackendToString(ctx.blasPreferredBackend());
  a.cpu_threads = at::get_num_threads();
  return a;
}

// cuBLAS as loaded by LibTorch (looked up in the process, not linked by samebits, so a second copy
// of the library can never be the one reported).
std::optional<std::string> loaded_cublas_version() {
  at::cuda::getCurrentCUDABlasHandle();  // makes sure LibTorch has loaded cuBLAS
  using GetProperty = int (*)(int, int*);
  auto get = reinterpret_cast<GetProperty>(::dlsym(RTLD_DEFAULT, "cublasGetProperty"));
  if (!get) return std::nullopt;
  int v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) get(i, &v[i]);  // MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
  return fmt::format("{}.{}.{}", v[0], v[1], v[2]);
}

std::optional<std::uint64_t> loaded_cublaslt_version() {
  using GetVersion = std::size_t (*)();
  auto get = reinterpret_cast<GetVersion>(::dlsym(RTLD_DEFAULT, "cublasLtGetVersion"));
  return get ? std::optional<std::uint64_t>(get()) : std::nullopt;
}

// The kernel driver's version (e.g. 580.159.04) from NVML, loaded at run time so that samebits
// does not link against a library only GPU hosts have. null where NVML is missing.
std::optional<std::string> nvidia_driver_version() {
  void* nvml = ::dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!nvml) return std::nullopt;
  using Init = int (*)();
  using GetVersion = int (*)(char*, unsigned int);
  auto init = reinterpret_cast<Init>(::dlsym(nvml, "nvmlInit_v2"));
  auto get = reinterpret_cast<GetVersion>(::dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(::dlsym(nvml, "nvmlShutdown"));
  std::optional<std::string> version;
  char text[96] = {0};
  if (init && get && shutdown && init() == 0) {
    if (get(text, sizeof(text)) == 0) version = std::string(text);
    shutdown();
  }
  ::dlclose(nvml);
  return version;
}

GpuInfo gpu_block(const at::Device& device) {
  at::zeros({1}, at::TensorOptions().device(device));  // initializes the context and allocator
  GpuInfo g;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  g.cuda_runtime = version_from_int(runtime);
  g.driver = nvidia_driver_version();
  g.cuda_driver_api = version_from_int(driver);
  const auto& hooks = at::detail::getCUDAHooks();
  if (hooks.hasCuDNN()) g.cudnn = hooks.versionRuntimeCuDNN();
  g.cublas = loaded_cublas_version();
  g.cublaslt = loaded_cublaslt_version();
  const cudaDeviceProp* prop =
      at::cuda::getDeviceProperties(device.index() < 0 ? 0 : device.index());
  g.name = prop->name;
  g.compute_capability = fmt::format("{}.{}", prop->major, prop->minor);
  g.sm_count = prop->multiProcessorCount;
  g.memory_bytes = static_cast<std::uint64_t>(prop->totalGlobalMem);
  g.l2_bytes = prop->l2CacheSize;
  g.max_threads_per_sm = prop->maxThreadsPerMultiProcessor;
  for (int i = 0; i < 16; ++i) {
    g.uuid += fmt::format("{:02x}", static_cast<unsigned char>(prop->uuid.bytes[i]));
  }
  g.device_count = at::cuda::device_count();
  return g;
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

ToolInfo tool_info() {
  ToolInfo t;
  t.version = SAMEBITS_VERSION;
  t.git_commit = git_commit();
  t.git_dirty = git_dirty();
  return t;
}

std::string version_line() {
  const std::string commit = git_commit();
  return fmt::format("samebits {} (commit {}{}, torch {}, report schema {})", SAMEBITS_VERSION,
                     commit.substr(0, 12), std::string(git_dirty()) == "true" ? ", dirty" : "",
                     TORCH_VERSION, kReportSchemaVersion);
}

Environment environment_block(const at::Device& device) {
  Environment e;
  e.device = device.is_cuda() ? "cuda" : "cpu";
  utsname u{};
  ::uname(&u);
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  e.host = HostInfo{host, fmt::format("{} {}", u.sysname, u.release), cpu_model(),
                    at::get_cpu_capability(),
                    static_cast<std::int64_t>(std::thread::hardware_concurrency())};
  e.torch = TorchInfo{TORCH_VERSION, at::hasCUDA(), at::detail::getCUDAHooks().hasCuDNN()};
  e.compiler = fmt::format("{} {}", "g++", __VERSION__);
  e.flags = torch_flags();
  e.variables = env_vars();
  if (device.is_cuda()) e.gpu = gpu_block(device);
  const char* stated = std::getenv(kPlatformOverrideVariable);
  if (stated && *stated) {
    const PlatformFingerprint fields = fingerprint_from_json(
        parse_json_document(stated, kPlatformOverrideVariable), kPlatformOverrideVariable, "");
    override_platform(e, fields, kPlatformOverrideVariable);
  }
  return e;
}

}  // namespace samebits
