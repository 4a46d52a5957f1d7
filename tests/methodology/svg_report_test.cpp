// The SVG figures of a comparison (ktune/methodology/svg_report.hpp), from a small report built by hand.
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/methodology/svg_report.hpp"
#include "temp_files.hpp"

namespace ktune::methodology {
namespace {
namespace svg_report_test {

constexpr std::size_t kPoints = 50;
const std::string kOdd = "a<b&c";  // a strategy name that needs escaping

std::filesystem::path temp_root() { return testing::temp_dir(); }

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// "" if `xml` is one well-formed element tree (matching start and end tags, quoted attributes, only the five
// predefined entities), else what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t roots = 0;
  std::size_t i = 0;
  const auto entity_ok = [&](std::size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(at, std::strlen(e), e) == 0) return true;
    return false;
  };
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml[i] == '>') return "stray '>' at " + std::to_string(i);
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    if (open.empty() && roots > 0) return "content after the root element at " + std::to_string(i);
    // A tag: scan to its '>' outside quotes.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < xml.size(); ++j) {
      const char c = xml[j];
      if (quote != 0) {
        if (c == quote) quote = 0;
        else if (c == '<') return "'<' inside an attribute at " + std::to_string(j);
        else if (c == '&' && !entity_ok(j)) return "bad entity in an attribute at " + std::to_string(j);
      } else if (c == '"' || c == '\'') {
        if (xml[j - 1] != '=') return "unquoted attribute or stray quote at " + std::to_string(j);
        quote = c;
      } else if (c == '=') {
        if (j + 1 == xml.size() || (xml[j + 1] != '"' && xml[j + 1] != '\''))
          return "unquoted attribute at " + std::to_string(j);
      } else if (c == '>') {
        break;
      } else if (c == '<') {
        return "'<' inside a tag at " + std::to_string(j);
      }
    }
    if (j == xml.size()) return "unterminated tag at " + std::to_string(i);
    const std::string tag = xml.substr(i + 1, j - i - 1);
    if (tag.empty()) return "empty tag at " + std::to_string(i);
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return "unmatched </" + name + "> at " + std::to_string(i);
      open.pop_back();
    } else if (tag.back() != '/') {
      if (open.empty()) ++roots;
      open.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
    } else if (open.empty()) {
      ++roots;
    }
    i = j + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> is not closed";
  if (roots != 1) return "expected one root element, got " + std::to_string(roots);
  return "";
}

// The number of points of each polyline in `svg`.
std::vector<std::size_t> polyline_points(const std::string& svg) {
  std::vector<std::size_t> out;
  for (auto at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    const auto begin = svg.find("points=\"", at) + 8;
    const auto end = svg.find('"', begin);
    std::istringstream points(svg.substr(begin, end - begin));
    std::size_t n = 0;
    for (std::string pair; points >> pair; ++n) {
      const auto comma = pair.find(',');
      EXPECT_NE(comma, std::string::npos) << pair;
      EXPECT_NO_THROW((void)std::stod(pair.substr(0, comma)));
      EXPECT_NO_THROW((void)std::stod(pair.substr(comma + 1)));
    }
    out.push_back(n);
  }
  return out;
}

StrategyOnSpace strategy_on(const std::string& label, double score, double slope, double stop = 1) {
  StrategyOnSpace s;
  s.strategy = label;
  s.score = score;
  s.curve.real_stopping_fraction = stop;
  for (std::size_t i = 0; i < kPoints; ++i) {
    const double t = static_cast<double>(i) / (kPoints - 1);
    s.performance.push_back(slope * t);
    s.curve.values.push_back(20 - 15 * t * (0.5 + slope / 2));
  }
  return s;
}

SpaceResult space(const std::string& name, std::vector<StrategyOnSpace> strategies) {
  SpaceResult s;
  s.name = name;
  std::vector<double> values, times;
  for (int v = 1; v <= 20; ++v) {
    values.push_back(v);
    times.push_back(1.5);
  }
  s.stats = SpaceStatistics::from_values(name, values, times, true);
  s.budget_seconds = 55;
  for (std::size_t i = 0; i < kPoints; ++i) {
    s.time_points.push_back(1.5 + static_cast<double>(i));
    s.baseline.push_back(20 - 10 * static_cast<double>(i) / (kPoints - 1));
  }
  s.strategies = std::move(strategies);
  return s;
}

