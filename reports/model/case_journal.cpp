// A run's journal: one JSON line per finished case, appended as the case ends, so an interrupted
// or killed run loses nothing and `samebits run --resume JOURNAL` runs only the cases left.
#include "reports/model/case_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/errors.h"
#include "common/file_text.h"
#include "common/json_document.h"
#include "reports/model/json_report.h"
#include "reports/model/report_reader.h"

namespace samebits {
namespace {

std::string one_line(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json header_to_json(const JournalHeader& h) {
  Json j;
  j["schema"] = "samebits.journal";
  j["schema_version"] = kJournalSchemaVersion;
  j["plan_sha256"] = h.plan_sha256;
  j["seed"] = seed_to_json(h.seed);
  j["device"] = h.device;
  j["cases"] = h.cases;
  return j;
}

JournalHeader header_of(const Json& j, const std::string& where) {
  const auto text = [&](const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_string()) {
      throw ContractError(
          fmt::format("{}: expected a samebits journal header with a string \"{}\"", where, key));
    }
    return j[key].get<std::string>();
  };
  if (text("schema") != "samebits.journal") {
    throw ContractError(fmt::format("{}: not a samebits journal (schema \"{}\")", where,
                                    j["schema"].get<std::string>()));
  }
  if (text("schema_version").rfind("1.", 0) != 0) {
    throw ContractError(fmt::format("{}: journal schema_version {} (this samebits reads 1.x)",
                                    where, text("schema_version")));
  }
  JournalHeader h;
  h.plan_sha256 = text("plan_sha256");
  const std::string seed = text("seed");
  if (seed.empty() || seed.size() > 20 ||
      seed.find_first_not_of("0123456789") != std::string::npos) {
    throw ContractError(fmt::format("{}: /seed: expected a decimal seed, got \"{}\"", where, seed));
  }
  h.seed = std::stoull(seed);
  h.device = text("device");
  if (!j.contains("cases") || !j["cases"].is_number_integer()) {
    throw ContractError(fmt::format("{}: /cases: expected the number of planned cases", where));
  }
  h.cases = j["cases"].get<std::int64_t>();
  return h;
}

CaseFault fault_of(const Json& j, const std::string& where) {
  const Json& f = j.at("fault");
  const auto field = [&](const char* key, bool (Json::*is)() const noexcept) -> const Json& {
    if (!f.is_object() || !f.contains(key) || !(f.at(key).*is)()) {
      throw ContractError(fmt::format("{}: /fault/{}: missing or of the wrong type", where, key));
    }
    return f.at(key);
  };
  CaseFault out;
  out.id = field("id", &Json::is_string).get<std::string>();
  const std::string verdict = field("verdict", &Json::is_string).get<std::string>();
  if (verdict == "crashed") {
    out.verdict = Verdict::crashed;
  } else if (verdict == "timed_out") {
    out.verdict = Verdict::timed_out;
  } else {
    throw ContractError(fmt::format("{}: /fault/verdict: \"{}\" is not one of: crashed, timed_out",
                                    where, verdict));
  }
  out.reason = field("reason", &Json::is_string).get<std::string>();
  out.duration_ms = field("duration_ms", &Json::is_number).get<double>();
  return out;
}

// The journal's folder, made when missing (a --report or --journal into a folder not there yet);
// a failure shows when the file is opened.
void make_folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
}

}  // namespace

JournalLock::JournalLock(const std::string& path, const std::string& option) : path_(path) {
  make_folder_of(path);
  // Another run may remove the journal (its run ended) between this open and this lock: the lock
  // then holds a file no longer named `path`, so it is taken again on the file named now.
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const bool created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT && attempt < kAttempts) continue;
      throw ContractError(
          fmt::format("{} {}: cannot open the journal: {}", option, path, std::strerror(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        throw ContractError(fmt::format(
            "{} {}: another samebits run is writing this journal now (runs given the same "
            "--report share its journal); give this run its own --report or --journal, or wait "
            "until the other ends",
            option, path));
      }
      throw ContractError(
          fmt::format("{} {}: cannot lock the journal: {}", option, path, std::strerror(err)));
    }
    struct stat held {
    }, named{};
    if (::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
      created_ = created;
      return;
    }
    ::close(fd);
    if (attempt >= kAttempts) {
      throw ContractError(fmt::format(
          "{} {}: the journal was replaced {} times while it was being locked; is another run "
          "using it?",
          option, path, kAttempts));
    }
  }
}

