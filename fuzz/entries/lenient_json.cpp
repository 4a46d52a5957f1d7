// Fuzz target "lenient_json": the pull parser under the results readers (LenientJsonReader). Its contract:
//  - syntax errors are io::InputError naming the source; running out of text is EndOfInput; read_value() meets an
//    object as NotAValue; nothing else escapes;
//  - read_json, skip_value and read_value (where no object is involved) end at the same position;
//  - on strict JSON that nlohmann::json accepts (an object or array), read_json gives the same document;
//  - every text cut short inside a value it reads raises EndOfInput (never a syntax error), which is how the readers
//    keep the complete part of a file an interrupted run left behind.
#include <string>

#include <nlohmann/json.hpp>

#include "io/lenient_json.hpp"
#include "ktune/io/input_error.hpp"
#include "fuzz_entries.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;

const std::string kSource = "fuzz/lenient.json";

enum class Outcome { Read, Syntax, End, Object };

struct Result {
  Outcome outcome = Outcome::Read;
  std::size_t end = 0;  // the position after the value (Read)
  nlohmann::json json;  // read_json's document (Read)
};

template <class F>
Result attempt(const std::string& text, F&& read) {
  io::LenientJsonReader reader(text, kSource);
  Result r;
  try {
    read(reader, r);
    r.end = reader.position();
  } catch (const io::InputError& e) {
    check(e.file() == kSource, "InputError names '" + e.file() + "', not the source: " + e.what());
    r.outcome = Outcome::Syntax;
  } catch (const io::EndOfInput&) {
    r.outcome = Outcome::End;
  } catch (const io::NotAValue& e) {
    check(e.position < text.size() && text[e.position] == '{', "NotAValue not at an object");
    r.outcome = Outcome::Object;
  }
  return r;
}

// nlohmann compares numbers across integer and float; NaN cannot come from strict JSON.
bool same_document(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_document(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      const auto other = b.find(it.key());
      if (other == b.end() || !same_document(*it, *other)) return false;
    }
    return true;
  }
  return a == b;
}

std::size_t depth_of(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  for (const char c : text) {
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

}  // namespace

int ktune_fuzz_lenient_json(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  const Result json = attempt(text, [](io::LenientJsonReader& r, Result& out) { out.json = r.read_json(); });
  const Result skip = attempt(text, [](io::LenientJsonReader& r, Result&) { r.skip_value(); });
  const Result value = attempt(text, [](io::LenientJsonReader& r, Result&) { (void)r.read_value(); });
  (void)attempt(text, [](io::LenientJsonReader& r, Result&) {
    r.expect_top_level_object();
    r.read_object([&](std::string_view) { r.skip_value(); });
    (void)r.at_end();
  });
  (void)attempt(text, [](io::LenientJsonReader& r, Result&) { r.read_array([&] { (void)r.read_number(); }); });

  check(json.outcome == skip.outcome && json.end == skip.end,
        "read_json and skip_value disagree (outcomes " + std::to_string(static_cast<int>(json.outcome)) + "/" +
            std::to_string(static_cast<int>(skip.outcome)) + ", ends " + std::to_string(json.end) + "/" +
            std::to_string(skip.end) + ")");
  if (value.outcome != Outcome::Object && (json.outcome == Outcome::Read || value.outcome == Outcome::Read) &&
      text.find('{') == std::string::npos)
    check(value.outcome == json.outcome && value.end == json.end, "read_value and read_json disagree");

  // Strict JSON: the same document as nlohmann's (objects and arrays, as the readers' documents are; nlohmann
  // rejects invalid UTF-8 and lone surrogates, which the lenient reader keeps; deeper than its limit is refused;
  // nlohmann takes a NUL byte for the end of the text, which the library checks before it parses with nlohmann).
  const nlohmann::json strict = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!strict.is_discarded() && (strict.is_object() || strict.is_array()) && depth_of(text) < 500 &&
      text.find('\0') == std::string::npos) {
    check(json.outcome == Outcome::Read, "strict JSON that the lenient reader does not read");
    check(same_document(json.json, strict), "a different document than nlohmann's: " + json.json.dump(-1, ' ', false,
          nlohmann::json::error_handler_t::replace) + " vs " + strict.dump());
    io::LenientJsonReader reader(text, kSource);
    reader.skip_value();
    check(reader.at_end(), "text left after the document");
  }

  // Cut short inside the value: EndOfInput, whatever the cut.
  if (json.outcome == Outcome::Read && json.end > 0) {
    for (const std::size_t cut : {json.end - 1, json.end / 2, (size * 7919) % json.end}) {
      const std::string prefix = text.substr(0, cut);
      const Result r = attempt(prefix, [](io::LenientJsonReader& reader, Result& out) { out.json = reader.read_json(); });
      check(r.outcome == Outcome::End, "text cut at byte " + std::to_string(cut) + " of a value ending at " +
                                           std::to_string(json.end) + " gives outcome " +
                                           std::to_string(static_cast<int>(r.outcome)) + ", not EndOfInput");
    }
  }
  return 0;
}
