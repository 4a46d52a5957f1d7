"""ktune.integration: Kernel Tuner 1.4's integration API (store_results, create_device_targets, TuneResults) end to
end, as Kernel Tuner users call it with tune_kernel's results and env; the files it writes checked by a reader of
our own that applies Kernel Tuner 1.4's rules (and its JSON schema where python3-jsonschema is installed)."""
import json
import os
import subprocess

import numpy
import pytest

import ktune
from ktune import integration
from conftest import shared_path

VECTOR_ADD_C = """
void vector_add(float *c, const float *a, const float *b, int n) {
    for (int i = 0; i < n; i += unroll)
        for (int j = i; j < i + unroll && j < n; j++)
            c[j] = a[j] + b[j];
}
"""

# Kernel Tuner 1.4's schema of a results file, version 1.0.
SCHEMA_V1_0 = {
    "$schema": "https://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "version_number": {"type": "string"},
        "tunable_parameters": {"type": "array", "items": {"type": "string"}},
        "kernel_name": {"type": "string"},
        "kernel_string": {"type": "string"},
        "objective": {"type": "string"},
        "objective_higher_is_better": {"type": "boolean"},
        "data": {"type": "array", "items": {"type": "object",
                                            "properties": {"device_name": {"type": "string"},
                                                           "problem_size": {"type": "string"}},
                                            "required": ["device_name", "problem_size", "tunable_parameters"]}},
    },
    "required": ["version_number", "tunable_parameters", "kernel_name", "objective", "data"],
}


def read_as_kernel_tuner_does(path):
    """An independent reader with Kernel Tuner 1.4's rules: (meta, entries), or an AssertionError."""
    with open(path) as fh:
        text = fh.read()
    document = json.loads(text)
    assert text == json.dumps(document, indent=""), "not the text json.dumps(indent='') writes"
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        jsonschema.Draft7Validator(SCHEMA_V1_0).validate(document)
    assert document["version_number"] == "1.0"
    for key in ("kernel_name", "tunable_parameters", "objective", "data"):
        assert key in document, key
    for entry in document["data"]:
        for key in ("tunable_parameters", document["objective"], "device_name", "problem_size"):
            assert key in entry, (key, entry)
        assert all(p in entry["tunable_parameters"] for p in document["tunable_parameters"]), entry
        assert isinstance(entry["device_name"], str) and isinstance(entry["problem_size"], str)
    return document, document["data"]


@pytest.fixture
def a100_cache():
    return shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz")


def simulated(cache, seed, fevals=60):
    return ktune.tune_kernel("convolution_kernel", None, (4096, 4096), None, None, simulation_mode=True, cache=cache,
                             strategy="random_sample", strategy_options={"max_fevals": fevals}, seed=seed,
                             quiet=True)


