// The platform fingerprint: which recorded platform covers this machine, how two differ, and the
// fingerprint read from a report's environment block, as the gate uses them.
#include "reports/model/platform.h"

#include <gtest/gtest.h>

#include "common/errors.h"
#include "common/json_fields.h"
#include "reports/model/run_environment.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace platform_test_file {}
using namespace platform_test_file;
namespace platform_test_file {

PlatformFingerprint h100() {
  PlatformFingerprint f;
  f.device = "cuda";
  f.gpu = "NVIDIA H100 80GB HBM3";
  f.sm_count = "132";
  f.torch = "2.11.0";
  f.cuda = "13.0";
  f.cudnn = "91900";
  f.cublas = "13.1.0";
  return f;
}

TEST(Platform, CoversItself) {
  EXPECT_TRUE(covers(h100(), h100()));
  EXPECT_TRUE(differences(h100(), h100()).empty());
}

// Each field that picks kernels breaks coverage on its own.
TEST(Platform, EveryFieldDecides) {
  const PlatformFingerprint recorded = h100();
  for (const auto& [name, value] : recorded.fields()) {
    if (value.empty()) continue;
    PlatformFingerprint other = fingerprint_from_json(Json(recorded), "t", "");
    Json j = Json(other);
    j[name] = value + "x";
    other = fingerprint_from_json(j, "t", "");
    EXPECT_FALSE(covers(recorded, other)) << name;
    const auto d = differences(recorded, other);
    ASSERT_EQ(d.size(), 1u) << name;
    EXPECT_EQ(d[0], name + ": " + value + " there, " + value + "x here");
  }
}

// A field left empty when recording (older reports did not name the ISA) matches any; a field
// recorded but unknown here does not.
TEST(Platform, EmptyRecordedFieldMatchesAny) {
  PlatformFingerprint recorded;
  recorded.device = "cpu";
  recorded.cpu = "AMD EPYC";
  PlatformFingerprint here = recorded;
  here.isa = "AVX2";
  here.threads = "2";
  EXPECT_TRUE(covers(recorded, here));
  EXPECT_FALSE(covers(here, recorded));
  EXPECT_EQ(differences(here, recorded),
            (std::vector<std::string>{"isa: AVX2 there, unknown here",
                                      "threads: 2 there, unknown here"}));
}

TEST(Platform, JsonRoundTripKeepsOnlyKnownFields) {
  const Json j = Json(h100());
  EXPECT_FALSE(j.contains("cpu"));
  EXPECT_EQ(j.at("sm_count"), "132");
  const PlatformFingerprint back = fingerprint_from_json(j, "t", "");
  EXPECT_TRUE(covers(back, h100()) && covers(h100(), back));
}

TEST(Platform, UnknownFieldNamesSourcePathAndAcceptedFields) {
  try {
    fingerprint_from_json(Json{{"gpu_name", "H100"}}, "b.json", "/platform");
    FAIL() << "accepted an unknown field";
  } catch (const ContractError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("b.json: /platform/gpu_name: unknown field \"gpu_name\""), std::string::npos)
        << m;
    EXPECT_NE(m.find("accepted: device, gpu, sm_count, cpu, isa, threads"), std::string::npos) << m;
  }
  EXPECT_THROW(fingerprint_from_json(Json{{"sm_count", 132}}, "b.json", "/platform"),
               ContractError);
}

TEST(Platform, FromAGpuEnvironmentBlock) {
  const Json env = Json::parse(R"({"device": "cuda", "torch": {"version": "2.11.0"},
    "gpu": {"name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "cuda_runtime": "13.0",
            "cudnn": 91900, "cublas": "13.1.0"},
    "host": {"cpu": "Intel Xeon", "cpu_capability": "AVX512"}, "flags": {"cpu_threads": 26}})");
  const PlatformFingerprint f = fingerprint_of(env.get<Environment>());
  EXPECT_TRUE(covers(h100(), f) && covers(f, h100()));
  // The host CPU does not pick CUDA kernels: not part of a GPU platform.
  EXPECT_TRUE(f.cpu.empty() && f.isa.empty() && f.threads.empty());
  EXPECT_EQ(f.describe(),
            "cuda: NVIDIA H100 80GB HBM3 (132 SMs), torch 2.11.0, CUDA 13.0, cuDNN 91900, "
            "cuBLAS 13.1.0");
}

TEST(Platform, FromACpuEnvironmentBlock) {
  const Json env = Json::parse(R"({"device": "cpu", "torch": {"version": "2.11.0"},
    "host": {"cpu": "AMD EPYC", "cpu_capability": "AVX2"}, "flags": {"cpu_threads": 2}})");
  const PlatformFingerprint f = fingerprint_of(env.get<Environment>());
  EXPECT_EQ(f.describe(), "cpu: AMD EPYC, AVX2, 2 threads, torch 2.11.0");
  EXPECT_TRUE(f.gpu.empty());
}

// A stated platform replaces the fields it names, keeps what was detected, and refuses a field
// the device has no place for, another device, and a count that is not one.
TEST(Platform, AStatedPlatformOverridesTheDetectedOne) {
  Environment env = Json::parse(R"({"device": "cpu", "torch": {"version": "2.11.0"},
    "host": {"cpu": "AMD EPYC", "cpu_capability": "AVX2"}, "flags": {"cpu_threads": 2}})")
                        .get<Environment>();
  PlatformFingerprint stated;
  stated.cpu = "Intel(R) Xeon(R) Processor";
  stated.threads = "8";
  override_platform(env, stated, "TEST");
  EXPECT_EQ(fingerprint_of(env).describe(),
            "cpu: Intel(R) Xeon(R) Processor, AVX2, 8 threads, torch 2.11.0");
  ASSERT_TRUE(env.platform_override);
  EXPECT_EQ(env.platform_override->detected.describe(),
            "cpu: AMD EPYC, AVX2, 2 threads, torch 2.11.0");
  // Written and read back, the override and the stated fields stay.
  const Environment back = Json(env).get<Environment>();
  EXPECT_EQ(Json(back), Json(env));
  EXPECT_EQ(Json(env)["flags"]["cpu_threads"], 8);  // a count stays a number
  PlatformFingerprint gpu_field;
  gpu_field.sm_count = "132";
  EXPECT_THROW(override_platform(env, gpu_field, "TEST"), ContractError);
  PlatformFingerprint other_device;
  other_device.device = "cuda";
  EXPECT_THROW(override_platform(env, other_device, "TEST"), ContractError);
  PlatformFingerprint not_a_count;
  not_a_count.threads = "two";
  EXPECT_THROW(override_platform(env, not_a_count, "TEST"), ContractError);
}

// An environment block of the wrong shape is a FieldError at its path, not a crash or a default.
TEST(Platform, AnEnvironmentOfTheWrongShapeNamesItsPath) {
  try {
    Json::parse(R"({"device": "cuda", "gpu": {"name": "H100", "sm_count": "many"}})")
        .get<Environment>();
    FAIL() << "a string SM count was read";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.pointer(), "/gpu/sm_count");
  }
}

}  // namespace platform_test_file
}  // namespace samebits
