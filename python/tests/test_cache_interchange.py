"""Caches that Kernel Tuner and ktune both resume (issue 33 item 9): the problem size as the caller gave it, numbers
as numbers; a cache of ktune's older form (["100000", "1", "1"]) still resumes; a cache of another problem size or
kernel source is refused with both values named."""
import json

import numpy
import pytest

import ktune

VECTOR_ADD_C = """
void vector_add(float *c, const float *a, const float *b, int n) {
    for (int i = 0; i < n; i += unroll)
        for (int j = i; j < i + unroll && j < n; j++)
            c[j] = a[j] + b[j];
}
"""


def data(size):
    rng = numpy.random.default_rng(1)
    a = rng.random(size, dtype=numpy.float32)
    b = rng.random(size, dtype=numpy.float32)
    return [numpy.zeros_like(a), a, b, numpy.int32(size)]


def tune(size, cache, problem_size=None, source=VECTOR_ADD_C):
    try:
        return ktune.tune_kernel("vector_add", source, size if problem_size is None else problem_size, data(size),
                                 {"unroll": [1, 2]}, lang="C", quiet=True, iterations=1, cache=str(cache))
    except ktune.JobError as e:
        if "not available here" in str(e):
            pytest.skip(str(e))
        raise


def test_problem_size_is_written_as_kernel_tuner_writes_it(tmp_path):
    tune(1000, tmp_path / "scalar.json")
    assert json.loads((tmp_path / "scalar.json").read_text())["problem_size"] == 1000
    tune(1000, tmp_path / "tuple.json", problem_size=(1000, 1))
    assert json.loads((tmp_path / "tuple.json").read_text())["problem_size"] == [1000, 1]


def test_the_older_string_form_resumes(tmp_path):
    cache = tmp_path / "old_form.json"
    tune(1000, cache)
    document = json.loads(cache.read_text())
    document["problem_size"] = ["1000", "1", "1"]
    cache.write_text(json.dumps(document))
    results, _ = tune(1000, cache)  # resumes: nothing measured again
    assert len(results) == 2


def test_another_problem_size_or_source_is_refused(tmp_path):
    cache = tmp_path / "sized.json"
    tune(1000, cache)
    with pytest.raises(ValueError, match="problem size 1000, this run is for 8000"):
        tune(8000, cache)
    with pytest.raises(ValueError, match="kernel_source_hash"):
        tune(1000, cache, source=VECTOR_ADD_C.replace("j++", "++j"))