ComparisonReport small_report() {
  ComparisonReport report;
  // (spaces get objective "time" in ms below)
  report.strategies = {kOdd, "genetic"};
  report.spaces.push_back(space("conv/A100", {strategy_on(kOdd, 0.25, 0.5), strategy_on("genetic", 0.4124, 0.8, 0.5)}));
  report.spaces.push_back(space("conv_A100", {strategy_on(kOdd, -1.5, -3), strategy_on("genetic", 0.5, 1)}));
  for (const std::string& label : report.strategies) {
    AggregateResult a;
    a.strategy = label;
    for (std::size_t i = 0; i < kPoints; ++i)
      a.performance.push_back((report.spaces[0].strategies[label == kOdd ? 0 : 1].performance[i] +
                               report.spaces[1].strategies[label == kOdd ? 0 : 1].performance[i]) /
                              2);
    report.aggregate.push_back(a);
  }
  report.spaces[1].strategies[0].performance[20] = -std::numeric_limits<double>::infinity();
  for (SpaceResult& s : report.spaces) s.objective = "time", s.unit = "ms";
  report.aggregate[0].score = -0.6254;
  report.aggregate[0].error = 0.0456;
  report.aggregate[1].score = 0.4563;
  report.aggregate[1].error = 0.2;
  report.aggregate[1].real_stopping_fraction = 0.5;
  return report;
}

const std::filesystem::path& written_report() {
  static const std::filesystem::path dir = [] {
    const auto d = temp_root() / "report" / "nested";  // created with its parents
    write_svg_report(small_report(), d.string());
    return d;
  }();
  return dir;
}

const char* const kFigures[] = {"aggregate.svg", "scores.svg", "space_conv_A100.svg", "space_conv_A100_values.svg",
                                "space_conv_A100_2.svg", "space_conv_A100_2_values.svg"};

TEST(SvgReport, WritesWellFormedFigures) {
  for (const char* name : kFigures) {
    SCOPED_TRACE(name);
    const auto path = written_report() / name;
    ASSERT_TRUE(std::filesystem::is_regular_file(path));
    const std::string svg = read_text(path);
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"", 0), 0u);
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_FALSE(contains(svg, "<script"));
    EXPECT_FALSE(contains(svg, "href"));  // nothing external
    EXPECT_TRUE(contains(svg, "a&lt;b&amp;c")) << "the escaped strategy name";
    EXPECT_FALSE(contains(svg, kOdd));
    EXPECT_TRUE(contains(svg, "genetic"));
    EXPECT_FALSE(contains(svg, "nan")) << "no NaN coordinates";
  }
}

TEST(SvgReport, XmlCheckerCatchesMistakes) {
  EXPECT_EQ(xml_problem("<svg><g><line/></g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a<b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a&b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg x=1></svg>"), "");
  EXPECT_NE(xml_problem("<svg></svg><svg></svg>"), "");
}

TEST(SvgReport, AggregateLinesLegendAndReferences) {
  const std::string svg = read_text(written_report() / "aggregate.svg");
  EXPECT_EQ(polyline_points(svg), (std::vector<std::size_t>{kPoints, kPoints}));
  EXPECT_TRUE(contains(svg, "a&lt;b&amp;c: -0.625 ± 0.046"));
  EXPECT_TRUE(contains(svg, "genetic: 0.456 ± 0.200"));
  EXPECT_TRUE(contains(svg, "random search (P = 0)"));
  EXPECT_TRUE(contains(svg, "optimum (P = 1)"));
  // P = 0 and P = 1 look different (colour and pattern), each in the plot and the legend.
  EXPECT_EQ(count(svg, "stroke=\"#b03a2e\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\""), 2u);
  EXPECT_EQ(count(svg, "stroke=\"#1e6b3a\" stroke-width=\"2\" stroke-dasharray=\"2,3\""), 2u);
  // The lowest P is -1.25 (the mean of 0.5 and -3 at the end): the axis goes down to it, ticks every 0.5.
  for (const char* tick : {">-1.0</text>", ">-0.5</text>", ">0.0</text>", ">0.5</text>", ">1.0</text>"})
    EXPECT_TRUE(contains(svg, tick)) << tick;
  EXPECT_FALSE(contains(svg, ">-1.5</text>"));
  EXPECT_TRUE(contains(svg, "<circle"));  // where genetic's real runs end (median over spaces)
  EXPECT_FALSE(contains(svg, "is drawn at"));
}

