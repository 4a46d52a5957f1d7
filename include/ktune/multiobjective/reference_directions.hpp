#pragma once
// Reference directions on the unit simplex for NSGA-III (multiobjective.md §3.3): Das-Dennis lattices and Riesz
// s-energy sets. Each direction is one row of m non-negative numbers summing to 1.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ktune {

using Directions = std::vector<std::vector<double>>;

// C(m + p - 1, p): how many Das-Dennis directions p partitions give.
std::size_t das_dennis_count(std::size_t partitions, std::size_t m);
// Every vector with coordinates in {0, 1/p, ..., 1} summing to 1, rows in lexicographic order (as pymoo); p = 0
// gives the centre. Throws std::invalid_argument for m = 0.
Directions das_dennis(std::size_t partitions, std::size_t m);

// n well-spread directions minimising the Riesz s-energy (Blank et al. 2021; s = 2m): greedy max-min selection from
// random simplex samples and the simplex corners, then projected Adam descent on the energy with restarts at a
// smaller step. Deterministic for (m, n, seed); computed once per (m, n, seed) and then cached.
Directions riesz_energy_directions(std::size_t m, std::size_t n, std::uint64_t seed = 1);
// The s-energy log(mean over pairs of 1/|x_i - x_j|^s), s = 2m, of a set (to compare sets).
double riesz_energy(const Directions& directions);

}  // namespace ktune
