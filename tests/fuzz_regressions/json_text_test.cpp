// Found by the lenient_json fuzz target: nlohmann's parser takes a NUL byte for the end of the text, so a file with a
// complete document, a NUL and then anything read as valid JSON. The readers that parse with nlohmann refuse it, at
// the NUL's position (tests/data/fuzz/lenient_json/nul_after_document.json is the fuzzer's input).
#include <string>

#include <gtest/gtest.h>

#include "io/lenient_json.hpp"
#include "ktune/io/cache_reader.hpp"
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

}  // namespace
