#pragma once
// The report page: one self-contained HTML file (styles, script and data inside; nothing fetched, so it opens
// offline anywhere) that draws the summaries of run_summary.hpp and comparison_summary.hpp as SVG. Several runs are
// shown view by view, side by side. A live page (the dashboard) fetches data.json from the server that served it,
// every second, and draws again when it changed.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ktune::report {

struct PageOptions {
  std::string title = "ktune report";
  bool live = false;  // fetch data.json every `poll_ms` and redraw
  int poll_ms = 1000;
};

// The data of a page: {"title": "ktune report: " + title (else the items' names), "ktune_version", "generated" (UTC),
// "version": `version` (a live page draws again when it changes), "items": the summaries}.
nlohmann::json page_data(std::vector<nlohmann::json> items, const std::string& title, std::size_t version = 0);

// The page for `data`: {"title": ..., "items": [summary, ...], "generated": ISO time, "version": N}.
std::string html_page(const nlohmann::json& data, const PageOptions& options = {});

// `data` as the text a live page fetches (and a page embeds): JSON with "</" written "<\/" so that no string in it
// can end the page's script element.
std::string page_data_text(const nlohmann::json& data);

}  // namespace ktune::report
