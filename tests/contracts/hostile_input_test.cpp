// Contracts, reports and baselines are untrusted files: absurd nesting, repeated keys, numbers past
// double, devices and FIFOs, oversized files, cut gzip and names the schema forbids are refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/errors.h"
#include "common/file_text.h"
#include "common/json_document.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ContractError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(HostileJson, NestingDeeperThanTheLimitIsRefusedWithoutCrashing) {
  for (const int depth : {kMaxJsonDepth + 1, 100000}) {
    const std::string e = error_of([&] { parse_json_document(nested(depth), "deep.json"); });
    EXPECT_NE(e.find("deep.json: /0/0/0"), std::string::npos) << depth << ": " << e;
    EXPECT_NE(e.find("nested deeper than 64 objects and arrays"), std::string::npos) << e;
  }
  std::string deep_objects;
  for (int i = 0; i < 100000; ++i) deep_objects += "{\"a\":";
  EXPECT_NE(error_of([&] { parse_json_document(deep_objects, "o.json"); }).find("o.json: /a/a/a"),
            std::string::npos);
}

TEST(HostileJson, NestingAtTheLimitParses) {  // the control: the limit itself is accepted
  EXPECT_NO_THROW(parse_json_document(nested(kMaxJsonDepth), "ok.json"));
}

TEST(HostileJson, RepeatedKeyIsRefusedWithItsPath) {
  const std::string e = error_of([] {
    parse_json_document(R"({"checks": [{"kind": "a"}, {"kind": "b", "kind": "c"}]})", "dup.json");
  });
  EXPECT_NE(e.find("dup.json: /checks/1/kind: key \"kind\" appears twice in one object"),
            std::string::npos)
      << e;
}

TEST(HostileJson, SameKeyInTwoObjectsParses) {  // the control
  const Json doc = parse_json_document(R"({"a": {"k": 1}, "b": {"k": 2}, "k": [3]})", "ok.json");
  EXPECT_EQ(doc["b"]["k"], 2);
  EXPECT_EQ(doc["k"][0], 3);
}

TEST(HostileJson, NumberPastDoubleGivesLineAndField) {
  const std::string e =
      error_of([] { parse_json_document("{\n  \"a\": 1,\n  \"tol\": 1e400\n}", "big.json"); });
  EXPECT_NE(e.find("big.json:3:10: /tol: the number 1e400 is out of range"), std::string::npos)
      << e;
  const std::string in_array =
      error_of([] { parse_json_document(R"({"v": [1, 2, -1e999]})", "arr.json"); });
  EXPECT_NE(in_array.find("arr.json:1:14: /v/2: the number -1e999 is out of range"),
            std::string::npos)
      << in_array;
}

class HostileFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("samebits-hostile-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(HostileFileTest, DeviceIsRefusedAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = error_of([] { read_file_text("/dev/zero", "a contract"); });
  EXPECT_NE(e.find("/dev/zero: not a regular file"), std::string::npos) << e;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "it read on";
}

TEST_F(HostileFileTest, FifoIsRefusedWithoutBlocking) {
  const fs::path fifo = dir / "pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string e = error_of([&] { read_file_text(fifo.string(), "a contract"); });
  EXPECT_NE(e.find("pipe.json: not a regular file"), std::string::npos) << e;
}

TEST_F(HostileFileTest, FolderIsRefused) {
  const std::string e = error_of([&] { load_contract_file(dir.string()); });
  EXPECT_NE(e.find(dir.string() + ": is a folder, not a contract"), std::string::npos) << e;
}

TEST_F(HostileFileTest, FileOverTheLimitIsRefused) {
  const fs::path big = dir / "big.json";
  std::ofstream(big) << std::string(2000, ' ') << "{}";
  const std::string e = error_of([&] { read_file_text(big.string(), "the report", 1000); });
  EXPECT_NE(e.find("big.json: 2002 bytes, more than the 1000 bytes accepted for the report"),
            std::string::npos)
      << e;
  EXPECT_EQ(read_file_text(big.string(), "the report", 2002).size(), 2002u) << "the control";
}

