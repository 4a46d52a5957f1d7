#!/usr/bin/env python3
"""Regenerates the seed corpora fuzz/corpus/<target>/ from real inputs (../shared/data, examples/, the constraint
language documentation), trimmed to a few kilobytes each so the fuzzer mutates them quickly. Run from the project
root; the output is committed (the fuzz regression tests replay it)."""
import gzip
import json
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
OUT = os.path.join(ROOT, "fuzz", "corpus")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def text_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def write(target, name, content):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w", encoding="utf-8", newline="") as f:
        f.write(content)


def expressions():
    # From docs/constraint-language.md, Kernel Tuner restrictions and T1 value lists in the shared data.
    seeds = [
        "block_size_x * block_size_y <= 1024",
        "32 <= block_size_x * block_size_y <= 1024",
        "tile % 2 == 0 or not use_shared",
        "use_shared != 0 or block_size_y <= 1",
        "(N / block_size_x) % tile == 0",
        "[2**i for i in range(0, 6)]",
        "[1, 2, 4, 8, 16] + list(range(32, 1024+1, 32))",
        "alg in ['naive', 'tiled'] and alg != kind",
        "sum(x*x for x in l) < 2**62 if l else m >= -1.5e3",
        "round(f * 2.5, 1) == 6.2 or int(f) // 3 == -1",
        "min(block_size_x, tile) * max(1, block_size_y, 0x1F) > abs(m)",
        "str(tile) + alg == '4tiled' and len(alg) >= 1_0 // 2",
        "[x for x in range(block_size_x) if x % 3 == 1][:1] == []",
        "float('nan') != f and bool(m) is True",
        "'a\\tb\\x41\\101' * 2 + \"q'\" < 'z' and 0o17 + 0b101 == 20",
        "-2**2 == -4 and 2**-1 == 0.5 and 7.5 % 2 == 1.5 and -7 // 2 == -4",
        "(tile,) != (1, 2) and [0] * 4 == [0, 0, 0, 0]",
        "9223372036854775807 + 1 > 0",
        "block_size_x if eps < 1 else (block_size_y if f else 0)",
    ]
    for path in [os.path.join(SHARED, "kernel_tuner", "test_T1_input.json")] + sorted(
            os.path.join(SHARED, "benchmark_hub", "t1", f) for f in os.listdir(os.path.join(SHARED, "benchmark_hub", "t1"))):
        space = load(path)["ConfigurationSpace"]
        seeds += [p["Values"] for p in space["TuningParameters"][:2] if isinstance(p["Values"], str)]
        seeds += [c["Expression"] for c in space.get("Conditions", [])[:2]]
    seen = []
    for s in seeds:
        if s not in seen:
            seen.append(s)
    for i, s in enumerate(seen):
        write("expression", f"seed_{i:02d}.txt", s)


def solver():
    seeds = [
        "block_size_x * block_size_y <= 64",
        "tile % 2 == 0 or use_shared;alg == 'tiled'",
        "32 <= block_size_x * block_size_y <= 1024;f * tile > eps",
        "m in [1, 'x'];block_size_x // tile >= 2",
        "N % block_size_x == 0 and (f if use_shared else 1.0) < 2",
        "sum([x for x in range(tile)]) < block_size_y;str(block_size_x) + alg != '1naive'",
        "block_size_x % (tile - 1) == 0;m != 2.5 or block_size_y > 1",
        "block_size_x in [2**i for i in range(3)] and not (tile == 3 and alg == 'naive')",
        "max(block_size_x, block_size_y * tile) <= 16;min(f, eps) == 0.5",
        "block_size_x * tile ** 2 < N // 8 < 200",
    ]
    for i, s in enumerate(seeds):
        write("solver", f"seed_{i:02d}.txt", s)


def minified(document):
    return json.dumps(document, separators=(",", ":"))


def t1():
    files = [os.path.join(SHARED, "kernel_tuner", "test_T1_input.json")]
    files += sorted(os.path.join(SHARED, "benchmark_hub", "t1", f) for f in os.listdir(os.path.join(SHARED, "benchmark_hub", "t1")))
    files += [os.path.join(ROOT, "examples", d, f) for d in sorted(os.listdir(os.path.join(ROOT, "examples")))
              if os.path.isdir(os.path.join(ROOT, "examples", d))
              for f in sorted(os.listdir(os.path.join(ROOT, "examples", d))) if f.endswith(".json")]
    for path in files:
        document = load(path)
        # Few parameters and values keep the solver and the brute-force check of the fuzz target fast.
        for p in document["ConfigurationSpace"]["TuningParameters"][6:]:
            p["Values"] = "[1]" if p["Type"] != "string" else "['a']"
        write("t1", os.path.basename(path), minified(document))


