#!/usr/bin/env python3
"""Reference traces of pyATF's simulated annealing and differential evolution, for tests/strategies/pyatf_test.cpp.

Runs pyATF's own search techniques and its own chain-of-trees coordinate mapping (the source, not a port: give the
path of pyATF's `src` folder) in the loop Kernel Tuner's pyatf_strategies.py uses: ask for coordinates, map them to a
configuration, cost it (a failed configuration is None, which the techniques read as +inf), report. Every random
number the techniques draw is recorded (random.random() as "r", and random.choice / random.randint as the index
drawn, "b" with the range size), so the C++ test can replay the same numbers through ktune's versions and compare the
coordinates and configurations step by step.

usage: derive_traces.py PYATF_SRC > tests/data/pyatf/traces.json
"""
import json
import random
import sys

# Simulated annealing: past 100 sweeps of the 3 parameters (2 probes each), so the temperature schedule restarts.
STEPS = {"simulated_annealing": 650, "differential_evolution": 200}


def space_definition():
    # The test's space (the C++ test builds the same one): three parameters in one constraint-linked tree.
    from pyatf import TP, Set
    return (
        TP("a", Set(1, 2, 4, 8)),
        TP("b", Set(1, 2, 3, 4, 5), lambda b, a: a * b <= 16),
        TP("c", Set(0, 1, 2), lambda c, b: c == 0 or b > 1),
    )


def cost(config):
    a, b, c = config["a"], config["b"], config["c"]
    if a == 8 and c == 2:
        return None  # a failing configuration
    return 1.0 + (a - 4) ** 2 * 0.25 + (b - 3) ** 2 * 1.5 + c * 0.7


class Recorder:
    """Stands in for the `random` module inside a technique, recording what it draws."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.draws = []

    def random(self):
        v = self.rng.random()
        self.draws.append(["r", v])
        return v

    def choice(self, seq):
        i = self.rng.randrange(len(seq))
        self.draws.append(["b", len(seq), i])
        return seq[i]

    def randint(self, a, b):
        v = self.rng.randint(a, b)
        self.draws.append(["b", b - a + 1, v - a])
        return v


def run(module, cls, seed, space, count):
    recorder = Recorder(seed)
    module.random = recorder
    technique = cls()
    technique.initialize(space.num_tps)
    steps = []
    for _ in range(count):
        coords = next(iter(technique.get_next_coordinates()))
        config = space.get_configuration(coords)
        c = cost(config)
        steps.append({"coordinates": list(coords), "config": [config["a"], config["b"], config["c"]]})
        technique.report_costs({coords: c})
    return {"seed": seed, "draws": recorder.draws, "steps": steps}


def main():
    sys.path.insert(0, sys.argv[1])
    from pyatf.search_space import SearchSpace
    import pyatf.search_techniques.simulated_annealing as sa
    import pyatf.search_techniques.differential_evolution as de
    space = SearchSpace(*space_definition(), verbosity=0)
    out = {
        "valid_configurations": space.constrained_size,
        "simulated_annealing": [run(sa, sa.SimulatedAnnealing, seed, space, STEPS["simulated_annealing"]) for seed in (1, 2)],
        "differential_evolution": [run(de, de.DifferentialEvolution, seed, space, STEPS["differential_evolution"]) for seed in (1, 2)],
    }
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main()
