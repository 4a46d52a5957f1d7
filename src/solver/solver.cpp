#include "solver/solver.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <map>
#include <tuple>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "ktune/expr/errors.hpp"
#include "space/packing.hpp"

namespace ktune::solver {
namespace {

// Tables are built when that costs at most this many evaluations and words of memory.
constexpr std::uint64_t kTableEvalLimit = 1u << 16;
constexpr std::uint64_t kTableWordLimit = 1u << 20;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

std::size_t words_for(std::size_t n) { return (n + 63) / 64; }
bool test_bit(const std::uint64_t* w, std::size_t i) { return (w[i >> 6] >> (i & 63)) & 1u; }
void set_bit(std::uint64_t* w, std::size_t i) { w[i >> 6] |= std::uint64_t{1} << (i & 63); }
void clear_bit(std::uint64_t* w, std::size_t i) { w[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
// Replaces `out` by the indices of the set bits of words[0..n), ascending.
void set_bit_indices(const std::uint64_t* words, std::size_t n, std::vector<std::uint32_t>& out) {
  out.clear();
  for (std::size_t w = 0; w < n; ++w)
    for (std::uint64_t bits = words[w]; bits; bits &= bits - 1)
      out.push_back(static_cast<std::uint32_t>((w << 6) + static_cast<std::size_t>(std::countr_zero(bits))));
}

// This thread's constraint evaluations: every check of one constraint on one assignment, full or by bounds (the
// measure of the construction paper). Read before and after a piece of work; a solve's total sums its threads.
thread_local std::uint64_t t_constraint_evaluations = 0;

// Evaluation errors (division by zero, ...) make a configuration invalid; they are counted per constraint.
class ErrorLog {
 public:
  explicit ErrorLog(std::size_t n) : counts_(n), messages_(n) {}
  void record(std::size_t constraint, const char* message, std::uint64_t count = 1) {
    std::lock_guard lock(mutex_);
    if (counts_[constraint] == 0) messages_[constraint] = message ? message : "evaluation error";
    counts_[constraint] += count;
  }
  std::uint64_t total() const { return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0}); }
  std::vector<std::string> summary(const std::vector<PreparedConstraint>& cs) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < counts_.size(); ++i)
      if (counts_[i])
        out.push_back(cs[i].origin + " '" + cs[i].text + "': " + std::to_string(counts_[i]) +
                      " evaluation(s) raised, e.g. " + messages_[i]);
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<std::uint64_t> counts_;
  std::vector<std::string> messages_;
};

struct Domain {
  std::size_t size = 0;                // declared values
  std::vector<std::uint64_t> allowed;  // bitset over declared value indices
  std::vector<double> numeric;         // numeric value per index (when the parameter is numeric)
  bool is_numeric = false;
  std::size_t count() const {
    std::size_t c = 0;
    for (auto w : allowed) c += static_cast<std::size_t>(std::popcount(w));
    return c;
  }
  std::vector<std::uint32_t> allowed_list() const {
    std::vector<std::uint32_t> out;
    set_bit_indices(allowed.data(), allowed.size(), out);
    return out;
  }
  Interval range() const {
    if (!is_numeric) return {0, 0};  // never read: only numeric programs use intervals
    Interval r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (std::size_t i = 0; i < size; ++i)
      if (test_bit(allowed.data(), i)) r = {std::min(r.lo, numeric[i]), std::max(r.hi, numeric[i])};
    return r;
  }
};

// Per-thread evaluation context: the current value of every parameter in the three forms the evaluators use.
struct Assignment {
  const Problem* problem;
  std::vector<std::uint32_t> index;
  std::vector<double> number;
  std::vector<Value> value;
  std::vector<Interval> box;
  std::vector<char> needs_value;  // whether generic evaluation reads this parameter's Value

