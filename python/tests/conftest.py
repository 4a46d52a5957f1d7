"""Shared test data (../shared beside the project, or $KTUNE_SHARED_DIR) and the ktune binary for CLI comparisons."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def first_listings(results, names):
    """The results without revisits (a configuration's first listing each), in order: the evaluations the run made.
    Kernel Tuner's results, and ktune's, list a configuration again each time a strategy asks for it again."""
    seen, out = set(), []
    for r in results:
        key = tuple(r[name] for name in names)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def shared_path(relative):
    base = pathlib.Path(os.environ.get("KTUNE_SHARED_DIR", ROOT.parent / "shared"))
    path = base / relative
    if not path.exists():
        pytest.skip(f"shared data {relative} is not here")
    return str(path)


@pytest.fixture
def convolution_cache():
    return shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X.json.gz")


@pytest.fixture
def convolution_t4():
    return shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X_T4.json.gz")


@pytest.fixture
def time_energy_cache():
    return shared_path("data/kernel_tuner/strategies_test_cache_time_energy.json")


@pytest.fixture
def ktune_binary():
    binary = os.environ.get("KTUNE_BINARY")
    if not binary or not os.path.exists(binary):
        pytest.skip("KTUNE_BINARY (the ktune CLI) is not given")
    return binary
