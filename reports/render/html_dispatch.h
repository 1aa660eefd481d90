// A sweep's dispatch map in the HTML report: the strips along the swept axis, the kernel and
// result classes with their colours and rules, how bits meet kernels, and the findings in words.
#pragma once

#include <string>

#include "reports/model/dispatch_map.h"

namespace samebits {

// A <section> (escaped throughout); empty maps give a section saying so.
std::string dispatch_section_html(const DispatchMap& map);

}  // namespace samebits
