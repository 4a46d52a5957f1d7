// The wisdom file format and every selection rule of ktune::runtime::Wisdom.
#include "ktune/runtime/wisdom.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ktune::runtime {
namespace {

WisdomEntry entry(std::string device, ProblemSize size, std::vector<std::string> values, double value = 1.0) {
  WisdomEntry e;
  e.device = std::move(device);
  e.problem_size = std::move(size);
  e.values = std::move(values);
  e.value = value;
  return e;
}

// vector_add tuned on two GPUs and a CPU at a few sizes, with a default.
Wisdom sample() {
  Wisdom w;
  const std::vector<std::string> parameters{"block_size_x", "tile"};
  const std::vector<std::string> defaults{"256", "1"};
  w.declare("vector_add", parameters, defaults);
  w.add("vector_add", entry("NVIDIA GeForce RTX 3090", {1024}, {"64", "1"}));
  w.add("vector_add", entry("NVIDIA GeForce RTX 3090", {1048576}, {"128", "4"}));
  w.add("vector_add", entry("NVIDIA GeForce RTX 3090", {1024, 1024}, {"32", "2"}));
  w.add("vector_add", entry("NVIDIA A100-PCIE-40GB", {65536}, {"512", "2"}));
  w.add("vector_add", entry("AMD EPYC 7B13 64-Core Processor", {4096}, {"1024", "8"}));
  return w;
}

std::vector<std::string> values_of(const Selection& s) { return {s.values.begin(), s.values.end()}; }

TEST(WisdomSelection, ExactDeviceAndSize) {
  const Wisdom w = sample();
  const ProblemSize size{1048576};
  const Selection s = w.select("vector_add", "NVIDIA GeForce RTX 3090", size);
  EXPECT_EQ(s.rule, SelectionRule::exact);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"128", "4"}));
  ASSERT_NE(s.entry, nullptr);
  EXPECT_EQ(s.entry->device, "NVIDIA GeForce RTX 3090");
}

TEST(WisdomSelection, NearestProblemSizeOnALogScale) {
  const Wisdom w = sample();
  // 40000 is nearer 1024 than 1048576 linearly, but on a log scale it is nearer... log(40000) = 10.6, log(1024) = 6.9,
  // log(1048576) = 13.9: 1048576 is 3.3 away, 1024 is 3.7 away.
  const ProblemSize size{40000};
  Selection s = w.select("vector_add", "NVIDIA GeForce RTX 3090", size);
  EXPECT_EQ(s.rule, SelectionRule::nearest_problem_size);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"128", "4"}));
  const ProblemSize small{20000};  // log 9.9: 1024 is 3.0 away, 1048576 is 4.0 away
  s = w.select("vector_add", "NVIDIA GeForce RTX 3090", small);
  EXPECT_EQ(s.rule, SelectionRule::nearest_problem_size);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"64", "1"}));
  // Per dimension: 1000x1000 is nearest the 2D entry (a missing dimension counts as 1).
  const ProblemSize square{1000, 1000};
  s = w.select("vector_add", "NVIDIA GeForce RTX 3090", square);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"32", "2"}));
  EXPECT_NE(s.describe(square).find("at 1024x1024 for 1000x1000"), std::string::npos) << s.describe(square);
}

TEST(WisdomSelection, SameDeviceFamily) {
  const Wisdom w = sample();
  const ProblemSize size{1048576};
  const Selection s = w.select("vector_add", "NVIDIA GeForce RTX 3060", size);
  EXPECT_EQ(s.rule, SelectionRule::device_family);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"128", "4"}));
  EXPECT_EQ(s.entry->device, "NVIDIA GeForce RTX 3090");
}

TEST(WisdomSelection, AnyDeviceNearestSize) {
  const Wisdom w = sample();
  const ProblemSize size{60000};  // nearest tuned size of all: the A100's 65536
  const Selection s = w.select("vector_add", "Intel(R) UHD Graphics 770", size);
  EXPECT_EQ(s.rule, SelectionRule::any_device);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"512", "2"}));
}

TEST(WisdomSelection, KernelDefaultAndNone) {
  Wisdom w;
  const std::vector<std::string> parameters{"block_size_x"};
  const std::vector<std::string> defaults{"128"};
  w.declare("with_default", parameters, defaults);
  w.declare("bare", parameters);
  const ProblemSize size{100};
  Selection s = w.select("with_default", "any", size);
  EXPECT_EQ(s.rule, SelectionRule::kernel_default);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"128"}));
  s = w.select("bare", "any", size);
  EXPECT_EQ(s.rule, SelectionRule::none);
  EXPECT_TRUE(s.values.empty());
  ASSERT_NE(s.kernel, nullptr);
  s = w.select("unknown", "any", size);
  EXPECT_EQ(s.rule, SelectionRule::none);
  EXPECT_EQ(s.kernel, nullptr);
}