TEST(SvgReport, SpaceFigures) {
  const std::string first = read_text(written_report() / "space_conv_A100.svg");
  EXPECT_EQ(polyline_points(first), (std::vector<std::size_t>{kPoints, kPoints}));
  EXPECT_TRUE(contains(first, "Performance on conv/A100"));
  EXPECT_TRUE(contains(first, "a&lt;b&amp;c: 0.250"));
  EXPECT_TRUE(contains(first, "genetic: 0.412"));
  EXPECT_EQ(count(first, "<circle"), 1u);
  EXPECT_TRUE(contains(first, "the real runs end at 50%"));

  // P = -3 and -inf are drawn at the floor of -2, with a note.
  const std::string second = read_text(written_report() / "space_conv_A100_2.svg");
  EXPECT_EQ(polyline_points(second), (std::vector<std::size_t>{kPoints, kPoints}));
  EXPECT_TRUE(contains(second, "P below -2 is drawn at -2 (lowest: -inf)"));
  EXPECT_TRUE(contains(second, ">-2.0</text>"));

  const std::string values = read_text(written_report() / "space_conv_A100_values.svg");
  EXPECT_EQ(polyline_points(values), (std::vector<std::size_t>{kPoints, kPoints, kPoints}));
  EXPECT_TRUE(contains(values, "random search R(T)"));
  EXPECT_TRUE(contains(values, "optimum 1<"));
  // Axes name their quantity and unit; values within a decade: a linear axis.
  EXPECT_TRUE(contains(values, ">tuning time (s)<"));
  EXPECT_TRUE(contains(values, ">best time (ms), lower is better<"));
  EXPECT_FALSE(contains(values, "objective value"));
  EXPECT_TRUE(contains(values, ">10</text>"));
  EXPECT_TRUE(contains(values, "T = 1.5 s to 50.5 s (50 points), budget 55 s"));
}

TEST(SvgReport, ValuesSpanningDecadesGetALogarithmicAxis) {
  ComparisonReport report = small_report();
  report.spaces.resize(1);
  SpaceResult& space = report.spaces[0];
  for (std::size_t i = 0; i < kPoints; ++i) {  // from 2000 down to 1: the worst is 2000 times the best
    space.baseline[i] = 2000.0 / (1 + static_cast<double>(i));
    for (auto& on : space.strategies) on.curve.values[i] = 1000.0 / (1 + static_cast<double>(i));
  }
  const auto dir = temp_root() / "log";
  write_svg_report(report, dir.string());
  const std::string values = read_text(dir / "space_conv_A100_values.svg");
  EXPECT_EQ(xml_problem(values), "");
  for (const char* tick : {">1</text>", ">10</text>", ">100</text>", ">1e+03</text>"})
    EXPECT_TRUE(contains(values, tick)) << tick;
  EXPECT_FALSE(contains(values, ">500.0</text>"));  // no linear ticks
  EXPECT_FALSE(contains(values, "drawn at their edge"));
}

TEST(SvgReport, ValuesOutsideTheAxesAreNoted) {
  // The parallel coordinates of a three-objective front stop at 1.5; a point beyond is clipped, and said so.
  MoComparisonReport report;
  MoSpaceResult space;
  space.name = "three";
  space.ideal = {0, 0, 0};
  space.nadir = {1, 1, 1};
  space.true_front = {{0, 1, 1}, {1, 0, 0.5}};
  MoStrategyOnSpace on;
  on.strategy = "nsga2";
  on.final_front = {{0, 1, 1}, {4, 0, 0.5}};
  on.median_igd = {1, 0.5};
  space.strategies.push_back(on);
  report.spaces.push_back(space);
  const std::vector<Objective> objectives{{"time", false}, {"energy", false}, {"smem", false}};
  const auto dir = temp_root() / "mo";
  write_svg_report(report, objectives, dir.string());
  const std::string front = read_text(dir / "space_three_front.svg");
  EXPECT_EQ(xml_problem(front), "");
  EXPECT_TRUE(contains(front, "1 value outside the axes&apos; range is drawn at their edge.")) << front;

  // Two objectives: the found points are rings drawn after (above) the true front, axes say which way is better.
  space.ideal = {0, 0};
  space.nadir = {1, 1};
  space.true_front = {{1, 100}, {10, 10}, {100, 1}};
  report.spaces[0] = space;
  report.spaces[0].name = "two";
  report.spaces[0].strategies[0].final_front = {{1, 100}, {20, 20}};
  write_svg_report(report, {{"time", false}, {"energy", false}}, dir.string());
  const std::string two = read_text(dir / "space_two_front.svg");
  EXPECT_EQ(xml_problem(two), "");
  EXPECT_TRUE(contains(two, ">time (lower is better)<"));
  EXPECT_TRUE(contains(two, ">energy (lower is better)<"));
  const auto first_ring = two.find("r=\"4\" fill=\"none\"");
  const auto last_truth = two.rfind("fill=\"#9a9a9a\"");
  ASSERT_NE(first_ring, std::string::npos);
  ASSERT_NE(last_truth, std::string::npos);
  EXPECT_LT(last_truth, first_ring) << "the strategies' points must be drawn over the true front";
  EXPECT_EQ(count(two, "r=\"4\" fill=\"none\""), 2u) << two;
  EXPECT_TRUE(contains(two, ">100</text>"));  // 1 to 100 on both axes: logarithmic
}

