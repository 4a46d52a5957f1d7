// nsga3: NSGA-III (Deb & Jain 2014) as pymoo runs it for Kernel Tuner (multiobjective.md §3.3): random mating
// (both parents feasible), survival by non-dominated rank and, in the splitting front, by niching around reference
// directions after hyperplane normalisation. Reference directions: Riesz s-energy (Kernel Tuner's default, one per
// individual), Das-Dennis, or given.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <Eigen/Dense>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/multiobjective/pareto.hpp"
#include "ktune/multiobjective/reference_directions.hpp"
#include "strategies/nsga.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

using Matrix = std::vector<std::vector<double>>;

struct Nsga3Settings {
  std::string directions = "energy";  // energy | das_dennis | a JSON list of directions
  std::size_t partitions = 0;         // das_dennis; 0: the most that fit the population
};

// pymoo's HyperplaneNormalization: a running ideal and worst point, extreme points by the achievement scalarising
// function, the nadir from the hyperplane through them (with pymoo's fallbacks).
class HyperplaneNormalization {
 public:
  void reset(std::size_t m) {
    m_ = m;
    ideal_.assign(m, std::numeric_limits<double>::infinity());
    worst_.assign(m, -std::numeric_limits<double>::infinity());
    extremes_.clear();
  }

  // F: the population (rows), front: indices of its first front.
  void update(const Matrix& F, const std::vector<std::size_t>& front) {
    for (const auto& row : F)
      for (std::size_t j = 0; j < m_; ++j) {
        ideal_[j] = std::min(ideal_[j], row[j]);
        worst_[j] = std::max(worst_[j], row[j]);
      }
    // Extreme points among the previous extremes and the first front.
    Matrix candidates = extremes_;
    for (std::size_t i : front) candidates.push_back(F[i]);
    Matrix extremes(m_);
    for (std::size_t axis = 0; axis < m_; ++axis) {
      double best = std::numeric_limits<double>::infinity();
      for (const auto& c : candidates) {
        double asf = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < m_; ++j) {
          double g = c[j] - ideal_[j];
          if (g < 1e-3) g = 0;
          asf = std::max(asf, g * (j == axis ? 1.0 : 1e6));
        }
        if (asf < best) {
          best = asf;
          extremes[axis] = c;
        }
      }
    }
    extremes_ = extremes;
    // Worst of the first front and of the population, for the fallbacks.
    std::vector<double> worst_front(m_, -std::numeric_limits<double>::infinity()),
        worst_pop(m_, -std::numeric_limits<double>::infinity());
    for (std::size_t i : front)
      for (std::size_t j = 0; j < m_; ++j) worst_front[j] = std::max(worst_front[j], F[i][j]);
    for (const auto& row : F)
      for (std::size_t j = 0; j < m_; ++j) worst_pop[j] = std::max(worst_pop[j], row[j]);
    nadir_ = hyperplane_nadir().value_or(worst_front);
    for (std::size_t j = 0; j < m_; ++j)
      if (nadir_[j] - ideal_[j] <= 1e-6) nadir_[j] = worst_pop[j];
  }

  const std::vector<double>& ideal() const { return ideal_; }
  const std::vector<double>& nadir() const { return nadir_; }

 private:
  std::optional<std::vector<double>> hyperplane_nadir() const {
    Eigen::MatrixXd M(m_, m_);
    for (std::size_t i = 0; i < m_; ++i)
      for (std::size_t j = 0; j < m_; ++j) M(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          extremes_[i][j] - ideal_[j];
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(m_));
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M);
    if (!lu.isInvertible()) return std::nullopt;
    const Eigen::VectorXd plane = lu.solve(ones);
    if (!((M * plane - ones).cwiseAbs().maxCoeff() <= 1e-8 + 1e-5)) return std::nullopt;  // np.allclose
    std::vector<double> nadir(m_);
    for (std::size_t j = 0; j < m_; ++j) {
      const double intercept = 1.0 / plane(static_cast<Eigen::Index>(j));
      if (!std::isfinite(intercept) || intercept <= 1e-6) return std::nullopt;
      nadir[j] = std::min(ideal_[j] + intercept, worst_[j]);
    }
    return nadir;
  }

  std::size_t m_ = 0;
  std::vector<double> ideal_, worst_, nadir_;
  Matrix extremes_;
};

class Nsga3 final : public NsgaBase {
 public:
  Nsga3(NsgaSettings s, Nsga3Settings s3) : NsgaBase(s), s3_(std::move(s3)) {}

