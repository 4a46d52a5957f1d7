// Loads thread_local_library, has it keep memory in thread-locals of the main thread and of a thread still running at
// exit, and exits; the leak check at exit must neither crash nor report that memory. With "leak", it also leaks a
// block for real, which must still be reported: the sanitizer options of the tests keep leak checking whole.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {
void* volatile leaked = nullptr;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LIBRARY [leak]\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 2;
  }
  auto hold = reinterpret_cast<void (*)()>(dlsym(library, "hold_memory_in_a_thread_local"));
  if (hold == nullptr) {
    std::fprintf(stderr, "%s has no hold_memory_in_a_thread_local\n", argv[1]);
    return 2;
  }
  hold();
  std::atomic<bool> held{false};
  std::thread([&] {
    hold();
    held = true;
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // still running when the process exits
  }).detach();
  while (!held) std::this_thread::yield();
  if (argc > 2 && std::strcmp(argv[2], "leak") == 0) {
    leaked = std::malloc(77);
    leaked = nullptr;
  }
  std::puts("exiting with thread-locals held");
  std::fflush(stdout);
  std::exit(0);
}
