#include "io/lenient_json.hpp"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;

// The value of member "v" of a one-member object.
Value value_of(const std::string& text) {
  LenientJsonReader reader(text, "t.json");
  Value v;
  reader.read_object([&](std::string_view key) {
    EXPECT_EQ(key, "v");
    v = reader.read_value();
  });
  EXPECT_TRUE(reader.at_end());
  return v;
}

nlohmann::json json_of(const std::string& text) {
  LenientJsonReader reader(text, "t.json");
  nlohmann::json j = reader.read_json();
  EXPECT_TRUE(reader.at_end());
  return j;
}

TEST(LenientJson, NumbersKeepIntegersApartFromFloats) {
  const Value v = value_of(R"({"v": [1, -2, 0, 3.5, 1e3, -0.0, 2E-2, 9223372036854775807, -9223372036854775808]})");
  const auto& list = v.as_list();
  ASSERT_EQ(list.size(), 9u);
  EXPECT_TRUE(list[0].is_int() && list[0].as_int() == 1);
  EXPECT_TRUE(list[1].is_int() && list[1].as_int() == -2);
  EXPECT_TRUE(list[2].is_int() && list[2].as_int() == 0);
  EXPECT_TRUE(list[3].is_float() && list[3].as_float() == 3.5);
  EXPECT_TRUE(list[4].is_float() && list[4].as_float() == 1000.0);  // Python: 1e3 is a float
  EXPECT_TRUE(list[5].is_float() && std::signbit(list[5].as_float()));
  EXPECT_TRUE(list[6].is_float() && list[6].as_float() == 0.02);
  EXPECT_EQ(list[7].as_int(), INT64_MAX);
  EXPECT_EQ(list[8].as_int(), INT64_MIN);
}

TEST(LenientJson, OutOfRangeNumbersBecomeFloatsAsInPython) {
  const Value v = value_of(R"({"v": [9223372036854775808, 1e400, -1e400, 1e-400, 5e-324]})");
  const auto& list = v.as_list();
  EXPECT_TRUE(list[0].is_float() && list[0].as_float() == 9223372036854775808.0);
  EXPECT_EQ(list[1].as_float(), INFINITY);
  EXPECT_EQ(list[2].as_float(), -INFINITY);
  EXPECT_EQ(list[3].as_float(), 0.0);
  EXPECT_EQ(list[4].as_float(), 5e-324);
}

TEST(LenientJson, PythonNonFiniteNumbers) {
  const Value v = value_of(R"({"v": [NaN, Infinity, -Infinity]})");
  const auto& list = v.as_list();
  EXPECT_TRUE(std::isnan(list[0].as_float()));
  EXPECT_EQ(list[1].as_float(), INFINITY);
  EXPECT_EQ(list[2].as_float(), -INFINITY);
  const nlohmann::json j = json_of(R"({"a": NaN, "b": [-Infinity]})");
  EXPECT_TRUE(std::isnan(j["a"].get<double>()));
  EXPECT_EQ(j["b"][0].get<double>(), -INFINITY);
}

TEST(LenientJson, StringEscapes) {
  const Value v = value_of(R"({"v": "q\" b\\ s\/ \b\f\n\r\t \u00e9 \u20ac \ud83d\ude00 \ud800x"})");
  EXPECT_EQ(v.as_string(), "q\" b\\ s/ \b\f\n\r\t \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xED\xA0\x80x");
  // Keys with escapes stay valid while the member's value (another escaped string) is read.
  const std::string text = R"({"k\u0041": "v\u0042"})";
  LenientJsonReader reader(text, "t.json");
  reader.read_object([&](std::string_view key) {
    const std::string_view value = reader.read_string();
    EXPECT_EQ(key, "kA");
    EXPECT_EQ(value, "vB");
  });
}

