"""The helpers Kernel Tuner's scripts and tests import from kernel_tuner.util and kernel_tuner.file_utils: the T4
schemas the written files meet (its test_file_utils.py), temporary files, kernel sources and the argument check."""
import gzip
import json
import os
import warnings

import numpy
import pytest

import ktune
from conftest import shared_path
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
    path = tmp_path / "new_folder" / "metadata.json"  # the folder is made, as Kernel Tuner makes it
    store_metadata_file(str(path))
    _, schema = output_file_schema("metadata")
    metadata = json.loads(path.read_text())
    jsonschema.validate(metadata, schema=schema)
    # The operating system where Kernel Tuner writes it and where the format defines it.
    assert metadata["metadata"]["operating_system"] == metadata["metadata"]["hardware"]["operating_system"]
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


def test_a_t1_file_is_read_and_checked_against_the_t1_schema(tmp_path):
    from ktune.file_utils import get_input_file, input_file_schema
    t1 = shared_path("data/kernel_tuner/test_T1_input.json")
    document = get_input_file(t1, validate=True)
    assert document["KernelSpecification"]["KernelName"] and document["ConfigurationSpace"]["TuningParameters"]
    version, schema = input_file_schema()
    jsonschema.validate(document, schema=schema)
    assert version == "1.0.0"
    broken = dict(document, ConfigurationSpace={"TuningParameters": [{"Name": "x", "Type": "complex", "Values": "[1]"}]})
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(ValueError, match=r"broken.json: not a T1 file: at ConfigurationSpace/TuningParameters/0/Type"):
        get_input_file(str(path))
    assert get_input_file(str(path), validate=False) == broken
    # The search-space sets are T1 files without a KernelSpecification, which the format requires.
    with pytest.raises(ValueError, match="'KernelSpecification' is a required property"):
        get_input_file(shared_path("data/searchspaces/realworld/atf_prl_2x2.json"))


def test_tune_kernel_t1_takes_a_device_name_in_simulation_and_a_custom_optimiser():
    from ktune.strategies.wrapper import OptAlg
    t1 = shared_path("data/kernel_tuner/test_cache_file_T1_input.json")
    cache = shared_path("data/kernel_tuner/test_cache_file.json")

    class Sweep(OptAlg):
        def __call__(self, func, searchspace):
            for config in searchspace.list:
                func(config)

    results, env = ktune.tune_kernel_T1(t1, cache, device="NVIDIA RTX A4000", simulation_mode=True, output_T4=False,
                                        strategy=ktune.strategies.wrapper.OptAlgWrapper(Sweep()),
                                        strategy_options={"max_fevals": 6})
    assert len(results) == 6 and env["strategy"] == "Sweep"
    with pytest.raises(ValueError, match="live tune_kernel_T1 takes the device's index"):
        ktune.tune_kernel_T1(t1, None, device="NVIDIA RTX A4000", output_T4=False)
