// Writes a 10 GB file into its scratch folder.
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
  std::ofstream out("huge.bin", std::ios::binary);
  static char block[1 << 20];
  for (int i = 0; i < 10 * 1024 && out; ++i) out.write(block, sizeof block);
  if (out) throw std::runtime_error("wrote 10 GB");
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
  return {"huge_file", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