TEST(LenientJson, ReadJsonBuildsTheWholeValue) {
  const nlohmann::json j = json_of(R"( {"a": [1, 2.5, "x", true, false, null, {"b": {}}], "c": []} )");
  EXPECT_EQ(j, nlohmann::json::parse(R"({"a": [1, 2.5, "x", true, false, null, {"b": {}}], "c": []})"));
  EXPECT_TRUE(j["a"][0].is_number_integer());
  EXPECT_TRUE(j["a"][1].is_number_float());
}

TEST(LenientJson, SyntaxErrorsGivePosition) {
  const auto error = [](const std::string& text) {
    return error_of<InputError>([&] {
      LenientJsonReader reader(text, "bad.json");
      (void)reader.read_json();
      if (!reader.at_end()) reader.syntax_error("unexpected text after the JSON document");
    });
  };
  std::string e = error("{\"a\": 1\n \"b\": 2}");
  EXPECT_CONTAINS(e, "bad.json: ");
  EXPECT_CONTAINS(e, "byte 10 (line 2, column 2)");
  EXPECT_CONTAINS(e, "expected ',' or '}'");
  EXPECT_CONTAINS(error(R"({"a": tru })"), "byte 7");
  EXPECT_CONTAINS(error(R"({"a": 01})"), "byte 8");
  EXPECT_CONTAINS(error(R"({"a": 1.})"), "expected a digit after '.'");
  EXPECT_CONTAINS(error(R"({"a": 1e+})"), "expected a digit in the exponent");
  EXPECT_CONTAINS(error(R"({"a": "x\q"})"), "invalid escape");
  EXPECT_CONTAINS(error(R"({"a": "\u12G4"})"), "four hex digits");
  EXPECT_CONTAINS(error("{\"a\": \"x\ty\"}"), "control character");
  EXPECT_CONTAINS(error(R"({"a": [1,]})"), "expected a value");
  EXPECT_CONTAINS(error(R"({"a": -NaN})"), "expected a value");
  EXPECT_CONTAINS(error(R"({"a": +1})"), "expected a value");
  EXPECT_CONTAINS(error(R"({a: 1})"), "expected a string as object key");
  EXPECT_CONTAINS(error(R"({"a": 1} x)"), "unexpected text");
  EXPECT_CONTAINS(error(R"({"a" 1})"), "expected ':'");
}

TEST(LenientJson, EveryCutOfAValidDocumentIsEndOfInputNotASyntaxError) {
  const std::string text = R"({"k\"ey": [1, -2.5e-3, 0, NaN, -Infinity, Infinity, true, false, null],
 "s": "a\u00e9\ud83d\ude00\n", "o": {"x": {}, "y": []}, "n": -0.0, "big": 12345678901234567890})";
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    const std::string prefix = text.substr(0, cut);
    LenientJsonReader reader(prefix, "cut.json");
    EXPECT_THROW((void)reader.read_json(), EndOfInput) << "cut at " << cut << ": " << prefix;
    LenientJsonReader skipper(prefix, "cut.json");
    EXPECT_THROW(skipper.skip_value(), EndOfInput) << "cut at " << cut;
  }
  EXPECT_NO_THROW((void)json_of(text));
}

TEST(LenientJson, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)json_of(deep); }), "nesting deeper than 512");
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)value_of("{\"v\": " + deep + "}"); }), "nesting deeper");
  LenientJsonReader reader(deep, "deep.json");
  EXPECT_THROW(reader.skip_value(), InputError);
  const std::string ok = std::string(500, '[') + std::string(500, ']');
  EXPECT_NO_THROW((void)json_of(ok));
}

TEST(LenientJson, ObjectsAreNotValues) {
  const std::string text = R"([1, {"a": 2}])";
  LenientJsonReader reader(text, "t.json");
  try {
    (void)reader.read_value();
    ADD_FAILURE() << "no NotAValue";
  } catch (const NotAValue& e) {
    EXPECT_EQ(e.position, 4u);
  }
}

}  // namespace
}  // namespace ktune::io