  void set(std::size_t p, std::uint32_t i, const Domain& d) {
    index[p] = i;
    if (d.is_numeric) {
      number[p] = d.numeric[i];
      box[p] = {number[p], number[p]};
    }
    if (needs_value[p]) value[p] = problem->parameters[p].values[i];
  }
};

// Full check: does the constraint hold for the current assignment of its parameters?
bool holds(const PreparedConstraint& c, std::size_t ci, Assignment& a, ErrorLog& log) {
  ++t_constraint_evaluations;
  if (c.numeric) {
    double r;
    const char* err = nullptr;
    if (c.numeric->evaluate(a.number.data(), r, err)) return r != 0.0;
    if (err != NumericProgram::kInexact) {
      log.record(ci, err ? err : "evaluation error");
      return false;
    }
    // Integers beyond 2^53: evaluated exactly (and beyond int64 an OverflowError), as brute force does.
    for (const auto p : c.params) a.value[p] = a.problem->parameters[p].values[a.index[p]];
  }
  try {
    return c.compiled->evaluate_bool(a.value.data());
  } catch (const expr::EvalError& e) {
    log.record(ci, e.what());
    return false;
  }
}

struct TableCheck {
  std::vector<std::uint64_t> table;  // row-major: rows indexed by the mixed radix of `others`, `words` per row
  std::vector<std::pair<std::size_t, std::uint64_t>> others;  // (parameter, row stride)
};

struct EvalCheck {
  std::size_t constraint;
  bool full;  // false: interval (bounds) check on a partial assignment
};

struct Level {
  std::size_t var = 0;
  std::size_t words = 0;
  std::vector<TableCheck> tables;
  std::vector<std::size_t> batch;  // numeric full checks, evaluated for all candidates at once
  std::vector<EvalCheck> evals;    // the rest, evaluated per candidate
  Interval full_range{0, 0};  // the var's interval while unbound
};

struct Component {
  std::vector<std::size_t> vars;         // in declaration order; ComponentSolver chooses the solving order
  std::vector<std::size_t> constraints;  // indices into the prepared constraints
};

class ComponentSolver {
 public:
  ComponentSolver(const Problem& problem, const std::vector<PreparedConstraint>& cs, const std::vector<Domain>& domains,
                  const Component& comp, const Assignment& fixed, ErrorLog& log)
      : problem_(problem), cs_(cs), domains_(domains), comp_(comp), fixed_(fixed), log_(log) {
    build_levels();
  }

  // Enumerates the component's solutions whose first variable takes one of `first_values`, in order.
  // With `full_row` (one value index per parameter of the problem) the rows are written full width: the
  // component's variables over that template, so a problem with a single component needs no combining pass.
  // `second`, if set, restricts the second variable to the values in [second->first, second->second) (finer parts
  // for the threads). `layout`, if set, is an empty full-width matrix whose layout the rows are written in (packed,
  // for a space that may be large).
  IndexMatrix run(const std::vector<std::uint32_t>& first_values, const std::vector<std::uint32_t>* full_row = nullptr,
                  std::optional<std::pair<std::uint32_t, std::uint32_t>> second = std::nullopt,
                  const IndexMatrix* layout = nullptr) const {
    const std::size_t m = levels_.size();
    std::uint32_t max_index = 0;
    if (full_row) {
      for (const auto& p : problem_.parameters)
        max_index = std::max<std::uint32_t>(max_index, static_cast<std::uint32_t>(p.values.size()));
    } else {
      for (auto v : comp_.vars) max_index = std::max<std::uint32_t>(max_index, static_cast<std::uint32_t>(domains_[v].size));
    }
    IndexMatrix out =
        full_row && layout ? layout->same_shape() : IndexMatrix(full_row ? full_row->size() : m, max_index);
    std::vector<std::size_t> column(m);
    for (std::size_t k = 0; k < m; ++k) column[k] = full_row ? levels_[k].var : k;
    Assignment a = fixed_;
    for (auto p : needs_value_) a.needs_value[p] = 1;
    std::vector<std::vector<std::uint64_t>> cand(m);
    for (std::size_t k = 0; k < m; ++k) cand[k].assign(levels_[k].words, 0);
    std::vector<std::size_t> pos(m, 0);
    std::vector<std::uint32_t> row = full_row ? *full_row : std::vector<std::uint32_t>(m);
    std::vector<std::vector<CheckStats>> stats(m);
    for (std::size_t k = 0; k < m; ++k) stats[k].resize(levels_[k].evals.size());

    // Level 0 candidates: the given first values (already filtered by its domain).
    for (auto v : first_values) set_bit(cand[0].data(), v);
    std::size_t k = 0;
    pos[0] = 0;
    while (true) {
      const Level& L = levels_[k];
      if (k + 1 == m && L.evals.empty()) {
        // Last level with nothing left to check per value: every remaining candidate is a solution.
        for (std::size_t w = pos[k] >> 6; w < L.words; ++w) {
          std::uint64_t bits = cand[k][w];
          if (w == (pos[k] >> 6)) bits &= ~std::uint64_t{0} << (pos[k] & 63);
          for (; bits; bits &= bits - 1) {
            row[column[k]] = static_cast<std::uint32_t>((w << 6) + static_cast<std::size_t>(std::countr_zero(bits)));
            out.push_row(row.data());
          }
        }
        if (k == 0) break;
        --k;
        continue;
      }
      // Next candidate bit at or after pos[k].
      std::size_t x = next_bit(cand[k], pos[k], domains_[L.var].size);
      if (x == npos) {
        a.box[L.var] = L.full_range;
        if (k == 0) break;
        --k;
        continue;
      }
      pos[k] = x + 1;
      a.set(L.var, static_cast<std::uint32_t>(x), domains_[L.var]);
      if (!passes(L, a, stats[k])) continue;
      row[column[k]] = static_cast<std::uint32_t>(x);
      if (k + 1 == m) {
        out.push_row(row.data());
        continue;
      }
      ++k;
      compute_candidates(k, a, cand[k]);
      if (k == 1 && second) {
        for (std::size_t x = 0; x < second->first; ++x) clear_bit(cand[1].data(), x);
        for (std::size_t x = second->second; x < domains_[levels_[1].var].size; ++x) clear_bit(cand[1].data(), x);
      }
      pos[k] = 0;
    }
    return out;
  }

