// Small pieces the HTML report's sections share, so an outcome looks the same in the summary, the
// contract tables and the drill-down.
#include "reports/render/html_parts.h"

#include <fmt/format.h>

#include "reports/model/outcome.h"
#include "reports/render/check_headline.h"
#include "reports/render/markup.h"

namespace samebits {

std::string outcome_css(Outcome outcome) {
  if (fails_gate(outcome)) return "o-bad";
  switch (outcome) {
    case Outcome::errored: return "o-warn";
    case Outcome::finding: return "o-find";
    case Outcome::as_expected: return "o-ok";
    default: return "o-quiet";
  }
}

std::string outcome_pill(Outcome outcome) {
  return fmt::format("<span class=\"pill {}\">{}</span>", outcome_css(outcome),
                     escape_markup(outcome_label(outcome)));
}

std::string json_html(const Json& value) {
  if (value.is_null()) return "<span class=\"muted\">\u2014</span>";
  if (value.is_string()) return escape_markup(value.get<std::string>());
  if (value.is_object()) {
    if (value.empty()) return "<span class=\"muted\">\u2014</span>";
    std::string out = "<div class=\"kv\">";
    for (const auto& item : value.items()) {
      out += fmt::format("<span class=\"k\">{}</span><span>{}</span>", escape_markup(item.key()),
                         json_html(item.value()));
    }
    return out + "</div>";
  }
  if (value.is_array()) {
    std::string out;
    for (const auto& item : value) {
      if (!out.empty()) out += item.is_structured() ? "" : ", ";
      out += json_html(item);
    }
    return out.empty() ? "<span class=\"muted\">\u2014</span>" : out;
  }
  return escape_markup(value.dump());
}

}  // namespace samebits
