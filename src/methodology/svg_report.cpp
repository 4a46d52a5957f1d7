// Hand-written SVG: a small line-plot renderer (axes with nice ticks, polylines, legend) and a score table, so the
// figures need no plotting library and open in any browser.
#include "ktune/methodology/svg_report.hpp"
#include "ktune/multiobjective/front_normalisation.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/repetition.hpp"
#include "support/quantile.hpp"
#include "nan_constant.hpp"

namespace ktune::methodology {

namespace {

// P is unbounded below; a few very negative values would flatten every other curve.
constexpr double kPerformanceFloor = -2;
constexpr double kFontSize = 12;
constexpr double kCharWidth = 0.6 * kFontSize;  // an average sans-serif advance, to size the legend and labels

// Okabe & Ito's colour-blind-safe palette, yellow last (faint on white).
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
                                    "#F0E442"};
constexpr const char* kDashes[] = {"", "9,4", "2,3", "9,3,2,3"};
constexpr const char* kReferenceColour = "#666666";

struct LineStyle {
  std::string colour, dash;
  double width = 2;
};

// Colours cycle; each further round of the palette gets another dash pattern, so many strategies stay apart.
LineStyle strategy_style(std::size_t index) {
  constexpr std::size_t colours = std::size(kPalette), dashes = std::size(kDashes);
  return {kPalette[index % colours], kDashes[(index / colours) % dashes]};
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// Pixel coordinates to a tenth of a pixel: finer is invisible and only makes files bigger.
std::string px(double v) {
  const std::string s = fmt::format("{:.1f}", v);
  return s == "-0.0" ? "0.0" : s;
}

// A data value in a label: 4 significant digits.
std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.4g}", v) : "n/a"; }
std::string score_text(double v) { return std::isfinite(v) ? fmt::format("{:.3f}", v) : "n/a"; }

double text_width(std::string_view text, double font_size = kFontSize) {
  // UTF-8 continuation bytes take no space of their own.
  const auto chars = std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; });
  return static_cast<double>(chars) * kCharWidth * font_size / kFontSize;
}

// --- axes ----------------------------------------------------------------------------------------------------------

struct Ticks {
  std::vector<double> values;
  double step = 1;
};

