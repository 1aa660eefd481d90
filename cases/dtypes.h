// The dtypes a contract may name, and their ATen scalar types. One table, so error messages
// and `samebits list` show the same accepted names.
#pragma once

#include <c10/core/ScalarType.h>

#include <string>
#include <vector>

namespace samebits {

const std::vector<std::string>& dtype_names();
// Throws std::invalid_argument naming the accepted dtypes.
c10::ScalarType parse_dtype(const std::string& name);
std::string dtype_name(c10::ScalarType type);

}  // namespace samebits
