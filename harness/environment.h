// The environment block of a report: everything that scopes a bitwise result (GPU, SM count,
// driver, CUDA, cuDNN, cuBLAS, torch, the math flags in force, CPU, samebits commit).
#pragma once

#include <ATen/ATen.h>

#include <string>

#include "common/json_document.h"
#include "reports/model/run_environment.h"
#include "reports/model/run_records.h"

namespace samebits {

Environment environment_block(const at::Device& device);
// This samebits: name, version, commit.
ToolInfo tool_info();
// "samebits 0.1.0 (commit 0123abc, torch 2.11.0, report schema 2.0.0)", for --version.
std::string version_line();
// Now, as ISO-8601 UTC ("2026-11-22T10:56:20Z"), for a report's "created".
std::string utc_timestamp();

}  // namespace samebits
