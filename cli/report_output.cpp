// The end of `run` and `sweep`: every output path checked before any case runs, then the JSON
// report written atomically (a failure leaves any earlier report whole) before the summary.
#include "cli/report_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>

#include "common/errors.h"
#include "reports/model/outcome.h"
#include "reports/render/report_writer.h"

namespace samebits {
namespace {

namespace fs = std::filesystem;

// One target: a regular file (or none yet) in a folder that exists or can be made, where a file
// can be created: the atomic write's own temporary name is tried, so a name too long fails too.
void check_output_target(const OutputTarget& t) {
  if (t.path.empty()) {
    throw ContractError(fmt::format(
        "{} '': an empty path; give the file to write (e.g. {} out/samebits-report.json)", t.option,
        t.option));
  }
  std::error_code ec;
  const fs::file_status status = fs::status(t.path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw ContractError(
        fmt::format("{} {}: {}; give the path of a file (it is replaced whole when the run ends)",
                    t.option, t.path,
                    fs::is_directory(status) ? "is a folder"
                                             : "is not a regular file (a device, FIFO or socket)"));
  }
  const fs::path parent = fs::path(t.path).parent_path();
  if (!parent.empty()) {
    if (fs::exists(parent, ec) && !fs::is_directory(parent, ec)) {
      throw ContractError(
          fmt::format("{} {}: {} is not a folder", t.option, t.path, parent.string()));
    }
    fs::create_directories(parent, ec);
    if (ec) {
      throw ContractError(fmt::format("{} {}: cannot create the folder {}: {}", t.option, t.path,
                                      parent.string(), ec.message()));
    }
  }
  const std::string probe = fmt::format("{}.tmp.{}", t.path, ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    throw ContractError(fmt::format(
        "{} {}: cannot write a file in {}: {}", t.option, t.path,
        parent.empty() ? std::string("the current folder") : parent.string(), std::strerror(err)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

void check_output_targets(const std::vector<OutputTarget>& targets) {
  for (std::size_t i = 0; i < targets.size(); ++i) {
    check_output_target(targets[i]);
    std::error_code ec;
    const fs::path here = fs::weakly_canonical(targets[i].path, ec);
    for (std::size_t j = 0; !ec && j < i; ++j) {
      std::error_code ec2;
      if (fs::weakly_canonical(targets[j].path, ec2) == here && !ec2) {
        throw ContractError(fmt::format("{} {}: the same file as {} {}; give each its own file",
                                        targets[i].option, targets[i].path, targets[j].option,
                                        targets[j].path));
      }
    }
  }
}

std::optional<std::string> write_report_file(Report& report, const std::string& path) {
  try {
    JsonReportWriter(path).write(report);
  } catch (const std::exception& e) {
    report.summary.exit_code = kExitInfrastructure;
    return std::string(e.what());
  }
  return std::nullopt;
}

void print_report_outcome(const std::string& path, const std::optional<std::string>& error) {
  if (error) {
    fmt::print(stderr, "samebits: the report was not written: {} (exit {})\n", *error,
               static_cast<int>(kExitInfrastructure));
  } else {
    fmt::print("report: {}\n", path);
  }
}

}  // namespace samebits