TEST(SvgReport, ScoresTable) {
  const std::string svg = read_text(written_report() / "scores.svg");
  for (const char* score : {">0.250<", ">0.412<", ">-1.500<", ">0.500<", ">-0.625<", ">0.456<"})
    EXPECT_TRUE(contains(svg, score)) << score;
  EXPECT_TRUE(contains(svg, ">aggregate<"));
  EXPECT_TRUE(contains(svg, ">conv/A100<"));
  EXPECT_TRUE(contains(svg, "fill=\"#d73027\""));  // -1.5: saturated red
  EXPECT_TRUE(contains(svg, "fill=\"#8dcca8\""));  // 0.5: halfway from white to green (#1a9850)
  EXPECT_EQ(count(svg, "<rect"), 1u + 2 * 3);  // background and 2 strategies x (2 spaces + aggregate)
}

TEST(SvgReport, IndexEmbedsEveryFigure) {
  const std::string html = read_text(written_report() / "index.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* name : kFigures) EXPECT_TRUE(contains(html, std::string("<img src=\"") + name + "\"")) << name;
  EXPECT_TRUE(contains(html, "a&lt;b&amp;c"));
  EXPECT_FALSE(contains(html, kOdd));
}

// The algorithm-design paper's 95% confidence band: over the two spaces, mean ± t(0.975, 1) * sd / sqrt(2), one
// polygon per stretch of finite values (the odd strategy's -inf on one space at point 20 splits its band in two).
TEST(SvgReport, AggregateShadesTheConfidenceBandOverSpaces) {
  const std::string svg = read_text(written_report() / "aggregate.svg");
  EXPECT_TRUE(contains(svg, "with its 95% confidence band"));
  EXPECT_EQ(count(svg, "<polygon"), 3u);
  // One space: no band.
  ComparisonReport one = small_report();
  one.spaces.pop_back();
  const auto dir = temp_root() / "one_space";
  write_svg_report(one, dir.string());
  const std::string single = read_text(dir / "aggregate.svg");
  EXPECT_EQ(count(single, "<polygon"), 0u);
  EXPECT_FALSE(contains(single, "confidence band"));
  EXPECT_EQ(xml_problem(single), "");
}

TEST(SvgReport, NanBreaksTheLine) {
  ComparisonReport report = small_report();
  report.spaces[0].strategies[0].performance[10] = std::nan("");
  const auto dir = temp_root() / "nan";
  write_svg_report(report, dir.string());
  const std::string svg = read_text(dir / "space_conv_A100.svg");
  EXPECT_EQ(polyline_points(svg), (std::vector<std::size_t>{10, kPoints - 11, kPoints}));
  EXPECT_EQ(xml_problem(svg), "");
}

TEST(SvgReport, EmptyReport) {
  const auto dir = temp_root() / "empty";
  write_svg_report(ComparisonReport{}, dir.string());
  for (const char* name : {"aggregate.svg", "scores.svg"}) {
    const std::string svg = read_text(dir / name);
    EXPECT_EQ(xml_problem(svg), "") << name;
    EXPECT_FALSE(contains(svg, "nan")) << name;
  }
}

TEST(SvgReport, UnwritableDirectoryOrFile) {
  const auto file = temp_root() / "a_file";
  std::ofstream(file) << "x";
  const auto under_file = (file / "report").string();
  try {
    write_svg_report(small_report(), under_file);
    ADD_FAILURE() << "no exception";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.what(), under_file + ": cannot create the report directory")) << e.what();
  }
  const auto dir = temp_root() / "blocked";
  std::filesystem::create_directories(dir / "scores.svg");  // a directory where a figure should go
  try {
    write_svg_report(small_report(), dir.string());
    ADD_FAILURE() << "no exception";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.what(), (dir / "scores.svg").string() + ": cannot replace the file")) << e.what();
  }
}

}  // namespace svg_report_test
}  // namespace
}  // namespace ktune::methodology