  std::vector<std::uint32_t> first_candidates() const {
    Assignment a = fixed_;
    std::vector<std::uint64_t> c(levels_[0].words);
    compute_candidates(0, a, c);
    std::vector<std::uint32_t> out;
    set_bit_indices(c.data(), c.size(), out);
    return out;
  }

 private:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  static std::size_t next_bit(const std::vector<std::uint64_t>& w, std::size_t from, std::size_t n) {
    if (from >= n) return npos;
    std::size_t wi = from >> 6;
    std::uint64_t word = w[wi] & (~std::uint64_t{0} << (from & 63));
    while (true) {
      if (word) return (wi << 6) + static_cast<std::size_t>(std::countr_zero(word));
      if (++wi >= w.size()) return npos;
      word = w[wi];
    }
  }

  void compute_candidates(std::size_t k, const Assignment& a, std::vector<std::uint64_t>& out) const {
    const Level& L = levels_[k];
    const auto& allowed = domains_[L.var].allowed;
    for (std::size_t w = 0; w < L.words; ++w) out[w] = allowed[w];
    for (const auto& t : L.tables) {
      std::uint64_t r = 0;
      for (const auto& [p, stride] : t.others) r += a.index[p] * stride;
      const std::uint64_t* row = t.table.data() + r * L.words;
      for (std::size_t w = 0; w < L.words; ++w) out[w] &= row[w];
    }
    if (L.batch.empty()) return;
    // Remaining candidates, then every batched constraint filters them (all lanes in one pass).
    std::vector<std::uint32_t> cur;
    set_bit_indices(out.data(), L.words, cur);
    for (const std::size_t ci : L.batch) {
      if (cur.empty()) return;
      std::fill(out.begin(), out.end(), 0);
      batch_filter(cs_[ci], ci, L.var, cur, a, out.data());
      set_bit_indices(out.data(), L.words, cur);
    }
  }

  // Sets in `out` the bits of the values in `values` (value indices of var) for which the numeric constraint holds.
  void batch_filter(const PreparedConstraint& c, std::size_t ci, std::size_t var, const std::vector<std::uint32_t>& values,
                    const Assignment& a, std::uint64_t* out) const {
    const Domain& D = domains_[var];
    double lanes[64];
    for (std::size_t start = 0; start < values.size(); start += 64) {
      const std::size_t n = std::min<std::size_t>(64, values.size() - start);
      t_constraint_evaluations += n;
      for (std::size_t i = 0; i < n; ++i) lanes[i] = D.numeric[values[start + i]];
      std::uint64_t errors = 0;
      const char* message = nullptr;
      bool inexact = false;
      std::uint64_t ok = c.numeric->evaluate_lanes(a.number.data(), var, lanes, n, errors, message, inexact);
      if (errors && inexact) {  // some lanes went beyond 2^53: those with errors are evaluated exactly
        ok |= exact_lanes(c, ci, var, values.data() + start, errors, a);
        errors = 0;
      }
      if (errors) log_.record(ci, message, static_cast<std::uint64_t>(std::popcount(errors)));
      for (; ok; ok &= ok - 1) set_bit(out, values[start + static_cast<std::size_t>(std::countr_zero(ok))]);
    }
  }

