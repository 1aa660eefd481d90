// localize_decoder (decoder_localize.h): the subject, the two recorded runs, their comparison, and
// the follow-ups that swap the diverging family to samebits.
#include "harness/localize/decoder_localize.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "harness/device_choice.h"

namespace samebits::localize {
namespace {

Finding one(const DecoderSetup& s) {
  DecoderRuns runs = record_decoder(s);
  Finding f;
  f.subject = Json{{"model", "decoder:" + s.model},
                   {"mix", setup_mix(s).name},
                   {"dtype", s.dtype},
                   {"device", choose_device(s.device).str()},
                   {"compare", to_string(s.compare)},
                   {"step", to_string(s.step)},
                   {"length", s.length},
                   {"seed", std::to_string(s.seed)},
                   {"planted_layer", s.planted_layer}};
  if (in_calls(s.compare)) {
    f.subject["chunk"] = chunk_of(s);
    f.subject["calls"] = runs.windows.size();
  } else {
    f.subject["batch"] = s.batch;
    f.subject["item"] = s.item;
    f.subject["batch_tokens"] = runs.batch_tokens;
  }
  f.a = {runs.a_name, std::move(runs.a)};
  f.b = {runs.b_name, std::move(runs.b)};
  f.plain_ms = runs.plain_ms;
  f.result = localize(f.a.recording, f.b.recording, runs.windows);
  return f;
}

// The first divergent op's name and region, if any.
std::optional<std::pair<std::string, std::string>> first_site(const Finding& f) {
  if (!f.result.first) return std::nullopt;
  const OpRecord& op = f.b.recording.ops[*f.result.ops[*f.result.first].b];
  return std::make_pair(full_name(op), op.region);
}

bool same_sources(const decoder::OpMix& x, const decoder::OpMix& y) {
  return x.linear == y.linear && x.norm == y.norm && x.attention == y.attention &&
         x.log_softmax == y.log_softmax;
}

}  // namespace

std::string family_of(const std::string& region) {
  std::string rest = region;
  while (!rest.empty()) {
    const auto slash = rest.rfind('/');
    const std::string part = slash == std::string::npos ? rest : rest.substr(slash + 1);
    if (std::find(std::begin(decoder::kOpFamilies), std::end(decoder::kOpFamilies), part) !=
        std::end(decoder::kOpFamilies))
      return part;
    rest = slash == std::string::npos ? std::string() : rest.substr(0, slash);
  }
  return {};
}

Finding localize_decoder(const DecoderSetup& s, bool follow) {
  Finding f = one(s);
  if (!follow) return f;
  DecoderSetup next = s;
  auto site = first_site(f);
  while (site) {  // each turn swaps one more family to samebits, or stops
    const std::string family = family_of(site->second);
    if (family.empty()) break;
    const decoder::OpMix was = setup_mix(next);
    next.samebits_ops.push_back(family);
    const decoder::OpMix now = setup_mix(next);
    if (same_sources(was, now)) break;  // already from samebits: the divergence is its own
    const Finding g = one(next);
    FollowUp u;
    u.replaced = family;
    u.mix = now.name;
    const auto moved = first_site(g);
    if (moved) {
      u.first_op = moved->first;
      u.first_region = moved->second;
      u.moved = *moved != *site;
    }
    f.follow_ups.push_back(u);
    site = moved;
  }
  return f;
}

}  // namespace samebits::localize
