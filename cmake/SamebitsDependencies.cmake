# Finds every third-party dependency once, for all targets.
# LibTorch ships its own fmt headers in torch/include; samebits::fmt makes the system fmt win everywhere.

# Torch: point CMAKE_PREFIX_PATH at python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'.
# Without a GPU, Torch's CUDA setup would guess architectures; pin them to ours.
if(NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST} AND NOT DEFINED TORCH_CUDA_ARCH_LIST)
  set(TORCH_CUDA_ARCH_LIST "9.0a")
endif()
find_package(Torch 2.11 REQUIRED)
find_package(CUDAToolkit REQUIRED)
# CUPTI (kernel capture): the toolkit's, else the one LibTorch's wheel brings (nvidia/cu13/lib).
if(NOT TARGET CUDA::cupti)
  get_filename_component(_torch_site "${TORCH_INSTALL_PREFIX}/.." ABSOLUTE)
  find_library(SAMEBITS_CUPTI_LIBRARY NAMES cupti libcupti.so.13
    PATHS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64
          ${_torch_site}/nvidia/cu13/lib ${_torch_site}/nvidia/cuda_cupti/lib)
  find_path(SAMEBITS_CUPTI_INCLUDE cupti.h
    PATHS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/include
          ${_torch_site}/nvidia/cu13/include ${_torch_site}/nvidia/cuda_cupti/include)
  if(NOT SAMEBITS_CUPTI_LIBRARY OR NOT SAMEBITS_CUPTI_INCLUDE)
    message(FATAL_ERROR "CUPTI not found (library: ${SAMEBITS_CUPTI_LIBRARY}, header: "
                        "${SAMEBITS_CUPTI_INCLUDE}); it ships with the CUDA Toolkit")
  endif()
  add_library(CUDA::cupti UNKNOWN IMPORTED)
  set_target_properties(CUDA::cupti PROPERTIES IMPORTED_LOCATION ${SAMEBITS_CUPTI_LIBRARY}
                                               INTERFACE_INCLUDE_DIRECTORIES ${SAMEBITS_CUPTI_INCLUDE})
endif()
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
if(SAMEBITS_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# One fmt: the system package's headers and library. Torch's include dir also holds fmt/, and an
# imported target's includes are -isystem, so a plain -I folder holding only fmt/ is searched first.
get_target_property(_fmt_includes fmt::fmt INTERFACE_INCLUDE_DIRECTORIES)
list(GET _fmt_includes 0 _fmt_include)
set(SAMEBITS_FMT_SHADOW ${CMAKE_BINARY_DIR}/fmt-include)
file(MAKE_DIRECTORY ${SAMEBITS_FMT_SHADOW})
file(CREATE_LINK ${_fmt_include}/fmt ${SAMEBITS_FMT_SHADOW}/fmt SYMBOLIC)
string(REGEX MATCHALL "[0-9]+" _fmt_parts "${fmt_VERSION}")
list(GET _fmt_parts 0 _fmt_major)
list(GET _fmt_parts 1 _fmt_minor)
list(GET _fmt_parts 2 _fmt_patch)
math(EXPR SAMEBITS_FMT_VERSION "${_fmt_major} * 10000 + ${_fmt_minor} * 100 + ${_fmt_patch}")
add_library(samebits_fmt INTERFACE)
target_include_directories(samebits_fmt BEFORE INTERFACE ${SAMEBITS_FMT_SHADOW})
target_compile_definitions(samebits_fmt INTERFACE SAMEBITS_EXPECTED_FMT_VERSION=${SAMEBITS_FMT_VERSION})
target_link_libraries(samebits_fmt INTERFACE fmt::fmt)
add_library(samebits::fmt ALIAS samebits_fmt)

# LibTorch as a plain target (TORCH_LIBRARIES is a list of paths and flags).
add_library(samebits_torch INTERFACE)
target_link_libraries(samebits_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(samebits_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_compile_options(samebits_torch INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${TORCH_CXX_FLAGS}>)
add_library(samebits::torch ALIAS samebits_torch)

# LibTorch's libraries use the shared libstdc++. Where the compiler links libstdc++.a instead (g++ 13
# on the Ubuntu 24.04 GPU host: its ops library needed no libstdc++.so.6), each samebits library
# carries a private C++ runtime beside torch's, and the first error message it formats with a
# number (any TORCH_CHECK) crashes there (SIGSEGV in std::ostream::_M_insert<long>) and comes out
# garbled elsewhere. Naming the shared runtime on every link with torch keeps the archive out.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                OUTPUT_VARIABLE SAMEBITS_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT (IS_ABSOLUTE "${SAMEBITS_LIBSTDCXX}" AND
                                                 EXISTS "${SAMEBITS_LIBSTDCXX}"))
  message(WARNING "${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6 found no shared C++ "
                  "runtime (got '${SAMEBITS_LIBSTDCXX}'): if the compiler links libstdc++.a, "
                  "errors raised by torch.ops.samebits can crash Python (the test "
                  "kernels.cxx_runtime_probe says whether they do)")
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  get_filename_component(SAMEBITS_LIBSTDCXX "${SAMEBITS_LIBSTDCXX}" REALPATH)
  message(STATUS "samebits: C++ runtime linked beside LibTorch: ${SAMEBITS_LIBSTDCXX}")
  target_link_libraries(samebits_torch INTERFACE "${SAMEBITS_LIBSTDCXX}")
endif()
