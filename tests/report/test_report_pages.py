"""The report pages in a real browser (Debian's headless chromium): a simulated run of a benchmark_hub cache, a
two-objective run, a comparison, a hypertuning output, a live OpenCL run with its dashboard, a cache watched while another process writes
it, and a 10^5-record run. Each page: no console error, the expected elements, the numbers of the run's own JSON;
a screenshot of each is kept in KTUNE_TEST_ARTIFACTS."""
import gzip
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import browser  # noqa: E402

KTUNE = os.environ.get("KTUNE_BINARY", "ktune")
SHARED = os.environ.get("KTUNE_SHARED_DIR", os.path.join(os.path.dirname(__file__), "../../../shared"))
ARTIFACTS = os.environ.get("KTUNE_TEST_ARTIFACTS", "")
SOURCE = os.path.join(os.path.dirname(__file__), "..", "..")
CACHE = os.path.join(SHARED, "data/benchmark_hub/cachefiles/convolution/RTX_3090.json.gz")


def ktune(*args, **kw):
    return subprocess.run([KTUNE, *args], capture_output=True, text=True, check=True, **kw)


@pytest.fixture(scope="module")
def chrome():
    assert browser.chromium_path(), "no chromium: scripts/setup.sh installs Debian's"
    with browser.Browser() as b:
        yield b


def blank(chrome):
    """Leaves the page before (a live one would go on asking its server) and forgets what it said."""
    chrome.open("about:blank")
    chrome.events.clear()


def open_page(chrome, url, name):
    blank(chrome)
    started = time.time()
    chrome.open(url)
    chrome.pump(0.3)
    assert chrome.errors() == []
    assert chrome.evaluate("document.getElementById('ktune-errors').dataset.count") == "0", \
        chrome.evaluate("document.getElementById('ktune-errors').textContent")
    if ARTIFACTS:
        os.makedirs(ARTIFACTS, exist_ok=True)
        chrome.screenshot(os.path.join(ARTIFACTS, name + ".png"))
    return time.time() - started


def data_values(chrome, selector):
    return chrome.evaluate("Array.from(document.querySelectorAll(%s)).map(e => e.dataset.value)" % json.dumps(selector))


