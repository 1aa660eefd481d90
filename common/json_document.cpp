// Parses JSON text into an ordered document, turning syntax errors into file:line:column messages.
// nlohmann reports a byte offset; people read lines and columns.
#include "common/json_document.h"

#include <fmt/format.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "common/errors.h"
#include "common/file_text.h"

namespace samebits {

TextPosition position_of(const std::string& text, std::size_t byte_offset) {
  TextPosition pos;
  const std::size_t end = std::min(byte_offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

namespace {

// Where the parser is: one frame per open object or array, for the JSON path of an error.
struct Frame {
  bool object = false;
  std::string key;                       // objects: the key being read
  std::size_t index = 0;                 // arrays: the element being read
  std::unordered_set<std::string> keys;  // objects: the keys seen, to refuse a repeated one
};

std::string pointer_of(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& f : frames) {
    if (!f.object) {
      path += "/" + std::to_string(f.index);
      continue;
    }
    path += '/';
    for (const char c : f.key)
      path += c == '~' ? std::string("~0") : c == '/' ? "~1" : std::string(1, c);
  }
  return path.empty() ? "/" : path;
}

}  // namespace

Json parse_json_document(const std::string& text, const std::string& file) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<Frame> frames;
  const auto element_done = [&frames] {
    if (!frames.empty() && !frames.back().object) ++frames.back().index;
  };
  // The parser calls back at each object, array, key and value (depth: the containers open),
  // so nesting and repeated keys are refused as they are met, before the document is built.
  const Json::parser_callback_t check = [&](int depth, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (depth >= kMaxJsonDepth) {
          throw ContractError(fmt::format("{}: {}: nested deeper than {} objects and arrays", file,
                                          pointer_of(frames), kMaxJsonDepth));
        }
        frames.push_back(Frame{event == Event::object_start, {}, 0, {}});
        break;
      case Event::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          throw ContractError(
              fmt::format("{}: {}: key \"{}\" appears twice in one object (each "
                          "key may appear once)",
                          file, pointer_of(frames), f.key));
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames.pop_back();
        element_done();
        break;
      case Event::value: element_done(); break;
    }
    return true;
  };
  try {
    return Json::parse(text, check, /*allow_exceptions=*/true, /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    if (is_gzip_magic(text)) {
      throw ContractError(fmt::format(
          "{}:1:1: malformed JSON: gzip-compressed data (it starts with gzip's bytes 1f 8b), not "
          "JSON text; gunzip it",
          file));
    }
    // e.byte is 1-based and points one past the offending character.
    const TextPosition pos = position_of(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    const auto colon = what.find(": ", what.find("parse error"));
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    throw ContractError(
        fmt::format("{}:{}:{}: malformed JSON: {}", file, pos.line, pos.column, detail));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range ("number overflow parsing '1e400'"): nlohmann gives no
    // offset, so the literal's first appearance in the text stands for it.
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    const std::string literal =
        open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const TextPosition pos = position_of(text, literal.empty() ? 0 : text.find(literal));
    throw ContractError(fmt::format(
        "{}:{}:{}: {}: the number {} is out of range (accepted: numbers within +-1.7e308)", file,
        pos.line, pos.column, pointer_of(frames), literal));
  }
}

void throw_contract_error(const std::string& file, const std::string& json_path,
                          const std::string& message) {
  throw ContractError(
      fmt::format("{}: {}: {}", file, json_path.empty() ? "/" : json_path, message));
}

}  // namespace samebits
