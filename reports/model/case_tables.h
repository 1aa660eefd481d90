// The report-level tables that case records refer to by index, so that what repeats from case to
// case is written once: kernel names, kernel launch shapes, and the names of point properties.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "common/json_document.h"

namespace samebits {

// "kernel_names": each kernel name once. "kernel_launches" (3.0): each launch shape once,
// {name_id, grid, block, registers, static_smem, dynamic_smem}; a case's launch is then
// {launch, count (left out when 1), duration_ns}. "property_names" (3.0): the names of the first
// case's properties, in order; a case whose properties have exactly those names writes their
// values as an array. 2.x cases wrote launches whole, with name_id, and properties as objects.
class CaseTables {
 public:
  // Writing: replaces a case record's launches and properties (as reports/model/case_json.h writes
  // them) by references into the tables, which grow as needed.
  void pack(Json& record);
  // The tables, into a report or a journal line.
  void add_to(Json& holder) const;

  // Reading: the tables a report or journal line holds (none: empty). Throws FieldError.
  static CaseTables from_json(const Json& holder);
  // The inverse of pack, for records of any 2.x or 3.x report. Throws FieldError naming a
  // reference to nothing.
  void unpack(Json& record) const;

 private:
  Json launch_reference(const Json& launch);
  Json launch_of(const Json& reference) const;

  std::vector<std::string> names_;
  std::map<std::string, std::size_t> name_ids_;
  Json launches_ = Json::array();
  std::map<std::string, std::size_t> launch_ids_;  // by the launch shape's JSON text
  std::vector<std::string> property_names_;
};

}  // namespace samebits
