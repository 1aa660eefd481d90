// Malformed JSON: the message is "file:line:column: malformed JSON: ...", with the line and column
// (both from 1) of the character where parsing failed, counted by hand in each text below.
#include "common/json_document.h"

#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "contracts/contract.h"

namespace samebits {
namespace {

struct MalformedJson {
  std::string name;
  std::string text;
  std::size_t line;
  std::size_t column;
};
void PrintTo(const MalformedJson& p, std::ostream* os) {
  *os << p.name;
}

class MalformedJsonTest : public ::testing::TestWithParam<MalformedJson> {};

TEST_P(MalformedJsonTest, MessageHasFileLineAndColumn) {
  const MalformedJson& bad = GetParam();
  const std::string where = "dir/broken.json:" + std::to_string(bad.line) + ":" +
                            std::to_string(bad.column) + ": malformed JSON: ";
  try {
    parse_contract(bad.text, "dir/broken.json");
    FAIL() << "parsed without error";
  } catch (const ContractError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u)
        << "expected the message to start with \"" << where << "\", got: " << e.what();
  }
}

const MalformedJson kMalformed[] = {
    // Line 3 is three spaces and '@': the stray character is at column 4.
    {"StrayCharacter", "{\n  \"op\": \"sum\",\n   @\n}", 3, 4},
    // Line 2 is `"a": [1, 2,]`: the ']' after the trailing comma is column 12.
    {"TrailingComma", "{\n\"a\": [1, 2,]\n}", 2, 12},
    // The text ends after line 2's newline: the end of input is line 3, column 1.
    {"Truncated", "{\n  \"op\": \"sum\",\n", 3, 1},
    // `tru}`: the lexer fails on '}' after "tru", the 10th character of line 1.
    {"BadLiteral", "{\"a\": tru}", 1, 10},
    // After the complete value {"a":1}, 'x' (column 8) is unexpected.
    {"TextAfterTheDocument", "{\"a\":1}x", 1, 8},
    // A missing comma: the unexpected token "checks" spans columns 3-10 of line 4; the lexer
    // reports its last character.
    {"MissingComma",
     "{\n  \"op\": \"sum\",\n  \"implementations\": [\"aten\"]\n  \"checks\": []\n}", 4, 10},
    {"Empty", "", 1, 1},
};

INSTANTIATE_TEST_SUITE_P(Parser, MalformedJsonTest, ::testing::ValuesIn(kMalformed),
                         [](const ::testing::TestParamInfo<MalformedJson>& info) {
                           return info.param.name;
                         });

struct Offset {
  std::string name;
  std::string text;
  std::size_t byte_offset;
  std::size_t line;
  std::size_t column;
};
void PrintTo(const Offset& p, std::ostream* os) {
  *os << p.name;
}

class PositionOfTest : public ::testing::TestWithParam<Offset> {};

TEST_P(PositionOfTest, CountsLinesAndColumnsFromOne) {
  const Offset& o = GetParam();
  const TextPosition pos = position_of(o.text, o.byte_offset);
  EXPECT_EQ(pos.line, o.line) << "offset " << o.byte_offset;
  EXPECT_EQ(pos.column, o.column) << "offset " << o.byte_offset;
}

const Offset kOffsets[] = {
    {"StartOfText", "abc", 0, 1, 1},
    {"MiddleOfFirstLine", "abc", 2, 1, 3},
    {"CharacterAfterANewline", "ab\ncd", 3, 2, 1},
    {"TheNewlineItself", "ab\ncd", 2, 1, 3},
    {"ThirdLine", "a\n\nxyz", 5, 3, 3},
    {"PastTheEndClampsToTheEnd", "ab\nc", 99, 2, 2},
};

INSTANTIATE_TEST_SUITE_P(Json, PositionOfTest, ::testing::ValuesIn(kOffsets),
                         [](const ::testing::TestParamInfo<Offset>& info) {
                           return info.param.name;
                         });

TEST(JsonDocument, KeepsKeyOrder) {
  const Json doc = parse_json_document(R"({"z": 1, "a": 2, "m": 3})", "x.json");
  std::string keys;
  for (const auto& item : doc.items()) keys += item.key();
  EXPECT_EQ(keys, "zam");
}

TEST(JsonDocument, CommentsAreNotJson) {
  EXPECT_THROW(parse_json_document("{\"a\": 1 // no\n}", "x.json"), ContractError);
}

}  // namespace
}  // namespace samebits
