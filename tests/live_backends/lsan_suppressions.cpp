// LeakSanitizer suppressions for this test binary (read by LSan at exit in the ASan+UBSan build; unused otherwise).
// PoCL and its LLVM keep compiler state (pass managers, per-program caches) alive until process exit and never free
// it; those reports are theirs, not ours. Only allocations made with a PoCL/LLVM frame on the stack are suppressed,
// so a leak in ktune's own code is still reported.
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libpocl.so\n"
         "leak:libLLVM\n"
         "leak:libclang-cpp.so\n";
}