TEST(WisdomSelection, KernelTunerDeviceSpellingIsTheSameDevice) {
  Wisdom w;
  const std::vector<std::string> parameters{"block_size_x"};
  w.declare("k", parameters);
  w.add("k", entry("NVIDIA_A100_PCIE_40GB", {1000}, {"64"}));  // a Kernel Tuner results file's name
  const ProblemSize size{1000};
  EXPECT_EQ(w.select("k", "NVIDIA A100-PCIE-40GB", size).rule, SelectionRule::exact);
}

TEST(WisdomSelection, RememberedAnswersAreForgottenWhenTheWisdomChanges) {
  Wisdom w = sample();
  const ProblemSize size{4096};
  EXPECT_EQ(w.select("vector_add", "NVIDIA GeForce RTX 3090", size).rule, SelectionRule::nearest_problem_size);
  w.add("vector_add", entry("NVIDIA GeForce RTX 3090", {4096}, {"256", "8"}));
  const Selection s = w.select("vector_add", "NVIDIA GeForce RTX 3090", size);
  EXPECT_EQ(s.rule, SelectionRule::exact);
  EXPECT_EQ(values_of(s), (std::vector<std::string>{"256", "8"}));
}

TEST(WisdomSelection, ConcurrentSelectsAgree) {
  const Wisdom w = sample();
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::int64_t n = 1; n < 2000; ++n) {
        const ProblemSize size{n * 37};
        const Selection s = w.select("vector_add", "NVIDIA GeForce RTX 3090", size);
        if (s.rule != SelectionRule::nearest_problem_size && s.rule != SelectionRule::exact) ++wrong[static_cast<std::size_t>(t)];
      }
    });
  for (auto& t : threads) t.join();
  for (int x : wrong) EXPECT_EQ(x, 0);
}

TEST(DeviceFamily, GenerationOfTheProductLine) {
  EXPECT_EQ(device_family("NVIDIA GeForce RTX 3090"), "nvidia geforce rtx 3");
  EXPECT_EQ(device_family("NVIDIA GeForce RTX 3060"), "nvidia geforce rtx 3");
  EXPECT_NE(device_family("NVIDIA GeForce RTX 2080 Ti"), device_family("NVIDIA GeForce RTX 3090"));
  EXPECT_EQ(device_family("NVIDIA A100-PCIE-40GB"), "nvidia a1");
  EXPECT_EQ(device_family("NVIDIA A100-SXM4-80GB"), device_family("NVIDIA A100-PCIE-40GB"));
  EXPECT_EQ(device_family("AMD Instinct MI250X"), "amd instinct mi2");
  EXPECT_EQ(device_family("AMD Instinct MI210"), device_family("AMD Instinct MI250X"));
  EXPECT_EQ(normalised_device_name("NVIDIA A100-PCIE-40GB"), "NVIDIA_A100_PCIE_40GB");
  EXPECT_EQ(normalised_device_name("  cpu--x  "), "cpu_x");
}

TEST(WisdomFile, RoundTripKeepsEverything) {
  Wisdom w = sample();
  WisdomEntry odd = entry("weird\tname\\with\nescapes", {7, 3}, {"a b", "x\ty"}, 0.125);
  odd.objective = "GFLOP/s";
  odd.higher_is_better = true;
  odd.provenance = {{"compiler", "g++ 12.2 -O3"}, {"ktune_version", "0.1.0"}, {"note", "a=b"}};
  w.declare("strange", std::vector<std::string>{"p", "q"});
  w.add("strange", odd);
  std::ostringstream text;
  w.write(text);
  const Wisdom back = Wisdom::parse(text.str(), "memory");
  std::ostringstream again;
  back.write(again);
  EXPECT_EQ(text.str(), again.str());
  const WisdomKernel* k = back.find("strange");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->entries.size(), 1u);
  const WisdomEntry& e = k->entries[0];
  EXPECT_EQ(e.device, odd.device);
  EXPECT_EQ(e.values, odd.values);
  EXPECT_EQ(e.problem_size, odd.problem_size);
  EXPECT_EQ(e.objective, "GFLOP/s");
  EXPECT_TRUE(e.higher_is_better);
  EXPECT_EQ(e.value, 0.125);
  EXPECT_EQ(e.provenance, odd.provenance);
  EXPECT_EQ(back.find("vector_add")->default_values, (std::vector<std::string>{"256", "1"}));
}

TEST(WisdomFile, SaveReplacesAtomicallyAndLoads) {
  const auto path = std::filesystem::temp_directory_path() / "ktune-wisdom-test.wisdom";
  sample().save(path.string());
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  const Wisdom loaded = Wisdom::load(path.string());
  const ProblemSize size{1024};
  EXPECT_EQ(loaded.select("vector_add", "NVIDIA GeForce RTX 3090", size).rule, SelectionRule::exact);
  std::filesystem::remove(path);
}

