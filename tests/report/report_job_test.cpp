// ktune report's job, page and live server: every input kind, bad inputs named, the page's data safe inside its
// script element, and the server answering on 127.0.0.1 without waiting for a slow client.
#include "ktune/jobs/report_job.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include "ktune/report/html_page.hpp"
#include "ktune/report/live_run.hpp"
#include "ktune/report/report_server.hpp"
#include "ktune/store/results_store.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

using json = nlohmann::json;
using ktune::testing::read_text;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;
using ktune::testing::write_temp;

const std::string kCache = shared_path("data/benchmark_hub/cachefiles/convolution/RTX_3090.json.gz");

ReportRequest request_of(std::vector<std::string> inputs, std::string html_dir = "",
                         std::vector<std::string> objectives = {}) {
  ReportRequest r;
  r.inputs = std::move(inputs);
  r.html_dir = std::move(html_dir);
  r.objectives = std::move(objectives);
  return r;
}

report::PageOptions live_page() {
  report::PageOptions o;
  o.live = true;
  return o;
}

std::string job_error(const ReportRequest& request) {
  try {
    run_report(request);
  } catch (const JobError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportJob, ACacheAndATwinT4FileGiveTheSameRun) {
  const std::string t4 = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100_T4.json.gz");
  const std::string cache = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  const ReportResult r = run_report(request_of({cache, t4}, (temp_dir() / "twins").string()));
  ASSERT_EQ(r.data["items"].size(), 2u);
  const json& a = r.data["items"][0];
  const json& b = r.data["items"][1];
  EXPECT_EQ(a["records"], b["records"]);
  EXPECT_EQ(a["best"]["value"], b["best"]["value"]);
  EXPECT_EQ(a["best"]["config"], b["best"]["config"]);
  EXPECT_EQ(a["importance"], b["importance"]);
  // index.html with both, and a page of each.
  ASSERT_EQ(r.pages.size(), 3u);
  for (const auto& page : r.pages) EXPECT_NE(read_text(page.path).find("id=\"ktune-data\""), std::string::npos);
}

TEST(ReportJob, AStoreGivesARunPerSpace) {
  const std::string path = (temp_dir() / "report.ktune").string();
  {
    store::ResultsStore s(path);
    for (const char* device : {"GPU A", "GPU B"}) {
      store::SpaceOrigin origin;
      origin.kernel_name = "k";
      origin.device_name = device;
      origin.problem.parameters = {{"x", {1, 2}}};
      const auto session =
          s.begin_session(s.space_of(origin), store::SessionInfo{"test", "", {}, nullptr, "", "", nullptr});
      for (int x : {1, 2}) {
        EvaluationRecord r;
        r.config = {x};
        r.measurements = {{"time", x * (device[4] == 'A' ? 1.0 : 3.0), "ms"}};
        s.add(session, r);
      }
    }
  }
  const ReportResult r = run_report(request_of({path}));
  ASSERT_EQ(r.data["items"].size(), 2u);
  EXPECT_EQ(r.data["items"][0]["name"], "k on GPU A");
  EXPECT_EQ(r.data["items"][1]["best"]["value"], 3.0);
  EXPECT_EQ(r.data["items"][1]["format"], "results store");
}

TEST(ReportJob, AComparisonNeedsItsCurves) {
  const json report{{"spaces", json::array({{{"name", "s"},
                                             {"scores", {{"pso", 0.5}}},
                                             {"time_points", {1, 2}},
                                             {"strategies", {{"pso", {{"performance", {0.1, 0.5}}}}}}}})},
                    {"aggregate", {{"pso", {{"score", 0.5}, {"error", 0.01}, {"performance", {0.1, 0.5}}}}}}};
  const ReportResult r = run_report(request_of({write_temp("cmp.json", report.dump())}));
  EXPECT_EQ(r.data["items"][0]["kind"], "comparison");
  EXPECT_EQ(r.data["items"][0]["aggregate"][0]["score"], 0.5);
  EXPECT_EQ(r.data["items"][0]["spaces"][0]["performance"]["pso"], json({0.1, 0.5}));

  json without = report;
  without["aggregate"]["pso"].erase("performance");
  const std::string path = write_temp("cmp_json.json", without.dump());
  const std::string error = job_error(request_of({path}));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("--output"), std::string::npos) << error;
}

