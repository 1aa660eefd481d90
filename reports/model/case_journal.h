// A run's journal: one JSON line per finished case, appended as the case ends, so an interrupted
// or killed run loses nothing and `samebits run --resume JOURNAL` runs only the cases left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/model/report.h"

namespace samebits {

// 1.1: fault lines (CaseFault).
inline constexpr const char* kJournalSchemaVersion = "1.1.0";

// The first line: which run the journal belongs to. A journal resumes only the run whose plan
// (contracts, selection, seed, device: every planned case id) has the same digest.
struct JournalHeader {
  std::string plan_sha256;
  std::uint64_t seed = 0;
  std::string device;
  std::int64_t cases = 0;  // planned
};

// A case whose process `run --isolate` saw die under it (crashed) or killed (timed_out), with the
// child's stderr tail as its reason. A fault line stands for the case until a run resuming the
// journal records it (with its expectation, from the contract) as a case line in its place.
struct CaseFault {
  std::string id;
  Verdict verdict = Verdict::crashed;  // crashed or timed_out
  std::string reason;
  double duration_ms = 0;
};

// The one writer of a journal: an exclusive flock on the journal file, held for a whole run (and
// by `run --isolate`'s parent for all its children), so that two runs given one journal (one
// --report) do not truncate, append to and delete each other's. The file is made (with its
// folder) if missing, and removed again if it is still empty when the lock ends.
class JournalLock {
 public:
  // Throws ContractError naming `option` (how the command named the journal, e.g. "--journal")
  // and the path when another process holds the lock or the file cannot be opened or made.
  JournalLock(const std::string& path, const std::string& option);
  ~JournalLock();
  JournalLock(const JournalLock&) = delete;
  JournalLock& operator=(const JournalLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
};

class CaseJournal {
 public:
  // A new journal at `path` (replacing any file there; its folder made if missing) starting with
  // the header line, or, with `append`, more lines at the end of an existing journal of the same
  // run. Takes no lock (JournalLock): it truncates only once open, never on opening.
  CaseJournal(const std::string& path, const JournalHeader& header, bool append);
  ~CaseJournal();
  CaseJournal(const CaseJournal&) = delete;
  CaseJournal& operator=(const CaseJournal&) = delete;

  // One line, in one write: a kill leaves at most the last line cut short. A failed write (a full
  // disk) does not stop the run: the journal closes and error() says why.
  void append(const CaseResult& c);
  void append(const CaseFault& f);
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  bool write_line(const std::string& line);
  void drop_cut_short_line();
  std::string path_;
  std::string error_;
  int fd_ = -1;
};

// Of a case line and a fault line with the same id, the later one counts: a case recorded from a
// fault replaces it, and a fault noted after a case (killed while the case ended) replaces that.
struct JournalContents {
  JournalHeader header;
  std::vector<CaseResult> cases;
  std::vector<CaseFault> faults;
  bool cut_short = false;  // the last line had no newline (a kill mid-write) and was dropped
};

// Throws ContractError naming the file, the line and what is wrong for anything else malformed.
JournalContents read_journal(const std::string& path);

}  // namespace samebits
