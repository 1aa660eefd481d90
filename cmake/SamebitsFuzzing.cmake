# The fuzz-only build's dependencies and flags: the contract and report readers compiled with
# libFuzzer's coverage and AddressSanitizer + UndefinedBehaviorSanitizer (clang), torch-free.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "SAMEBITS_FUZZ_ONLY needs clang (libFuzzer); got ${CMAKE_CXX_COMPILER_ID}")
endif()
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
add_library(samebits_fmt INTERFACE)
target_link_libraries(samebits_fmt INTERFACE fmt::fmt)
add_library(samebits::fmt ALIAS samebits_fmt)
set(SAMEBITS_SANITIZERS address,undefined)
add_compile_options(-fsanitize=fuzzer-no-link,${SAMEBITS_SANITIZERS} -fno-sanitize-recover=all -g)
add_link_options(-fsanitize=${SAMEBITS_SANITIZERS})