  // The lanes of `lanes_mask` evaluated with the exact evaluator (value indices `values`); errors are recorded.
  std::uint64_t exact_lanes(const PreparedConstraint& c, std::size_t ci, std::size_t var, const std::uint32_t* values,
                            std::uint64_t lanes_mask, const Assignment& a) const {
    std::vector<Value> slots(problem_.parameters.size());
    for (const auto p : c.params) slots[p] = problem_.parameters[p].values[a.index[p]];
    std::uint64_t ok = 0;
    for (; lanes_mask; lanes_mask &= lanes_mask - 1) {
      const auto lane = static_cast<std::size_t>(std::countr_zero(lanes_mask));
      slots[var] = problem_.parameters[var].values[values[lane]];
      try {
        if (c.compiled->evaluate_bool(slots.data())) ok |= std::uint64_t{1} << lane;
      } catch (const expr::EvalError& e) {
        log_.record(ci, e.what());
      }
    }
    return ok;
  }

  // Interval checks that rarely prune are switched off during a run: they only ever save work, so the result
  // does not depend on it.
  struct CheckStats {
    std::uint32_t evaluations = 0, prunes = 0;
    bool disabled = false;
  };

  bool passes(const Level& L, Assignment& a, std::vector<CheckStats>& stats) const {
    for (std::size_t i = 0; i < L.evals.size(); ++i) {
      const auto& e = L.evals[i];
      const PreparedConstraint& c = cs_[e.constraint];
      if (e.full) {
        if (!holds(c, e.constraint, a, log_)) return false;
        continue;
      }
      CheckStats& st = stats[i];
      if (st.disabled) continue;
      ++st.evaluations;
      ++t_constraint_evaluations;
      if (!c.numeric->may_hold(a.box.data())) {
        ++st.prunes;
        return false;
      }
      if (st.evaluations >= 512 && st.prunes * 32 < st.evaluations) st.disabled = true;
    }
    return true;
  }

  // Variable order. First the variables still linked to unchosen ones: a variable whose constraints are all
  // complete ("a leaf") would multiply the work of every level below it, so leaves go last. Then: most
  // constraints completed by the variable, most constraints shared with chosen variables, most constraints
  // overall, fewest values, declaration order.
  std::vector<std::size_t> choose_order() const {
    std::vector<std::size_t> remaining = comp_.vars, order;
    std::vector<char> chosen(problem_.parameters.size(), 0);
    while (!remaining.empty()) {
      std::size_t best = 0;
      std::tuple<int, int, int, int, long, long> best_key{-1, -1, -1, -1, 0, 0};
      for (std::size_t i = 0; i < remaining.size(); ++i) {
        const std::size_t v = remaining[i];
        int completes = 0, shared = 0, degree = 0, future = 0;
        for (auto ci : comp_.constraints) {
          const auto& ps = free_params_.at(ci);
          if (std::find(ps.begin(), ps.end(), v) == ps.end()) continue;
          ++degree;
          std::size_t bound = 0;
          for (auto p : ps) bound += (p != v && chosen[p]);
          if (bound > 0) ++shared;
          if (bound + 1 == ps.size()) ++completes;
          else future = 1;
        }
        auto key = std::make_tuple(future, completes, shared, degree, -static_cast<long>(domains_[v].count()),
                                   -static_cast<long>(v));
        if (key > best_key) {
          best_key = key;
          best = i;
        }
      }
      order.push_back(remaining[best]);
      chosen[remaining[best]] = 1;
      remaining.erase(remaining.begin() + static_cast<long>(best));
    }
    return order;
  }

  void build_levels() {
    for (auto ci : comp_.constraints) {
      std::vector<std::size_t> ps;
      for (auto p : cs_[ci].params)
        if (std::find(comp_.vars.begin(), comp_.vars.end(), p) != comp_.vars.end()) ps.push_back(p);
      free_params_[ci] = ps;
    }
    const auto order = choose_order();
    std::vector<std::size_t> position(problem_.parameters.size(), npos);
    for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
    levels_.resize(order.size());
    Assignment a = fixed_;
    for (std::size_t k = 0; k < order.size(); ++k) {
      Level& L = levels_[k];
      L.var = order[k];
      L.words = words_for(domains_[L.var].size);
      if (domains_[L.var].is_numeric) L.full_range = domains_[L.var].range();
      a.box[L.var] = L.full_range;
    }
    for (auto ci : comp_.constraints) {
      const auto& ps = free_params_.at(ci);
      std::size_t last = 0;
      for (auto p : ps) last = std::max(last, position[p]);
      for (auto p : ps) {
        const std::size_t k = position[p];
        const bool full = (k == last);
        const PreparedConstraint& c = cs_[ci];
        if (!full && !(c.numeric && c.numeric->interval_useful())) continue;
        std::vector<std::size_t> others;
        for (auto q : ps)
          if (position[q] < k) others.push_back(q);
        add_check(levels_[k], ci, full, others, a);
      }
    }
    // Generic (Value-based) evaluation reads Values of the constraint's parameters in the hot loop.
    for (const auto& L : levels_)
      for (const auto& e : L.evals)
        if (!cs_[e.constraint].numeric)
          for (auto p : cs_[e.constraint].params) needs_value_.push_back(p);
  }

