// The published hyperparameter values of ktune's strategies (HyperparameterSet): Kernel Tuner's defaults, where
// ktune's differ (Kernel Tuner 1.4's strategy modules), and the algorithm-design paper's values of the two generated
// optimisers that Kernel Tuner adopted (its gen_hybrid_vndx and gen_adaptive_tabu_greywolf defaults). Settings
// Kernel Tuner does not have are set to how Kernel Tuner behaves where ktune has a switch for it (a first generation
// drawn at random, no elites, one random start).
#include <cstdint>
#include <string>
#include <unordered_map>

#include "ktune/tuning/strategy.hpp"

namespace ktune {

namespace {

Value integer(std::int64_t v) { return Value(v); }
Value text(const char* v) { return Value(std::string(v)); }

const std::unordered_map<std::string, std::vector<HyperparameterSet>>& all_sets() {
  static const std::unordered_map<std::string, std::vector<HyperparameterSet>> sets = [] {
    const std::string kt = "Kernel Tuner 1.4's defaults";
    std::unordered_map<std::string, std::vector<HyperparameterSet>> m;
    m["random_sample"] = {{"kernel_tuner", kt, {{"fraction", Value(0.1)}}}};
    m["greedy_ils"] = {{"kernel_tuner", kt + " (restart after 50 evaluations without improvement, one random start)",
                        {{"no_improvement", integer(50)}, {"random_walk", Value(0.3)}, {"start_sample", integer(1)},
                         {"sampling", text("random")}}}};
    m["simulated_annealing"] = {{"kernel_tuner", kt + " (one random start)",
                                 {{"T", Value(0.1)}, {"T_min", Value(0.0001)}, {"alpha", Value(0.9975)},
                                  {"maxiter", integer(1)}, {"start_sample", integer(1)},
                                  {"sampling", text("random")}}}};
    m["genetic_algorithm"] = {{"kernel_tuner",
                               kt + " (a random first generation, no elites, mutation to any valid value)",
                               {{"popsize", integer(26)}, {"maxiter", integer(90)}, {"method", text("single_point")},
                                {"mutation_chance", integer(55)}, {"elitism", integer(0)}, {"sampling", text("random")},
                                {"mutation", text("Hamming")}}}};
    m["diff_evo"] = {{"kernel_tuner", kt + " (16 members per tunable parameter)",
                      {{"method", text("best1bin")}, {"popsize", integer(16)},
                       {"popsize_times_dimensions", Value(true)}, {"F", Value(0.7)}, {"CR", Value(0.6)}}}};
    m["pso"] = {{"kernel_tuner", kt,
                 {{"popsize", integer(50)}, {"maxiter", integer(190)}, {"w", Value(0.5)}, {"c1", Value(3.5)},
                  {"c2", Value(1.0)}}}};
    m["firefly_algorithm"] = {{"kernel_tuner", kt,
                               {{"popsize", integer(20)}, {"maxiter", integer(100)}, {"B0", Value(1.0)},
                                {"gamma", Value(1.0)}, {"alpha", Value(0.2)}}}};
    m["dual_annealing"] = {{"kernel_tuner", kt + " (scipy's initial temperature)",
                            {{"method", text("COBYLA")}, {"initial_temp", Value(5230.0)}}}};
    m["basinhopping"] = {{"kernel_tuner", kt, {{"method", text("L-BFGS-B")}, {"T", Value(1.0)}}}};
    m["minimize"] = {{"kernel_tuner", kt, {{"method", text("L-BFGS-B")}}}};
    m["bayes_opt"] = {{"kernel_tuner", kt + " (an initial sample of 20, the GP on the cost itself)",
                       {{"popsize", integer(20)}, {"samplingmethod", text("lhs")}, {"transform", text("none")}}}};
    // The generated optimisers: the values the algorithm-design paper's runs produced, as Kernel Tuner adopted them
    // (a single random start for HybridVNDX, a random pack for the grey wolves).
    const HyperparameterSet vndx{"paper", "the algorithm-design paper's HybridVNDX, as Kernel Tuner adopted it",
                                 {{"k", integer(5)}, {"cand_pool", integer(8)}, {"restart_iter", integer(100)},
                                  {"tabu_size", integer(300)}, {"elite_size", integer(5)}, {"temp0", Value(1.0)},
                                  {"cooling", Value(0.995)}, {"start_sample", integer(1)},
                                  {"sampling", text("random")}}};
    HyperparameterSet vndx_kt = vndx;
    vndx_kt.name = "kernel_tuner";
    vndx_kt.description = kt + " (the paper's values)";
    m["hybrid_vndx"] = {vndx, vndx_kt};
    const HyperparameterSet wolves{
        "paper", "the algorithm-design paper's adaptive tabu grey wolf, as Kernel Tuner adopted it",
        {{"pack_size", integer(8)}, {"tabu_factor", integer(3)}, {"shake_rate", Value(0.2)}, {"jump_rate", Value(0.15)},
         {"stagn_limit", integer(80)}, {"restart_ratio", Value(0.3)}, {"t0", Value(1.0)}, {"t_decay", Value(5.0)},
         {"t_min", Value(0.0001)}, {"start_sample", integer(8)}, {"sampling", text("random")}}};
    HyperparameterSet wolves_kt = wolves;
    wolves_kt.name = "kernel_tuner";
    wolves_kt.description = kt + " (the paper's values)";
    m["adaptive_tabu_greywolf"] = {wolves, wolves_kt};
    return m;
  }();
  return sets;
}

}  // namespace

const std::vector<HyperparameterSet>& hyperparameter_sets(std::string_view name) {
  static const std::vector<HyperparameterSet> none;
  const auto it = all_sets().find(std::string(name));
  return it == all_sets().end() ? none : it->second;
}

}  // namespace ktune
