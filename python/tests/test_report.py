"""ktune.report and tune_kernel(dashboard=...): the pages of a run from Python, and the live view's address."""
import json
import re
import socket
import urllib.request

import pytest

import ktune
from conftest import shared_path
from ktune.strategies.wrapper import OptAlg

CACHE = shared_path("data/benchmark_hub/cachefiles/convolution/RTX_3090.json.gz")


def test_report_writes_the_page_of_a_run_with_its_best(tmp_path):
    out = ktune.report([CACHE], html=tmp_path / "html", top=5)
    assert out["pages"][0]["path"].endswith("index.html")
    page = open(out["pages"][0]["path"]).read()
    data = json.loads(re.search(r'<script type="application/json" id="ktune-data">(.*?)</script>', page, re.S)
                      .group(1).replace("<\\/", "</"))
    run = data["items"][0]
    assert run["records"] == out["items"][0]["records"]
    assert len(run["top"]) == 5
    assert run["best"]["value"] == min(r["time"] for r in _cache_times(CACHE))


def _cache_times(path):
    import gzip
    with gzip.open(path, "rt") as f:
        return [v for v in json.load(f)["cache"].values() if isinstance(v.get("time"), (int, float))
                and v["time"] < 1e20]


def test_report_names_a_file_it_cannot_read(tmp_path):
    bad = tmp_path / "not_results.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(ktune.JobError, match="not_results.json"):
        ktune.report(str(bad), html=tmp_path / "html")
    with pytest.raises(ValueError, match="top"):
        ktune.report(CACHE, html=tmp_path / "html", top=0)


def test_tune_kernel_dashboard_serves_the_run_while_it_lasts():
    # A strategy that asks the live view after its tenth evaluation: the page's data has those ten.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    seen = []

    class AskingTheDashboard(OptAlg):
        def __call__(self, func, searchspace):
            for config in searchspace.get_random_sample(10):
                func(config)
            with urllib.request.urlopen("http://127.0.0.1:%d/data.json" % port, timeout=10) as answer:
                seen.append(json.load(answer))
            while True:
                func(searchspace.get_random_sample(1)[0])

    ktune.tune_kernel("convolution_kernel", "", (4096, 4096), [], None, simulation_mode=True, cache=CACHE,
                      strategy=AskingTheDashboard(), strategy_options={"max_fevals": 12}, quiet=True,
                      dashboard=port)
    assert seen and seen[0]["items"][0]["records"] == 10
    with pytest.raises(ValueError, match="dashboard"):
        ktune.tune_kernel("convolution_kernel", "", (4096, 4096), [], None, simulation_mode=True, cache=CACHE,
                          quiet=True, dashboard=70000)