  // Adds the check of constraint ci at level L (full: all its parameters bound there; else a bounds check),
  // as a table when that is cheap. `ev` is a scratch assignment for building the table.
  void add_check(Level& L, std::size_t ci, bool full, const std::vector<std::size_t>& others, Assignment& ev) {
    const PreparedConstraint& c = cs_[ci];
    std::uint64_t evals = domains_[L.var].count(), rows = 1;
    for (auto o : others) {
      evals = evals * domains_[o].count();
      rows = rows * domains_[o].size;
      if (evals > kTableEvalLimit || rows * L.words > kTableWordLimit) break;
    }
    if (evals > kTableEvalLimit || rows * L.words > kTableWordLimit) {
      if (full && c.numeric) L.batch.push_back(ci);
      else L.evals.push_back({ci, full});
      return;
    }
    // Build the table: for every combination of the other (earlier) parameters, the allowed values of L.var.
    TableCheck t;
    t.table.assign(rows * L.words, 0);
    std::uint64_t stride = 1;
    for (std::size_t i = others.size(); i-- > 0;) {
      t.others.insert(t.others.begin(), {others[i], stride});
      stride *= domains_[others[i]].size;
    }
    std::vector<std::vector<std::uint32_t>> lists;
    for (auto o : others) lists.push_back(domains_[o].allowed_list());
    const auto var_values = domains_[L.var].allowed_list();
    for (auto p : c.params) ev.needs_value[p] = 1;
    std::vector<std::size_t> digit(others.size(), 0);
    const Interval saved = ev.box[L.var];
    std::uint64_t interval_evals = 0, interval_prunes = 0;
    bool useless = false;
    while (true) {
      std::uint64_t r = 0;
      for (std::size_t i = 0; i < others.size(); ++i) {
        ev.set(others[i], lists[i][digit[i]], domains_[others[i]]);
        r += lists[i][digit[i]] * t.others[i].second;
      }
      std::uint64_t* row = t.table.data() + r * L.words;
      if (full && c.numeric) {
        batch_filter(c, ci, L.var, var_values, ev, row);
      } else if (!full) {
        for (auto x : var_values) {
          ev.set(L.var, x, domains_[L.var]);
          ++interval_evals;
          ++t_constraint_evaluations;
          if (c.numeric->may_hold(ev.box.data())) set_bit(row, x);
          else ++interval_prunes;
        }
        // A bounds check that has pruned nothing after a few thousand evaluations is not worth its table.
        if (interval_evals >= 4096 && interval_prunes == 0) {
          useless = true;
          break;
        }
      } else {  // a full check of a generic (Value-based) constraint
        for (auto x : var_values) {
          ev.set(L.var, x, domains_[L.var]);
          if (holds(c, ci, ev, log_)) set_bit(row, x);
        }
      }
      std::size_t i = others.size();
      while (i > 0 && ++digit[i - 1] == lists[i - 1].size()) digit[--i] = 0;
      if (i == 0) break;
    }
    // Restore the unbound intervals of the parameters we just bound for evaluation.
    for (auto o : others) ev.box[o] = level_range(o);
    ev.box[L.var] = saved;
    if (!useless) L.tables.push_back(std::move(t));
  }

  Interval level_range(std::size_t p) const {
    for (const auto& L : levels_)
      if (L.var == p) return L.full_range;
    return fixed_.box[p];
  }

 public:
  std::vector<std::size_t> order() const {
    std::vector<std::size_t> o;
    for (const auto& L : levels_) o.push_back(L.var);
    return o;
  }
  const std::vector<std::size_t>& needs_value() const { return needs_value_; }

 private:
  const Problem& problem_;
  const std::vector<PreparedConstraint>& cs_;
  const std::vector<Domain>& domains_;
  const Component& comp_;
  const Assignment& fixed_;
  ErrorLog& log_;
  std::vector<Level> levels_;
  std::map<std::size_t, std::vector<std::size_t>> free_params_;
  std::vector<std::size_t> needs_value_;
};

// [begin, end) of the k-th of `parts` near-equal runs of n items.
std::pair<std::size_t, std::size_t> run_bounds(std::size_t n, std::size_t parts, std::size_t k) {
  return {n * k / parts, n * (k + 1) / parts};
}

}  // namespace

