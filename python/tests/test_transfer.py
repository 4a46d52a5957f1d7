"""tune_kernel(transfer=...): the search starts from results of the same kernel measured on another device, as
`ktune tune --transfer` (docs/transfer.md)."""
import gzip
import json

import pytest

import ktune
from conftest import shared_path


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
    assert len(results) == 8
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
