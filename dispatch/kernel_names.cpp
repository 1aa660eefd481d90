// Kernel signatures (what a dispatch class is) and short kernel names (what people read): the
// demangled names CUPTI reports are whole template instantiations.
#include "dispatch/kernel_names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace samebits {
namespace {

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(' ');
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(' ') - begin + 1);
}

bool opens(char c) {
  return c == '<' || c == '(' || c == '[' || c == '{';
}
bool closes(char c) {
  return c == '>' || c == ')' || c == ']' || c == '}';
}

// A template argument worth showing: a number or a word, or the last part of a qualified word.
std::string simple_argument(const std::string& arg) {
  if (arg.empty() || arg.find_first_of("<>()[]{}*&") != std::string::npos) return {};
  const auto colon = arg.rfind("::");
  return colon == std::string::npos ? arg : arg.substr(colon + 2);
}

}  // namespace

std::string kernel_signature(const std::vector<KernelLaunch>& kernels, bool with_grid) {
  std::vector<std::string> items;
  for (const auto& k : kernels) {
    std::string item = fmt::format("{} [{}]", k.name, block_dims(k.block));
    if (with_grid) item += fmt::format(" grid [{}]", block_dims(k.grid));
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  return fmt::format("{}", fmt::join(items, "; "));
}

std::string short_kernel_name(const std::string& demangled) {
  std::string name = trim(demangled);
  // The parameter list: the bracket group closing the name.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (closes(name[i])) ++depth;
      if (opens(name[i]) && --depth == 0) {
        name = trim(name.substr(0, i));
        break;
      }
    }
  }
  // Drop the return type: the name is the last token outside any brackets
  // ("std::enable_if<!(false), void>::type internal::gemvx::kernel<int, ...>" -> "internal::...").
  {
    int level = 0;
    std::size_t cut = std::string::npos;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (opens(name[i])) ++level;
      if (closes(name[i])) --level;
      if (name[i] == ' ' && level == 0) cut = i;
    }
    if (cut != std::string::npos) name = trim(name.substr(cut + 1));
  }
  // The head before the first top-level '<', without its namespaces.
  std::size_t open = std::string::npos;
  int depth = 0;
  for (std::size_t i = 0; i < name.size() && open == std::string::npos; ++i) {
    if (name[i] == '<' && depth == 0) open = i;
    if (name[i] == '(') ++depth;  // "(anonymous namespace)"
    if (name[i] == ')') --depth;
  }
  std::string head = name.substr(0, open);
  const auto last_colon = head.rfind("::");
  if (last_colon != std::string::npos) head = head.substr(last_colon + 2);
  const auto space = head.rfind(' ');
  if (space != std::string::npos) head = head.substr(space + 1);
  if (open == std::string::npos) return head;

  std::vector<std::string> kept;
  std::string arg;
  depth = 0;
  for (std::size_t i = open + 1; i < name.size(); ++i) {
    const char c = name[i];
    if (depth == 0 && (c == ',' || c == '>')) {
      if (auto simple = simple_argument(trim(arg)); !simple.empty()) kept.push_back(simple);
      arg.clear();
      if (c == '>') break;
      continue;
    }
    if (opens(c)) ++depth;
    if (closes(c)) --depth;
    arg += c;
  }
  return kept.empty() ? head : fmt::format("{}<{}>", head, fmt::join(kept, ", "));
}

std::string block_dims(const std::array<std::uint32_t, 3>& d) {
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

}  // namespace samebits
