// read_t1_kernel_specification: a full T1 example with our extensions, Kernel Tuner's files, and errors naming the
// file and the JSON path.
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/input_error.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/live/launch_planner.hpp"
#include "temp_files.hpp"

namespace ktune::live {
namespace {
namespace t1_kernel_specification_test {

using ktune::testing::error_of;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;

const Problem kProblem = ProblemBuilder()
                             .parameter("block_size_x", {32, 64, 128})
                             .parameter("tile", {1, 2})
                             .parameter("float_type", {"float", "double"})
                             .build();

// A full KernelSpecification (Kernel Tuner style geometry) with every extension; `patch` is merged into it.
std::string full_spec(const nlohmann::json& patch = nlohmann::json::object()) {
  // ordered_json keeps the key order of the text (metrics are read in file order).
  nlohmann::ordered_json ks = nlohmann::ordered_json::parse(R"({
    "Language": "CUDA",
    "KernelName": "vector_add<float_type>",
    "KernelFile": "kernels/vector_add.cu",
    "CompilerOptions": ["-O3", "-use_fast_math"],
    "ProblemSize": ["n_elements", 1],
    "GridDivX": ["block_size_x", "tile"],
    "GridDivY": [],
    "BlockSizeNames": ["block_size_x"],
    "Defines": {"TILE2": "tile * 2", "ONE": 1},
    "Device": {"PlatformId": 1, "DeviceId": 2, "Name": "A100"},
    "SharedMemory": 0,
    "Misc": {"anything": true},
    "Arguments": [
      {"Name": "c", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly", "Size": "ProblemSize[0]",
       "FillType": "Constant", "FillValue": 0.0, "Output": 1},
      {"Name": "a", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly", "Size": "ProblemSize[0]",
       "FillType": "Random", "RandomSeed": 42},
      {"Name": "b", "Type": "double", "MemoryType": "Vector", "AccessType": "ReadOnly", "Size": 1000,
       "FillType": "BinaryRaw", "DataSource": "data/b.bin"},
      {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "AccessType": "ReadOnly", "FillValue": 1000}
    ],
    "Iterations": 11,
    "Warmup": false,
    "Statistic": "Median",
    "TimeoutSeconds": 2.5,
    "Compiler": "g++-12",
    "Metrics": {"GFLOP/s": "n_elements / (time / 1e3) / 1e9", "A": "1", "B": "A + 1"},
    "Tolerance": {"atol": 1e-4, "rtol": 1e-3},
    "ReferenceConfiguration": {"block_size_x": 32, "tile": 1, "float_type": "double"},
    "Accuracy": [{"Name": "rmse", "Argument": "c", "Metric": "RMSE"}]
  })");
  ks.merge_patch(nlohmann::ordered_json::parse(patch.dump()));
  nlohmann::ordered_json doc;
  doc["ConfigurationSpace"] = {{"TuningParameters", nlohmann::json::array()}};
  doc["KernelSpecification"] = ks;
  return doc.dump(2);
}

const Problem kProblemWithConstant = [] {
  Problem p = kProblem;
  p.constants["n_elements"] = Value(1000);
  return p;
}();

std::string write_spec(const std::string& name, const std::string& text) {
  std::filesystem::create_directories(temp_dir() / "t1");
  return write_temp("t1/" + name, text);
}

TEST(T1KernelSpecification, ReadsAFullExample) {
  const std::string path = write_spec("full.json", full_spec());
  const KernelSpecification spec = read_t1_kernel_specification(path, kProblemWithConstant);
  EXPECT_EQ(spec.backend, "cuda");
  EXPECT_EQ(spec.kernel_name, "vector_add<float_type>");
  EXPECT_EQ(spec.kernel_file, (temp_dir() / "t1" / "kernels" / "vector_add.cu").lexically_normal().string());
  EXPECT_EQ(spec.compiler_options, (std::vector<std::string>{"-O3", "-use_fast_math"}));
  EXPECT_EQ(spec.problem_size, (std::array<std::string, 3>{"n_elements", "1", "1"}));
  EXPECT_EQ(spec.grid_div[0], (std::vector<std::string>{"block_size_x", "tile"}));
  EXPECT_TRUE(spec.grid_div[1].empty());
  EXPECT_EQ(spec.grid_div[2], (std::vector<std::string>{"block_size_z"}));  // absent: Kernel Tuner's default
  EXPECT_TRUE(spec.global_size[0].empty());
  ASSERT_EQ(spec.extra_defines.size(), 2u);
  EXPECT_EQ(spec.extra_defines[0], (std::pair<std::string, std::string>{"TILE2", "tile * 2"}));
  EXPECT_EQ(spec.extra_defines[1], (std::pair<std::string, std::string>{"ONE", "1"}));
  EXPECT_EQ(spec.backend_options.platform, 1);
  EXPECT_EQ(spec.backend_options.device, 2);
  EXPECT_EQ(spec.backend_options.compiler, "g++-12");

  ASSERT_EQ(spec.arguments.size(), 4u);
  EXPECT_EQ(spec.arguments[0].access, Access::write_only);
  EXPECT_EQ(spec.arguments[0].fill, Fill::constant);
  EXPECT_EQ(spec.arguments[1].fill, Fill::random);
  EXPECT_EQ(spec.arguments[1].seed, 42u);
  EXPECT_EQ(spec.arguments[1].type, ElementType::float32);
  EXPECT_EQ(spec.arguments[2].type, ElementType::float64);
  EXPECT_EQ(spec.arguments[2].size, "1000");
  EXPECT_EQ(spec.arguments[2].data_file, (temp_dir() / "t1" / "data" / "b.bin").lexically_normal().string());
  EXPECT_TRUE(spec.arguments[3].scalar);
  EXPECT_EQ(spec.arguments[3].type, ElementType::int32);
  EXPECT_EQ(spec.arguments[3].fill_value, 1000);

  EXPECT_FALSE(spec.repetition.adaptive);
  EXPECT_EQ(spec.repetition.runs, 11);
  EXPECT_FALSE(spec.warmup);
  EXPECT_EQ(spec.statistic, Statistic::median);
  EXPECT_EQ(spec.timeout_s, 2.5);
  ASSERT_EQ(spec.metrics.size(), 3u);  // file order, so B can use A
  EXPECT_EQ(spec.metrics[0].name, "GFLOP/s");
  EXPECT_EQ(spec.metrics[2].name, "B");
  EXPECT_EQ(spec.metrics[2].expression, "A + 1");
  EXPECT_EQ(spec.verification.kind, Verification::Kind::configuration);
  EXPECT_EQ(spec.verification.atol, 1e-4);
  EXPECT_EQ(spec.verification.rtol, 1e-3);
  EXPECT_TRUE(python_equal(spec.verification.configuration.at("float_type"), Value("double")));
  ASSERT_EQ(spec.accuracy.size(), 1u);
  EXPECT_EQ(spec.accuracy[0].argument, "c");

  // And it plans: 1000 elements, 64 threads, tile 2 -> ceil(1000 / 128) = 8 blocks.
  const LaunchPlan plan = plan_launch(spec, kProblemWithConstant, std::vector<Value>{64, 2, "float"});
  EXPECT_EQ(plan.kernel_name, "vector_add<float>");
  EXPECT_EQ(plan.geometry.grid, (std::array<std::uint64_t, 3>{8, 1, 1}));
}

TEST(T1KernelSpecification, T1GeometryWithCudaGlobalSizeType) {
  const std::string text = full_spec(nlohmann::json::parse(R"({"ProblemSize": null,
      "GlobalSize": {"X": "1024 // tile", "Y": "1"}, "LocalSize": {"X": "block_size_x", "Y": "1", "Z": "1"},
      "GlobalSizeType": "CUDA", "Arguments": [], "Accuracy": null})"));
  const KernelSpecification spec = read_t1_kernel_specification(write_spec("global.json", text), kProblemWithConstant);
  // CUDA counts blocks: 1024 // 2 = 512 blocks of 64 threads.
  const LaunchPlan plan = plan_launch(spec, kProblemWithConstant, std::vector<Value>{64, 2, "float"});
  EXPECT_EQ(plan.geometry.grid, (std::array<std::uint64_t, 3>{512, 1, 1}));
  EXPECT_EQ(plan.geometry.block, (std::array<std::uint64_t, 3>{64, 1, 1}));
}

TEST(T1KernelSpecification, ReferenceArgumentsBecomeFileVerification) {
  const std::string text = full_spec(nlohmann::json::parse(R"({"ReferenceConfiguration": null, "Accuracy": null,
      "ReferenceArguments": [{"Name": "c_ref", "TargetName": "c", "FillType": "BinaryRaw", "DataSource": "ref/c.bin",
                              "ValidationMethod": "SideBySideRelativeComparison", "ValidationThreshold": 0.01}]})"));
  const KernelSpecification spec = read_t1_kernel_specification(write_spec("ref.json", text), kProblemWithConstant);
  EXPECT_EQ(spec.verification.kind, Verification::Kind::files);
  EXPECT_EQ(spec.verification.files.at("c"), (temp_dir() / "t1" / "ref" / "c.bin").lexically_normal().string());
  EXPECT_EQ(spec.arguments[0].rtol, 0.01);
  EXPECT_EQ(spec.arguments[0].atol, 0.0);
}

TEST(T1KernelSpecification, ReadsKernelTunersT1Files) {
  // Kernel Tuner's own test inputs: vector_add, and convolution, whose filter is also CUDA constant memory.
  const Problem problem = io::read_t1_file(shared_path("data/kernel_tuner/test_cache_file_T1_input.json"));
  const KernelSpecification spec =
      read_t1_kernel_specification(shared_path("data/kernel_tuner/test_cache_file_T1_input.json"), problem);
  EXPECT_EQ(spec.backend, "cuda");
  EXPECT_EQ(spec.kernel_name, "vector_add");
  EXPECT_EQ(spec.problem_size[0], "100");
  ASSERT_EQ(spec.arguments.size(), 4u);
  EXPECT_EQ(spec.arguments[0].size, "10000000");
  EXPECT_TRUE(spec.arguments[3].scalar);
  EXPECT_NE(spec.arguments[0].seed, spec.arguments[1].seed);  // unseeded random inputs still differ

  const std::string convolution = shared_path("data/kernel_tuner/test_T1_input.json");
  const Problem convolution_problem = io::read_t1_file(convolution);
  const KernelSpecification conv = read_t1_kernel_specification(convolution, convolution_problem);
  ASSERT_EQ(conv.arguments.size(), 3u);
  EXPECT_EQ(conv.arguments[2].name, "d_filter");
  EXPECT_TRUE(conv.arguments[2].constant_memory);  // an argument, and the __constant__ d_filter, as Kernel Tuner
  EXPECT_FALSE(conv.arguments[0].constant_memory);
  conv.validate(convolution_problem);
  // The source the backend compiles carries d_filter's initial contents for the __constant__ variable.
  KernelSpecification code = conv;
  code.kernel_code = "__constant__ float d_filter[17 * 17];";
  const std::vector<KernelArgument> made = make_arguments(code, convolution_problem);
  const KernelSource source = load_source(code, made);
  ASSERT_EQ(source.constant_memory.size(), 1u);
  EXPECT_EQ(source.constant_memory[0].first, "d_filter");
  EXPECT_EQ(source.constant_memory[0].second, made[2].bytes);
  EXPECT_TRUE(load_source(code).constant_memory.empty());
}

TEST(T1KernelSpecification, MemTypeConstantIsCudasOnly) {
  const auto with = [](const char* language, const char* memory_type, const char* memory) {
    return full_spec(nlohmann::json::parse(fmt::format(
        R"({{"Language": "{}", "KernelName": "vector_add", "Arguments": [{{"Name": "c", "Type": "float",
            "MemoryType": "Vector", "AccessType": "WriteOnly", "Size": "ProblemSize[0]"}}, {{"Name": "w",
            "Type": "float", "MemoryType": "{}", "MemType": "{}", "Size": 4, "FillValue": 1.0}}]}})",
        language, memory, memory_type)));
  };
  const auto error = [&](const std::string& text) {
    return error_of<io::InputError>(
        [&] { (void)read_t1_kernel_specification(write_spec("memtype.json", text), kProblemWithConstant); });
  };
  EXPECT_TRUE(read_t1_kernel_specification(write_spec("memtype.json", with("CUDA", "Constant", "Vector")),
                                           kProblemWithConstant)
                  .arguments[1]
                  .constant_memory);
  EXPECT_CONTAINS(error(with("OpenCL", "Constant", "Vector")),
                  "argument 'w': MemType Constant is CUDA's __constant__ memory, which the opencl backend does not have");
  EXPECT_CONTAINS(error(with("CUDA", "Texture", "Vector")), "unknown MemType 'Texture' (expected Global or Constant)");
  EXPECT_CONTAINS(error(with("CUDA", "Constant", "Scalar")), "only a Vector can be MemType Constant");
}

