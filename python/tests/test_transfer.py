"""tune_kernel(transfer=...): the search starts from results of the same kernel measured on another device, as
`ktune tune --transfer` (docs/transfer.md)."""
import gzip
import json

import pytest

import ktune
from conftest import first_listings, shared_path


def _best(path):
    with gzip.open(path, "rt") as f:
        cache = json.load(f)
    keys = cache["tune_params_keys"]
    entries = [e for e in cache["cache"].values() if isinstance(e.get("time"), (int, float)) and e["time"] < 1e19]
    best = min(entries, key=lambda e: e["time"])
    return {k: best[k] for k in keys}


def test_the_first_configuration_is_the_sources_best():
    target = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz")
    source = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_Titan.json.gz")
    results, _ = ktune.tune_kernel("cn_pnpoly", None, None, None, None, simulation_mode=True, cache=target,
                                   strategy_options={"max_fevals": 8}, seed=1, quiet=True, transfer=source)
    assert len(first_listings(results, list(_best(source)))) == 8
    first = results[0]
    assert {k: first[k] for k in _best(source)} == _best(source)


def test_a_source_of_another_kernel_is_an_error_naming_it():
    target = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz")
    other = shared_path("data/benchmark_hub/cachefiles/gemm_clblast/RTX_Titan.json.gz")
    with pytest.raises(ValueError, match="gemm_clblast/RTX_Titan"):
        ktune.tune_kernel("cn_pnpoly", None, None, None, None, simulation_mode=True, cache=target,
                          strategy_options={"max_fevals": 8}, quiet=True, transfer=[other])
    with pytest.raises(TypeError, match="transfer must be a path or a list of paths"):
        ktune.tune_kernel("cn_pnpoly", None, None, None, None, simulation_mode=True, cache=target,
                          strategy_options={"max_fevals": 8}, quiet=True, transfer=3)


def _failing_copy(source, destination, limit):
    """`source` with every configuration of block_size_x >= limit failed to compile: a hidden resource limit."""
    with gzip.open(source, "rt") as f:
        cache = json.load(f)
    for entry in cache["cache"].values():
        if entry["block_size_x"] >= limit:
            entry["time"] = "CompilationFailedConfig"
            entry.pop("times", None)
    with gzip.open(destination, "wt") as f:
        json.dump(cache, f)
    return str(destination)


def _failed(results):
    return sum(1 for r in results if not isinstance(r["time"], (int, float)))


def test_avoid_failures_believes_the_sources_failures(tmp_path):
    target = _failing_copy(shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz"),
                           tmp_path / "RTX_3090.json.gz", 512)
    source = _failing_copy(shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_Titan.json.gz"),
                           tmp_path / "RTX_Titan.json.gz", 512)
    failed = {}
    for avoid in (False, True):
        failed[avoid] = 0
        for seed in range(3):
            results, env = ktune.tune_kernel("cn_pnpoly", None, None, None, None, simulation_mode=True, cache=target,
                                             strategy="pso", strategy_options={"max_fevals": 60}, seed=seed,
                                             quiet=True, transfer=source, avoid_failures=avoid)
            failed[avoid] += _failed(results)
            assert ("deferred" in env) == avoid
    assert failed[True] * 2 < failed[False], failed
    with pytest.raises(TypeError, match="avoid_failures must be True or False"):
        ktune.tune_kernel("cn_pnpoly", None, None, None, None, simulation_mode=True, cache=target, quiet=True,
                          avoid_failures="yes")
