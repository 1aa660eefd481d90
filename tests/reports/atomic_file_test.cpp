// write_file_atomically: a whole new file or the old one untouched. Each failure mode must leave an
// earlier report as it was and no temporary file behind.
#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_text.h"
#include "tests/support/text_files.h"

namespace samebits {
// This file's helpers, apart from its neighbours' in a unity build (SAMEBITS_UNITY), and
// visible here as an unnamed namespace's would be.
namespace atomic_file_test_file {}
using namespace atomic_file_test_file;
namespace atomic_file_test_file {

namespace fs = std::filesystem;

using test_support::read_text;
using test_support::write_text;

// Every entry of a folder, by name.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh folder per test, removed afterwards.
class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::path(::testing::TempDir()) /
          (std::string("samebits_atomic_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
  fs::path dir;
};

// A .gz name asks for gzip: the file holds gzip data that unpacks to the content, and nothing
// beside it; any other name gets the bytes as they are.
TEST_F(AtomicFileTest, AGzNameIsWrittenCompressed) {
  if (!writes_gzip()) GTEST_SKIP() << "built without zlib";
  const fs::path target = dir / "report.json.gz";
  const std::string content = "{\"cases\": [" + std::string(10000, ' ') + "]}\n";
  write_file_atomically(target.string(), content);
  const std::string bytes = read_text(target);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  EXPECT_LT(bytes.size(), content.size() / 10);
  EXPECT_EQ(read_file_text(target.string(), "the report"), content);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json.gz"}));
  write_file_atomically(target.string(), "");
  EXPECT_EQ(read_file_text(target.string(), "the report"), "");
}

TEST_F(AtomicFileTest, WritesTheWholeContent) {
  const fs::path target = dir / "report.json";
  write_file_atomically(target.string(), "{\"a\": 1}\n");
  EXPECT_EQ(read_text(target), "{\"a\": 1}\n");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"}));
}

TEST_F(AtomicFileTest, ReplacesAnEarlierFile) {
  const fs::path target = dir / "report.json";
  write_text(target, "old report, longer than the new one");
  write_file_atomically(target.string(), "new");
  EXPECT_EQ(read_text(target), "new");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"}));
}

TEST_F(AtomicFileTest, CreatesMissingFolders) {
  const fs::path target = dir / "a" / "b" / "report.json";
  write_file_atomically(target.string(), "x");
  EXPECT_EQ(read_text(target), "x");
}

TEST_F(AtomicFileTest, TargetIsADirectory) {
  // rename() cannot put a file over a non-empty directory: the write fails after the temporary
  // file was written, which must then be removed.
  const fs::path target = dir / "report.json";
  fs::create_directories(target / "inside");
  EXPECT_THROW(write_file_atomically(target.string(), "new"), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(target / "inside"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"})) << "no temporary file left";
}

TEST_F(AtomicFileTest, TemporaryFileCannotBeCreated) {
  // The temporary name beside the target is taken by a directory: open() fails, even for root.
  const fs::path target = dir / "report.json";
  write_text(target, "earlier report");
  fs::create_directories(target.string() + ".tmp." + std::to_string(::getpid()));
  try {
    write_file_atomically(target.string(), "new");
    FAIL() << "the write must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("report.json"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(target), "earlier report");
}

TEST_F(AtomicFileTest, ParentIsAFile) {
  const fs::path blocker = dir / "not_a_folder";
  write_text(blocker, "a file");
  const fs::path target = blocker / "report.json";
  EXPECT_THROW(write_file_atomically(target.string(), "new"), std::runtime_error);
  EXPECT_EQ(read_text(blocker), "a file");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"not_a_folder"}));
}

TEST_F(AtomicFileTest, FolderNotWritable) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  const fs::path target = dir / "report.json";
  write_text(target, "earlier report");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomically(target.string(), "new"), std::runtime_error);
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(read_text(target), "earlier report");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"}));
}

TEST_F(AtomicFileTest, FileSizeLimitFailsTheWrite) {
  // A child process limited to 4 bytes per file (with SIGXFSZ ignored, write_text() fails with
  // EFBIG) tries to replace a 14-byte report with 1000 bytes; the report must survive, without temp
  // files.
  const fs::path target = dir / "report.json";
  write_text(target, "earlier report");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {4, 4};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 0;
    try {
      write_file_atomically(target.string(), std::string(1000, 'x'));
      code = 1;  // it should have failed
    } catch (const std::runtime_error&) {
      code = 0;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write must throw";
  EXPECT_EQ(read_text(target), "earlier report");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"})) << "no temporary file left";
}

TEST_F(AtomicFileTest, TerminatedMidWriteLeavesNoTemporaryFile) {
  // A child writes 256 MiB over an earlier report; SIGTERM arrives once its temporary file exists.
  // The write finishes first (the signal is deferred), then the child dies of the signal: the new
  // report is whole and no temporary file is left. (Undeferred, the child died mid-write and left
  // report.json.tmp.PID behind.)
  const fs::path target = dir / "report.json";
  write_text(target, "earlier report");
  const std::size_t size = std::size_t{256} << 20;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    write_file_atomically(target.string(), std::string(size, 'x'));
    ::_exit(0);  // reached only if the signal was lost
  }
  const fs::path temp = target.string() + ".tmp." + std::to_string(child);
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    seen = fs::exists(temp);
    if (!seen) ::usleep(100);
  }
  ASSERT_TRUE(seen) << "the child's temporary file never appeared";
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(fs::file_size(target), size) << "the new report, whole";
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"report.json"})) << "no temporary file left";
}

}  // namespace atomic_file_test_file
}  // namespace samebits
