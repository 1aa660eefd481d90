// A Finding as JSON (finding.h): ordered, versioned, both sides of the first divergent op in full,
// the later ops as a timeline of their errors.
#include <fmt/format.h>

#include "harness/localize/finding.h"
#include "reports/model/case_json.h"

namespace samebits::localize {
namespace {

Json meta_json(const TensorMeta& m) {
  Json j;
  j["shape"] = m.shape;
  j["strides"] = m.strides;
  j["dtype"] = m.dtype;
  j["device"] = m.device;
  return j;
}

Json op_json(const Recording& r, std::size_t index) {
  const OpRecord& op = r.ops.at(index);
  Json j;
  j["ordinal"] = op.ordinal;
  j["op"] = full_name(op);
  j["schema"] = op.schema;
  j["region"] = op.region;
  j["depth"] = op.depth;
  j["calls"] = Json::array();
  for (const auto i : calls(r, index)) {
    Json call{{"op", full_name(r.ops[i])}, {"depth", r.ops[i].depth}, {"outputs", Json::array()}};
    for (const auto& o : r.ops[i].outputs) call["outputs"].push_back(meta_json(o.meta));
    j["calls"].push_back(std::move(call));
  }
  if (!op.stack.empty()) j["stack"] = op.stack;
  j["inputs"] = Json::array();
  for (const auto& m : op.inputs) j["inputs"].push_back(meta_json(m));
  j["outputs"] = Json::array();
  for (const auto& o : op.outputs) {
    Json out = meta_json(o.meta);
    out["digest"] = o.digest;
    if (o.item.rows.defined()) {
      out["item_rows"] = o.item.rows.sizes().vec();
    } else {
      out["item_rows"] = nullptr;
      out["not_kept"] = o.item.not_kept;
    }
    j["outputs"].push_back(std::move(out));
  }
  if (r.kernels_captured) {
    j["kernels"] = kernels_of(r, index);
  } else {
    j["kernels"] = nullptr;
    j["kernels_note"] = r.kernels_note;
  }
  return j;
}

Json map_json(const RowMap& m) {
  return Json{{"tokens", m.tokens},       {"offset", m.offset},     {"length", m.length},
              {"sequences", m.sequences}, {"sequence", m.sequence}, {"padded_rows", m.padded_rows}};
}

const OpRecord* op_of(const Finding& f, const OpComparison& c) {
  return c.b ? &f.b.recording.ops[*c.b] : &f.a.recording.ops[*c.a];
}

Json timeline_entry(const Finding& f, std::size_t index) {
  const OpComparison& c = f.result.ops[index];
  const OpRecord& op = *op_of(f, c);
  Json j;
  j["index"] = index;
  j["op"] = full_name(op);
  j["region"] = op.region;
  j["depth"] = op.depth;
  j["status"] = to_string(c.status);
  if (c.status == OpStatus::unmatched) j["side"] = c.a ? f.a.name : f.b.name;
  if (c.status == OpStatus::differs) {
    j["max_ulp"] = c.max_ulp ? Json(*c.max_ulp) : Json(nullptr);
    j["mismatched"] = c.mismatched;
    j["compared"] = c.compared;
  }
  if (!c.note.empty()) j["note"] = c.note;
  return j;
}

}  // namespace

std::string verdict(const Finding& f) {
  if (f.result.first) return "diverges";
  return f.result.equal > 0 ? "identical" : "nothing comparable";
}

void to_json(Json& j, const Finding& f) {
  const Localization& l = f.result;
  j = Json::object();
  j["schema"] = kLocalizeSchema;
  j["subject"] = f.subject;
  j["verdict"] = verdict(f);
  j["sides"] = Json::array();
  for (const Side* s : {&f.a, &f.b}) {
    j["sides"].push_back(Json{{"name", s->name},
                              {"ops", s->recording.ops.size()},
                              {"rows", map_json(s->recording.map)},
                              {"wall_ms", s->recording.wall_ms},
                              {"kernels_captured", s->recording.kernels_captured}});
  }
  Json overhead;
  overhead["recorded_ms"] = f.b.recording.wall_ms;
  overhead["plain_ms"] = f.plain_ms ? Json(*f.plain_ms) : Json(nullptr);
  overhead["ratio"] =
      f.plain_ms && *f.plain_ms > 0 ? Json(f.b.recording.wall_ms / *f.plain_ms) : Json(nullptr);
  j["overhead"] = overhead;
  j["counts"] = Json{{"equal", l.equal},
                     {"differs", l.differs},
                     {"not_comparable", l.not_comparable},
                     {"unmatched_" + f.a.name, l.unmatched_a},
                     {"unmatched_" + f.b.name, l.unmatched_b}};
  if (l.first) {
    const OpComparison& c = l.ops[*l.first];
    Json first;
    first["index"] = *l.first;
    first["op"] = full_name(*op_of(f, c));
    first["region"] = op_of(f, c)->region;
    first["output"] = l.first_output;
    first[f.a.name] = op_json(f.a.recording, *c.a);
    first[f.b.name] = op_json(f.b.recording, *c.b);
    first["diff"] = l.first_diff ? Json(*l.first_diff) : Json(nullptr);
    if (!c.note.empty()) first["note"] = c.note;
    j["first_divergence"] = std::move(first);
  } else {
    j["first_divergence"] = nullptr;
  }
  j["timeline"] = Json::array();
  if (l.first)
    for (std::size_t i = *l.first; i < l.ops.size(); ++i)
      j["timeline"].push_back(timeline_entry(f, i));
  Json unmatched = Json::object();
  unmatched[f.a.name] = Json::array();
  unmatched[f.b.name] = Json::array();
  for (std::size_t i = 0; i < l.ops.size(); ++i) {
    const OpComparison& c = l.ops[i];
    if (c.status != OpStatus::unmatched) continue;
    unmatched[c.a ? f.a.name : f.b.name].push_back(timeline_entry(f, i));
  }
  j["unmatched"] = std::move(unmatched);
  j["follow_ups"] = Json::array();
  for (const auto& u : f.follow_ups) {
    j["follow_ups"].push_back(
        Json{{"replaced", u.replaced},
             {"mix", u.mix},
             {"first_op", u.first_op ? Json(*u.first_op) : Json(nullptr)},
             {"first_region", u.first_region ? Json(*u.first_region) : Json(nullptr)},
             {"outcome", !u.first_op ? "disappears"
                         : u.moved   ? "moves on"
                                     : "stays"}});
  }
  if (f.rerun) {
    j["rerun"] =
        Json{{"check", f.rerun->check},
             {"contract", f.rerun->file.empty() ? Json(nullptr) : Json(f.rerun->file)},
             {"command", f.rerun->command.empty() ? Json(nullptr) : Json(f.rerun->command)},
             {"why_not", f.rerun->why_not.empty() ? Json(nullptr) : Json(f.rerun->why_not)}};
  } else {
    j["rerun"] = nullptr;
  }
}

}  // namespace samebits::localize
