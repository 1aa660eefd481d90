// A real report for the rendering tests: shipped contracts run on the CPU at test scale, with a
// planted flaw and one errored case, so every outcome a renderer must draw is in it.
#pragma once

#include "reports/model/report.h"

namespace samebits {

// sum (its batch invariance flawed: the bundled kernels' promise breaks, new violations), softmax
// and sdpa (its chunking flawed, so chunk heatmaps have something to show), miniature, on the CPU;
// then one held sdpa case turned into an error and the checks judged again (an errored outcome).
Report render_fixture_report();

// The same report with hostile names: contract "sum" renamed `s<&"um'`, its first implementation
// `sb<&"x`, and one param value `<script>alert(1)</script>`, as users could write them.
Report with_hostile_names(Report report);

// What with_hostile_names() puts in, raw: a rendering holding any of these did not escape.
inline constexpr const char* kHostileContract = "s<&\"um'";
inline constexpr const char* kHostileImpl = "sb<&\"x";
inline constexpr const char* kHostileParam = "<script>alert(1)</script>";

}  // namespace samebits
