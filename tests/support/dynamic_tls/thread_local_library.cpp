// A loaded library whose thread-locals hold heap memory (as PoCL's and LLVM's do): its TLS blocks are made at run time
// (dynamic TLS), which is what tripped LeakSanitizer's tracer (CMakeLists.txt, KTUNE_SANITIZER_ENVIRONMENT). Without
// intercept_tls_get_addr=0 this one crashes the leak check of leak_check_probe on Debian 12's GCC runtime every time.
#include <cstdlib>

thread_local void* memory_held_by_a_thread_local = nullptr;  // external linkage, as the reproducing case had

extern "C" void hold_memory_in_a_thread_local() { memory_held_by_a_thread_local = std::malloc(100); }
