// Leaves setsid() daemons behind.
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
  for (int i = 0; i < 3; ++i)
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        prctl(15 /* PR_SET_NAME */, "ktune-hostile-d");
        for (;;) pause();
      }
      std::_Exit(0);
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
  return {"daemons", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
