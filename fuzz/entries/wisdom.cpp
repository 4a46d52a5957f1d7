// Fuzz target "wisdom": the input is the text of a wisdom file, read as an application reads one
// (ktune::runtime::Wisdom::parse, what Wisdom::load and $KTUNE_WISDOM use). Only runtime::WisdomError, its message
// naming the file and line ("fuzz.wisdom:LINE: ..."). What is read holds together (every entry and default has one
// value per parameter, a device, a problem size of 1 to 3 positive dimensions); write() of it reads back to the same
// kernels and entries, and writing what was re-read gives the same text (a fixed point); merging it into empty wisdom
// writes the same text; select() for every kernel, every entry's device and a few problem sizes answers with the
// kernel asked for, as many values as the kernel has parameters (none for rule none), the same answer when asked
// again, and rule exact for an entry's own device and problem size.
#include "ktune/runtime/wisdom.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_entries.hpp"

namespace {

using namespace ktune::runtime;
using ktune::fuzz::check;

const std::string kWhere = "fuzz.wisdom";

std::string written(const Wisdom& wisdom) {
  std::ostringstream out;
  wisdom.write(out);
  return out.str();
}

Wisdom reread(const std::string& text) {
  try {
    return Wisdom::parse(text, kWhere);
  } catch (const WisdomError& e) {
    check(false, "wisdom written from what was read does not read back: " + std::string(e.what()) + "\n" + text);
  }
  return {};
}

// Sizes compared as select() compares them: a missing dimension counts as 1.
bool same_size(const ProblemSize& a, const ProblemSize& b) {
  for (std::size_t d = 0; d < 3; ++d)
    if ((d < a.size() ? a[d] : 1) != (d < b.size() ? b[d] : 1)) return false;
  return true;
}

bool same_number(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool same_entry(const WisdomEntry& a, const WisdomEntry& b) {
  return a.device == b.device && a.problem_size == b.problem_size && a.objective == b.objective &&
         a.higher_is_better == b.higher_is_better && same_number(a.value, b.value) && a.values == b.values &&
         a.provenance == b.provenance;
}

const WisdomEntry* entry_at(const WisdomKernel& kernel, const WisdomEntry& like) {
  for (const WisdomEntry& e : kernel.entries)
    if (e.device == like.device && same_size(e.problem_size, like.problem_size)) return &e;
  return nullptr;
}

void check_holds_together(const Wisdom& wisdom) {
  std::set<std::string> names;
  for (const WisdomKernel& k : wisdom.kernels()) {
    check(!k.name.empty(), "a kernel without a name");
    check(names.insert(k.name).second, "kernel '" + k.name + "' twice");
    check(wisdom.find(k.name) == &k, "find('" + k.name + "') is another kernel");
    check(k.default_values.empty() || k.default_values.size() == k.parameters.size(),
          "kernel '" + k.name + "': a default with the wrong number of values");
    for (std::size_t i = 0; i < k.entries.size(); ++i) {
      const WisdomEntry& e = k.entries[i];
      check(e.values.size() == k.parameters.size(),
            "kernel '" + k.name + "': an entry with the wrong number of values");
      check(!e.device.empty(), "kernel '" + k.name + "': an entry without a device");
      check(!e.problem_size.empty() && e.problem_size.size() <= 3, "kernel '" + k.name + "': a problem size of " +
                                                                       std::to_string(e.problem_size.size()) +
                                                                       " dimensions");
      for (const std::int64_t n : e.problem_size) check(n >= 1, "kernel '" + k.name + "': a problem size below 1");
      for (std::size_t j = 0; j < i; ++j)
        check(k.entries[j].device != e.device || !same_size(k.entries[j].problem_size, e.problem_size),
              "kernel '" + k.name + "': two entries for device '" + e.device + "' at size " +
                  format_problem_size(e.problem_size));
    }
  }
}

void check_same(const Wisdom& a, const Wisdom& b, const std::string& text) {
  check(a.kernels().size() == b.kernels().size(), "the round trip changed the number of kernels:\n" + text);
  for (const WisdomKernel& k : a.kernels()) {
    const WisdomKernel* o = b.find(k.name);
    check(o != nullptr, "the round trip lost kernel '" + k.name + "':\n" + text);
    check(o->parameters == k.parameters && o->default_values == k.default_values,
          "the round trip changed kernel '" + k.name + "''s parameters or default:\n" + text);
    check(o->entries.size() == k.entries.size(), "the round trip changed kernel '" + k.name + "''s entries:\n" + text);
    for (const WisdomEntry& e : k.entries) {
      const WisdomEntry* f = entry_at(*o, e);
      check(f != nullptr && same_entry(e, *f), "the round trip changed kernel '" + k.name + "''s entry for '" +
                                                   e.device + "' at " + format_problem_size(e.problem_size) + ":\n" +
                                                   text);
    }
  }
}

void check_selection(const Wisdom& wisdom, const std::string& kernel, const std::string& device,
                     const ProblemSize& size) {
  const Selection s = wisdom.select(kernel, device, size);
  const std::string what = "select('" + kernel + "', '" + device + "', " + format_problem_size(size) + ")";
  const WisdomKernel* k = wisdom.find(kernel);
  check(s.kernel == k, what + ": another kernel than the one asked for");
  (void)s.describe(size);
  const Selection again = wisdom.select(kernel, device, size);
  check(again.rule == s.rule && again.kernel == s.kernel && again.entry == s.entry &&
            again.values.data() == s.values.data() && again.values.size() == s.values.size(),
        what + ": another answer when asked again");
  if (s.rule == SelectionRule::none) {
    check(s.values.empty() && s.entry == nullptr, what + ": rule none with values");
    check(k == nullptr || (k->entries.empty() && k->default_values.empty()),
          what + ": rule none for a kernel with wisdom");
    return;
  }
  check(k != nullptr, what + ": an answer for an unknown kernel");
  check(s.values.size() == k->parameters.size(), what + ": " + std::to_string(s.values.size()) + " values for " +
                                                     std::to_string(k->parameters.size()) + " parameters");
  if (s.rule == SelectionRule::kernel_default) {
    check(s.entry == nullptr && !k->default_values.empty() && k->entries.empty(), what + ": a wrong kernel default");
    check(std::equal(s.values.begin(), s.values.end(), k->default_values.begin(), k->default_values.end()),
          what + ": values other than the default");
    return;
  }
  check(s.entry != nullptr && s.entry >= k->entries.data() && s.entry < k->entries.data() + k->entries.size(),
        what + ": rule " + std::string(to_string(s.rule)) + " without one of the kernel's entries");
  check(std::equal(s.values.begin(), s.values.end(), s.entry->values.begin(), s.entry->values.end()),
        what + ": values other than the entry's");
  if (s.rule == SelectionRule::exact)
    check(normalised_device_name(s.entry->device) == normalised_device_name(device) &&
              same_size(s.entry->problem_size, size),
          what + ": rule exact for an entry of device '" + s.entry->device + "' at " +
              format_problem_size(s.entry->problem_size));
}

void check_selections(const Wisdom& wisdom) {
  std::vector<std::string> devices = {"", "a device not in the wisdom"};
  std::set<std::string> seen;
  for (const WisdomKernel& k : wisdom.kernels())
    for (const WisdomEntry& e : k.entries)
      if (seen.insert(e.device).second) devices.push_back(e.device);
  const std::vector<ProblemSize> sizes = {
      {}, {1}, {1024}, {4096, 4096}, {7, 1, 3}, {std::numeric_limits<std::int64_t>::max()}};
  std::vector<std::string> kernels = {"a kernel not in the wisdom"};
  for (const WisdomKernel& k : wisdom.kernels()) kernels.push_back(k.name);
  // Bounded, so that a 4 KB input of many kernels and devices stays fast.
  std::size_t budget = 20000;
  for (const std::string& kernel : kernels)
    for (const std::string& device : devices)
      for (const ProblemSize& size : sizes) {
        if (budget == 0) break;
        --budget;
        check_selection(wisdom, kernel, device, size);
      }
  // An entry's own device and problem size: rule exact.
  for (const WisdomKernel& k : wisdom.kernels())
    for (const WisdomEntry& e : k.entries) {
      check_selection(wisdom, k.name, e.device, e.problem_size);
      const Selection s = wisdom.select(k.name, e.device, e.problem_size);
      check(s.rule == SelectionRule::exact, "select('" + k.name + "', '" + e.device + "', " +
                                                format_problem_size(e.problem_size) + "): rule " +
                                                std::string(to_string(s.rule)) + ", not exact, for an entry's own "
                                                "device and problem size");
    }
}

}  // namespace

int ktune_fuzz_wisdom(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Wisdom wisdom;
  try {
    wisdom = Wisdom::parse(text, kWhere);
  } catch (const WisdomError& e) {
    const std::string message = e.what();
    check(message.rfind(kWhere + ":", 0) == 0, "WisdomError without the file and line: " + message);
    return 0;
  }
  check_holds_together(wisdom);

  const std::string first = written(wisdom);
  const Wisdom again = reread(first);
  check_same(wisdom, again, first);
  const std::string second = written(again);
  check(second == first, "writing what was re-read gives other text:\n" + first + "\n---\n" + second);

  Wisdom merged;
  merged.merge(wisdom);
  check(written(merged) == first, "merging what was read into empty wisdom writes other text");

  check_selections(wisdom);
  return 0;
}