 private:
  void prepare(std::size_t m, std::size_t popsize) override {
    directions_ = make_directions(m, popsize);
    // pymoo: the population is at least as large as the number of directions.
    s_.popsize = std::max(s_.popsize, directions_.size());
    normalization_.reset(m);
  }

  Matrix make_directions(std::size_t m, std::size_t popsize) const {
    Matrix dirs;
    if (s3_.directions == "energy") {
      dirs = riesz_energy_directions(m, popsize);
    } else if (s3_.directions == "das_dennis") {
      std::size_t p = s3_.partitions;
      if (p == 0)  // the most partitions whose C(m+p-1, p) points fit the population
        while (das_dennis_count(p + 1, m) <= popsize) ++p;
      dirs = das_dennis(p, m);
    } else {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(s3_.directions);
      } catch (const nlohmann::json::exception& e) {
        throw HyperparameterError(fmt::format("nsga3: reference_directions is not energy, das_dennis or a JSON list "
                                              "of directions: {}",
                                              e.what()));
      }
      if (!j.is_array() || j.empty()) throw HyperparameterError("nsga3: reference_directions: expected a non-empty list");
      for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_array() || j[i].size() != m)
          throw HyperparameterError(fmt::format("nsga3: reference direction {} must have {} numbers (one per objective)", i, m));
        std::vector<double> row;
        for (const auto& v : j[i]) {
          if (!v.is_number() || v.get<double>() < 0)
            throw HyperparameterError(fmt::format("nsga3: reference direction {} has a negative or non-numeric entry", i));
          row.push_back(v.get<double>());
        }
        dirs.push_back(std::move(row));
      }
    }
    return dirs;
  }

  std::vector<std::size_t> select_parents(const std::vector<MoIndividual>& pop, std::size_t n,
                                          Rng& rng) const override {
    // comp_by_cv_then_random: every configuration here is feasible, so the winner of each pair is random.
    const auto pairs = tournament_pairs(pop.size(), n, rng);
    std::vector<std::size_t> winners(n);
    for (std::size_t k = 0; k < n; ++k) winners[k] = pairs[2 * k + rng.below(2)];
    return winners;
  }

  std::vector<MoIndividual> survive(std::vector<MoIndividual> merged, std::size_t n_survive, Rng& rng) override {
    const std::size_t m = merged.front().f.size();
    const auto flat = objective_matrix(merged);
    const auto fronts = non_dominated_sort(flat, m, n_survive);
    Matrix F;
    F.reserve(merged.size());
    for (const auto& ind : merged) F.push_back(ind.f);
    normalization_.update(F, fronts.front());

    // Keep the ranked individuals, renumbered front by front.
    std::vector<std::size_t> order, rank;
    for (std::size_t k = 0; k < fronts.size(); ++k)
      for (std::size_t i : fronts[k]) {
        order.push_back(i);
        rank.push_back(k);
      }
    const auto& ideal = normalization_.ideal();
    const auto& nadir = normalization_.nadir();
    std::vector<std::size_t> niche(order.size());
    std::vector<double> dist(order.size());
    associate(merged, order, ideal, nadir, niche, dist);

    std::vector<std::size_t> chosen;  // positions into order
    if (order.size() <= n_survive) {
      chosen.resize(order.size());
      std::iota(chosen.begin(), chosen.end(), std::size_t{0});
    } else {
      const std::size_t last_rank = rank.back();
      std::vector<std::size_t> until_last, last;
      for (std::size_t q = 0; q < order.size(); ++q) (rank[q] == last_rank ? last : until_last).push_back(q);
      std::vector<std::size_t> niche_count(directions_.size(), 0);
      std::size_t n_remaining = n_survive;
      if (last_rank == 0) {
        until_last.clear();  // one front: everybody competes
      } else {
        for (std::size_t q : until_last) ++niche_count[niche[q]];
        n_remaining = n_survive - until_last.size();
      }
      chosen = until_last;
      for (std::size_t q : niching(last, n_remaining, niche_count, niche, dist, rng)) chosen.push_back(q);
    }
    std::vector<MoIndividual> survivors;
    survivors.reserve(chosen.size());
    for (std::size_t q : chosen) {
      MoIndividual ind = std::move(merged[order[q]]);
      ind.rank = rank[q];
      survivors.push_back(std::move(ind));
    }
    return survivors;
  }

  // Normalised perpendicular distance of every kept individual to every reference direction; the nearest is its
  // niche.
  void associate(const std::vector<MoIndividual>& merged, const std::vector<std::size_t>& order,
                 const std::vector<double>& ideal, const std::vector<double>& nadir, std::vector<std::size_t>& niche,
                 std::vector<double>& dist) const {
    const std::size_t m = ideal.size();
    std::vector<double> denom(m), n(m);
    for (std::size_t j = 0; j < m; ++j) {
      denom[j] = nadir[j] - ideal[j];
      if (denom[j] == 0) denom[j] = 1e-12;
    }
    for (std::size_t q = 0; q < order.size(); ++q) {
      const auto& f = merged[order[q]].f;
      for (std::size_t j = 0; j < m; ++j) n[j] = (f[j] - ideal[j]) / denom[j];
      double best = std::numeric_limits<double>::infinity();
      std::size_t best_w = 0;
      for (std::size_t w = 0; w < directions_.size(); ++w) {
        const auto& dir = directions_[w];
        double dot = 0, norm2 = 0;
        for (std::size_t j = 0; j < m; ++j) {
          dot += n[j] * dir[j];
          norm2 += dir[j] * dir[j];
        }
        const double t = norm2 > 0 ? dot / norm2 : 0;
        double d2 = 0;
        for (std::size_t j = 0; j < m; ++j) {
          const double e = n[j] - t * dir[j];
          d2 += e * e;
        }
        if (d2 < best) {
          best = d2;
          best_w = w;
        }
      }
      niche[q] = best_w;
      dist[q] = std::sqrt(best);
    }
  }

  // pymoo's niching: fill the least crowded niches first; an empty niche takes its closest member, others a random one.
  static std::vector<std::size_t> niching(const std::vector<std::size_t>& last, std::size_t n_remaining,
                                          std::vector<std::size_t>& niche_count, const std::vector<std::size_t>& niche,
                                          const std::vector<double>& dist, Rng& rng) {
    std::vector<std::size_t> survivors;
    std::vector<bool> available(last.size(), true);
    while (survivors.size() < n_remaining) {
      const std::size_t n_select = n_remaining - survivors.size();
      std::vector<std::size_t> niches;
      for (std::size_t i = 0; i < last.size(); ++i)
        if (available[i]) niches.push_back(niche[last[i]]);
      if (niches.empty()) break;
      std::sort(niches.begin(), niches.end());
      niches.erase(std::unique(niches.begin(), niches.end()), niches.end());
      std::size_t min_count = std::numeric_limits<std::size_t>::max();
      for (std::size_t w : niches) min_count = std::min(min_count, niche_count[w]);
      std::vector<std::size_t> next;
      for (std::size_t w : niches)
        if (niche_count[w] == min_count) next.push_back(w);
      for (std::size_t i = next.size(); i > 1; --i) std::swap(next[i - 1], next[rng.below(i)]);
      if (next.size() > n_select) next.resize(n_select);
      for (std::size_t w : next) {
        std::vector<std::size_t> members;
        for (std::size_t i = 0; i < last.size(); ++i)
          if (available[i] && niche[last[i]] == w) members.push_back(i);
        for (std::size_t i = members.size(); i > 1; --i) std::swap(members[i - 1], members[rng.below(i)]);
        std::size_t pick = members.front();
        if (niche_count[w] == 0)
          pick = *std::min_element(members.begin(), members.end(),
                                   [&](std::size_t a, std::size_t b) { return dist[last[a]] < dist[last[b]]; });
        survivors.push_back(last[pick]);
        available[pick] = false;
        ++niche_count[w];
      }
    }
    return survivors;
  }

  Nsga3Settings s3_;
  Matrix directions_;
  HyperplaneNormalization normalization_;
};

}  // namespace

StrategyInfo nsga3_info() {
  auto hyperparameters = nsga_common_hyperparameters();
  hyperparameters.push_back({"reference_directions", HyperparameterType::String, Value(std::string("energy")), {}, {},
                             {},
                             "energy (Riesz s-energy, one per individual), das_dennis, or a JSON list of directions "
                             "such as [[1,0],[0.5,0.5],[0,1]]"});
  hyperparameters.push_back({"partitions", HyperparameterType::Int, Value(0), 0.0, {}, {},
                             "das_dennis: partitions per objective (0: the most whose directions fit popsize)"});
  return {"nsga3",
          "multi-objective NSGA-III: reference-direction niching after hyperplane normalisation, neighbour repair",
          std::move(hyperparameters), [](const Hyperparameters& h) {
            Nsga3Settings s3;
            s3.directions = h.get_string("reference_directions");
            s3.partitions = static_cast<std::size_t>(h.get_int("partitions"));
            return std::make_unique<Nsga3>(nsga_settings(h), std::move(s3));
          }};
}

}  // namespace ktune::strategies