std::vector<SolvePart> plan_parts(const std::vector<std::uint32_t>& first, const std::vector<std::uint32_t>& second_values,
                                  unsigned threads) {
  std::vector<SolvePart> parts;
  if (threads <= 1 || first.empty()) {
    parts.push_back({first, std::nullopt});
    return parts;
  }
  const std::size_t max_parts = kSolvePartsPerThread * threads;
  if (first.size() >= 8 * std::size_t{threads} || second_values.empty()) {
    const std::size_t n = std::min(first.size(), max_parts);
    for (std::size_t k = 0; k < n; ++k) {
      const auto [b, e] = run_bounds(first.size(), n, k);
      parts.push_back({std::vector<std::uint32_t>(first.begin() + static_cast<long>(b), first.begin() + static_cast<long>(e)),
                       std::nullopt});
    }
    return parts;
  }
  // Few first values: each is split further by runs of the second variable's values.
  const std::size_t per_first = std::min(second_values.size(), std::max<std::size_t>(1, max_parts / first.size()));
  for (const auto v : first)
    for (std::size_t k = 0; k < per_first; ++k) {
      const auto [b, e] = run_bounds(second_values.size(), per_first, k);
      parts.push_back({{v}, std::make_pair(second_values[b], second_values[e - 1] + 1)});
    }
  return parts;
}