TEST(WisdomFile, ConcurrentUpdatesFromSeveralProcessesLoseNothing) {
  const auto path = (std::filesystem::temp_directory_path() / ("ktune-wisdom-concurrent-" + std::to_string(::getpid())))
                        .string();
  std::filesystem::remove(path);
  constexpr int kProcesses = 4, kEntries = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t child = ::fork();
    if (child == 0) {
      int status = 0;
      try {
        for (int e = 0; e < kEntries; ++e)
          Wisdom::update(path, [&](Wisdom& w) {
            w.declare("k", std::vector<std::string>{"x"});
            w.add("k", entry("device " + std::to_string(p), {e + 1}, {std::to_string(e)}));
          });
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const Wisdom w = Wisdom::load(path);
  ASSERT_NE(w.find("k"), nullptr);
  EXPECT_EQ(w.find("k")->entries.size(), static_cast<std::size_t>(kProcesses * kEntries));
  // A change that throws leaves the file as it was.
  EXPECT_THROW(Wisdom::update(path, [](Wisdom& x) {
                 x.declare("other", std::vector<std::string>{"y"});
                 throw std::runtime_error("changed my mind");
               }),
               std::runtime_error);
  EXPECT_EQ(Wisdom::load(path).find("other"), nullptr);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".lock");
}

TEST(WisdomFile, ErrorsNameTheFileAndLine) {
  const auto message = [](const std::string& text) {
    try {
      Wisdom::parse(text, "w.wisdom");
    } catch (const WisdomError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("").find("w.wisdom:1: empty"), std::string::npos);
  EXPECT_NE(message("hello\n").find("w.wisdom:1: not a ktune wisdom file"), std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t2\n").find("version '2'"), std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nbest\tk\tdev\t10\ttime\tmin\t1\t5\n").find("w.wisdom:2: 'best' for kernel 'k', which no"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\nbest\tk\tdev\t10x0\ttime\tmin\t1\t5\n").find("w.wisdom:3: problem size '10x0'"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\tq\nbest\tk\tdev\t10\ttime\tmin\t1\t5\n").find("1 values for 2 parameters"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\nbest\tk\tdev\t10\ttime\tless\t1\t5\n").find("'min' or 'max'"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\nbest\tk\tdev\t10\ttime\tmin\tfast\t5\n").find("'fast' is not a number"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\nbest\tk\tdev\t10\ttime\tmin\t1\t5\tnokey\n").find("neither a value nor key=value"),
            std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\tp\nkernel\tk\tp\n").find("declared twice"), std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nkernel\tk\\").find("backslash ends the line"), std::string::npos);
  EXPECT_NE(message("ktune-wisdom\t1\nsomething\tk\n").find("unknown record 'something'"), std::string::npos);
  EXPECT_THROW(Wisdom::load("/nonexistent/ktune.wisdom"), WisdomError);
  const auto store = std::filesystem::temp_directory_path() / ("ktune-wisdom-store-" + std::to_string(::getpid()));
  std::ofstream(store, std::ios::binary) << std::string("SQLite format 3\0", 16) << "rest of a database";
  try {
    Wisdom::load(store.string());
    ADD_FAILURE() << "a store loaded as wisdom";
  } catch (const WisdomError& e) {
    EXPECT_NE(std::string(e.what()).find("a results store, not wisdom: make wisdom of it with `ktune export"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(store);
}

TEST(WisdomFile, DeclaringOtherParametersIsAnError) {
  Wisdom w = sample();
  EXPECT_THROW(w.declare("vector_add", std::vector<std::string>{"tile", "block_size_x"}), WisdomError);
  EXPECT_THROW(w.add("vector_add", entry("dev", {10}, {"1"})), std::invalid_argument);
  EXPECT_THROW(w.add("nope", entry("dev", {10}, {"1"})), std::invalid_argument);
}

TEST(WisdomFile, MergeKeepsTheNewerEntryForTheSameDeviceAndSize) {
  Wisdom a = sample(), b;
  const std::vector<std::string> parameters{"block_size_x", "tile"};
  b.declare("vector_add", parameters);
  b.add("vector_add", entry("NVIDIA GeForce RTX 3090", {1024}, {"1024", "1"}, 0.5));
  a.merge(b);
  const ProblemSize size{1024};
  EXPECT_EQ(values_of(a.select("vector_add", "NVIDIA GeForce RTX 3090", size)), (std::vector<std::string>{"1024", "1"}));
  EXPECT_EQ(a.find("vector_add")->entries.size(), 5u);
  EXPECT_EQ(a.find("vector_add")->default_values, (std::vector<std::string>{"256", "1"}));  // b had none
}

TEST(ProblemSizeText, ParsesAndFormats) {
  EXPECT_EQ(parse_problem_size("1024x512"), (ProblemSize{1024, 512}));
  EXPECT_EQ(format_problem_size(ProblemSize{1, 2, 3}), "1x2x3");
  EXPECT_THROW(parse_problem_size(""), std::invalid_argument);
  EXPECT_THROW(parse_problem_size("1x2x3x4"), std::invalid_argument);
  EXPECT_THROW(parse_problem_size("12a"), std::invalid_argument);
  EXPECT_THROW(parse_problem_size("-5"), std::invalid_argument);
}

}  // namespace
}  // namespace ktune::runtime