// 1, 2 or 5 times a power of ten, so that about `target` ticks cover [lo, hi].
Ticks nice_ticks(double lo, double hi, int target) {
  Ticks ticks;
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  ticks.step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * magnitude;
  const double first = std::ceil(lo / ticks.step - 1e-9);
  for (double k = first;; ++k) {
    const double t = k * ticks.step;
    if (t > hi + ticks.step * 1e-9) break;
    ticks.values.push_back(std::abs(t) < ticks.step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

// As many decimals as the step needs (steps are 1, 2 or 5 times a power of ten).
std::string tick_label(double v, double step) {
  if (std::abs(v) >= 1e6 || step < 1e-4) return fmt::format("{:.3g}", v);
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}", v, decimals);
}

// A usable range: finite and not empty.
void widen(double& lo, double& hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi - lo <= std::max(std::abs(lo), std::abs(hi)) * 1e-12) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
}

// --- line plots ----------------------------------------------------------------------------------------------------

struct Series {
  std::string label;
  LineStyle style;
  std::vector<double> xs, ys;
  std::size_t marker = SIZE_MAX;  // index of the point where the real runs end; SIZE_MAX: none
  std::string marker_title;
  bool points_only = false;  // a scatter: a dot per point, no line
  bool hollow = false;       // points_only: rings (what was found stays visible over what it covers)
  bool joined = false;       // points_only: a thin line through the points too (a front)
  bool in_legend = true;     // false for the 2nd.. polylines of one group (parallel coordinates)
  std::vector<double> band_low, band_high;  // a shaded band around the line (a spread); empty: none
};

struct ReferenceLine {
  double y = 0;
  std::string label;
  LineStyle style = {kReferenceColour, "6,4", 1.5};
};

struct LinePlot {
  std::string title, subtitle, x_label, y_label;
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  bool x_log = false, y_log = false;  // logarithmic axes (for values spanning decades; the range must be > 0)
  std::vector<ReferenceLine> references;
  std::vector<Series> series;
  std::vector<std::string> notes;
  bool clipping_noted = false;  // a note already says how values outside the range are drawn
};

// Whether positive values from lo to hi span at least two decades: then a logarithmic axis shows them.
bool spans_decades(double lo, double hi) { return lo > 0 && std::isfinite(hi) && hi / lo >= 100; }

class LinePlotRenderer {
 public:
  explicit LinePlotRenderer(const LinePlot& plot) : plot_(plot) {
    if (plot_.x_log && !(plot_.x_min > 0)) plot_.x_log = false;
    if (plot_.y_log && !(plot_.y_min > 0)) plot_.y_log = false;
    widen(plot_.x_min, plot_.x_max);
    widen(plot_.y_min, plot_.y_max);
    if (plot_.x_log) plot_.x_min *= 0.9, plot_.x_max *= 1.1;
    if (plot_.y_log) plot_.y_min *= 0.9, plot_.y_max *= 1.1;
    // Values outside the ranges are drawn at the edge: say so, unless the figure's own note does.
    std::size_t clipped = 0;
    for (const Series& s : plot_.series)
      for (std::size_t i = 0; i < std::min(s.xs.size(), s.ys.size()); ++i)
        if (std::isfinite(s.ys[i]) && std::isfinite(s.xs[i]) &&
            (s.ys[i] < plot_.y_min || s.ys[i] > plot_.y_max || s.xs[i] < plot_.x_min || s.xs[i] > plot_.x_max))
          ++clipped;
    if (clipped > 0 && !plot_.clipping_noted)
      plot_.notes.push_back(fmt::format("{} value{} outside the axes' range {} drawn at their edge.", clipped,
                                        clipped == 1 ? "" : "s", clipped == 1 ? "is" : "are"));
    double legend = 0;
    for (const Series& s : plot_.series)
      if (s.in_legend) legend = std::max(legend, text_width(s.label));
    for (const ReferenceLine& r : plot_.references) legend = std::max(legend, text_width(r.label));
    legend_width_ = legend + 44;
    double width = kLeft + kPlotWidth + 24 + legend_width_ + 12;
    width = std::max(width, kLeft + text_width(plot_.title, 15) + 20);
    for (const std::string& note : plot_.notes) width = std::max(width, kLeft + text_width(note, 11) + 20);
    width_ = width;
    top_ = plot_.subtitle.empty() ? 44 : 60;
    const auto listed = std::count_if(plot_.series.begin(), plot_.series.end(), [](const Series& s) { return s.in_legend; });
    const double legend_height = 18.0 * static_cast<double>(static_cast<std::size_t>(listed) + plot_.references.size());
    height_ = top_ + std::max(kPlotHeight, legend_height) + 52 + 16.0 * static_cast<double>(plot_.notes.size());
  }

  std::string render() const {
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"{2}\">\n"
        "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
        px(width_), px(height_), kFontSize);
    svg += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", px(kLeft),
                       xml_escape(plot_.title));
    if (!plot_.subtitle.empty())
      svg += fmt::format("<text x=\"{}\" y=\"42\" fill=\"#444444\">{}</text>\n", px(kLeft), xml_escape(plot_.subtitle));
    axes(svg);
    for (const ReferenceLine& r : plot_.references) {
      if (r.y < plot_.y_min || r.y > plot_.y_max) continue;
      svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n",
                         px(kLeft), px(y(r.y)), px(kLeft + kPlotWidth), px(y(r.y)), r.style.colour, r.style.width,
                         dash_attribute(r.style));
    }
    for (const Series& s : plot_.series) band(svg, s);
    for (const Series& s : plot_.series) lines(svg, s);
    for (const Series& s : plot_.series) marker(svg, s);
    legend(svg);
    double note_y = top_ + kPlotHeight + 50;
    for (const std::string& note : plot_.notes) {
      note_y += 16;
      svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#444444\">{}</text>\n", px(kLeft),
                         px(note_y), xml_escape(note));
    }
    svg += "</svg>\n";
    return svg;
  }

 private:
  static constexpr double kLeft = 76, kPlotWidth = 560, kPlotHeight = 330;

  // Where v lies in [lo, hi] as a fraction, on a linear or logarithmic scale; outside values are clamped to the edge
  // (the notes say so).
  static double fraction(double v, double lo, double hi, bool log) {
    const double c = std::clamp(v, lo, hi);
    return log ? std::log(c / lo) / std::log(hi / lo) : (c - lo) / (hi - lo);
  }
  double x(double v) const { return kLeft + fraction(v, plot_.x_min, plot_.x_max, plot_.x_log) * kPlotWidth; }
  double y(double v) const {
    return top_ + kPlotHeight - fraction(v, plot_.y_min, plot_.y_max, plot_.y_log) * kPlotHeight;
  }

  // Ticks of a logarithmic axis: the powers of ten, with 2 and 5 between them over fewer than three decades.
  static Ticks log_ticks(double lo, double hi) {
    Ticks t;
    const bool fine = hi / lo < 1000;
    for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10)
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1 && !fine) continue;
        const double v = m * decade;
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.values.push_back(v);
      }
    t.step = 0;  // labels with 3 significant digits
    return t;
  }
  Ticks axis_ticks(double lo, double hi, bool log, int target) const {
    return log ? log_ticks(lo, hi) : nice_ticks(lo, hi, target);
  }

  static std::string dash_attribute(const LineStyle& style) {
    return style.dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", style.dash);
  }

  void axes(std::string& svg) const {
    const Ticks xt = axis_ticks(plot_.x_min, plot_.x_max, plot_.x_log, 8),
                yt = axis_ticks(plot_.y_min, plot_.y_max, plot_.y_log, 7);
    const double bottom = top_ + kPlotHeight;
    svg += "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
    for (double t : xt.values)
      svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", px(x(t)), px(top_), px(bottom));
    for (double t : yt.values)
      svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", px(kLeft), px(y(t)),
                         px(kLeft + kPlotWidth));
    svg += "</g>\n<g font-size=\"11\" fill=\"#333333\">\n";
    for (double t : xt.values)
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x(t)), px(bottom + 16),
                         tick_label(t, xt.step));
    for (double t : yt.values)
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(kLeft - 6), px(y(t) + 4),
                         tick_label(t, yt.step));
    svg += "</g>\n";
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
                       px(kLeft), px(top_), px(kPlotWidth), px(kPlotHeight));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(kLeft + kPlotWidth / 2),
                       px(bottom + 38), xml_escape(plot_.x_label));
    svg += fmt::format("<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                       px(top_ + kPlotHeight / 2), xml_escape(plot_.y_label));
  }

  // A translucent polygon between band_low and band_high, one per stretch where both are finite.
  void band(std::string& svg, const Series& s) const {
    const std::size_t n = std::min({s.xs.size(), s.band_low.size(), s.band_high.size()});
    for (std::size_t i = 0; i < n;) {
      const auto finite = [&](std::size_t k) {
        return std::isfinite(s.xs[k]) && std::isfinite(s.band_low[k]) && std::isfinite(s.band_high[k]);
      };
      if (!finite(i)) {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < n && finite(end)) ++end;
      std::string points;
      for (std::size_t k = i; k < end; ++k)
        points += fmt::format("{}{},{}", points.empty() ? "" : " ", px(x(s.xs[k])), px(y(s.band_high[k])));
      for (std::size_t k = end; k-- > i;) points += fmt::format(" {},{}", px(x(s.xs[k])), px(y(s.band_low[k])));
      svg += fmt::format("<polygon fill=\"{}\" fill-opacity=\"0.15\" stroke=\"none\" points=\"{}\"/>\n",
                         s.style.colour, points);
      i = end;
    }
  }

  // One polyline per stretch of finite values.
  void lines(std::string& svg, const Series& s) const {
    const std::size_t n = std::min(s.xs.size(), s.ys.size());
    if (s.points_only) {
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) continue;
        if (s.hollow)
          svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"/>\n",
                             px(x(s.xs[i])), px(y(s.ys[i])), s.style.colour);
        else
          svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\" fill-opacity=\"0.8\"/>\n",
                             px(x(s.xs[i])), px(y(s.ys[i])), s.style.width + 1.5, s.style.colour);
      }
      if (s.joined) {
        std::string points;
        for (std::size_t i = 0; i < n; ++i)
          if (std::isfinite(s.xs[i]) && std::isfinite(s.ys[i]))
            points += fmt::format("{}{},{}", points.empty() ? "" : " ", px(x(s.xs[i])), px(y(s.ys[i])));
        if (!points.empty())
          svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1\" points=\"{}\"/>\n",
                             s.style.colour, points);
      }
      return;
    }
    std::string points;
    const auto flush = [&] {
      if (!points.empty())
        svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} stroke-linejoin=\"round\" "
                           "points=\"{}\"/>\n",
                           s.style.colour, s.style.width, dash_attribute(s.style), points);
      points.clear();
    };
    for (std::size_t i = 0; i < n; ++i) {
      if (std::isnan(s.ys[i]) || !std::isfinite(s.xs[i])) {
        flush();
        continue;
      }
      if (!points.empty()) points += ' ';
      points += px(x(s.xs[i]));
      points += ',';
      points += px(y(s.ys[i]));
    }
    flush();
  }

  void marker(std::string& svg, const Series& s) const {
    if (s.marker >= std::min(s.xs.size(), s.ys.size()) || std::isnan(s.ys[s.marker])) return;
    svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"2\">"
                       "<title>{}</title></circle>\n",
                       px(x(s.xs[s.marker])), px(y(s.ys[s.marker])), s.style.colour, xml_escape(s.marker_title));
  }

  void legend(std::string& svg) const {
    const double left = kLeft + kPlotWidth + 24;
    double row = top_ + 6;
    const auto entry = [&](const std::string& label, const std::string& colour, const std::string& attributes) {
      svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"{}/>\n", px(left), px(row),
                         px(left + 30), px(row), colour, attributes);
      svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", px(left + 38), px(row + 4), xml_escape(label));
      row += 18;
    };
    for (const Series& s : plot_.series)
      if (s.in_legend)
        entry(s.label, s.style.colour, fmt::format(" stroke-width=\"{}\"{}", s.style.width, dash_attribute(s.style)));
    for (const ReferenceLine& r : plot_.references)
      entry(r.label, r.style.colour, fmt::format(" stroke-width=\"{}\"{}", r.style.width, dash_attribute(r.style)));
  }

  LinePlot plot_;
  double legend_width_ = 0, width_ = 0, height_ = 0, top_ = 0;
};

