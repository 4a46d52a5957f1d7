// Value: Python truthiness, ==, repr/str and type names.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ktune/value.hpp"

namespace {

using ktune::Value;

TEST(Value, TypesAndAccessors) {
  EXPECT_TRUE(Value().is_none());
  EXPECT_TRUE(Value(true).is_bool());
  EXPECT_TRUE(Value(3).is_int());
  EXPECT_TRUE(Value(std::int64_t{3}).is_int());
  EXPECT_TRUE(Value(3.0).is_float());
  EXPECT_TRUE(Value("x").is_string());
  EXPECT_TRUE(Value(Value::List{}).is_list());
  EXPECT_TRUE(Value(true).is_numeric());
  EXPECT_FALSE(Value("1").is_numeric());
  EXPECT_EQ(Value(true).to_double(), 1.0);
  EXPECT_EQ(Value(7).to_double(), 7.0);
}

TEST(Value, Truthiness) {
  EXPECT_FALSE(Value().truthy());
  EXPECT_FALSE(Value(0).truthy());
  EXPECT_FALSE(Value(0.0).truthy());
  EXPECT_FALSE(Value(-0.0).truthy());
  EXPECT_FALSE(Value("").truthy());
  EXPECT_FALSE(Value(Value::List{}).truthy());
  EXPECT_FALSE(Value(false).truthy());
  EXPECT_TRUE(Value(std::nan("")).truthy());
  EXPECT_TRUE(Value("0").truthy());
  EXPECT_TRUE(Value(Value::List{Value(0)}).truthy());
  EXPECT_TRUE(Value(-1).truthy());
}

TEST(Value, PythonEquality) {
  using ktune::python_equal;
  EXPECT_TRUE(python_equal(Value(true), Value(1)));
  EXPECT_TRUE(python_equal(Value(1), Value(1.0)));
  EXPECT_TRUE(python_equal(Value(true), Value(1.0)));
  EXPECT_FALSE(python_equal(Value(1), Value("1")));
  EXPECT_FALSE(python_equal(Value(), Value(0)));
  EXPECT_TRUE(python_equal(Value(), Value()));
  EXPECT_FALSE(python_equal(Value(std::nan("")), Value(std::nan(""))));
  // int vs float compares exactly, without rounding the int.
  EXPECT_FALSE(python_equal(Value(std::int64_t{9007199254740993}), Value(9007199254740992.0)));
  EXPECT_TRUE(python_equal(Value(std::int64_t{9007199254740992}), Value(9007199254740992.0)));
  EXPECT_FALSE(python_equal(Value(std::numeric_limits<std::int64_t>::max()), Value(9223372036854775808.0)));
  EXPECT_TRUE(python_equal(Value(Value::List{Value(1), Value("a")}), Value(Value::List{Value(1.0), Value("a")})));
  EXPECT_FALSE(python_equal(Value(Value::List{Value(1)}), Value(Value::List{Value(1), Value(2)})));
}

TEST(Value, SameValueKeepsTypesApart) {
  using ktune::same_value;
  EXPECT_FALSE(same_value(Value(1), Value(1.0)));
  EXPECT_FALSE(same_value(Value(true), Value(1)));
  EXPECT_TRUE(same_value(Value(2.5), Value(2.5)));
  EXPECT_TRUE(same_value(Value(std::nan("")), Value(std::nan(""))));
  EXPECT_TRUE(same_value(Value("a"), Value("a")));
  EXPECT_TRUE(same_value(Value(Value::List{Value(1)}), Value(Value::List{Value(1)})));
  EXPECT_FALSE(same_value(Value(Value::List{Value(1)}), Value(Value::List{Value(1.0)})));
}

TEST(Value, ReprAndStr) {
  EXPECT_EQ(Value().repr(), "None");
  EXPECT_EQ(Value(true).repr(), "True");
  EXPECT_EQ(Value(false).repr(), "False");
  EXPECT_EQ(Value(-12).repr(), "-12");
  EXPECT_EQ(Value(1.0).repr(), "1.0");
  EXPECT_EQ(Value(1e-5).repr(), "1e-05");
  EXPECT_EQ(Value(1e16).repr(), "1e+16");
  EXPECT_EQ(Value(1.5e300).repr(), "1.5e+300");
  EXPECT_EQ(Value(-0.0).repr(), "-0.0");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()).repr(), "inf");
  EXPECT_EQ(Value(-std::numeric_limits<double>::infinity()).repr(), "-inf");
  EXPECT_EQ(Value("abc").repr(), "'abc'");
  EXPECT_EQ(Value("it's").repr(), "\"it's\"");
  EXPECT_EQ(Value("both ' and \"").repr(), "'both \\' and \"'");
  EXPECT_EQ(Value("a\nb\\").repr(), "'a\\nb\\\\'");
  EXPECT_EQ(Value(std::string("\x01", 1)).repr(), "'\\x01'");
  EXPECT_EQ(Value(Value::List{Value(1), Value("a"), Value(2.5), Value(Value::List{})}).repr(), "[1, 'a', 2.5, []]");
  EXPECT_EQ(Value("abc").str(), "abc");
  EXPECT_EQ(Value(Value::List{Value("a")}).str(), "['a']");
  EXPECT_EQ(Value(0.1).str(), "0.1");
}

TEST(Value, TypeNames) {
  EXPECT_EQ(Value().type_name(), "NoneType");
  EXPECT_EQ(Value(true).type_name(), "bool");
  EXPECT_EQ(Value(1).type_name(), "int");
  EXPECT_EQ(Value(1.0).type_name(), "float");
  EXPECT_EQ(Value("").type_name(), "str");
  EXPECT_EQ(Value(Value::List{}).type_name(), "list");
}

}  // namespace
