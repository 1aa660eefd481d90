// An axis an op or a check kind reads from a sweep point: its type, default and meaning.
// Torch-free, so that planning and `samebits list` can read axes without the op's tensors.
#pragma once

#include <string>
#include <vector>

#include "contracts/contract.h"

namespace samebits {

// An axis the op reads from a sweep point; `fallback` fills it in when a contract omits it.
struct AxisSpec {
  enum class Type { integer, number, text, flag, integer_list };
  std::string name;
  Type type = Type::integer;
  Json fallback;                     // null: the contract must give it (unless optional)
  std::vector<std::string> choices;  // text axes: accepted values (empty: any)
  std::string help;
  bool optional = false;  // with a null fallback: a point may leave it out (nothing filled in)
};

}  // namespace samebits
