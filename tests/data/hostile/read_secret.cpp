// Reads a planted secret outside its scratch folder, and /etc/shadow.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

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
  for (const char* path : {"@SECRET_FILE@", "/etc/shadow"}) {
    const std::string text = read_all(path);
    if (!text.empty()) throw std::runtime_error(std::string("read ") + path + ": " + text);
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
  return {"read_secret", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
