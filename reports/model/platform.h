// The platform fingerprint: what a machine is, as far as it can change which kernel runs and so
// the bits (device, GPU and SM count, CPU and vector ISA, threads, library versions).
#pragma once

#include <string>
#include <vector>

#include "common/json_document.h"

namespace samebits {

// Every field is a string, empty where unknown. The fields that matter, and why:
//   device    cpu or cuda: different kernels altogether
//   gpu       the GPU's name (NVIDIA H100 80GB HBM3): its architecture and tuning tables
//   sm_count  multiprocessors: split-K and split-KV heuristics divide work by it
//   cpu       the CPU's model name: oneDNN and ATen choose kernels by micro-architecture
//   isa       ATen's CPU capability (DEFAULT, AVX2, AVX512, ...): which vectorized kernels run
//   threads   ATen's CPU threads: parallel reductions split by it (CPU platforms only)
//   torch     ATen's version
//   cuda, cudnn, cublas  the runtime libraries' versions, whose heuristics pick kernels
// Left out on purpose: the driver, host name, memory size and anything else that does not pick
// kernels.
struct PlatformFingerprint {
  std::string device, gpu, sm_count, cpu, isa, threads, torch, cuda, cudnn, cublas;

  // (name, value) of every field, in the order above.
  std::vector<std::pair<std::string, std::string>> fields() const;
  // "cpu: AMD EPYC, AVX2, 2 threads, torch 2.11.0" or "cuda: NVIDIA H100 80GB HBM3 (132 SMs),
  // torch 2.11.0, CUDA 13.0, cuDNN 91900, cuBLAS 13.1.0".
  std::string describe() const;
};

// A recorded fingerprint covers the current one when every field it knows equals the current
// field: a field left empty when recording (older reports did not name the ISA) matches any.
bool covers(const PlatformFingerprint& recorded, const PlatformFingerprint& current);
// The fields where they differ, "isa: AVX512 here AVX2", for messages.
std::vector<std::string> differences(const PlatformFingerprint& recorded,
                                     const PlatformFingerprint& current);

// As JSON, an object of the non-empty fields (to_json/from_json, found by ADL); read back, unknown
// keys and non-strings are FieldErrors at their path. fingerprint_from_json names `source` and
// `path` in a ContractError instead (contracts' observations, baselines, the stated platform).
void to_json(Json& j, const PlatformFingerprint& fingerprint);
void from_json(const Json& j, PlatformFingerprint& fingerprint);
PlatformFingerprint fingerprint_from_json(const Json& json, const std::string& source,
                                          const std::string& path);

// The variable that states a platform instead of the detected one (a JSON object of the fields
// above, e.g. {"cpu": "Intel(R) Xeon(R) Processor", "isa": "AVX2", "threads": "2"}): tests set it
// so that what the embedded observations cover is their premise, not the host's
// (reports/model/run_environment.h: override_platform).
inline constexpr const char* kPlatformOverrideVariable = "SAMEBITS_PLATFORM_OVERRIDE";

}  // namespace samebits