// --- the figures ---------------------------------------------------------------------------------------------------

std::size_t strategy_index(const ComparisonReport& report, const std::string& label) {
  const auto it = std::find(report.strategies.begin(), report.strategies.end(), label);
  return static_cast<std::size_t>(it - report.strategies.begin());
}

// x of time index i of n on the relative axis: 0 = T[0], 1 = T[-1].
std::vector<double> relative_times(std::size_t n) {
  std::vector<double> xs(n, 0.0);
  for (std::size_t i = 1; i < n; ++i) xs[i] = static_cast<double>(i) / static_cast<double>(n - 1);
  return xs;
}

// The time index where the carried-forward part begins (real_stopping_fraction = j / n), SIZE_MAX if none.
std::size_t stopping_index(double real_stopping_fraction, std::size_t n) {
  if (!(real_stopping_fraction < 1) || n == 0) return SIZE_MAX;
  return std::min(n - 1, static_cast<std::size_t>(std::llround(real_stopping_fraction * static_cast<double>(n))));
}

std::string stopping_title(const std::string& label, double fraction) {
  return fmt::format("{}: the real runs end at {:.0f}% of the time range; later values are carried forward", label,
                     100 * fraction);
}

// The P axis: upstream's min(-0.5, lowest P) to 1.02, floored; a note tells when values were cut.
void performance_axis(LinePlot& plot) {
  double lowest = std::numeric_limits<double>::infinity();
  for (const Series& s : plot.series)
    for (double v : s.ys)
      if (!std::isnan(v)) lowest = std::min(lowest, v);
  plot.y_min = std::min(-0.5, lowest);
  plot.y_max = 1.02;
  if (plot.y_min < kPerformanceFloor) {
    plot.notes.push_back(
        fmt::format("P below {0} is drawn at {0} (lowest: {1:.4g}).", kPerformanceFloor, lowest));
    plot.y_min = kPerformanceFloor;
  }
  plot.clipping_noted = true;
  // Told apart by colour and pattern, not only by the legend's order.
  plot.references = {{0, "random search (P = 0)", {"#b03a2e", "6,4", 1.5}},
                     {1, "optimum (P = 1)", {"#1e6b3a", "2,3", 2}}};
}

