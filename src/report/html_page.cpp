#include "ktune/report/html_page.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "ktune/version.hpp"

namespace ktune::report {
namespace {

#include "ktune_generated/page_script.inc"
#include "ktune_generated/page_style.inc"

std::string escaped_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

nlohmann::json page_data(std::vector<nlohmann::json> items, const std::string& title, std::size_t version) {
  std::string name = title;
  if (name.empty()) {
    for (const auto& item : items) name += (name.empty() ? "" : ", ") + item.value("name", std::string());
    if (items.size() > 3) name = fmt::format("{} runs and comparisons", items.size());
  }
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return {{"title", "ktune report: " + name},
          {"ktune_version", kVersionString},
          {"generated", fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", now)},
          {"version", version},
          {"items", std::move(items)}};
}

std::string page_data_text(const nlohmann::json& data) {
  // Invalid UTF-8 (a compiler message cut mid-character) is replaced rather than refused.
  std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (std::size_t at = 0; (at = text.find("</", at)) != std::string::npos; at += 3) text.replace(at, 2, "<\\/");
  return text;
}

std::string html_page(const nlohmann::json& data, const PageOptions& options) {
  const std::string live =
      options.live ? fmt::format("<script>window.KTUNE_LIVE = {{poll_ms: {}}};</script>\n", options.poll_ms) : "";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"ktune\">\n<link rel=\"icon\" "
      "href=\"data:,\">\n<title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n"
      "<div id=\"live-status\"></div>\n<pre id=\"ktune-errors\" data-count=\"0\"></pre>\n"
      "<main id=\"ktune-report\"><noscript>This report draws its figures with JavaScript.</noscript></main>\n"
      "<script type=\"application/json\" id=\"ktune-data\">{}</script>\n{}<script>\n{}</script>\n</body>\n</html>\n",
      escaped_html(options.title), kPageStyle, page_data_text(data), live, kPageScript);
}

}  // namespace ktune::report