def test_store_results_from_tune_kernel_and_the_header(a100_cache, tmp_path):
    results, env = simulated(a100_cache, seed=1)
    tune_params = {k: None for k in ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only",
                                     "use_padding", "use_shmem", "use_cmem", "filter_height", "filter_width"]}
    path = tmp_path / "results.json"
    integration.store_results(str(path), "convolution_kernel", "convolution.cu", tune_params, (4096, 4096), results,
                              env)
    document, entries = read_as_kernel_tuner_does(path)
    assert document["kernel_name"] == "convolution_kernel"
    assert document["tunable_parameters"] == list(tune_params)
    assert document["objective"] == "time" and document["objective_higher_is_better"] is False
    assert document["kernel_string"] == "convolution.cu"  # looks like a file name, but there is no such file
    device = env["device_name"]
    assert device == "NVIDIA A100-PCIE-40GB"
    timed = [r for r in results if isinstance(r.get("time"), (int, float))]
    best = min(r["time"] for r in timed)
    expected = [r for r in timed if r["time"] < best * 1.03]
    assert len(entries) == len(expected)
    assert {e["device_name"] for e in entries} == {"NVIDIA_A100_PCIE_40GB"}
    assert {e["problem_size"] for e in entries} == {"4096x4096"}
    assert sorted(e["time"] for e in entries) == sorted(r["time"] for r in expected)
    winner = min(timed, key=lambda r: r["time"])

    tuned = integration.TuneResults(str(path))
    best_config = tuned.get_best_config(device, (4096, 4096))
    assert best_config == {k: winner[k] for k in tune_params}
    assert tuned.get_best_config(device, "4096x4096") == best_config
    assert tuned.objective == "time"

    header = tmp_path / "targets.h"
    integration.create_device_targets(str(header), str(path))
    text = header.read_text()
    assert "#ifdef TARGET_NVIDIA_A100_PCIE_40GB\n" in text
    defines = "\n".join(f"#define {k} {int(v)}" for k, v in best_config.items())
    assert "#ifdef TARGET_NVIDIA_A100_PCIE_40GB\n" + defines + "\n" in text

    # A second device and another problem size join the file; the first device's entries stay.
    more, env2 = simulated(shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"), seed=3)
    integration.store_results(str(path), "convolution_kernel", "convolution.cu", tune_params, (4096, 4096), more,
                              env2, top=0)
    integration.store_results(str(path), "convolution_kernel", "convolution.cu", tune_params, 1024, results, env,
                              top=10)
    document, entries = read_as_kernel_tuner_does(path)
    assert len([e for e in entries if e["device_name"] == "NVIDIA_RTX_A4000"]) >= 1
    assert {e["problem_size"] for e in entries if e["device_name"] == "NVIDIA_A100_PCIE_40GB"} == {"4096x4096",
                                                                                                 "1024"}
    integration.create_device_targets(str(header), str(path), objective="time")
    text = header.read_text()
    assert text.index("#ifdef TARGET_NVIDIA_A100_PCIE_40GB") < text.index("#elif TARGET_NVIDIA_RTX_A4000")


def test_a_live_c_kernel_as_kernel_tuner_users_call_it(tmp_path):
    rng = numpy.random.default_rng(1)
    a = rng.random(10000, dtype=numpy.float32)
    b = rng.random(10000, dtype=numpy.float32)
    c = numpy.zeros_like(a)
    n = numpy.int32(10000)
    tune_params = {"unroll": [1, 2, 4]}
    try:
        results, env = ktune.tune_kernel("vector_add", VECTOR_ADD_C, int(n), [c, a, b, n], tune_params, lang="C",
                                         quiet=True, iterations=2)
    except ktune.JobError as e:
        if "not available here" in str(e):
            pytest.skip(str(e))
        raise
    path = tmp_path / "vector_add.json"
    integration.store_results(str(path), "vector_add", VECTOR_ADD_C, tune_params, int(n), results, env, top=100)
    document, entries = read_as_kernel_tuner_does(path)
    assert document["kernel_string"] == VECTOR_ADD_C
    best = min(results, key=lambda r: r["time"])
    within = sorted(r["unroll"] for r in results if r["time"] < 2 * best["time"])  # 100 %: within twice the best
    assert sorted(e["tunable_parameters"]["unroll"] for e in entries) == within
    assert integration.TuneResults(str(path)).get_best_config(env["device_name"], int(n)) == {"unroll": best["unroll"]}


def test_kernel_tuners_scenario_and_its_errors(tmp_path):
    tune_params = {"a": [1, 2, 4], "b": [4, 5, 6]}
    results = [dict(a=a, b=b, time=100.0 + i) for i, (a, b) in enumerate((a, b) for a in [1, 2, 4] for b in [4, 5, 6])]
    results.append(dict(a=4, b=7, time="CompilationFailedConfig"))  # a failed one takes no part
    results.append(dict(a=numpy.int64(4), b=numpy.int32(8), time=numpy.float64(900.0)))  # NumPy values are numbers
    env = {"device_name": "My GPU"}
    path = str(tmp_path / "fake.json")
    integration.store_results(path, "fake_kernel", "fake_string", tune_params, 100, results, env, top=3)
    meta, data = integration._read_results_file(path)
    assert meta["kernel_string"] == "fake_string"
    assert len([d for d in data if d["device_name"] == "My_GPU" and d["problem_size"] == "100"]) == 3
    for r in results[:9]:
        if r["a"] == 1 and r["b"] == 4:
            r["time"] += 100
    integration.store_results(path, "fake_kernel", "fake_string", tune_params, 1000, results, env, top=3)
    header = tmp_path / "fake.h"
    integration.create_device_targets(str(header), path)
    assert "TARGET_My_GPU\n#define a 1\n#define b 5" in header.read_text()
    assert integration.TuneResults(path).get_best_config("My GPU", 100) == {"a": 1, "b": 4}
    assert integration.TuneResults(path).get_best_config() == {"a": 1, "b": 5}
    read_as_kernel_tuner_does(path)

    with pytest.raises(ValueError, match="Mismatch between given kernel_name"):
        integration.store_results(path, "other", "", tune_params, 100, results, env)
    with pytest.raises(ValueError, match="Mismatch between tunable_parameters"):
        integration.store_results(path, "fake_kernel", "", {"a": [1]}, 100, results, env)
    with pytest.raises(ValueError, match="Mismatch between given objective"):
        integration.store_results(path, "fake_kernel", "", tune_params, 100, results, env, objective="energy")
    with pytest.raises(ValueError, match="Please specify objective_higher_is_better for objective score"):
        integration.store_results(path, "fake_kernel", "", tune_params, 100, results, env, objective="score")
    with pytest.raises(ValueError, match="no value for tunable parameter 'c'"):
        integration.store_results(str(tmp_path / "new.json"), "k", "", {"c": [1]}, 100, results, env)
    with pytest.raises(ValueError, match="results_filename does not exist"):
        integration.TuneResults(str(tmp_path / "absent.json"))
    with pytest.raises(ValueError, match="results_filename does not exist"):
        integration.create_device_targets(str(header), str(tmp_path / "absent.json"))
    with pytest.raises(ValueError, match="Mismatch between given objective 'GFLOP/s'"):
        integration.create_device_targets(str(header), path, objective="GFLOP/s")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version_number": "1.0", "kernel_name": "k", "objective": "time",
                               "tunable_parameters": ["a"],
                               "data": [{"device_name": "D", "problem_size": "1", "tunable_parameters": {}}]}))
    with pytest.raises(ValueError, match="bad.json.*entry 1.*missing tunable parameter 'a'"):
        integration.TuneResults(str(bad))
    bad.write_text(json.dumps({"version_number": "2.0"}))
    with pytest.raises(ValueError, match="version_number"):
        integration.TuneResults(str(bad))
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="invalid JSON at byte"):
        integration.TuneResults(str(bad))
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"version_number": "1.0", "kernel_name": "k", "objective": "time",
                                 "tunable_parameters": [], "data": []}))
    with pytest.raises(ValueError, match="empty"):
        integration.TuneResults(str(empty))