void add_stopping_note(LinePlot& plot) {
  const bool any =
      std::any_of(plot.series.begin(), plot.series.end(), [](const Series& s) { return s.marker != SIZE_MAX; });
  if (any) plot.notes.push_back("Circles mark where the real runs end; after them the last value is carried forward.");
}

// The 95% confidence band of the mean of P over the spaces at each time point (Student's t over the spaces, as the
// algorithm-design paper shades its curves); empty with fewer than two spaces.
void confidence_band(const ComparisonReport& report, std::size_t strategy, Series& s) {
  const std::size_t n = report.spaces.size(), points = s.ys.size();
  if (n < 2) return;
  const double t = t_quantile_95(n - 1);
  s.band_low.assign(points, std::numeric_limits<double>::quiet_NaN());
  s.band_high = s.band_low;
  for (std::size_t i = 0; i < points; ++i) {
    double sum = 0, squares = 0;
    bool finite = true;
    for (const SpaceResult& space : report.spaces) {
      const auto& p = space.strategies[strategy].performance;
      const double v = i < p.size() ? p[i] : std::numeric_limits<double>::quiet_NaN();
      finite = finite && std::isfinite(v);
      sum += v;
      squares += v * v;
    }
    if (!finite) continue;
    const double mean = sum / static_cast<double>(n);
    const double variance = std::max(0.0, (squares - sum * mean) / static_cast<double>(n - 1));
    const double half = t * std::sqrt(variance / static_cast<double>(n));
    s.band_low[i] = mean - half;
    s.band_high[i] = mean + half;
  }
}

std::string aggregate_figure(const ComparisonReport& report) {
  LinePlot plot;
  plot.title = "Aggregate performance";
  plot.subtitle = fmt::format("mean of P over {} search space{}{}; score = mean over time ± standard deviation",
                              report.spaces.size(), report.spaces.size() == 1 ? "" : "s",
                              report.spaces.size() > 1 ? " with its 95% confidence band" : "");
  plot.x_label = "relative time (0 = start, 1 = end of each space's time range)";
  plot.y_label = "mean performance P";
  for (const AggregateResult& a : report.aggregate) {
    Series s;
    s.label = fmt::format("{}: {} ± {}", a.strategy, score_text(a.score), score_text(a.error));
    s.style = strategy_style(strategy_index(report, a.strategy));
    s.ys = a.performance;
    s.xs = relative_times(s.ys.size());
    s.marker = stopping_index(a.real_stopping_fraction, s.ys.size());
    s.marker_title = stopping_title(a.strategy, a.real_stopping_fraction) + " (median over spaces)";
    confidence_band(report, strategy_index(report, a.strategy), s);
    plot.series.push_back(std::move(s));
  }
  performance_axis(plot);
  add_stopping_note(plot);
  return LinePlotRenderer(plot).render();
}

std::string time_range_text(const SpaceResult& space) {
  const std::size_t n = space.time_points.size();
  return n == 0 ? std::string("no time points")
                : fmt::format("T = {} s to {} s ({} points), budget {} s", number(space.time_points.front()),
                              number(space.time_points.back()), n, number(space.budget_seconds));
}

std::string space_performance_figure(const ComparisonReport& report, const SpaceResult& space) {
  LinePlot plot;
  plot.title = "Performance on " + space.name;
  plot.subtitle = time_range_text(space);
  plot.x_label = "relative time (0 = start, 1 = end of the time range)";
  plot.y_label = "performance P";
  for (const StrategyOnSpace& on : space.strategies) {
    Series s;
    s.label = fmt::format("{}: {}", on.strategy, score_text(on.score));
    s.style = strategy_style(strategy_index(report, on.strategy));
    s.ys = on.performance;
    s.xs = relative_times(s.ys.size());
    s.marker = stopping_index(on.curve.real_stopping_fraction, s.ys.size());
    s.marker_title = stopping_title(on.strategy, on.curve.real_stopping_fraction);
    plot.series.push_back(std::move(s));
  }
  performance_axis(plot);
  add_stopping_note(plot);
  return LinePlotRenderer(plot).render();
}

