// A strategy plug-in with a hostile part (README.md): a test puts one of the *.inc files in place of the @ATTACK@
// line and names the plug-in after it. The strategy itself is random sampling until the budget ends.
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

// What the attacks call, declared as an attacker would: only the standard library and ktune's headers may be
// included.
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

// @ATTACK@

class Hostile final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    if (kAttackInRun) attack();
    for (;;) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
  }
};

ktune::StrategyInfo describe() {
  return {"@NAME@", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