// {"a": [1, 2]}\n gzipped by Python's gzip module (mtime 0).
const unsigned char kGzipped[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
                                  0xff, 0xab, 0x56, 0x4a, 0x54, 0xb2, 0x52, 0x88, 0x36,
                                  0xd4, 0x51, 0x30, 0x8a, 0xad, 0xe5, 0x02, 0x00, 0xa1,
                                  0x41, 0x1c, 0xc4, 0x0e, 0x00, 0x00, 0x00};
const std::string kGzippedText = "{\"a\": [1, 2]}\n";

std::string gzipped(std::size_t drop_last = 0) {
  return std::string(reinterpret_cast<const char*>(kGzipped), sizeof kGzipped - drop_last);
}

// gzip is known by its magic bytes: a gzip file named .json was read as text ("malformed JSON
// '<U+001F>'"); plain text named .gz is read as it is (the control).
TEST_F(HostileFileTest, GzipIsKnownByItsBytesWhateverItsName) {
  const fs::path named_json = dir / "baseline.json";
  std::ofstream(named_json, std::ios::binary) << gzipped();
  std::string text;
  try {
    text = read_file_text(named_json.string(), "the baseline");
  } catch (const ContractError& e) {
    if (std::string(e.what()).find("without zlib") != std::string::npos) GTEST_SKIP() << e.what();
    FAIL() << e.what();
  }
  EXPECT_EQ(text, kGzippedText);
  const fs::path named_gz = dir / "plain.json.gz";
  std::ofstream(named_gz) << kGzippedText;
  EXPECT_EQ(read_file_text(named_gz.string(), "the baseline"), kGzippedText);
}

// gzip data cut short (a copy interrupted): refused, not read as the part that unpacks.
TEST_F(HostileFileTest, GzipCutShortIsRefused) {
  const fs::path cut = dir / "cut.json.gz";
  std::ofstream(cut, std::ios::binary) << gzipped(10);
  const std::string e = error_of([&] { read_file_text(cut.string(), "the baseline"); });
  if (e.find("without zlib") != std::string::npos) GTEST_SKIP() << e;
  EXPECT_NE(e.find("cut.json.gz: gzip data cut short"), std::string::npos) << e;
}

// gzip bytes that reach the JSON parser are named as such, not as a stray U+001F.
TEST(HostileJson, GzipBytesAreNamedAsSuch) {
  const std::string e = error_of([] { parse_json_document(gzipped(), "b.json"); });
  EXPECT_NE(e.find("b.json:1:1: malformed JSON: gzip-compressed data"), std::string::npos) << e;
}

TEST(HostileContract, NamesTheSchemaForbidsAreRefused) {
  const std::string body =
      R"("op": "sum", "implementations": ["aten"],
         "checks": [{"kind": "determinism", "expect": {"aten": "holds"}}]})";
  for (const char* name : {"a/b", "", "two\\nlines", "sp ace"}) {
    const std::string e = error_of(
        [&] { parse_contract(std::string("{\"name\": \"") + name + "\", " + body, "c.json"); });
    EXPECT_NE(e.find("c.json: /name: contract name"), std::string::npos) << name << ": " << e;
    EXPECT_NE(e.find("must be letters, digits, '_', '.' or '-'"), std::string::npos) << e;
  }
  EXPECT_EQ(parse_contract(R"({"name": "ok-name_1.x", )" + body, "c.json").name, "ok-name_1.x");
  const std::string from_file =
      error_of([&] { parse_contract("{" + body, "dir/my contract.json"); });
  EXPECT_NE(from_file.find("(the file's name; give a \"name\")"), std::string::npos) << from_file;
}

}  // namespace
}  // namespace samebits