struct BadCase {
  const char* patch;
  const char* path;
  const char* message;
};

TEST(T1KernelSpecification, ErrorsNameFileAndJsonPath) {
  const BadCase cases[] = {
      {R"({"Language": "Vulkan"})", "KernelSpecification.Language", "unsupported Language 'Vulkan'"},
      {R"({"KernelName": 3})", "KernelSpecification.KernelName", "expected a string"},
      {R"({"ProblemSize": [1, 2, 3, 4]})", "KernelSpecification.ProblemSize", "1 to 3 dimensions"},
      {R"({"ProblemSize": [true]})", "KernelSpecification.ProblemSize[0]", "expected an integer or an expression"},
      {R"({"Iterations": 0})", "KernelSpecification.Iterations", "expected an integer >= 1"},
      // Issue 33 item 14: beyond the limit it is refused, not silently cut to it.
      {R"({"Iterations": 1000001})", "KernelSpecification.Iterations", "expected an integer from 1 to 1000000, got 1000001"},
      {R"({"Iterations": 18446744073709551615})", "KernelSpecification.Iterations", "from 1 to 1000000"},
      {R"({"Iteration": 5})", "KernelSpecification.Iteration", "did you mean 'Iterations'?"},
      {R"({"timeoutseconds": 5})", "KernelSpecification.timeoutseconds", "did you mean 'TimeoutSeconds'?"},
      {R"({"Statistic": "mode"})", "KernelSpecification.Statistic", "unknown statistic 'mode'"},
      {R"({"Tolerance": {"atoll": 1}})", "KernelSpecification.Tolerance.atoll", "unknown key"},
      {R"({"Metrics": {"x": 5}})", "KernelSpecification.Metrics.x", "expected a string"},
      {R"({"Accuracy": [{"Name": "e", "Argument": "c", "Metric": "R2"}]})", "KernelSpecification.Accuracy[0].Metric",
       "unknown accuracy metric 'R2'"},
      {R"({"ReferenceConfiguration": {"tile": 3}})", "KernelSpecification.ReferenceConfiguration.tile",
       "3 is not a value of parameter 'tile'"},
      {R"({"ReferenceConfiguration": {"tiles": 1}})", "KernelSpecification.ReferenceConfiguration.tiles",
       "not a tunable parameter"},
      {R"({"ReferenceArguments": [{"Name": "x", "DataSource": "x.bin"}]})",
       "KernelSpecification.ReferenceConfiguration", "not both"},
      {R"({"GridDivX": ["block_size_q"]})", "KernelSpecification", "grid_div_x[0]: unknown name 'block_size_q'"},
      {R"({"Defines": {"X": "(tile"}})", "KernelSpecification", "extra_defines 'X'"},
      {R"({"Metrics": {"bad": "time +"}})", "KernelSpecification", "metric 'bad'"},
      // Issue 19 item 8: names and constant errors are checked when the file is read (they gave NaN per run).
      {R"({"Metrics": {"GFLOP/s": "n_elements / (tme / 1e3) / 1e9"}})", "KernelSpecification",
       "metric 'GFLOP/s': unknown name 'tme' (column 15)\n  n_elements / (tme / 1e3) / 1e9\n                ^"},
      {R"({"Metrics": {"A": "B + 1"}})", "KernelSpecification", "metric 'A': unknown name 'B'"},  // B comes later
      {R"({"Metrics": {"x": "time % 0"}})", "KernelSpecification",
       "metric 'x': always raises ZeroDivisionError: the divisor is 0 (column 6)"},
      {R"({"Metrics": {"x": "time * 2**64"}})", "KernelSpecification", "always raises OverflowError"},
      {R"({"Metrics": {"x": "energy"}})", "KernelSpecification", "unknown name 'energy'"},
  };
  for (const BadCase& c : cases) {
    const std::string path = write_spec("bad.json", full_spec(nlohmann::json::parse(c.patch)));
    try {
      (void)read_t1_kernel_specification(path, kProblemWithConstant);
      ADD_FAILURE() << "no error for " << c.patch;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.file(), path) << c.patch;
      EXPECT_EQ(e.json_path(), c.path) << c.patch << "\n" << e.what();
      EXPECT_CONTAINS(e.what(), c.message);
    }
  }
}