std::string space_values_figure(const ComparisonReport& report, const SpaceResult& space) {
  const bool minimization = space.stats.minimization();
  LinePlot plot;
  plot.title = "Best value found on " + space.name;
  plot.subtitle = fmt::format("{}; {} valid of {} configurations", time_range_text(space), space.stats.size_valid(),
                              space.stats.size_all());
  plot.x_label = "tuning time (s)";
  plot.y_label = fmt::format("best {}{}, {} is better", space.objective.empty() ? "objective value" : space.objective,
                             space.unit.empty() ? "" : " (" + space.unit + ")", minimization ? "lower" : "higher");
  const auto with_times = [&](std::vector<double> values) {
    Series s;
    const std::size_t n = std::min(values.size(), space.time_points.size());
    s.ys.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
    s.xs.assign(space.time_points.begin(), space.time_points.begin() + static_cast<std::ptrdiff_t>(n));
    return s;
  };
  Series baseline = with_times(space.baseline);
  baseline.label = "random search R(T)";
  baseline.style = {"#888888", "", 3};
  plot.series.push_back(std::move(baseline));
  for (const StrategyOnSpace& on : space.strategies) {
    Series s = with_times(on.curve.values);
    s.label = on.strategy;
    s.style = strategy_style(strategy_index(report, on.strategy));
    s.marker = stopping_index(on.curve.real_stopping_fraction, s.ys.size());
    s.marker_title = stopping_title(on.strategy, on.curve.real_stopping_fraction);
    plot.series.push_back(std::move(s));
  }
  const double optimum = space.stats.size_valid() > 0 ? space.stats.optimum() : kNaN;
  if (!std::isnan(optimum)) plot.references.push_back({optimum, "optimum " + number(optimum)});

  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const auto include = [&](double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  };
  include(optimum);
  for (const Series& s : plot.series)
    for (double v : s.ys) include(v);
  widen(lo, hi);
  if (spans_decades(lo, hi)) {  // e.g. the worst configurations are 100 times slower than the best
    plot.y_log = true;
    plot.y_min = lo;
    plot.y_max = hi;
  } else {
    const double pad = 0.05 * (hi - lo);
    plot.y_min = lo - pad;
    plot.y_max = hi + pad;
  }
  if (!space.time_points.empty()) {
    plot.x_min = space.time_points.front();
    plot.x_max = space.time_points.back();
  }
  add_stopping_note(plot);
  return LinePlotRenderer(plot).render();
}

// Red (worse than random search) - white (0) - green (optimum); saturated at -1 and 1.
std::string score_colour(double score) {
  if (std::isnan(score)) return "#dddddd";
  const double t = std::clamp(score, -1.0, 1.0);
  const int end[3] = {t < 0 ? 0xd7 : 0x1a, t < 0 ? 0x30 : 0x98, t < 0 ? 0x27 : 0x50};
  const double w = std::abs(t);
  const auto mix = [&](int c) { return static_cast<int>(std::lround(255 + (c - 255) * w)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(end[0]), mix(end[1]), mix(end[2]));
}

std::string scores_figure(const ComparisonReport& report) {
  constexpr double kCellWidth = 74, kCellHeight = 28, kGap = 10, kAngle = 40;
  const double sin_angle = std::sin(kAngle * std::numbers::pi / 180),
               cos_angle = std::cos(kAngle * std::numbers::pi / 180);
  std::vector<std::string> columns;
  for (const SpaceResult& space : report.spaces) columns.push_back(space.name);
  columns.push_back("aggregate");

  double row_label_width = text_width("strategy");
  for (const std::string& label : report.strategies) row_label_width = std::max(row_label_width, text_width(label));
  const double left = 16 + row_label_width + 12;
  double header = 0, overhang = 0;  // rotated column names: height above the table and reach to the right
  for (const std::string& name : columns) {
    header = std::max(header, text_width(name) * sin_angle);
    overhang = std::max(overhang, text_width(name) * cos_angle - kCellWidth / 2);
  }
  const double top = 56 + header + 12;
  const double table_width = kCellWidth * static_cast<double>(columns.size()) + kGap;
  const double width = std::max(left + table_width + std::max(0.0, overhang) + 16, 420.0);
  const double height = top + kCellHeight * static_cast<double>(report.strategies.size()) + 44;

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"{2}\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"16\" y=\"24\" font-size=\"15\" font-weight=\"bold\">Scores per search space</text>\n"
      "<text x=\"16\" y=\"42\" fill=\"#444444\">mean of P over time: 0 = random search, 1 = optimum</text>\n",
      px(width), px(height), kFontSize);
  const auto column_x = [&](std::size_t c) {
    return left + kCellWidth * static_cast<double>(c) + (c + 1 == columns.size() ? kGap : 0.0);
  };
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const double cx = column_x(c) + kCellWidth / 2, cy = top - 8;
    svg += fmt::format("<text transform=\"translate({},{}) rotate(-{})\"{}>{}</text>\n", px(cx), px(cy), kAngle,
                       c + 1 == columns.size() ? " font-weight=\"bold\"" : "", xml_escape(columns[c]));
  }
  for (std::size_t r = 0; r < report.strategies.size(); ++r) {
    const std::string& label = report.strategies[r];
    const double y = top + kCellHeight * static_cast<double>(r);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(left - 10),
                       px(y + kCellHeight / 2 + 4), xml_escape(label));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      double score = kNaN;
      if (c + 1 < columns.size()) {
        for (const StrategyOnSpace& on : report.spaces[c].strategies)
          if (on.strategy == label) score = on.score;
      } else {
        for (const AggregateResult& a : report.aggregate)
          if (a.strategy == label) score = a.score;
      }
      const double x = column_x(c);
      svg += fmt::format("<g><title>{} on {}: {}</title>", xml_escape(label), xml_escape(columns[c]),
                         std::isfinite(score) ? fmt::format("{:.6g}", score) : "not run");
      svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\"/>", px(x),
                         px(y), px(kCellWidth), px(kCellHeight), score_colour(score));
      // Black text contrasts at least 4:1 with every colour of the scale.
      svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>\n", px(x + kCellWidth / 2),
                         px(y + kCellHeight / 2 + 4), score_text(score));
    }
  }
  svg += fmt::format("<text x=\"16\" y=\"{}\" font-size=\"11\" fill=\"#444444\">Colours: red below 0 (saturated at "
                     "-1), white at 0, green up to 1; grey: not run.</text>\n",
                     px(height - 16));
  svg += "</svg>\n";
  return svg;
}


// --- multi-objective figures ---------------------------------------------------------------------------------------

