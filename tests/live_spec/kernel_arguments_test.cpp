// make_arguments: sizes, fills (deterministic by seed), scalars, half storage, file data and its errors.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "temp_files.hpp"

namespace ktune::live {
namespace {

using ktune::testing::error_of;
using ktune::testing::write_temp;

ArgumentSpecification vector(const std::string& name, ElementType type, const std::string& size, Fill fill) {
  ArgumentSpecification a;
  a.name = name;
  a.type = type;
  a.size = size;
  a.fill = fill;
  return a;
}

template <class T>
T at(const KernelArgument& a, std::size_t i) {
  T v;
  std::memcpy(&v, a.bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

const Problem kProblem = ProblemBuilder()
                             .parameter("filter_width", {3, 5, 7})
                             .parameter("block_size_x", {32})
                             .constant("n", 1000)
                             .build();

TEST(KernelArguments, SizesFromConstantsProblemSizeAndParameterLists) {
  KernelSpecification spec;
  spec.problem_size = {"n", "20", "1"};
  spec.arguments = {vector("a", ElementType::float32, "n", Fill::zeros),
                    vector("b", ElementType::float64, "ProblemSize[0] * ProblemSize[1]", Fill::zeros),
                    vector("c", ElementType::int16, "problem_size_y + max(filter_width) - 1", Fill::zeros)};
  const auto args = make_arguments(spec, kProblem);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].count(), 1000u);
  EXPECT_EQ(args[0].bytes.size(), 4000u);
  EXPECT_EQ(args[1].count(), 20000u);
  EXPECT_EQ(args[2].count(), 26u);  // 20 + 7 - 1
  EXPECT_EQ(args[2].bytes.size(), 52u);
  for (const auto& a : args)
    for (std::byte b : a.bytes) ASSERT_EQ(b, std::byte{0});
}

TEST(KernelArguments, ConstantFillAndScalarsUseTheElementType) {
  KernelSpecification spec;
  ArgumentSpecification c = vector("c", ElementType::int32, "5", Fill::constant);
  c.fill_value = -3;
  ArgumentSpecification h = vector("h", ElementType::float16, "3", Fill::constant);
  h.fill_value = 1.5;
  ArgumentSpecification s;
  s.name = "n";
  s.type = ElementType::uint8;
  s.scalar = true;
  s.fill_value = 300;  // saturates
  ArgumentSpecification d;
  d.name = "alpha";
  d.type = ElementType::float64;
  d.scalar = true;
  d.fill_value = 0.1;
  spec.arguments = {c, h, s, d};
  const auto args = make_arguments(spec, kProblem);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(at<std::int32_t>(args[0], i), -3);
  EXPECT_EQ(args[1].bytes.size(), 6u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(at<std::uint16_t>(args[1], i), 0x3e00u);  // 1.5 in binary16
  EXPECT_TRUE(args[2].scalar);
  ASSERT_EQ(args[2].bytes.size(), 1u);
  EXPECT_EQ(at<std::uint8_t>(args[2], 0), 255);
  EXPECT_EQ(at<double>(args[3], 0), 0.1);
}

TEST(KernelArguments, RandomFillIsDeterministicBySeedAndDiffersBySeed) {
  KernelSpecification spec;
  ArgumentSpecification a = vector("a", ElementType::float32, "10000", Fill::random);
  ArgumentSpecification b = a;
  b.name = "b";
  ArgumentSpecification c = a;
  c.name = "c";
  c.seed = 7;
  ArgumentSpecification i = vector("i", ElementType::int32, "10000", Fill::random);
  i.seed = 7;
  spec.arguments = {a, b, c, i};
  const auto first = make_arguments(spec, kProblem);
  const auto second = make_arguments(spec, kProblem);
  EXPECT_EQ(first[0].bytes, second[0].bytes);
  EXPECT_EQ(first[0].bytes, first[1].bytes);  // same seed, same data
  EXPECT_NE(first[0].bytes, first[2].bytes);  // another seed, other data
  double sum = 0;
  for (std::size_t k = 0; k < 10000; ++k) {
    const float v = at<float>(first[2], k);
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);  // uniform in [0, 1)
  std::array<int, 100> seen{};
  for (std::size_t k = 0; k < 10000; ++k) {
    const std::int32_t v = at<std::int32_t>(first[3], k);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 100);
    ++seen[static_cast<std::size_t>(v)];
  }
  for (int count : seen) EXPECT_GT(count, 50);  // every value of [0, 100) occurs
}

TEST(KernelArguments, FileFillReadsRawElementsAndChecksTheSize) {
  std::string data(3 * sizeof(float), '\0');
  const float values[3] = {1.25f, -2.0f, 1e-3f};
  std::memcpy(data.data(), values, sizeof values);
  KernelSpecification spec;
  ArgumentSpecification a = vector("a", ElementType::float32, "3", Fill::file);
  a.data_file = write_temp("three_floats.bin", data);
  spec.arguments = {a};
  const auto args = make_arguments(spec, kProblem);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(at<float>(args[0], i), values[i]);

  spec.arguments[0].size = "4";
  const std::string e = error_of<io::InputError>([&] { (void)make_arguments(spec, kProblem); });
  EXPECT_CONTAINS(e, "three_floats.bin");
  EXPECT_CONTAINS(e, "argument 'a' needs 4 float elements (16 bytes), the file has 12 bytes");

  spec.arguments[0].data_file = (ktune::testing::temp_dir() / "missing.bin").string();
  const std::string missing = error_of<io::InputError>([&] { (void)make_arguments(spec, kProblem); });
  EXPECT_CONTAINS(missing, "missing.bin");
  EXPECT_CONTAINS(missing, "argument 'a'");
}

TEST(KernelArguments, LocalMemoryHasItsSizeAndNoContents) {
  KernelSpecification spec;
  ArgumentSpecification l = vector("tile", ElementType::float64, "16 * 16", Fill::random);
  l.local_memory = true;
  spec.arguments = {l};
  const auto args = make_arguments(spec, kProblem);
  EXPECT_TRUE(args[0].local_memory);
  EXPECT_EQ(args[0].bytes.size(), 256u * 8u);
  EXPECT_FALSE(args[0].is_output());
}

TEST(KernelArguments, SizeErrorsNameTheArgument) {
  KernelSpecification spec;
  spec.arguments = {vector("a", ElementType::float32, "n / 3", Fill::zeros)};
  std::string e = error_of<std::invalid_argument>([&] { (void)make_arguments(spec, kProblem); });
  EXPECT_CONTAINS(e, "argument 'a': size");
  EXPECT_CONTAINS(e, "not an integer size");
  spec.arguments = {vector("a", ElementType::float32, "m", Fill::zeros)};
  e = error_of<std::invalid_argument>([&] { (void)make_arguments(spec, kProblem); });
  EXPECT_CONTAINS(e, "unknown name 'm'");
  spec.arguments = {vector("a", ElementType::float32, "1 - n", Fill::zeros)};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { (void)make_arguments(spec, kProblem); }), "negative size");
}

