// `ktune store import|export|list|best|merge STORE ...`: the results store (docs/store.md) from the command line.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/store/store_reports.hpp"
#include "ktune/store/store_transfer.hpp"

namespace ktune::cli {
namespace {

struct StoreOptions {
  std::string store;
  std::vector<std::string> files;  // import: results files; merge: stores
  std::string output;              // export
  std::optional<std::int64_t> space;
  std::string format;  // export: cache, t4, csv; empty: the space's own (csv for .csv)
  std::optional<std::string> kernel, device;
  std::size_t top = 1;
  bool json = false;
};

int fail(const std::string& verb, const std::string& message, int status) {
  std::cerr << fmt::format("ktune store {}: error: {}\n", verb, message);
  return status;
}

int run_import(const StoreOptions& o) {
  store::ResultsStore s(o.store);
  nlohmann::json report = nlohmann::json::array();
  for (const auto& file : o.files) {
    const auto r = store::import_results_file(s, file);
    report.push_back({{"file", file}, {"format", r.format}, {"space", r.space}, {"session", r.session},
                      {"read", r.read}, {"added", r.added}, {"truncated", r.truncated}});
    if (!o.json)
      std::cout << fmt::format("{}: {} records ({}), {} new, into space {}{}\n", file, r.read, r.format, r.added,
                               r.space, r.truncated ? " (the file was cut short: its complete records)" : "");
  }
  if (o.json) std::cout << nlohmann::json{{"store", o.store}, {"imported", report}}.dump(2) << "\n";
  return kExitOk;
}

int run_export(const StoreOptions& o) {
  const store::ResultsStore s(o.store, store::OpenMode::existing);
  std::int64_t space = 0;
  if (o.space) {
    space = *o.space;
  } else {
    const auto spaces = s.spaces();
    if (spaces.size() != 1)
      return fail("export", fmt::format("{} holds {} spaces: choose one with --space ID (ktune store list)", o.store,
                                        spaces.size()),
                  kExitUsage);
    space = spaces[0].id;
  }
  const auto info = s.space(space);
  const auto format = o.format.empty() ? store::default_export_format(info, o.output)
                                       : *store::parse_export_format(o.format);
  const auto r = store::export_space(s, space, o.output, format);
  const char* names[] = {"cache", "t4", "csv"};
  if (o.json) {
    std::cout << nlohmann::json{{"store", o.store}, {"space", space}, {"file", o.output},
                                {"format", names[static_cast<int>(format)]}, {"written", r.written},
                                {"superseded", r.superseded}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << fmt::format("{}: {} records of space {} ({}){}\n", o.output, r.written, space,
                             names[static_cast<int>(format)],
                             r.superseded ? fmt::format("; {} earlier measurements of the same configurations left out "
                                                        "(a cache keeps the latest)", r.superseded)
                                          : "");
  }
  return kExitOk;
}

int run_list(const StoreOptions& o) {
  const store::ResultsStore s(o.store, store::OpenMode::existing);
  if (o.json) std::cout << store::store_list_json(s).dump(2) << "\n";
  else store::write_store_list(std::cout, s);
  return kExitOk;
}

int run_best(const StoreOptions& o) {
  const store::ResultsStore s(o.store, store::OpenMode::existing);
  const auto groups = store::best_per_group(s, {o.kernel, o.device, o.top});
  if (o.json) std::cout << store::store_best_json(s, groups).dump(2) << "\n";
  else store::write_store_best(std::cout, groups);
  return kExitOk;
}

int run_merge(const StoreOptions& o) {
  store::ResultsStore s(o.store);
  nlohmann::json report = nlohmann::json::array();
  for (const auto& other : o.files) {
    const auto r = store::merge_store(s, other);
    report.push_back(
        {{"from", other}, {"spaces", r.spaces}, {"sessions", r.sessions}, {"read", r.read}, {"added", r.added}});
    if (!o.json)
      std::cout << fmt::format("{}: {} records in {} spaces, {} new\n", other, r.read, r.spaces, r.added);
  }
  if (o.json) std::cout << nlohmann::json{{"store", o.store}, {"merged", report}}.dump(2) << "\n";
  return kExitOk;
}

// Bad input (a file, a store) is exit status 1, with the file named; nothing half-written stays behind.
int guarded(const std::string& verb, int (*run)(const StoreOptions&), const StoreOptions& o) {
  try {
    return run(o);
  } catch (const io::InputError& e) {
    return fail(verb, e.what(), kExitInputError);
  } catch (const std::exception& e) {
    return fail(verb, fmt::format("{}: {}", o.store, e.what()), kExitInputError);
  }
}

}  // namespace

Command add_store_command(CLI::App& app) {
  auto o = std::make_shared<StoreOptions>();
  CLI::App* sub = app.add_subcommand("store", "The results store (SQLite): import, export, list, best, merge");
  sub->require_subcommand(1);
  const auto store_argument = [&](CLI::App* verb) {
    verb->add_option("store", o->store, "The results store file (SQLite)")->required();
  };
  auto* import = sub->add_subcommand(
      "import", "Import Kernel Tuner caches, T4 files (.json, .json.gz) and ktune CSV files (.csv) into the store");
  store_argument(import);
  import->add_option("files", o->files, "Results files")->required()->check(CLI::ExistingFile);
  import->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  auto* exporting =
      sub->add_subcommand("export", "Write one space of the store as a Kernel Tuner cache, T4 or CSV file");
  store_argument(exporting);
  exporting->add_option("file", o->output, "The file to write (replaced atomically)")->required();
  exporting->add_option("--space", o->space, "The space (ktune store list); needed when the store holds several");
  exporting->add_option("--format", o->format, "cache, t4 or csv (default: the space's own format; csv for .csv)")
      ->check(CLI::IsMember({"cache", "t4", "csv"}));
  exporting->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  auto* list = sub->add_subcommand("list", "The spaces of the store (kernel, device, problem size) with their counts");
  store_argument(list);
  list->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  auto* best = sub->add_subcommand("best", "The best configurations per kernel, device and problem size");
  store_argument(best);
  best->add_option("--top", o->top, "How many per kernel, device and problem size")->check(CLI::Range(1, 1000000));
  best->add_option("--kernel", o->kernel, "Only this kernel");
  best->add_option("--device", o->device, "Only this device");
  best->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  auto* merge =
      sub->add_subcommand("merge", "Copy other stores' records in (records the store holds already are skipped)");
  store_argument(merge);
  merge->add_option("others", o->files, "Stores to merge in")->required()->check(CLI::ExistingFile);
  merge->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  return {sub, [o, import, exporting, list, best, merge] {
            if (import->parsed()) return guarded("import", run_import, *o);
            if (exporting->parsed()) return guarded("export", run_export, *o);
            if (list->parsed()) return guarded("list", run_list, *o);
            if (best->parsed()) return guarded("best", run_best, *o);
            return guarded("merge", run_merge, *o);
          }};
}

}  // namespace ktune::cli