def as_shown(value):
    """A parameter value as the page writes it: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def charts(chrome):
    return chrome.evaluate("Array.from(document.querySelectorAll('svg.chart')).map(e => e.dataset.chart)")


def test_a_simulated_run_shows_the_runs_own_numbers(chrome, tmp_path):
    cache = tmp_path / "run.json"
    run = json.loads(ktune("tune", "--simulate", CACHE, "--strategy", "random_sample", "--max-fevals", "300",
                           "--seed", "3", "--cache", str(cache), "--json", "--quiet").stdout)
    report = json.loads(ktune("report", str(cache), "--html", str(tmp_path / "html"), "--json").stdout)
    assert report["pages"][0]["path"].endswith("index.html")
    open_page(chrome, "file://" + report["pages"][0]["path"], "simulated_run")

    best = float(data_values(chrome, ".best-value")[0])
    assert best == pytest.approx(run["best"]["value"], rel=1e-12)
    assert data_values(chrome, ".evaluations") == [str(run["evaluations"])]
    assert data_values(chrome, ".failures-count") == [str(run["failures"])]
    config_text = chrome.evaluate("document.querySelector('.best-config').textContent")
    for name, value in run["best"]["configuration"].items():
        assert "%s=%s" % (name, as_shown(value)) in config_text
    shown = charts(chrome)
    for chart in ("progress-evaluations", "progress-time", "distribution", "importance"):
        assert chart in shown
    for name in run["best"]["configuration"]:
        assert "marginal-" + name in shown
    # The best-configurations table starts with the best, and is sorted.
    top = [float(v) for v in data_values(chrome, "table.top td.objective")]
    assert top[0] == pytest.approx(run["best"]["value"], rel=1e-12)
    assert top == sorted(top)
    # Failures by status add up to the run's.
    counts = [int(v) for v in data_values(chrome, "table.failures td.failure-count")]
    assert sum(counts) == run["failures"]
    # The best so far, as drawn, falls to the best.
    assert chrome.evaluate("document.querySelector('svg[data-chart=\"progress-evaluations\"] path.series') !== null")


def test_two_objectives_show_the_pareto_front(chrome, tmp_path):
    cache = tmp_path / "mo.json"
    run = json.loads(ktune("tune", "--simulate", CACHE, "--strategy", "nsga2", "--objective", "time,compile_time",
                           "--max-fevals", "200", "--seed", "1", "--cache", str(cache), "--json", "--quiet").stdout)
    page = json.loads(ktune("report", str(cache), "--html", str(tmp_path / "html"), "--json").stdout)["pages"][0]
    open_page(chrome, "file://" + page["path"], "two_objectives")
    assert "pareto" in charts(chrome)
    drawn = chrome.evaluate("Array.from(document.querySelectorAll('svg[data-chart=pareto] circle.front'))"
                            ".map(c => [Number(c.dataset.x), Number(c.dataset.y)])")
    expected = sorted({(p["objectives"]["time"], p["objectives"]["compile_time"]) for p in run["pareto_front"]})
    assert sorted({(x, y) for x, y in drawn}) == pytest.approx(expected, rel=1e-12)


def test_a_comparison_shows_the_scores(chrome, tmp_path):
    spaces = [CACHE, os.path.join(SHARED, "data/benchmark_hub/cachefiles/convolution/RTX_Titan.json.gz")]
    out = tmp_path / "compare.json"
    ktune("compare", "--spaces", *spaces, "--strategies", "random_sample", "pso", "--repeats", "5", "--quiet",
          "--output", str(out))
    scores = json.loads(out.read_text())["aggregate"]
    page = json.loads(ktune("report", str(out), "--html", str(tmp_path / "html"), "--json").stdout)["pages"][0]
    open_page(chrome, "file://" + page["path"], "comparison")
    shown = chrome.evaluate("Object.fromEntries(Array.from(document.querySelectorAll('table.scores tbody tr'))"
                            ".map(r => [r.dataset.strategy, Number(r.querySelector('td.score').dataset.value)]))")
    assert shown == pytest.approx({k: v["score"] for k, v in scores.items()}, rel=1e-12)
    assert "aggregate-performance" in charts(chrome)
    assert sum(c.startswith("space-") for c in charts(chrome)) == 2


def test_a_hypertuning_output_shows_the_best_setting(chrome, tmp_path):
    out = tmp_path / "hypertune.json"
    run = json.loads(ktune("hypertune", "--strategy", "genetic_algorithm", "--spaces", CACHE, "--repeats", "3",
                           "--budget", "8", "--quiet", "--output", str(out), "--json").stdout)
    page = json.loads(ktune("report", str(out), "--html", str(tmp_path / "html"), "--json").stdout)["pages"][0]
    open_page(chrome, "file://" + page["path"], "hypertuning")
    assert float(data_values(chrome, ".best-value")[0]) == pytest.approx(run["best"]["score"], rel=1e-12)
    config_text = chrome.evaluate("document.querySelector('.best-config').textContent")
    for name, value in run["best"]["settings"].items():
        assert "%s=%s" % (name, as_shown(value)) in config_text
    assert sum(c.startswith("marginal-") for c in charts(chrome)) == len(run["best"]["settings"])


def cache_entries(path):
    """The entries a Kernel Tuner cache file holds so far (it is written a line per entry)."""
    try:
        with open(path) as f:
            return sum(1 for line in f if line.startswith('"') and '"timestamp"' in line)
    except FileNotFoundError:
        return 0


def follow(chrome, measured, seconds, done):
    """Samples (time, measured so far) and (time, records on the page) until `done()` or `seconds`, then checks that
    every count measured was on the page within 2 s."""
    samples, shown = [], []
    end = time.time() + seconds
    while time.time() < end and not done():
        now = time.time()
        samples.append((now, measured()))
        records = chrome.evaluate("Number(document.getElementById('live-status').dataset.records || -1)")
        shown.append((time.time(), records))
        time.sleep(0.1)
    assert chrome.errors() == []
    checked = 0
    for t, n in samples:
        if t > shown[-1][0] - 2.0:
            break  # too late to tell
        later = [r for (u, r) in shown if u <= t + 2.0]
        assert later and max(later) >= n, "measured %d at %.2f s, not shown within 2 s" % (n, t - samples[0][0])
        checked += 1
    assert checked >= 5 and samples[-1][1] > samples[0][1], (checked, samples[:2], samples[-2:])


def test_the_dashboard_of_a_live_opencl_run_follows_it(chrome, tmp_path):
    cache = tmp_path / "live.json"
    process = subprocess.Popen([KTUNE, "tune", os.path.join(SOURCE, "examples/matmul/matmul_opencl.json"),
                                "--strategy", "random_sample", "--max-fevals", "60", "--seed", "5",
                                "--cache", str(cache), "--dashboard", "0", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = None
    for line in process.stderr:
        match = re.search(r"the live view: (http://127\.0\.0\.1:\d+/)", line)
        if match:
            url = match.group(1)
            break
    assert url, "no live view announced"
    threading.Thread(target=process.stderr.read, daemon=True).start()
    open_page(chrome, url, "dashboard")
    follow(chrome, lambda: cache_entries(cache), 120, lambda: process.poll() is not None)
    run = json.loads(process.communicate()[0])
    assert process.returncode == 0
    # The run's cache as a report: the same best.
    page = json.loads(ktune("report", str(cache), "--html", str(tmp_path / "html"), "--json").stdout)["pages"][0]
    open_page(chrome, "file://" + page["path"], "live_run_report")
    assert float(data_values(chrome, ".best-value")[0]) == pytest.approx(run["best"]["value"], rel=1e-12)


def test_report_watch_follows_a_cache_another_process_writes(chrome, tmp_path):
    with gzip.open(CACHE, "rt") as f:
        source = json.load(f)
    head = {k: v for k, v in source.items() if k != "cache"}
    entries = list(source["cache"].items())[:400]
    path = tmp_path / "growing.json"
    written = [0]

    def write(count):  # as Kernel Tuner writes: the header, then an entry a line, the end added when it stops
        with open(path, "w") as f:
            f.write(json.dumps(head)[:-1] + ', "cache": {\n')
            f.write(",\n".join(json.dumps(k) + ": " + json.dumps(v) for k, v in entries[:count]))
        written[0] = count

    write(20)
    server = subprocess.Popen([KTUNE, "report", str(path), "--watch", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", server.stdout.readline()).group(1)
        open_page(chrome, url, "watch")
        stop = threading.Event()

        def grow():
            count = 20
            while count < len(entries) and not stop.is_set():
                time.sleep(0.3)
                count += 20
                write(count)

        writer = threading.Thread(target=grow)
        writer.start()
        try:
            follow(chrome, lambda: written[0], 10, lambda: False)
        finally:
            stop.set()
            writer.join()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert server.returncode in (0, -15)


def test_a_report_of_100000_records_is_small_and_opens_fast(chrome, tmp_path):
    rng = random.Random(7)
    params = {"bx": [16, 32, 64, 128, 256, 512, 1024], "by": [1, 2, 4, 8, 16, 32], "tile": list(range(1, 11)),
              "unroll": [0, 1, 2, 4, 8], "vec": [1, 2, 4, 8], "pad": [0, 1], "cache": [0, 1, 2, 3, 4, 5, 6, 7]}
    names = list(params)
    configs = [[rng.choice(params[n]) for n in names] for _ in range(100000)]
    results = []
    for i, c in enumerate(configs):
        t = 1.0 + c[0] / 256.0 + 3.0 / c[2] + rng.random()
        ok = (c[0] * c[1]) <= 4096
        entry = {"timestamp": "2026-11-27 10:00:00.000000+00:00", "configuration": dict(zip(names, c)),
                 "times": {"compilation_time": 0.1, "runtimes": [t / 1000.0], "framework": 0.0, "search_algorithm": 0.0,
                           "validation": 0.0}, "invalidity": "correct" if ok else "runtime", "correctness": 1,
                 "measurements": [{"name": "time", "value": t if ok else "RuntimeFailedConfig", "unit": "ms"}],
                 "objectives": ["time"]}
        results.append(entry)
    t4 = tmp_path / "big_T4.json"
    t4.write_text(json.dumps({"schema_version": "1.0.0", "results": results}))
    page = json.loads(ktune("report", str(t4), "--html", str(tmp_path / "html"), "--json").stdout)["pages"][0]
    size = os.path.getsize(page["path"])
    assert size < 5 * 1024 * 1024, size
    blank(chrome)
    started = time.time()
    chrome.open("file://" + page["path"])
    loaded = time.time() - started
    assert loaded < 2.0, loaded
    assert chrome.errors() == []
    assert data_values(chrome, ".evaluations") == ["100000"]