TEST(T1KernelSpecification, MetricsMayUseEverythingAnEvaluationMeasures) {
  // Parameters, constants, the step times, accuracy measures, what an observer reports and earlier metrics.
  const std::string path = write_spec(
      "metrics_names.json",
      full_spec(nlohmann::json::parse(R"({"Metrics": {"GFLOP/s": "n_elements / (time / 1e3) / 1e9",
        "steps": "compile_time + verification_time + benchmark_time", "per_tile": "block_size_x * tile",
        "flops_per_joule": "GFLOP/s_unused if False else n_elements / powercap_energy",
        "nvml": "nvml_energy + nvml_power + powercap_power", "acc": "rmse * 2", "later": "steps + acc"}})")));
  const std::string e = error_of<io::InputError>([&] { (void)read_t1_kernel_specification(path, kProblemWithConstant); });
  // '/' is not part of a name: the first metric's name cannot be used in an expression at all.
  EXPECT_CONTAINS(e, "metric 'flops_per_joule': unknown name 'GFLOP'");
  const std::string ok = write_spec(
      "metrics_names_ok.json",
      full_spec(nlohmann::json::parse(R"({"Metrics": {"GFLOP/s": "n_elements / (time / 1e3) / 1e9",
        "steps": "compile_time + verification_time + benchmark_time", "per_tile": "block_size_x * tile",
        "flops_per_joule": "n_elements / powercap_energy", "nvml": "nvml_energy + nvml_power + powercap_power",
        "acc": "rmse * 2", "z_later": "steps + acc if float_type == 'float' else 0"}})")));
  const KernelSpecification spec = read_t1_kernel_specification(ok, kProblemWithConstant);
  ASSERT_FALSE(spec.metrics.empty());
  EXPECT_EQ(spec.metrics.back().name, "z_later");  // merged after the base spec's metrics, in file order
}