def test_a_kernel_tuner_results_file_reads_back_and_exports(tmp_path, ktune_binary):
    """A file as Kernel Tuner 1.4 writes it (its text made here with json.dumps(indent="")): we read it, and `ktune
    export` turns it into a header and wisdom."""
    document = {"version_number": "1.0", "kernel_name": "vector_add", "kernel_string": "__kernel void f() {}",
                "objective": "GFLOP/s", "objective_higher_is_better": True, "tunable_parameters": ["block_size_x"],
                "data": [{"device_name": "Dev_A", "problem_size": "1000", "tunable_parameters": {"block_size_x": 64},
                          "GFLOP/s": 10.0},
                         {"device_name": "Dev_A", "problem_size": "1000", "tunable_parameters": {"block_size_x": 128},
                          "GFLOP/s": 10.2},
                         {"device_name": "Dev_B", "problem_size": "1000", "tunable_parameters": {"block_size_x": 32},
                          "GFLOP/s": 7.0}]}
    path = tmp_path / "kt.json"
    path.write_text(json.dumps(document, indent=""))
    tuned = integration.TuneResults(str(path))
    assert tuned.objective_higher_is_better is True
    assert tuned.get_best_config("Dev A", 1000) == {"block_size_x": 128}
    assert tuned.get_best_config("Dev_B") == {"block_size_x": 32}
    header, wisdom = tmp_path / "kt.h", tmp_path / "kt.wisdom"
    out = subprocess.run([ktune_binary, "export", str(path), "--header", str(header), "--wisdom", str(wisdom),
                          "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert [e["configuration"]["block_size_x"] for e in report["entries"]] == ["128", "32"]
    assert "#ifdef TARGET_Dev_A\n#define block_size_x 128\n" in header.read_text()
    # Storing more results into Kernel Tuner's file keeps its entries and its text layout.
    integration.store_results(str(path), "vector_add", None, {"block_size_x": []}, 2000,
                              [{"block_size_x": 256, "GFLOP/s": 3.0}], {"device_name": "Dev A"},
                              objective="GFLOP/s")
    stored, entries = read_as_kernel_tuner_does(path)
    assert len(entries) == 4 and stored["kernel_string"] == "__kernel void f() {}"


def test_tune_kernel_adds_its_winner_to_a_wisdom_file(a100_cache, tmp_path):
    wisdom = tmp_path / "app.wisdom"
    results, env = ktune.tune_kernel("convolution_kernel", None, (4096, 4096), None, None, simulation_mode=True,
                                     cache=a100_cache, strategy="random_sample", strategy_options={"max_fevals": 25},
                                     seed=4, quiet=True, wisdom=str(wisdom))
    best = min((r for r in results if isinstance(r.get("time"), float)), key=lambda r: r["time"])
    lines = [line.split("\t") for line in wisdom.read_text().splitlines()]
    kernel = next(line for line in lines if line[0] == "kernel")
    entry = next(line for line in lines if line[0] == "best")
    parameters = kernel[2:]
    assert entry[1:4] == ["convolution_kernel", env["device_name"], "4096x4096"]
    assert float(entry[6]) == best["time"]
    assert entry[7:7 + len(parameters)] == [str(best[p]) for p in parameters]


def test_the_package_gives_store_results_and_create_device_targets_as_kernel_tuners_does():
    assert ktune.store_results is integration.store_results
    assert ktune.create_device_targets is integration.create_device_targets
    with pytest.raises(AttributeError, match="module 'ktune' has no attribute 'no_such_function'"):
        ktune.no_such_function