std::string igd_figure(const MoSpaceResult& space) {
  LinePlot plot;
  plot.title = "IGD+ on " + space.name;
  plot.subtitle = fmt::format("median over the runs, shaded between the quartiles; normalised by the true front's "
                              "ideal and nadir ({} points)",
                              space.true_front.size());
  plot.x_label = "evaluations";
  plot.y_label = "IGD+ (lower is better)";
  double hi = 0;
  for (std::size_t k = 0; k < space.strategies.size(); ++k) {
    const auto& on = space.strategies[k];
    Series s;
    s.label = on.strategy;
    s.style = strategy_style(k);
    s.ys = on.median_igd;
    s.band_low = on.lower_quartile_igd;
    s.band_high = on.upper_quartile_igd;
    for (auto* curve : {&s.ys, &s.band_low, &s.band_high})
      for (double& v : *curve)
        if (!std::isfinite(v)) v = kNaN;
    for (std::size_t e = 0; e < s.ys.size(); ++e) s.xs.push_back(static_cast<double>(e + 1));
    for (const auto* curve : {&s.ys, &s.band_high})
      for (double v : *curve)
        if (std::isfinite(v)) hi = std::max(hi, v);
    plot.series.push_back(std::move(s));
  }
  plot.x_min = 1;
  plot.x_max = static_cast<double>(space.strategies.empty() ? 1 : space.strategies.front().median_igd.size());
  plot.y_min = 0;
  plot.y_max = hi > 0 ? hi : 1;
  return LinePlotRenderer(plot).render();
}

// Two objectives: a scatter of the true front and each strategy's typical final front. More: parallel coordinates
// of the normalised objectives (0 = the true front's ideal, 1 = its nadir).
std::string front_figure(const MoSpaceResult& space,
                         const std::vector<Objective>& objectives) {
  const std::size_t m = space.ideal.size();
  LinePlot plot;
  plot.title = "Pareto fronts on " + space.name;
  plot.subtitle = "true front and, per strategy, the front of its median-IGD+ run";
  const LineStyle truth{"#9a9a9a", "", 0.5};
  const auto axis_label = [](const Objective& o) {
    return fmt::format("{} ({} is better)", o.name, o.higher_is_better ? "higher" : "lower");
  };
  if (m == 2) {
    plot.x_label = axis_label(objectives[0]);
    plot.y_label = axis_label(objectives[1]);
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    auto add = [&](const std::string& label, const LineStyle& style, const std::vector<std::vector<double>>& front) {
      Series s;
      s.label = label;
      s.style = style;
      s.points_only = true;
      for (const auto& p : front) {
        s.xs.push_back(p[0]);
        s.ys.push_back(p[1]);
        x0 = std::min(x0, p[0]);
        x1 = std::max(x1, p[0]);
        y0 = std::min(y0, p[1]);
        y1 = std::max(y1, p[1]);
      }
      plot.series.push_back(std::move(s));
    };
    // The true front first, small and grey; the strategies' points over it as rings, so that found points on the
    // front stay visible.
    add("true front", truth, space.true_front);
    plot.series.back().joined = true;
    for (std::size_t k = 0; k < space.strategies.size(); ++k) {
      LineStyle style = strategy_style(k);
      style.width = 1;
      add(space.strategies[k].strategy, style, space.strategies[k].final_front);
      plot.series.back().hollow = true;
    }
    plot.x_min = x0;
    plot.x_max = x1;
    plot.y_min = y0;
    plot.y_max = y1;
    plot.x_log = spans_decades(x0, x1);
    plot.y_log = spans_decades(y0, y1);
    return LinePlotRenderer(plot).render();
  }
  plot.x_label = "objective (0 = " + objectives[0].name + ", ...)";
  plot.y_label = "normalised value (0 = ideal, 1 = nadir of the true front)";
  const FrontNormalisation normalise(space.ideal, space.nadir);
  auto add = [&](const std::string& label, const LineStyle& style, const std::vector<std::vector<double>>& front) {
    bool first = true;
    for (const auto& p : front) {
      Series s;
      s.label = label;
      s.style = style;
      s.in_legend = first;
      first = false;
      for (std::size_t j = 0; j < m; ++j) {
        const double cost = objectives[j].higher_is_better ? -p[j] : p[j];
        s.xs.push_back(static_cast<double>(j));
        s.ys.push_back(normalise(cost, j));
      }
      plot.series.push_back(std::move(s));
    }
  };
  add("true front", LineStyle{"#bbbbbb", "", 1}, space.true_front);
  for (std::size_t k = 0; k < space.strategies.size(); ++k) {
    LineStyle style = strategy_style(k);
    style.width = 1.2;
    add(space.strategies[k].strategy, style, space.strategies[k].final_front);
  }
  plot.x_min = 0;
  plot.x_max = static_cast<double>(m - 1);
  plot.y_min = 0;
  plot.y_max = 1.5;
  plot.notes.push_back("Objectives: " + [&] {
    std::string t;
    for (std::size_t j = 0; j < m; ++j) t += fmt::format("{}{} = {}", j ? ", " : "", j, objectives[j].name);
    return t;
  }() + ".");
  return LinePlotRenderer(plot).render();
}

// --- files ---------------------------------------------------------------------------------------------------------

// Letters, digits, '.', '_' and '-' are safe in a file name and in a URL.
std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    if (!safe) c = '_';
  }
  return out;
}

void write_file(const std::filesystem::path& path, const std::string& content) {
  io::write_file_atomically(path.string(), content);
}

