"""Kernel Tuner's own example scripts (../shared/data/kernel_tuner_examples, unmodified there) run with ktune: each
is copied to a scratch folder with only its imports of kernel_tuner pointed at ktune, and its problem size scaled
down where a full run on PoCL would take minutes (in the script and in its kernel's #defines). Every example must
finish; its best configuration must be valid (and verified where the script gives an answer), and its results must
have the keys Kernel Tuner returns."""
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import shared_path

KEYS = {"time", "times", "compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time",
        "timestamp"}

# Per example: textual scalings (applied to the script and to every kernel file beside it), whether it is long (its
# brute force compiles hundreds of configurations on PoCL, minutes whatever the problem size: run by
# `make python-examples`, which sets KTUNE_LONG_EXAMPLES=1), and why an example cannot run yet.
EXAMPLES = {
    "opencl/convolution.py": {"scale": [("4096", "256")], "long": True},
    "opencl/matmul.py": {"scale": [("4096", "256")], "long": True},
    "opencl/vector_add.py": {"scale": [("10000000", "100000")]},
    "opencl/vector_add_codegen.py": {"scale": [("10000000", "100000")]},
    "c/vector_add.py": {"scale": [("72 * 1024 * 1024", "1024 * 1024")]},
}

# Records what every tune_kernel call returns, then runs the script as its own __main__.
DRIVER = textwrap.dedent("""
    import json, runpy, sys
    import ktune
    calls = []
    original = ktune.tune_kernel
    def recording(*args, **kwargs):
        results, env = original(*args, **kwargs)
        calls.append({"results": [{k: (str(v) if k == "__error__" else v) for k, v in r.items()} for r in results],
                      "best": env.get("best_config"), "answer": kwargs.get("answer") is not None})
        return results, env
    ktune.tune_kernel = recording
    try:
        runpy.run_path(sys.argv[1], run_name="__main__")
    finally:
        with open("calls.json", "w") as f:
            json.dump(calls, f, default=str)
""")


def ktune_imports(source):
    """The script with its imports of kernel_tuner pointed at ktune (``import kernel_tuner`` keeps its name)."""
    source = re.sub(r"^import kernel_tuner\s*$", "import ktune as kernel_tuner", source, flags=re.M)
    return re.sub(r"^from kernel_tuner(\.|\s)", r"from ktune\1", source, flags=re.M)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_example_runs_with_ktune(example, tmp_path):
    settings = EXAMPLES[example]
    if "missing" in settings:
        pytest.xfail(settings["missing"])
    if settings.get("long") and not os.environ.get("KTUNE_LONG_EXAMPLES"):
        pytest.skip("a long example: `make python-examples` runs it")
    script = pathlib.Path(shared_path(f"data/kernel_tuner_examples/{example}"))
    for source in script.parent.iterdir():
        if source.is_file():
            text = source.read_text()
            for old, new in settings["scale"]:
                text = text.replace(old, new)
            if source == script:
                text = ktune_imports(text)
            (tmp_path / source.name).write_text(text)
    (tmp_path / "driver.py").write_text(DRIVER)
    env = dict(os.environ)
    import ktune  # the scripts run elsewhere: give them the package this test imports
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(ktune.__file__).resolve().parents[1])] +
                                        [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    run = subprocess.run([sys.executable, "driver.py", script.name], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=3600 if settings.get("long") else 600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    calls = json.loads((tmp_path / "calls.json").read_text())
    assert calls, "the script did not call tune_kernel"
    for call in calls:
        assert call["results"]
        ok = [r for r in call["results"] if "__error__" not in r]
        assert ok, "no configuration ran"
        for r in ok:
            assert KEYS <= set(r)
        best = call["best"]
        assert best is not None and "__error__" not in best
        assert best in ok  # the best is one of the verified results (failed verification is an __error__)
