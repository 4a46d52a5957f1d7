// Found by the lenient_json fuzz target: nlohmann's parser takes a NUL byte for the end of the text, so a file with a
// complete document, a NUL and then anything read as valid JSON. The readers that parse with nlohmann refuse it, at
// the NUL's position (tests/data/fuzz/lenient_json/nul_after_document.json is the fuzzer's input).
#include <string>

#include <gtest/gtest.h>

#include "io/lenient_json.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"

namespace {

using namespace std::string_literals;

template <class Read>
std::string error_of(Read&& read) {
  try {
    read();
  } catch (const ktune::io::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonText, NulByteIsASyntaxError) {
  const std::string text = "{\"a\": 1}\0{\"b\": [}"s;
  EXPECT_EQ(error_of([&] { (void)ktune::io::parse_json_text(text, "f.json"); }),
            "f.json: invalid JSON at byte 9 (line 1, column 9): a NUL byte (not JSON text)");
  EXPECT_EQ(error_of([&] { (void)ktune::io::parse_skipping_cache(text, "f.json"); }),
            "f.json: invalid JSON at byte 9 (line 1, column 9): a NUL byte (not JSON text)");
  // The lenient reader reads the document and sees text after it.
  ktune::io::LenientJsonReader reader(text, "f.json");
  reader.skip_value();
  EXPECT_FALSE(reader.at_end());
  // Escaped, U+0000 is text like any other.
  EXPECT_EQ(ktune::io::parse_json_text(R"({"a": "x\u0000y"})", "f.json")["a"], "x\0y"s);
}

TEST(JsonText, NulInsideTheSkippedCacheEntries) {
  // The entries of a cache file are cut out before nlohmann parses the header; the position maps back.
  const std::string text = "{\"tune_params\": {\"x\": [1]}, \"cache\": {\"1\": \0}}"s;
  EXPECT_EQ(error_of([&] { (void)ktune::io::parse_skipping_cache(text, "c.json"); }),
            "c.json: invalid JSON at byte 44 (line 1, column 44): a NUL byte (not JSON text)");
}

// Found by the kernel_tuner_cache target (tests/data/fuzz/kernel_tuner_cache/invalid_utf8_in_error_message.json): the
// lenient reader keeps a file's bytes as they are, and an error message that showed a value with nlohmann's dump()
// threw nlohmann's type_error 316 (invalid UTF-8) instead of the InputError.
TEST(JsonText, ErrorMessagesShowInvalidUtf8AsReplacementCharacters) {
  const std::string cache = "{\"tune_params\": {\"x\": \"caf\xe9\"}, \"cache\": {}}";
  EXPECT_EQ(error_of([&] { (void)ktune::io::parse_kernel_tuner_cache(cache, "c.json"); }),
            "c.json: tune_params.x: parameter 'x': expected a list of values, got \"caf\xef\xbf\xbd\"");
  const std::string objective = "{\"tune_params\": {\"x\": [1]}, \"objective\": [\"\xff\", 1], \"cache\": {}}";
  EXPECT_EQ(error_of([&] { (void)ktune::io::parse_kernel_tuner_cache(objective, "c.json"); }),
            "c.json: objective: expected a string or a list of strings, got [\"\xef\xbf\xbd\",1]");
}

TEST(JsonText, ErrorMessagesShowLongValuesCut) {
  std::string expected = "[";
  while (expected.size() < 200) expected += "7,";
  expected.resize(200);
  EXPECT_EQ(ktune::io::json_for_message(nlohmann::json(std::vector<int>(1000, 7))), expected + "...");
  // Never inside a UTF-8 sequence: byte 200 is the second byte of the 99th 'é' after '"aa', so the cut is before it.
  std::string text = "aa";
  for (int i = 0; i < 150; ++i) text += "\xc3\xa9";
  std::string cut = "\"aa";
  for (int i = 0; i < 98; ++i) cut += "\xc3\xa9";
  EXPECT_EQ(ktune::io::json_for_message(nlohmann::json(text)), cut + "...");
}

}  // namespace