// The directory of a report, created with its parents; io::InputError naming it when that fails.
std::filesystem::path report_directory(const std::string& directory) {
  const std::filesystem::path dir(directory);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw io::InputError(directory, "",
                         fmt::format("cannot create the report directory: {}", ec ? ec.message() : "not a directory"));
  return dir;
}

// An index page's start, up to its heading (the figures follow as <img> elements).
std::string page_head(const std::string& title) {
  const std::string t = xml_escape(title);
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + t +
         "</title>\n<style>body{font-family:sans-serif;margin:2em;color:#222}img{display:block;max-width:100%;"
         "margin:1em 0}</style>\n</head>\n<body>\n<h1>" + t + "</h1>\n";
}

std::string index_page(const ComparisonReport& report, const std::vector<std::string>& space_files) {
  std::string html = page_head("Strategy comparison");
  std::string labels;
  for (const std::string& label : report.strategies) labels += (labels.empty() ? "" : ", ") + xml_escape(label);
  html += fmt::format("<p>{} strateg{} ({}) on {} search space{}. P = 0 is as good as random search, P = 1 finds "
                      "the optimum.</p>\n",
                      report.strategies.size(), report.strategies.size() == 1 ? "y" : "ies", labels,
                      report.spaces.size(), report.spaces.size() == 1 ? "" : "s");
  html += "<h2>Aggregate</h2>\n<img src=\"aggregate.svg\" alt=\"aggregate performance over relative time\">\n";
  html += "<img src=\"scores.svg\" alt=\"scores per search space\">\n";
  for (std::size_t i = 0; i < report.spaces.size(); ++i) {
    const std::string name = xml_escape(report.spaces[i].name);
    html += fmt::format("<h2>{}</h2>\n<img src=\"{}.svg\" alt=\"performance on {}\">\n", name, space_files[i], name);
    html += fmt::format("<img src=\"{}_values.svg\" alt=\"best values found on {}\">\n", space_files[i], name);
  }
  html += "</body>\n</html>\n";
  return html;
}

// --- hyperparameter grids ------------------------------------------------------------------------------------------

std::string score_distribution_figure(const HyperparameterScores& h) {
  LinePlot plot;
  plot.title = "Scores of " + h.strategy + "'s settings";
  plot.subtitle = fmt::format("empirical distribution of the aggregate score over {} setting{}",
                              h.settings.size(), h.settings.size() == 1 ? "" : "s");
  plot.x_label = "aggregate score";
  plot.y_label = "fraction of settings scoring at most this";
  std::vector<double> scores;
  for (const auto& setting : h.settings) scores.push_back(setting.score);
  std::sort(scores.begin(), scores.end());
  Series all;
  all.label = "settings";
  all.style = strategy_style(0);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    // A step: the fraction jumps at each score.
    all.xs.push_back(scores[i]);
    all.ys.push_back(static_cast<double>(i) / static_cast<double>(scores.size()));
    all.xs.push_back(scores[i]);
    all.ys.push_back(static_cast<double>(i + 1) / static_cast<double>(scores.size()));
  }
  plot.series.push_back(std::move(all));
  const auto fraction_at = [&](double score) {
    return static_cast<double>(std::upper_bound(scores.begin(), scores.end(), score) - scores.begin()) /
           static_cast<double>(std::max<std::size_t>(scores.size(), 1));
  };
  if (!scores.empty()) {
    Series best;
    best.label = fmt::format("best: {}", score_text(scores.back()));
    best.style = strategy_style(2);
    best.points_only = true;
    best.xs = {scores.back()};
    best.ys = {1.0};
    plot.series.push_back(std::move(best));
  }
  if (h.has_reference) {
    Series reference;
    reference.label = fmt::format("{}: {}", h.reference_label, score_text(h.reference_score));
    reference.style = strategy_style(1);
    reference.points_only = true;
    reference.hollow = true;
    reference.xs = {h.reference_score};
    reference.ys = {fraction_at(h.reference_score)};
    plot.series.push_back(std::move(reference));
  }
  plot.x_min = scores.empty() ? 0 : scores.front();
  plot.x_max = scores.empty() ? 1 : scores.back();
  if (h.has_reference) {
    plot.x_min = std::min(plot.x_min, h.reference_score);
    plot.x_max = std::max(plot.x_max, h.reference_score);
  }
  widen(plot.x_min, plot.x_max);
  const double pad = 0.03 * (plot.x_max - plot.x_min);
  plot.x_min -= pad;
  plot.x_max += pad;
  plot.y_min = 0;
  plot.y_max = 1;
  return LinePlotRenderer(plot).render();
}

