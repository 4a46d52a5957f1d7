#pragma once
// Plug-ins for strategies that run isolated (--isolate): never loaded in ktune's process. A .cpp is compiled in a
// sandbox (ktune/sandbox/sandbox.hpp) into a folder of this process's, removed when it exits; the library is then
// loaded in a sandbox once more, under the strategy filter, only to read what it declares (its name, description and
// hyperparameters). ktune registers the plug-in under its path with those declarations and a factory that loads the
// library only inside a sandboxed worker (IsolatedStrategy): a static constructor, or anything its describe() does,
// never runs in ktune. Made outside a worker, the strategy runs each time in one: a plug-in isolated once in a process
// stays isolated there, also where a later job does not ask for it.
#include <string>
#include <string_view>
#include <vector>

#include "ktune/sandbox/sandbox.hpp"

namespace ktune {

// If `strategy` ("name" or "name:key=value,...") names a plug-in file, makes it ready to run isolated (once; a
// plug-in loaded in this process before stays as it is). Throws HyperparameterError naming the file: missing, not a
// plug-in, an #include of another file (refused before any compiler runs), a compile error (the compiler's messages
// about its own file only), a library the sandbox stopped (its static constructor made a forbidden call).
void prepare_isolated_strategy(const std::string& strategy, const sandbox::Layers& disabled = {});

// The files a sandboxed worker must see to make strategy `name`: the library of a plug-in prepared above; empty for
// any other strategy.
std::vector<std::string> isolated_strategy_files(std::string_view name);

}  // namespace ktune
