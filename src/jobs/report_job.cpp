#include "ktune/jobs/report_job.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/report/comparison_summary.hpp"
#include "ktune/report/html_page.hpp"
#include "ktune/store/results_store.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string size_text(const json& size) {
  if (size.is_null()) return "";
  if (size.is_array()) {
    std::string out;
    for (const auto& d : size) out += (out.empty() ? "" : "x") + (d.is_string() ? d.get<std::string>() : d.dump());
    return out;
  }
  return size.is_string() ? size.get<std::string>() : size.dump();
}

// "kernel on device at size", or the file's name when it names neither.
std::string run_name(const report::ReportRun& run, const std::string& path) {
  std::string name = run.kernel_name.empty() ? io::file_stem(path) : run.kernel_name;
  if (!run.device_name.empty()) name += " on " + run.device_name;
  if (const std::string size = size_text(run.problem_size); !size.empty()) name += " at " + size;
  return name;
}

std::vector<report::ReportRun> store_runs(const std::string& path) {
  const store::ResultsStore store(path, store::OpenMode::existing);
  std::vector<report::ReportRun> runs;
  for (const auto& space : store.spaces()) {
    report::ReportRun run;
    run.source = fmt::format("{}#{}", path, space.id);
    run.format = "results store";
    run.device_name = space.origin.device_name;
    run.kernel_name = space.origin.kernel_name;
    run.problem_size = space.origin.problem_size;
    run.problem = space.origin.problem;
    run.objectives = space.origin.objectives;
    run.records = store.records(space.id);
    run.name = run_name(run, path);
    runs.push_back(std::move(run));
  }
  return runs;
}

report::ReportRun file_run(io::ResultsFile file, const std::string& path) {
  report::ReportRun run;
  run.source = path;
  run.format = io::to_string(file.format);
  run.device_name = file.device_name;
  run.kernel_name = file.kernel_name;
  run.problem_size = file.problem_size;
  run.problem = std::move(file.problem);
  run.objectives = std::move(file.objectives);
  run.records = std::move(file.records);
  run.name = run_name(run, path);
  return run;
}

}  // namespace

std::vector<json> summarize_input(const std::string& path, const report::SummaryOptions& options) {
  std::vector<json> items;
  const auto summarize = [&](const report::ReportRun& run) {
    try {
      items.push_back(report::summarize_run(run, options));
    } catch (const std::invalid_argument& e) {
      refuse_input(fmt::format("{}: {}", path, e.what()));
    }
  };
  try {
    if (store::is_results_store_file(path)) {
      for (const auto& run : store_runs(path)) summarize(run);
      return items;
    }
    io::ResultsFile file;
    try {
      file = io::read_results_file(path);
    } catch (const io::InputError& not_results) {
      // A comparison report is JSON of its own shape; anything else keeps the results reader's error.
      json document;
      try {
        document = io::load_json_file(path);
      } catch (const io::InputError&) {
        throw not_results;
      }
      if (!report::is_comparison_report(document)) throw not_results;
      try {
        items.push_back(report::summarize_comparison(document, io::file_stem(path), path));
      } catch (const std::invalid_argument& e) {
        refuse_input(e.what());
      }
      return items;
    }
    summarize(file_run(std::move(file), path));
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
  return items;
}

ReportResult run_report(const ReportRequest& request) {
  if (request.inputs.empty())
    refuse_request("no results to report on: name caches, T4 files, stores or comparison reports");
  report::SummaryOptions options;
  options.objectives = request.objectives;
  options.top = request.top;
  std::vector<json> items;
  for (const auto& path : request.inputs)
    for (auto& item : summarize_input(path, options)) items.push_back(std::move(item));
  if (items.empty()) refuse_input("the inputs hold no run (an empty results store?)");
  ReportResult result;
  result.data = report::page_data(items, request.title);
  if (request.html_dir.empty()) return result;

  std::error_code ec;
  fs::create_directories(request.html_dir, ec);
  if (ec) refuse_input(fmt::format("cannot create the report folder {}: {}", request.html_dir, ec.message()));
  const auto write_page = [&](const json& data, const std::string& file, const std::string& name) {
    const std::string path = (fs::path(request.html_dir) / file).string();
    try {
      report::PageOptions page;
      page.title = data["title"].get<std::string>();
      io::write_file_atomically(path, report::html_page(data, page));
    } catch (const std::exception& e) {
      refuse_input(e.what());
    }
    result.pages.push_back({path, name});
  };
  write_page(result.data, "index.html", result.data["title"].get<std::string>());
  if (items.size() > 1) {
    std::map<std::string, int> used;
    for (const auto& item : items) {
      std::string stem;
      for (char c : item.value("name", std::string("run")))
        stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
      if (const int n = used[stem]++; n > 0) stem += fmt::format("-{}", n + 1);
      write_page(report::page_data({item}, "", 0), stem + ".html", item.value("name", std::string()));
    }
  }
  return result;
}

json report_result_json(const ReportResult& result) {
  json pages = json::array();
  for (const auto& p : result.pages) pages.push_back({{"path", p.path}, {"name", p.name}});
  json items = json::array();
  for (const auto& item : result.data["items"]) {
    json i{{"kind", item["kind"]}, {"name", item["name"]}, {"source", item["source"]}};
    if (item["kind"] == "run") {
      i["records"] = item["records"];
      i["best"] = item["best"];
      i["objectives"] = item["objectives"];
    } else {
      i["strategies"] = item["strategies"];
    }
    items.push_back(std::move(i));
  }
  return {{"pages", pages}, {"items", items}};
}

WatchedReport::WatchedReport(ReportRequest request) : request_(std::move(request)) {
  request_.html_dir.clear();
  changed();
  data_ = run_report(request_).data;
}

bool WatchedReport::changed() {
  std::vector<std::pair<long long, long long>> now;
  for (const auto& path : request_.inputs) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) st = {};
    now.emplace_back(static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
  }
  const bool different = now != stamps_;
  stamps_ = std::move(now);
  return different;
}

json WatchedReport::data() {
  if (changed()) {
    try {
      json fresh = run_report(request_).data;
      data_ = std::move(fresh);
      ++version_;
    } catch (const JobError&) {
      stamps_.clear();  // half-written: read again next time
    }
  }
  data_["version"] = version_;
  return data_;
}

}  // namespace ktune