def kernel_tuner_cache():
    def trimmed(document, entries):
        keys = list(document["cache"])[:entries]
        document["cache"] = {k: document["cache"][k] for k in keys}
        return document

    doc = trimmed(load(os.path.join(SHARED, "kernel_tuner", "test_cache_file.json")), 3)
    write("kernel_tuner_cache", "test_cache_file.json", json.dumps(doc, indent=1))
    # Cut short by an interrupted run: Kernel Tuner's layout, the last entry incomplete.
    text = json.dumps(doc, indent="")
    write("kernel_tuner_cache", "cut_short.json", text[: text.rfind("\"timestamp\"")])
    # Legacy error strings, mixed-type keys, NaN and Infinity, restrictions.
    write("kernel_tuner_cache", "legacy_mixed.json", json.dumps({
        "device_name": "dev", "kernel_name": "k", "problem_size": [64, 1],
        "tune_params_keys": ["block_size_x", "alg", "f", "flag"],
        "tune_params": {"block_size_x": [16, 32], "alg": ["alg_1", "alg_2"], "f": [1.0, 2.45], "flag": [True, False]},
        "restrictions": ["block_size_x > 8", "alg != 'alg_3'"],
        "objective": "time",
        "cache": {
            "16,alg_1,1.0,True": {"block_size_x": 16, "alg": "alg_1", "f": 1.0, "flag": True, "time": 1.5,
                                   "times": [1.5, 1.5], "compile_time": 10, "GFLOP/s": float("nan")},
            "32,alg_2,2.45,False": {"block_size_x": 32, "alg": "alg_2", "f": 2.45, "time": "RuntimeFailedConfig"},
            "16,alg_2,1.0,False": {"block_size_x": 16.0, "alg": "alg_2", "flag": False, "time": float("inf"),
                                   "__error__": "CompilationFailedConfig", "timestamp": None},
        }}))
    for path in [os.path.join(SHARED, "kernel_tuner", "strategies_test_cache_time_energy.json"),
                 os.path.join(ROOT, "tests", "data", "multiobjective", "dot_cache.json.gz")]:
        doc = load(path)
        write("kernel_tuner_cache", os.path.basename(path).replace(".gz", ""), json.dumps(trimmed(doc, 3)))


def t4_results():
    hub = os.path.join(SHARED, "benchmark_hub", "cachefiles")
    for name in ["convolution_milo/A100_T4.json.gz", "dedispersion_milo/MI250X_T4.json.gz"]:
        doc = load(os.path.join(hub, name))
        doc["results"] = doc["results"][:3]
        for r in doc["results"]:
            r["times"]["runtimes"] = r["times"]["runtimes"][:3]
        write("t4_results", name.replace("/", "_").replace(".gz", ""), json.dumps(doc, indent=1))
    write("t4_results", "failures_units.json", json.dumps({
        "schema_version": "1.0.0", "metadata": {"timeunit": "microseconds", "tool": "ktune"},
        "results": [
            {"timestamp": "2024-01-01 00:00:00+00:00", "configuration": {"x": 1, "alg": "a", "f": 0.5, "l": [1, 2]},
             "times": {"compilation": 1500, "runtimes": [10, 20.5], "benchmark": None},
             "invalidity": "correct", "correctness": 1,
             "measurements": [{"name": "time", "value": 15.25, "unit": "us"}, {"name": "energy", "value": 3}],
             "objectives": ["time", "energy"]},
            {"configuration": {"alg": "b", "x": 2, "f": 0.5, "l": [1, 2]}, "times": {"compilation": 3},
             "invalidity": "compile", "measurements": []},
            {"configuration": {"x": 1, "alg": "b", "f": float("nan"), "l": None}, "times": {"runtimes": []},
             "invalidity": "runtime", "measurements": [{"name": "time", "value": float("inf")}]},
        ]}))
    text = text_of(os.path.join(OUT, "t4_results", "failures_units.json"))
    write("t4_results", "cut_short.json", text[: text.rfind("\"invalidity\"")])


def lenient_json():
    seeds = {
        "object.json": '{"a": [1, -2.5e-3, true, false, null], "b": {"c": "d"}, "e": []}',
        "python_numbers.json": '[NaN, Infinity, -Infinity, 1e999, -0, 0.0, 9223372036854775807, 18446744073709551616]',
        "escapes.json": '["\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u00e9\\ud83d\\ude00", "\\ud800", "caf\u00e9"]',
        "nested.json": '{"x": [[[[{"y": [[]]}]]]], "z": {}}',
        "cut_short.json": '{"cache": {"1": {"time": 1.5, "times": [1.5, 2',
        "numbers.json": '[0, -1, 12345678901234567890, 1.5E+10, 2e-400, 123456789012345678]',
        "results.json": '{"metadata": {"timeunit": "ms"}, "results": [{"configuration": {"x": 1}}]}',
    }
    for name, text in seeds.items():
        write("lenient_json", name, text)


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    for make in (expressions, solver, t1, kernel_tuner_cache, t4_results, lenient_json):
        make()
    for target in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, target))
        size = sum(os.path.getsize(os.path.join(OUT, target, f)) for f in files)
        print(f"{target}: {len(files)} files, {size} bytes")


if __name__ == "__main__":
    sys.exit(main())