TEST(ElementValues, HalfConversionIsIeeeBinary16) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00u);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000u);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bffu);  // largest finite
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00u);  // rounds to inf
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000u);
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00u);  // tie rounds to even
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02u);
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {  // every finite half survives the round trip
    const auto h = static_cast<std::uint16_t>(bits);
    if ((h & 0x7c00u) == 0x7c00u) continue;
    ASSERT_EQ(float_to_half(half_to_float(h)), h) << bits;
  }
  EXPECT_EQ(half_to_float(0x3555u), 0.333251953125f);
}

TEST(ElementValues, StoreAndLoadEveryType) {
  std::byte buffer[8];
  for (const ElementType t : {ElementType::int8, ElementType::uint8, ElementType::int16, ElementType::uint16,
                              ElementType::int32, ElementType::uint32, ElementType::int64, ElementType::uint64,
                              ElementType::float16, ElementType::float32, ElementType::float64}) {
    store_element(t, 42.0, buffer);
    EXPECT_EQ(load_element(t, buffer), 42.0) << to_string(t);
  }
  store_element(ElementType::int8, -1000, buffer);
  EXPECT_EQ(load_element(ElementType::int8, buffer), -128);
  store_element(ElementType::uint32, -5, buffer);
  EXPECT_EQ(load_element(ElementType::uint32, buffer), 0);
  store_element(ElementType::boolean, 0.5, buffer);
  EXPECT_EQ(load_element(ElementType::boolean, buffer), 1);
  store_element(ElementType::int64, 1e300, buffer);
  EXPECT_EQ(load_element(ElementType::int64, buffer), 9223372036854775807.0);
}

}  // namespace
}  // namespace ktune::live

#include "live/problem_size_indexing.hpp"

namespace ktune::live {
namespace {

TEST(ProblemSizeIndexing, LiteralIndicesBecomeAxisNames) {
  EXPECT_EQ(rewrite_problem_size_indexing("ProblemSize[0]*ProblemSize[ 1 ]"), "problem_size_x*problem_size_y");
  EXPECT_EQ(rewrite_problem_size_indexing("(ProblemSize[2] + 1)"), "(problem_size_z + 1)");
  EXPECT_EQ(rewrite_problem_size_indexing("len(ProblemSize)"), "len(ProblemSize)");
  EXPECT_EQ(rewrite_problem_size_indexing("MyProblemSize[0]"), "MyProblemSize[0]");  // not the whole name
  EXPECT_EQ(rewrite_problem_size_indexing("ProblemSize[3]"), "ProblemSize[3]");      // left for the parser
  EXPECT_EQ(rewrite_problem_size_indexing("ProblemSize[i]"), "ProblemSize[i]");
}

}  // namespace
}  // namespace ktune::live
