# The torch-free build's dependencies and flags: everything compiled with libFuzzer's coverage and
# AddressSanitizer + UndefinedBehaviorSanitizer (clang), so the fuzzers and the tests share objects.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SAMEBITS_FUZZ_ONLY needs clang (libFuzzer); got ${CMAKE_CXX_COMPILER_ID}")
endif()
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
add_library(samebits_fmt INTERFACE)
target_link_libraries(samebits_fmt INTERFACE fmt::fmt)
add_library(samebits::fmt ALIAS samebits_fmt)
# The sanitized tests (tests/sanitize): GoogleTest, and the CUDA headers alone for the kernels' CPU
# twins (their headers name cudaStream_t; nothing links the CUDA runtime).
if(SAMEBITS_BUILD_TESTS)
  find_package(GTest REQUIRED)
  find_package(CUDAToolkit QUIET)
endif()
set(SAMEBITS_SANITIZERS address,undefined)
# fuzzer-no-link's coverage hooks resolve to the sanitizer runtime's no-ops outside libFuzzer.
add_compile_options(-fsanitize=fuzzer-no-link,${SAMEBITS_SANITIZERS} -fno-sanitize-recover=all -g)
add_link_options(-fsanitize=${SAMEBITS_SANITIZERS})