std::string hyperparameter_figure(const HyperparameterScores& h, std::size_t p) {
  LinePlot plot;
  plot.title = fmt::format("{}: score by {}", h.strategy, h.hyperparameters[p]);
  plot.subtitle = fmt::format("every scored setting (dots) and the median per value (line), {} settings",
                              h.settings.size());
  plot.y_label = "aggregate score";
  bool numeric = true;
  for (const auto& setting : h.settings) numeric = numeric && setting.values[p].is_numeric();
  // The values in order: numbers ascending, anything else in order of appearance, placed at 0, 1, 2, ...
  std::vector<std::string> names;
  std::vector<double> positions;
  const auto x_of = [&](const Value& v) {
    if (numeric) return v.to_double();
    const std::string name = v.repr();
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<double>(it - names.begin());
    names.push_back(name);
    return static_cast<double>(names.size() - 1);
  };
  Series dots;
  dots.label = "settings";
  dots.style = strategy_style(0);
  dots.points_only = true;
  dots.hollow = true;
  std::vector<std::pair<double, double>> points;
  for (const auto& setting : h.settings) points.emplace_back(x_of(setting.values[p]), setting.score);
  for (const auto& [x, y] : points) {
    dots.xs.push_back(x);
    dots.ys.push_back(y);
  }
  std::sort(points.begin(), points.end());
  Series medians;
  medians.label = "median per value";
  medians.style = strategy_style(1);
  for (std::size_t i = 0; i < points.size();) {
    std::size_t j = i;
    std::vector<double> ys;
    while (j < points.size() && points[j].first == points[i].first) ys.push_back(points[j++].second);
    std::sort(ys.begin(), ys.end());
    medians.xs.push_back(points[i].first);
    medians.ys.push_back(support::quantile_of_sorted(ys, 0.5));
    i = j;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, y_lo = lo, y_hi = -lo;
  for (const auto& [x, y] : points) {
    lo = std::min(lo, x), hi = std::max(hi, x);
    y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  }
  if (numeric) {
    plot.x_label = h.hyperparameters[p];
    plot.x_log = spans_decades(lo, hi);
    widen(lo, hi);
    const double pad = plot.x_log ? 0 : 0.04 * (hi - lo);
    plot.x_min = lo - pad;
    plot.x_max = hi + pad;
  } else {
    plot.x_label = h.hyperparameters[p] + " (position of the value, below)";
    std::string legend;
    for (std::size_t k = 0; k < names.size(); ++k) legend += fmt::format("{}{} = {}", k ? ", " : "", k, names[k]);
    plot.notes.push_back("Values: " + legend + ".");
    plot.x_min = -0.5;
    plot.x_max = static_cast<double>(std::max<std::size_t>(names.size(), 1)) - 0.5;
  }
  widen(y_lo, y_hi);
  const double y_pad = 0.05 * (y_hi - y_lo);
  plot.y_min = y_lo - y_pad;
  plot.y_max = y_hi + y_pad;
  plot.series.push_back(std::move(dots));
  plot.series.push_back(std::move(medians));
  return LinePlotRenderer(plot).render();
}

}  // namespace

void write_svg_report(const ComparisonReport& report, const std::string& directory) {
  const std::filesystem::path dir = report_directory(directory);

  // File stems per space, unique even when two names differ only in unsafe characters or one space's figure would
  // take the name of another's values figure ("x" and "x_values").
  std::vector<std::string> stems;
  std::set<std::string> taken;
  for (const SpaceResult& space : report.spaces) {
    const std::string base = "space_" + file_safe(space.name);
    std::string stem = base;
    for (int k = 2; taken.contains(stem) || taken.contains(stem + "_values"); ++k) stem = fmt::format("{}_{}", base, k);
    taken.insert(stem);
    taken.insert(stem + "_values");
    stems.push_back(stem);
  }

  write_file(dir / "aggregate.svg", aggregate_figure(report));
  write_file(dir / "scores.svg", scores_figure(report));
  for (std::size_t i = 0; i < report.spaces.size(); ++i) {
    write_file(dir / (stems[i] + ".svg"), space_performance_figure(report, report.spaces[i]));
    write_file(dir / (stems[i] + "_values.svg"), space_values_figure(report, report.spaces[i]));
  }
  write_file(dir / "index.html", index_page(report, stems));
}

void write_svg_report(const MoComparisonReport& report, const std::vector<Objective>& objectives,
                      const std::string& directory) {
  const std::filesystem::path dir = report_directory(directory);
  std::string html = page_head("Multi-objective comparison");
  std::set<std::string> taken;
  for (const MoSpaceResult& space : report.spaces) {
    std::string stem = "space_" + file_safe(space.name);
    for (int k = 2; taken.contains(stem); ++k) stem = fmt::format("space_{}_{}", file_safe(space.name), k);
    taken.insert(stem);
    write_file(dir / (stem + "_igd.svg"), igd_figure(space));
    write_file(dir / (stem + "_front.svg"), front_figure(space, objectives));
    const std::string name = xml_escape(space.name);
    html += fmt::format("<h2>{0}</h2>\n<img src=\"{1}_igd.svg\" alt=\"IGD+ over evaluations on {0}\">\n"
                        "<img src=\"{1}_front.svg\" alt=\"Pareto fronts on {0}\">\n",
                        name, stem);
  }
  html += "</body>\n</html>\n";
  write_file(dir / "index.html", html);
}

void write_svg_report(const HyperparameterScores& scores, const std::string& directory) {
  const std::filesystem::path dir = report_directory(directory);
  std::string html = page_head("Hyperparameter tuning of " + scores.strategy);
  write_file(dir / "score_distribution.svg", score_distribution_figure(scores));
  html += "<img src=\"score_distribution.svg\" alt=\"distribution of the settings' scores\">\n";
  std::set<std::string> taken;
  for (std::size_t p = 0; p < scores.hyperparameters.size(); ++p) {
    const std::string base = "hyperparameter_" + file_safe(scores.hyperparameters[p]);
    std::string stem = base;
    for (int k = 2; taken.contains(stem); ++k) stem = fmt::format("{}_{}", base, k);
    taken.insert(stem);
    write_file(dir / (stem + ".svg"), hyperparameter_figure(scores, p));
    html += fmt::format("<img src=\"{}.svg\" alt=\"score by {}\">\n", stem, xml_escape(scores.hyperparameters[p]));
  }
  html += "</body>\n</html>\n";
  write_file(dir / "index.html", html);
}

}  // namespace ktune::methodology
