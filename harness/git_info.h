// The samebits commit this binary was built from (written at build time by
// cmake/WriteGitInfo.cmake). "unknown" when built outside a git checkout.
#pragma once

namespace samebits {

const char* git_commit();
const char* git_dirty();  // "true", "false" or "unknown"

}  // namespace samebits
