// Text made safe for HTML and XML: every user string (contract names, params, error messages)
// passes through here at the output edge, so no name can open a tag, end an attribute or break the
// parser.
#pragma once

#include <string>
#include <string_view>

namespace samebits {

// Escapes & < > " ' as character references; characters XML 1.0 forbids (C0 controls other than
// tab, newline and carriage return) and bytes that are not UTF-8 become U+FFFD. The result is
// valid as element text and inside a double- or single-quoted attribute.
std::string escape_markup(std::string_view text);

}  // namespace samebits
