// A run's journal: one JSON line per finished case, appended as the case ends, so an interrupted
// or killed run loses nothing and `samebits run --resume JOURNAL` runs only the cases left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"

namespace samebits {

inline constexpr const char* kJournalSchemaVersion = "1.0.0";

// The first line: which run the journal belongs to. A journal resumes only the run whose plan
// (contracts, selection, seed, device: every planned case id) has the same digest.
struct JournalHeader {
  std::string plan_sha256;
  std::uint64_t seed = 0;
  std::string device;
  std::int64_t cases = 0;  // planned
};

class CaseJournal {
 public:
  // A new journal at `path` (replacing any file there) starting with the header line, or, with
  // `append`, more lines at the end of an existing journal of the same run.
  CaseJournal(const std::string& path, const JournalHeader& header, bool append);
  ~CaseJournal();
  CaseJournal(const CaseJournal&) = delete;
  CaseJournal& operator=(const CaseJournal&) = delete;

  // One line, in one write: a kill leaves at most the last line cut short. A failed write (a full
  // disk) does not stop the run: the journal closes and error() says why.
  void append(const CaseResult& c);
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  bool write_line(const std::string& line);
  void drop_cut_short_line();
  std::string path_;
  std::string error_;
  int fd_ = -1;
};

struct JournalContents {
  JournalHeader header;
  std::vector<CaseResult> cases;
  bool cut_short = false;  // the last line had no newline (a kill mid-write) and was dropped
};

// Throws ContractError naming the file, the line and what is wrong for anything else malformed.
JournalContents read_journal(const std::string& path);

}  // namespace samebits
