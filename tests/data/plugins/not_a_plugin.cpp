// A shared library without ktune's entry point.
extern "C" int answer() { return 42; }
