// Includes a planted secret file, so that the compiler quotes it in its error.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <ktune/plugin.hpp>
#include "@SECRET_FILE@"

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

[[maybe_unused]] void attack() {}

// The strategy without its hostile part: random sampling until the budget ends.
class Hostile final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (;;) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
  }
};

ktune::StrategyInfo describe() {
  return {"include_secret", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
