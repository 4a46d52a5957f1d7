"""The helpers Kernel Tuner's scripts and tests import from kernel_tuner.util and kernel_tuner.file_utils: the T4
schemas the written files meet (its test_file_utils.py), temporary files, kernel sources and the argument check."""
import gzip
import json
import os
import warnings

import numpy
import pytest

import ktune
from ktune.file_utils import output_file_schema, store_metadata_file, store_output_file
from ktune.util import (check_argument_list, delete_temp_file, get_kernel_string, get_temp_filename,
                        looks_like_a_filename, read_file, write_file)

jsonschema = pytest.importorskip("jsonschema")


def test_the_t4_files_written_meet_the_t4_schemas(convolution_cache, time_energy_cache, tmp_path):
    for cache in (convolution_cache, time_energy_cache):
        results, _ = ktune.tune_cache(cache, strategy="random_sample", strategy_options={"max_fevals": 40}, quiet=True)
        opener = gzip.open if cache.endswith(".gz") else open
        with opener(cache, "rt") as f:
            tune_params = json.load(f)["tune_params"]
        path = tmp_path / "results.json"
        store_output_file(str(path), results, tune_params)
        version, schema = output_file_schema("results")
        document = json.loads(path.read_text())
        jsonschema.validate(document, schema=schema)
        assert version == document["schema_version"] == "1.0.0" and len(document["results"]) == len(results)
    path = tmp_path / "metadata.json"
    store_metadata_file(str(path))
    _, schema = output_file_schema("metadata")
    jsonschema.validate(json.loads(path.read_text()), schema=schema)
    # The schemas refuse what the formats do not allow.
    _, schema = output_file_schema("results")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema_version": "1.0.0", "results": [{"configuration": {}, "times": {},
                                                                     "invalidity": "broken", "correctness": 1}]},
                            schema=schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema_version": "1.0", "results": []}, schema=schema)
    with pytest.raises(ValueError, match="'results' or 'metadata'"):
        output_file_schema("input")


def test_temporary_files_and_kernel_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = get_temp_filename(suffix=".cl")
    assert os.path.basename(name).startswith("temp_") and name.endswith(".cl") and os.path.isfile(name)
    write_file(name, "__kernel void k() {}\n")
    assert read_file(name) == "__kernel void k() {}\n"
    assert looks_like_a_filename(os.path.basename(name)) and get_kernel_string(os.path.basename(name)).startswith("__")
    assert not looks_like_a_filename("__kernel void k() {}") and not looks_like_a_filename("vector_add")
    assert get_kernel_string("__kernel void k() {}") == "__kernel void k() {}"
    assert get_kernel_string(lambda p: f"#define X {p['x']}", {"x": 3}) == "#define X 3"
    delete_temp_file(name)
    delete_temp_file(name)  # gone already: no error
    assert not os.path.exists(name)
    with pytest.raises(TypeError, match="kernel_source must be"):
        get_kernel_string(42)


def test_the_argument_check_warns_of_what_does_not_match():
    kernel = "__global__ void vector_add(float *c, const float *a, float *b, int n) {}"
    a, n = numpy.zeros(4, numpy.float32), numpy.int32(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_argument_list("vector_add", kernel, [a, a, a, n])  # matches: no warning
        # One of two declarations matching is enough (a prototype and an overload, say).
        check_argument_list("f", "void f(double *x);\nvoid f(float *x) {}", [a])
    for args, why in (([a, a, a], "takes 4 arguments, 3 are given"),
                      ([a, a, a, numpy.float32(4)], "argument 4 of type float32 does not match .*'int n'"),
                      ([a, a, numpy.zeros(4), n], "argument 3 of type float64 does not match .*'float \\*b'"),
                      ([a, a, a, a], "argument 4 is an array of float32 but .*'int n' is not a pointer")):
        with pytest.warns(UserWarning, match=why):
            check_argument_list("vector_add", kernel, args)
    with pytest.raises(TypeError, match="argument 4 is of type int"):
        check_argument_list("vector_add", kernel, [a, a, a, 4])