SolveResult solve(const Problem& problem, const std::vector<PreparedConstraint>& cs, unsigned threads,
                  std::uint64_t factor_above) {
  const std::size_t d = problem.parameters.size();
  ErrorLog log(cs.size());
  SolveResult result;
  // This thread's evaluations from here on, and those of the helper threads (added as each finishes).
  const std::uint64_t evaluations_before = t_constraint_evaluations;
  std::atomic<std::uint64_t> helper_evaluations{0};
  const auto finish = [&] {
    result.evaluation_errors = log.total();
    result.evaluation_error_messages = log.summary(cs);
    result.constraint_evaluations = t_constraint_evaluations - evaluations_before + helper_evaluations.load();
  };

  std::vector<Domain> domains(d);
  for (std::size_t p = 0; p < d; ++p) {
    const auto& values = problem.parameters[p].values;
    Domain& D = domains[p];
    D.size = values.size();
    D.allowed.assign(words_for(D.size), 0);
    for (std::size_t i = 0; i < D.size; ++i) set_bit(D.allowed.data(), i);
    D.is_numeric = std::all_of(values.begin(), values.end(), [](const Value& v) { return v.is_numeric(); });
    if (D.is_numeric)
      for (const auto& v : values) D.numeric.push_back(v.to_double());
  }

  Assignment base;
  base.problem = &problem;
  base.index.assign(d, 0);
  base.number.assign(d, 0.0);
  base.value.assign(d, Value());
  base.box.assign(d, Interval{0, 0});
  base.needs_value.assign(d, 1);  // during propagation every value is kept current
  for (std::size_t p = 0; p < d; ++p) {
    if (domains[p].is_numeric) base.box[p] = domains[p].range();
  }

  // Propagation: constraints with at most one parameter of more than one value filter domains, repeatedly.
  std::vector<char> consumed(cs.size(), 0);
  bool empty = false;
  auto fixed_value = [&](std::size_t p) {
    for (std::size_t i = 0; i < domains[p].size; ++i)
      if (test_bit(domains[p].allowed.data(), i)) return static_cast<std::uint32_t>(i);
    return std::uint32_t{0};
  };
  for (bool changed = true; changed && !empty;) {
    changed = false;
    for (std::size_t ci = 0; ci < cs.size() && !empty; ++ci) {
      if (consumed[ci]) continue;
      std::vector<std::size_t> free;
      for (auto p : cs[ci].params) {
        if (domains[p].count() > 1) free.push_back(p);
        else base.set(p, fixed_value(p), domains[p]);
      }
      if (free.size() > 1) continue;
      consumed[ci] = 1;
      changed = true;
      if (free.empty()) {
        if (!holds(cs[ci], ci, base, log)) empty = true;
        continue;
      }
      Domain& D = domains[free[0]];
      for (auto x : D.allowed_list()) {
        base.set(free[0], x, D);
        if (!holds(cs[ci], ci, base, log)) clear_bit(D.allowed.data(), x);
      }
      if (D.count() == 0) empty = true;
      else base.box[free[0]] = D.range();
    }
  }
  for (std::size_t p = 0; p < d && !empty; ++p)
    if (domains[p].count() == 0) empty = true;

  // Components of the parameters that still have a choice, linked by the remaining constraints.
  std::vector<std::size_t> fixed_params, parent(d);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::size_t> remaining;
  for (std::size_t ci = 0; ci < cs.size(); ++ci)
    if (!consumed[ci]) remaining.push_back(ci);
  for (auto ci : remaining) {
    std::size_t first = kNone;
    for (auto p : cs[ci].params) {
      if (domains[p].count() <= 1) continue;
      if (first == kNone) first = p;
      else parent[find(p)] = find(first);
    }
  }
  std::vector<Component> comps;
  std::vector<std::size_t> comp_of_root(d, kNone);
  for (std::size_t p = 0; p < d; ++p) {
    if (domains[p].count() <= 1) {
      fixed_params.push_back(p);
      base.set(p, fixed_value(p), domains[p]);
      continue;
    }
    const std::size_t r = find(p);
    if (comp_of_root[r] == kNone) {
      comp_of_root[r] = comps.size();
      comps.emplace_back();
    }
    comps[comp_of_root[r]].vars.push_back(p);
  }
  for (auto ci : remaining) {
    for (auto p : cs[ci].params)
      if (domains[p].count() > 1) {
        comps[comp_of_root[find(p)]].constraints.push_back(ci);
        break;
      }
  }
  result.independent_groups = comps.size();

  // The full-width rows' largest value index (a bound: every value count).
  std::uint32_t max_index = 0;
  for (const auto& p : problem.parameters)
    max_index = std::max<std::uint32_t>(max_index, static_cast<std::uint32_t>(p.values.size()));

  // Solve each component.
  std::vector<IndexMatrix> solutions;
  std::vector<std::vector<std::size_t>> comp_orders;
  base.needs_value.assign(d, 0);
  if (!empty) {
    for (const auto& comp : comps) {
      ComponentSolver ready(problem, cs, domains, comp, base, log);
      const auto first = ready.first_candidates();
      // Split the first variable's values into chunks solved in parallel, concatenated in order.
      const unsigned nthreads = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;  // 0: all cores
      // A problem with one component is written full width straight away.
      std::vector<std::uint32_t> template_row(d, 0);
      for (auto p : fixed_params) template_row[p] = base.index[p];
      const std::vector<std::uint32_t>* full = comps.size() == 1 ? &template_row : nullptr;
      // Parts: runs of consecutive values of the first variable, or of the second variable under each first value
      // when the first gives the threads too few parts to balance. Taken by the threads in turn, concatenated in
      // order. At most kPartsPerThread parts per thread: each part costs a pass over the bitsets of its variables,
      // so one part per value would make a long value list quadratic.
      std::vector<std::uint32_t> second_values;
      if (comp.vars.size() > 1) second_values = domains[ready.order()[1]].allowed_list();
      const auto specs = plan_parts(first, second_values, nthreads);
      // Full-width rows of a space that may be large enough to be packed (its product is) are written packed by
      // every part; in the end they take the layout their count calls for (rarely, back to plain).
      std::optional<IndexMatrix> packed;
      std::vector<std::size_t> full_order = fixed_params;
      if (full) {
        const std::vector<std::size_t> component_order = ready.order();
        full_order.insert(full_order.end(), component_order.begin(), component_order.end());
        std::uint64_t product = 1;
        for (auto v : comp.vars)
          product = product > UINT32_MAX ? product : product * std::max<std::size_t>(domains[v].count(), 1);
        packed = packed_layout(problem, full_order, static_cast<std::size_t>(product));
      }
      const IndexMatrix* layout = packed ? &*packed : nullptr;
      auto settle = [&](IndexMatrix rows) {
        if (!rows.is_packed() || packed_layout(problem, full_order, rows.rows())) return rows;
        IndexMatrix plain(d, max_index);
        plain.reserve_rows(rows.rows());
        plain.append(rows);
        return plain;
      };
      if (nthreads <= 1 || specs.size() <= 1) {
        solutions.push_back(settle(ready.run(first, full, std::nullopt, layout)));
      } else {
        std::vector<IndexMatrix> parts(specs.size());
        std::atomic<std::size_t> next{0};
        // An exception in a worker (e.g. out of memory) is carried to this thread and rethrown after the join.
        std::exception_ptr failure;
        std::mutex failure_mutex;
        auto worker = [&] {
          try {
            for (std::size_t i; (i = next.fetch_add(1)) < specs.size();)
              parts[i] = ready.run(specs[i].first, full, specs[i].second, layout);
          } catch (...) {
            std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next = specs.size();
          }
        };
        std::vector<std::thread> pool;
        for (unsigned t = 1; t < nthreads; ++t)
          pool.emplace_back([&] {
            worker();
            helper_evaluations += t_constraint_evaluations;  // a fresh thread: all of its evaluations are this solve's
          });
        worker();
        for (auto& th : pool) th.join();
        if (failure) std::rethrow_exception(failure);
        // Exact reservation, each part released once copied: the peak stays near one copy of the result.
        std::size_t total = 0;
        for (const auto& part : parts) total += part.rows();
        IndexMatrix merged = parts[0].same_shape();
        merged.reserve_rows(total);
        for (auto& part : parts) {
          merged.append(part);
          part = IndexMatrix();
        }
        solutions.push_back(settle(std::move(merged)));
      }
      comp_orders.push_back(ready.order());
      if (solutions.back().rows() == 0) {
        empty = true;
        break;
      }
    }
  }

  // Combine: fixed parameters first, then the components' Cartesian product (first component slowest).
  result.order = fixed_params;
  for (const auto& o : comp_orders) result.order.insert(result.order.end(), o.begin(), o.end());
  // An empty space may stop before every component has an order: complete it in declaration order.
  for (std::size_t p = 0; p < d; ++p)
    if (std::find(result.order.begin(), result.order.end(), p) == result.order.end()) result.order.push_back(p);
  result.rows = IndexMatrix(d, max_index);
  if (!empty && comps.empty()) {  // every parameter fixed: one configuration
    std::vector<std::uint32_t> row(d, 0);
    for (auto p : fixed_params) row[p] = base.index[p];
    result.rows.push_row(row.data());
  } else if (!empty && comps.size() == 1) {
    result.rows = std::move(solutions[0]);
  } else if (!empty) {
    // The product's size, saturated once it passes what any form can index.
    std::uint64_t total = 1;
    bool beyond = false;
    for (const auto& s : solutions) {
      if (total > (std::numeric_limits<std::uint64_t>::max() >> 1) / std::max<std::uint64_t>(1, s.rows()))
        beyond = true;
      else
        total *= s.rows();
    }
    if (beyond)
      throw ProblemError("the search space has more than 2^63 valid configurations; it cannot be indexed");
    if (total > factor_above) {
      result.group_rows = std::move(solutions);
      result.group_params = std::move(comp_orders);
      result.fixed_params = fixed_params;
      for (auto p : fixed_params) result.fixed_values.push_back(base.index[p]);
      finish();
      return result;
    }
    if (total >= std::numeric_limits<std::uint32_t>::max())
      throw ProblemError(fmt::format("the search space has {} valid configurations, more than 2^32-2 cannot be listed "
                                     "in memory; its {} independent groups can be kept factored (the lazy form)",
                                     total, comps.size()));
    // A product large enough to be packed is written packed: never at plain width in memory.
    if (auto packed = packed_layout(problem, result.order, total)) result.rows = std::move(*packed);
    result.rows.reserve_rows(total);
    // The last component varies fastest: keep a block of its rows at full width, update the block's columns of
    // the outer components whenever their digits change, and append the whole block each time.
    const std::size_t C = solutions.size();
    const std::size_t inner = solutions[C - 1].rows();
    IndexMatrix block = result.rows.same_shape();
    block.resize_rows(inner);
    for (std::size_t r = 0; r < inner; ++r) {
      for (auto p : fixed_params) block.set(r, p, base.index[p]);
      const auto& o = comp_orders[C - 1];
      for (std::size_t j = 0; j < o.size(); ++j) block.set(r, o[j], solutions[C - 1].get(r, j));
    }
    std::vector<std::size_t> digit(C, 0);
    auto write_outer = [&](std::size_t c) {
      const auto& o = comp_orders[c];
      for (std::size_t j = 0; j < o.size(); ++j) {
        const std::uint32_t v = solutions[c].get(digit[c], j);
        for (std::size_t r = 0; r < inner; ++r) block.set(r, o[j], v);
      }
    };
    for (std::size_t c = 0; c + 1 < C; ++c) write_outer(c);
    for (std::uint64_t done = 0; done < total; done += inner) {
      result.rows.append_rows(block, 0, inner);
      for (std::size_t c = C - 1; c-- > 0;) {
        if (++digit[c] < solutions[c].rows()) {
          write_outer(c);
          break;
        }
        digit[c] = 0;
        write_outer(c);
      }
    }
  }
  finish();
  return result;
}

}  // namespace ktune::solver
