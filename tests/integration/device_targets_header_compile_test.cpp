// The device-targets header, compiled by the C compiler: each -DTARGET_<device> selects that device's configuration,
// no target selects the default, and -Dkernel_tuner (while tuning) defines nothing.
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/kernel_tuner_results_file.hpp"
#include "temp_files.hpp"

namespace {

using ordered_json = nlohmann::ordered_json;

// Compiles a program that prints the macros a, b and c with `flags` and returns what it prints ("" when it does not
// compile or run).
std::string selected(const std::string& header, const std::string& flags) {
  const std::string dir = ktune::testing::temp_dir().string();
  ktune::testing::write_temp("targets.h", header);
  const std::string program = ktune::testing::write_temp("print_targets.c", R"(#include <stdio.h>
#include "targets.h"
int main(void) {
#if defined(a) && defined(b) && defined(c)
  printf("a=%d b=%d c=%g\n", a, b, (double)c);
#else
  printf("undefined\n");
#endif
  return 0;
}
)");
  const std::string binary = dir + "/print_targets", out = dir + "/print_targets.txt";
  const std::string compile = "cc " + flags + " -I'" + dir + "' '" + program + "' -o '" + binary + "'";
  if (std::system(compile.c_str()) != 0) return "";
  if (std::system(("'" + binary + "' > '" + out + "'").c_str()) != 0) return "";
  return ktune::testing::read_text(out);
}

ktune::io::StoreResultsRequest request(const std::string& device, const std::vector<ordered_json>& results) {
  ktune::io::StoreResultsRequest r;
  r.kernel_name = "k";
  r.parameters = {"a", "b", "c"};
  r.problem_size = "1024";
  r.device_name = device;
  ordered_json list = ordered_json::array();
  for (const auto& item : results) list.push_back(item);
  r.results = ktune::io::kernel_tuner_results_of(list, "time", r.parameters);
  return r;
}

TEST(DeviceTargetsHeader, CompilesAndSelectsPerTarget) {
  if (std::system("cc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler (cc)";
  // Three devices with different winners; the winner over all devices is (32, 2, 0.5), best on two of them.
  auto file = ktune::io::store_results(
      nullptr, request("NVIDIA A100-PCIE-40GB", {{{"a", 32}, {"b", 2}, {"c", 0.5}, {"time", 1.0}},
                                                 {{"a", 64}, {"b", 1}, {"c", 0.25}, {"time", 2.0}}}));
  file = ktune::io::store_results(&file,
                                  request("AMD Instinct MI250X", {{{"a", 64}, {"b", 4}, {"c", 1.5}, {"time", 3.0}},
                                                                  {{"a", 32}, {"b", 2}, {"c", 0.5}, {"time", 5.0}}}));
  file =
      ktune::io::store_results(&file, request("NVIDIA RTX A4000", {{{"a", 32}, {"b", 2}, {"c", 0.5}, {"time", 7.0}},
                                                                   {{"a", 16}, {"b", 8}, {"c", 2.0}, {"time", 9.0}}}));
  const std::string header = ktune::io::device_targets_header(file);
  EXPECT_EQ(selected(header, "-DTARGET_NVIDIA_A100_PCIE_40GB"), "a=32 b=2 c=0.5\n");
  EXPECT_EQ(selected(header, "-DTARGET_AMD_Instinct_MI250X"), "a=64 b=4 c=1.5\n");
  EXPECT_EQ(selected(header, "-DTARGET_NVIDIA_RTX_A4000"), "a=32 b=2 c=0.5\n");
  // No target, or an unknown one: the default. Here it is (32, 2, 0.5), in the file twice, and (64, 4, 1.5) once.
  EXPECT_EQ(selected(header, ""), "a=32 b=2 c=0.5\n");
  EXPECT_EQ(selected(header, "-DTARGET_Unknown"), "a=32 b=2 c=0.5\n");
  EXPECT_EQ(selected(header, "-Dkernel_tuner -DTARGET_AMD_Instinct_MI250X"), "undefined\n");
  // A default configuration given instead.
  const std::string with_default = ktune::io::device_targets_header(file, {{"a", "8"}, {"b", "3"}, {"c", "0.125"}});
  EXPECT_EQ(selected(with_default, ""), "a=8 b=3 c=0.125\n");
  EXPECT_EQ(selected(with_default, "-DTARGET_NVIDIA_RTX_A4000"), "a=32 b=2 c=0.5\n");
}

}  // namespace
