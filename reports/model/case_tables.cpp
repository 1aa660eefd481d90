// The report-level tables that case records refer to by index, so that what repeats from case to
// case is written once: kernel names, kernel launch shapes, and the names of point properties.
#include "reports/model/case_tables.h"

#include <fmt/format.h>

#include <utility>

#include "common/json_fields.h"

namespace samebits {
namespace {

const char* const kKernelKeys[] = {"baseline_kernels", "variant_kernels"};
const char* const kPropertyKeys[] = {"baseline_properties", "variant_properties"};
// What a launch shape holds besides its name: the fields of a launch that do not vary per case.
const char* const kShapeFields[] = {"grid", "block", "registers", "static_smem", "dynamic_smem"};

std::size_t intern(std::map<std::string, std::size_t>& ids, const std::string& key,
                   std::size_t next) {
  return ids.emplace(key, next).first->second;
}

std::vector<std::string> strings(const Fields& f, const std::string& key) {
  std::vector<std::string> out;
  if (!f.has(key)) return out;
  const Json& a = f.array(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) throw FieldError(fmt::format("/{}/{}", key, i), "expected a string");
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

std::size_t index_in(const Fields& f, const std::string& key, std::size_t size, const char* what) {
  const Json& v = f.required(key);
  const bool index =
      v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
  if (!index || v.get<std::uint64_t>() >= size) {
    throw FieldError(Fields::at(key),
                     fmt::format("no {} {} (the report lists {})", what, v.dump(), size));
  }
  return v.get<std::size_t>();
}

}  // namespace

Json CaseTables::launch_reference(const Json& launch) {
  const std::string name = launch.at("name").get<std::string>();
  const std::size_t name_id = intern(name_ids_, name, names_.size());
  if (name_id == names_.size()) names_.push_back(name);
  Json shape;
  shape["name_id"] = name_id;
  for (const char* field : kShapeFields) shape[field] = launch.at(field);
  const std::size_t id = intern(launch_ids_, shape.dump(), launches_.size());
  if (id == launches_.size()) launches_.push_back(std::move(shape));
  Json reference;
  reference["launch"] = id;
  if (launch.at("count") != 1) reference["count"] = launch.at("count");
  reference["duration_ns"] = launch.at("duration_ns");
  return reference;
}

void CaseTables::pack(Json& record) {
  for (const char* key : kKernelKeys) {
    if (!record.contains(key)) continue;
    for (Json& launch : record[key]) launch = launch_reference(launch);
  }
  for (const char* key : kPropertyKeys) {
    if (!record.contains(key) || record[key].empty()) continue;
    Json& properties = record[key];
    if (property_names_.empty()) {
      for (const auto& item : properties.items()) property_names_.push_back(item.key());
    }
    std::vector<std::string> names;
    Json values = Json::array();
    for (const auto& item : properties.items()) {
      names.push_back(item.key());
      values.push_back(item.value());
    }
    if (names == property_names_) properties = std::move(values);
  }
}

void CaseTables::add_to(Json& holder) const {
  holder["kernel_names"] = names_;
  holder["kernel_launches"] = launches_;
  holder["property_names"] = property_names_;
}

CaseTables CaseTables::from_json(const Json& holder) {
  const Fields f(holder);
  CaseTables t;
  t.names_ = strings(f, "kernel_names");
  t.property_names_ = strings(f, "property_names");
  if (f.has("kernel_launches")) {
    const Json& launches = f.array("kernel_launches");
    for (std::size_t i = 0; i < launches.size(); ++i) {
      within(fmt::format("/kernel_launches/{}", i),
             [&] { index_in(Fields(launches[i]), "name_id", t.names_.size(), "kernel name"); });
    }
    t.launches_ = launches;
  }
  return t;
}

Json CaseTables::launch_of(const Json& reference) const {
  const Fields f(reference);
  const Json& shape = launches_[index_in(f, "launch", launches_.size(), "kernel launch")];
  Json launch;
  launch["name"] = names_[shape.at("name_id").get<std::size_t>()];
  for (const char* field : kShapeFields) {
    if (shape.contains(field)) launch[field] = shape.at(field);
  }
  launch["count"] = reference.contains("count") ? reference.at("count") : Json(1);
  if (reference.contains("duration_ns")) launch["duration_ns"] = reference.at("duration_ns");
  return launch;
}

void CaseTables::unpack(Json& record) const {
  if (!record.is_object()) return;  // case_json.h's from_json says what it expected
  for (const char* key : kKernelKeys) {
    if (!record.contains(key) || !record[key].is_array()) continue;
    Json& launches = record[key];
    for (std::size_t i = 0; i < launches.size(); ++i) {
      Json& launch = launches[i];
      if (!launch.is_object()) continue;
      within(fmt::format("/{}/{}", key, i), [&] {
        if (launch.contains("launch")) {
          launch = launch_of(launch);
        } else if (launch.contains("name_id")) {  // 2.x
          const std::size_t id = index_in(Fields(launch), "name_id", names_.size(), "kernel name");
          launch.erase("name_id");
          launch["name"] = names_[id];
        }
      });
    }
  }
  for (const char* key : kPropertyKeys) {
    if (!record.contains(key) || !record[key].is_array()) continue;
    Json& values = record[key];
    if (values.size() != property_names_.size()) {
      throw FieldError(fmt::format("/{}", key),
                       fmt::format("{} values for the report's {} property_names", values.size(),
                                   property_names_.size()));
    }
    Json properties = Json::object();
    for (std::size_t i = 0; i < values.size(); ++i) properties[property_names_[i]] = values[i];
    values = std::move(properties);
  }
}

}  // namespace samebits