JournalLock::~JournalLock() {
  struct stat held {
  }, named{};
  if (created_ && ::fstat(fd_, &held) == 0 && held.st_size == 0 && held.st_nlink > 0 &&
      ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
      held.st_ino == named.st_ino) {
    ::unlink(path_.c_str());  // made by this lock, and nothing was written: no run started
  }
  ::close(fd_);
}

CaseJournal::CaseJournal(const std::string& path, const JournalHeader& header, bool append)
    : path_(path) {
  make_folder_of(path);
  // Never O_TRUNC: a journal another run holds (JournalLock) must not be emptied by opening it.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_APPEND, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(
        fmt::format("cannot open the journal {}: {}", path, std::strerror(errno)));
  }
  if (append) {
    drop_cut_short_line();
    return;
  }
  if (::ftruncate(fd_, 0) != 0) {
    error_ = fmt::format("cannot empty the journal {}: {}", path, std::strerror(errno));
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(error_);
  }
  if (!write_line(one_line(header_to_json(header)))) throw std::runtime_error(error_);
}

// A kill mid-write leaves the last line without its newline: cut it off before appending, so the
// next line does not run into it.
void CaseJournal::drop_cut_short_line() {
  off_t end = ::lseek(fd_, 0, SEEK_END);
  char c = 0;
  while (end > 0 && ::pread(fd_, &c, 1, end - 1) == 1 && c != '\n') --end;
  if (::ftruncate(fd_, end) != 0) {
    throw std::runtime_error(
        fmt::format("cannot trim the journal {}: {}", path_, std::strerror(errno)));
  }
}

CaseJournal::~CaseJournal() {
  if (fd_ >= 0) {
    ::fsync(fd_);
    ::close(fd_);
  }
}

void CaseJournal::append(const CaseResult& c) {
  if (fd_ >= 0) write_line(one_line(case_record_to_json(c)));
}

void CaseJournal::append(const CaseFault& f) {
  if (fd_ < 0) return;
  write_line(one_line(Json{{"fault",
                            {{"id", f.id},
                             {"verdict", to_string(f.verdict)},
                             {"reason", f.reason},
                             {"duration_ms", f.duration_ms}}}}));
}

bool CaseJournal::write_line(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = fmt::format("cannot write the journal {}: {}", path_, std::strerror(errno));
      ::close(fd_);
      fd_ = -1;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

JournalContents read_journal(const std::string& path) {
  const std::string text = read_file_text(path, "the journal");
  JournalContents out;
  std::size_t start = 0, line = 1;
  bool have_header = false;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {  // no newline: a write cut short by a kill
      out.cut_short = true;
      break;
    }
    const std::string where = fmt::format("{}: line {}", path, line);
    const Json j = parse_json_document(text.substr(start, end - start), where);
    if (!have_header) {
      out.header = header_of(j, where);
      have_header = true;
    } else if (j.is_object() && j.contains("fault")) {
      CaseFault f = fault_of(j, where);
      out.cases.erase(std::remove_if(out.cases.begin(), out.cases.end(),
                                     [&](const CaseResult& c) { return c.id == f.id; }),
                      out.cases.end());
      out.faults.push_back(std::move(f));
    } else {
      CaseResult c = case_record_from_json(j, where, "");
      out.faults.erase(std::remove_if(out.faults.begin(), out.faults.end(),
                                      [&](const CaseFault& f) { return f.id == c.id; }),
                       out.faults.end());
      out.cases.push_back(std::move(c));
    }
    start = end + 1;
    ++line;
  }
  if (!have_header) throw ContractError(fmt::format("{}: an empty journal (no header line)", path));
  return out;
}

}  // namespace samebits