TEST(T1KernelSpecification, ArgumentErrorsNameTheArgumentPath) {
  const BadCase cases[] = {
      {R"([{"Name": "a", "Type": "float4", "MemoryType": "Vector", "Size": 4}])", "KernelSpecification.Arguments[0].Type",
       "unsupported Type 'float4'"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Symbol", "Size": 4}])",
       "KernelSpecification.Arguments[0].MemoryType", "unsupported MemoryType 'Symbol'"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector"}])", "KernelSpecification.Arguments[0].Size", "missing"},
      {R"([{"Name": "s", "Type": "int32", "MemoryType": "Scalar"}])", "KernelSpecification.Arguments[0].FillValue",
       "missing"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4, "FillType": "Script"}])",
       "KernelSpecification.Arguments[0].FillType", "unsupported FillType 'Script'"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4, "FillType": "BinaryRaw"}])",
       "KernelSpecification.Arguments[0].DataSource", "missing"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4, "RandomSed": 1}])",
       "KernelSpecification.Arguments[0].RandomSed", "did you mean 'RandomSeed'?"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4, "AccessType": "Read"}])",
       "KernelSpecification.Arguments[0].AccessType", "unknown AccessType 'Read'"},
      {R"([{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4},
           {"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": 4}])",
       "KernelSpecification", "duplicate argument name"},
  };
  for (const BadCase& c : cases) {
    nlohmann::json patch;
    patch["Arguments"] = nlohmann::json::parse(c.patch);
    patch["Accuracy"] = nullptr;
    const std::string path = write_spec("bad_argument.json", full_spec(patch));
    try {
      (void)read_t1_kernel_specification(path, kProblemWithConstant);
      ADD_FAILURE() << "no error for " << c.patch;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.json_path(), c.path) << c.patch << "\n" << e.what();
      EXPECT_CONTAINS(e.what(), c.message);
    }
  }
}