TEST(ReportJob, BadInputsAreNamed) {
  const std::string other = write_temp("not_results.json", R"({"hello": 1})");
  std::string error = job_error(request_of({kCache, other}));
  EXPECT_NE(error.find(other), std::string::npos) << error;
  error = job_error(request_of({(temp_dir() / "missing.json").string()}));
  EXPECT_NE(error.find("missing.json"), std::string::npos) << error;
  error = job_error(request_of({kCache}, "", {"widgets"}));
  EXPECT_NE(error.find(kCache), std::string::npos) << error;
  EXPECT_NE(error.find("widgets:max"), std::string::npos) << error;
  EXPECT_FALSE(job_error({}).empty());
}

TEST(ReportPage, NoTextInTheDataCanEndItsScriptElement) {
  const json data = report::page_data({{{"kind", "run"}, {"name", "</script><script>alert(1)</script>"}}}, "t");
  report::PageOptions titled;
  titled.title = "<b>&";
  const std::string page = report::html_page(data, titled);
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find("<\\/script><script>alert(1)<\\/script>"), std::string::npos);
  EXPECT_NE(page.find("<title>&lt;b&gt;&amp;</title>"), std::string::npos);
  EXPECT_EQ(json::parse(report::page_data_text(data)), data);  // still the same JSON
  EXPECT_EQ(page.find("window.KTUNE_LIVE = "), std::string::npos);
  EXPECT_NE(report::html_page(data, live_page()).find("window.KTUNE_LIVE = "), std::string::npos);
}

// A raw HTTP exchange with the server.
std::string http(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "(no connection)";
  }
  (void)!::write(fd, request.data(), request.size());
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return answer;
}

TEST(ReportServer, ServesTheLivePageAndItsData) {
  int asked = 0;
  const report::ReportServer server(0, [&asked] {
    ++asked;
    return report::page_data({}, "served", 7);
  });
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/");
  const std::string page = http(server.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(page.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << page.substr(0, 200);
  EXPECT_NE(page.find("window.KTUNE_LIVE = "), std::string::npos);
  const std::string data = http(server.port(), "GET /data.json?t=1 HTTP/1.1\r\n\r\n");
  EXPECT_NE(data.find("application/json"), std::string::npos);
  EXPECT_EQ(json::parse(data.substr(data.find("\r\n\r\n") + 4))["version"], 7);
  EXPECT_EQ(http(server.port(), "GET /etc/passwd HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(http(server.port(), "POST /data.json HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
  EXPECT_EQ(asked, 2);
}

TEST(ReportServer, ASilentClientDoesNotStopTheNext) {
  const report::ReportServer server(0, [] { return report::page_data({}, "", 1); });
  const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(silent, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string answer = http(server.port(), "GET /data.json HTTP/1.1\r\n\r\n");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_LT(seconds, 4.0);  // at most the 2 s a request may take to arrive
  ::close(silent);
}

TEST(LiveRun, SummarizesAgainOnlyWhenSomethingWasAdded) {
  report::ReportRun run;
  run.name = "live";
  run.problem.parameters = {{"x", {1, 2, 3}}};
  report::LiveRun live(run, {});
  EXPECT_EQ(live.data()["version"], 0);
  EXPECT_TRUE(live.data()["items"][0]["best"].is_null());
  EvaluationRecord r;
  r.config = {2};
  r.measurements = {{"time", 5.0, "ms"}};
  live.add(r);
  const json d = live.data();
  EXPECT_EQ(d["version"], 1);
  EXPECT_EQ(d["items"][0]["best"]["value"], 5.0);
  EXPECT_EQ(live.data(), d);
}

}  // namespace
}  // namespace ktune
