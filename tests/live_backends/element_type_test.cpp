#include "ktune/live/element_type.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ktune::live {
namespace {

TEST(ElementType, SizesMatchTheCTypes) {
  EXPECT_EQ(element_size(ElementType::int8), 1u);
  EXPECT_EQ(element_size(ElementType::boolean), 1u);
  EXPECT_EQ(element_size(ElementType::uint16), 2u);
  EXPECT_EQ(element_size(ElementType::float16), 2u);
  EXPECT_EQ(element_size(ElementType::int32), sizeof(int));
  EXPECT_EQ(element_size(ElementType::float32), sizeof(float));
  EXPECT_EQ(element_size(ElementType::float64), sizeof(double));
  EXPECT_EQ(element_size(ElementType::uint64), 8u);
}

TEST(ElementType, ParsesT1AndCSpellings) {
  EXPECT_EQ(parse_element_type("int"), ElementType::int32);
  EXPECT_EQ(parse_element_type("int32"), ElementType::int32);
  EXPECT_EQ(parse_element_type("uint64"), ElementType::uint64);
  EXPECT_EQ(parse_element_type("half"), ElementType::float16);
  EXPECT_EQ(parse_element_type("float16"), ElementType::float16);
  EXPECT_EQ(parse_element_type("float"), ElementType::float32);
  EXPECT_EQ(parse_element_type("float64"), ElementType::float64);
  EXPECT_EQ(parse_element_type("bool"), ElementType::boolean);
  EXPECT_FALSE(parse_element_type("float4").has_value());  // vector types are not supported
  EXPECT_FALSE(parse_element_type("Float").has_value());
  EXPECT_FALSE(parse_element_type("").has_value());
}

TEST(ElementType, EveryTypeRoundTripsThroughItsName) {
  for (int t = 0; t <= static_cast<int>(ElementType::boolean); ++t) {
    const auto type = static_cast<ElementType>(t);
    EXPECT_EQ(parse_element_type(to_string(type)), type) << to_string(type);
    EXPECT_FALSE(c_type_name(type).empty());
  }
  EXPECT_EQ(is_floating(ElementType::float16), true);
  EXPECT_EQ(is_floating(ElementType::float64), true);
  EXPECT_EQ(is_floating(ElementType::int64), false);
  EXPECT_EQ(c_type_name(ElementType::uint32), "unsigned int");
  EXPECT_EQ(c_type_name(ElementType::int64), "long");
}

}  // namespace
}  // namespace ktune::live