TEST(T1KernelSpecification, MissingSpecificationAndBadJson) {
  const std::string none = write_spec("none.json", R"({"ConfigurationSpace": {}})");
  const std::string e = error_of<io::InputError>([&] { (void)read_t1_kernel_specification(none, kProblem); });
  EXPECT_CONTAINS(e, "none.json: KernelSpecification: missing");
  const std::string broken = write_spec("broken.json", "{\"KernelSpecification\": ");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { (void)read_t1_kernel_specification(broken, kProblem); }), "broken.json");
}

TEST(KernelSpecification, ValidateAndLoadSource) {
  KernelSpecification spec;
  spec.kernel_name = "k";
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }), "kernel_file");
  spec.kernel_file = write_temp("kernel.cpp", "extern \"C\" void k() {}\n");
  spec.problem_size = {"100", "1", "1"};
  spec.validate(kProblem);
  const KernelSource source = load_source(spec);
  EXPECT_EQ(source.code, "extern \"C\" void k() {}\n");
  EXPECT_EQ(source.name, "k");
  spec.kernel_code = "int x;";
  EXPECT_EQ(load_source(spec).code, "int x;");
  spec.kernel_code.clear();
  spec.kernel_file = (temp_dir() / "no_such_kernel.cu").string();
  EXPECT_CONTAINS(error_of<io::InputError>([&] { (void)load_source(spec); }), "no_such_kernel.cu");

  spec.backend = "hip";
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }), "unknown backend 'hip'");
  spec.backend = "cpp";
  ArgumentSpecification in;
  in.name = "in";
  in.access = Access::read_only;
  spec.arguments = {in};
  spec.accuracy = {{"err", "in", "RMSE"}};
  spec.verification.kind = Verification::Kind::configuration;
  spec.verification.configuration = {{"block_size_x", Value(32)}, {"tile", Value(1)}, {"float_type", Value("double")}};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }),
                  "accuracy 'err': argument 'in' is not an output");
}

// Constant memory (Kernel Tuner's cmem_args) is CUDA's; it travels with the source to the backend.
TEST(KernelSpecification, ConstantMemoryIsForCudaKernelsAndReachesTheSource) {
  KernelSpecification spec;
  spec.kernel_name = "k";
  spec.kernel_code = "__constant__ float w[2]; extern \"C\" __global__ void k() {}";
  spec.constant_memory = {{"w", std::vector<std::byte>(8)}};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }),
                  "constant memory 'w': only CUDA kernels have constant memory (the cpp backend has none)");
  spec.backend = "cuda";
  spec.validate(kProblem);
  EXPECT_EQ(load_source(spec).constant_memory, spec.constant_memory);
  spec.constant_memory.push_back({"w", std::vector<std::byte>(4)});
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }), "constant memory 'w': given twice");
  spec.constant_memory = {{"w", {}}};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { spec.validate(kProblem); }), "constant memory 'w': no contents");
}

}  // namespace t1_kernel_specification_test
}  // namespace
}  // namespace ktune::live
