# SAMEBITS_PYTHON_PACKAGE: finds the Python the package is built for, and points CMake at its torch
# and pybind11, before SamebitsDependencies looks for Torch (pip's isolated build has no other).
#
# Python: Python_EXECUTABLE where given (scikit-build-core gives it), else $SAMEBITS_PYTHON (the
# python3 scripts/bootstrap found with torch 2.11.0). pybind11: the headers of the pybind11 package
# of that Python (pip's build requires pybind11==3.0.1), else the copy LibTorch bundles in its
# include folder, the same release (torch 2.11.0 ships pybind11 3.0.1), so CI needs no install.
if(NOT DEFINED Python_EXECUTABLE AND DEFINED ENV{SAMEBITS_PYTHON})
  set(Python_EXECUTABLE $ENV{SAMEBITS_PYTHON})
endif()
# pip's build (SKBUILD) needs the headers; elsewhere (the ci preset) a Python without them leaves
# the package out, saying so, rather than failing the whole build.
if(SKBUILD)
  find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
else()
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module)
  if(NOT Python_Development.Module_FOUND)
    message(WARNING "SAMEBITS_PYTHON_PACKAGE: no Python headers for ${Python_EXECUTABLE} (Debian: "
                    "python3-dev); samebits._core and its tests (python.package) are left out")
    set(SAMEBITS_PYTHON_PACKAGE OFF)
    return()
  endif()
endif()

# Asks the package's Python one thing; empty when it cannot answer.
function(_samebits_python_ask code out)
  execute_process(COMMAND ${Python_EXECUTABLE} -c "${code}" OUTPUT_VARIABLE _answer
                  RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT _rc EQUAL 0)
    set(_answer "")
  endif()
  set(${out} "${_answer}" PARENT_SCOPE)
endfunction()

_samebits_python_ask("import torch; print(torch.utils.cmake_prefix_path)" _torch_prefix)
if(_torch_prefix)
  list(APPEND CMAKE_PREFIX_PATH ${_torch_prefix})
else()
  message(WARNING "SAMEBITS_PYTHON_PACKAGE: ${Python_EXECUTABLE} cannot import torch; the "
                  "extension must be built for a Python with torch==2.11.0")
endif()
_samebits_python_ask("import pybind11; print(pybind11.get_include())" SAMEBITS_PYBIND11_INCLUDE)
if(SAMEBITS_PYBIND11_INCLUDE)
  set(_pybind11_from "${SAMEBITS_PYBIND11_INCLUDE}")
else()
  set(_pybind11_from "LibTorch's bundled copy")
endif()
message(STATUS "samebits: Python package for ${Python_EXECUTABLE} (${Python_SOABI}), pybind11 "
               "from ${_pybind11_from}")

# Every C++ object may end up in samebits._core, a shared module: position-independent code for
# all (executables too, so that one precompiled header serves every target of a flag set).
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fPIC>)
