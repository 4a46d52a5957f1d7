"""tune_kernel(store=...): the Python module records into the same results store as `ktune tune --store`, and resumes
from it (docs/store.md)."""
import json
import subprocess

import ktune
from conftest import shared_path


def test_simulation_records_into_the_store_and_the_cli_reads_it(convolution_cache, ktune_binary, tmp_path):
    store = tmp_path / "results.ktune"
    results, env = ktune.tune_kernel("conv", None, None, None, None, simulation_mode=True, cache=convolution_cache,
                                     strategy="random_sample", strategy_options={"max_fevals": 15}, seed=2,
                                     quiet=True, store=store)
    assert len(results) == 15
    listed = json.loads(subprocess.run([ktune_binary, "store", "list", str(store), "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    assert [s["records"] for s in listed["spaces"]] == [15]
    assert listed["spaces"][0]["device"] == env["device_name"]
    # A second run resumes the 15 (they count toward max_fevals, as a cache's do): it measures 5 more.
    more, _ = ktune.tune_kernel("conv", None, None, None, None, simulation_mode=True, cache=convolution_cache,
                                strategy="random_sample", strategy_options={"max_fevals": 20}, seed=5, quiet=True,
                                store=str(store))
    assert len(more) == 20
    listed = json.loads(subprocess.run([ktune_binary, "store", "list", str(store), "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    assert listed["spaces"][0]["records"] == 20


def test_the_environment_names_the_store(convolution_cache, tmp_path, monkeypatch):
    store = tmp_path / "from_env.ktune"
    monkeypatch.setenv("KTUNE_STORE", str(store))
    ktune.tune_kernel("conv", None, None, None, None, simulation_mode=True, cache=convolution_cache,
                      strategy="random_sample", strategy_options={"max_fevals": 3}, quiet=True)
    assert store.exists()


def test_a_file_that_is_no_store_is_a_value_error(convolution_cache, tmp_path):
    bad = tmp_path / "bad.ktune"
    bad.write_text("not a database, just text that is long enough to be read as a header " * 4)
    try:
        ktune.tune_kernel("conv", None, None, None, None, simulation_mode=True, cache=convolution_cache,
                          strategy_options={"max_fevals": 3}, quiet=True, store=bad)
    except ValueError as e:
        assert "not a ktune results store" in str(e) and str(bad) in str(e)
    else:
        raise AssertionError("no error for a file that is no store")
