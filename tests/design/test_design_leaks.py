"""`ktune design` against hostile candidates that try to leak a planted secret through their compilation.

A candidate that `#include`s the secret (by absolute path, by a path relative to its file) fails before any compiler
reads it; one whose compile errors quote the secret (an assembler `.include`) has those errors left out. The secret
never reaches the language model's server nor design.jsonl, and no compiled candidate stays behind in the plug-in
cache or the run's folder.
"""
import json
import os

import pytest

from test_design_cli import MockServer, design_args, candidates, scripted_candidates
import subprocess

SECRET = "TOPSECRET_ktune_51c9 api_key=hunter2"


def hostile(name, include_line, trailer=""):
    """A working strategy with one hostile line added before it (and one after)."""
    reply = scripted_candidates.working(1).replace("climb_hamming_1", name)
    reply = reply.replace("```cpp\n", "```cpp\n" + include_line + "\n", 1)
    return reply.replace("KTUNE_STRATEGY_PLUGIN(describe)\n", "KTUNE_STRATEGY_PLUGIN(describe)\n" + trailer)


def run_design(tmp_path, out, env, replies):
    """ktune design with one language-model call per reply; the finished run and the (closed) mock server."""
    server = MockServer(tmp_path, [{"content": r} for r in replies])
    try:
        done = subprocess.run(design_args(server, out, budget=len(replies), extra=["--json"]), env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    return done, server


def test_a_planted_secret_never_reaches_the_server_nor_the_log(tmp_path, env):
    out = tmp_path / "run"
    out.mkdir()
    absolute = tmp_path / "secret.txt"
    absolute.write_text(SECRET + "\nsecond secret line\n")
    (out / "secret.txt").write_text(SECRET + "\n")  # ../secret.txt from the candidate's file in run/candidates/
    steps = [hostile("absolute_includer", f'#include "{absolute}"'),
             hostile("relative_includer", '#include "../secret.txt"'),
             hostile("assembler_includer", "", f'asm(".include \\"{absolute}\\"");\n'),
             scripted_candidates.working(0)]
    done, server = run_design(tmp_path, out, env, steps)
    result = json.loads(done.stdout)
    stages = [c["result"]["stage"] for c in result["candidates"]]
    assert stages == ["compile", "compile", "compile", "scored"], stages
    errors = [c["result"]["error"] for c in result["candidates"]]
    assert "line 1: #include of" in errors[0] and "is refused" in errors[0], errors[0]
    assert '"../secret.txt" is refused' in errors[1], errors[1]
    assert "does not compile" in errors[2] and "lines about other files left out" in errors[2], errors[2]
    # Each failure was fed back, and nothing of the secret went anywhere.
    served = server.served()
    assert len(served) == 4
    assert "is refused" in served[1]["request"]["messages"][1]["content"]
    for text in [json.dumps(served), (out / "design.jsonl").read_text(), done.stdout, done.stderr]:
        assert "TOPSECRET" not in text and "hunter2" not in text and "second secret line" not in text
    assert len(candidates(out)) == 4
    # No compiled candidate is kept: not in the plug-in cache (which may hold ktune's own headers, precompiled), not
    # in the run's folder.
    cache = tmp_path / "plugin-cache"
    kept = [p for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert all(p.name.startswith("ktune-plugin-headers-") for p in kept), kept
    assert all("TOPSECRET" not in p.read_text() for p in kept if p.suffix == ".hpp")
    assert not list(out.rglob("*.so")) and not (out / "scratch").exists()


def test_no_process_ktune_starts_inherits_the_api_key(tmp_path, env):
    """ktune design keeps the API key to itself: the compiler that precompiles the plug-in headers (run outside the
    sandbox, before any candidate) and every other process it starts get an environment without it. They are readable
    by any process of the user that can see them: under `ctest -j2` a hostile candidate of another run, sandboxed
    without a pid namespace, read the key from such a compiler's /proc/PID/environ."""
    key = "sk-inherited-key-4be1"
    dumps = tmp_path / "environments"
    dumps.mkdir()
    wrapper = tmp_path / "cxx-wrapper"
    # Records the environment it was started with, then compiles (the candidates' compilers run in the sandbox's
    # emptied environment, where this folder may not even be visible).
    wrapper.write_text(f"#!/bin/sh\nenv > \"{dumps}/env.$$\" 2>/dev/null\nexec g++ \"$@\"\n")
    wrapper.chmod(0o755)
    out = tmp_path / "run"
    env = dict(env, CXX=str(wrapper), OPENAI_API_KEY=key, KTUNE_PLUGIN_HEADERS_CACHE=str(tmp_path / "headers"))
    _, server = run_design(tmp_path, out, env, [scripted_candidates.working(0)])
    # (The candidate's own compile, in the sandbox, may not see the wrapper's folder and fail: that is not checked.)
    seen = list(dumps.iterdir())
    assert seen, "the compiler wrapper never ran outside the sandbox: the test checks nothing"
    for dump in seen:
        text = dump.read_text()
        assert key not in text and "OPENAI_API_KEY" not in text, dump.name
    # The key itself still goes where it belongs: to the model's server, as the bearer token.
    assert server.served()[0]["authorization"] == f"Bearer {key}"
