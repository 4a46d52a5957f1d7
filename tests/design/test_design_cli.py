"""`ktune design` end to end against a scripted OpenAI-compatible server on 127.0.0.1 (mock_llm_server.py).

Checks what the issue asks of the loop: it finishes; every failure (no compile, crash, endless loop, no code block,
exception, memory) is recorded with its message and fed back in the next prompt; a 429 is retried; the best is kept;
a kill -9 is resumed without asking for or scoring finished candidates again; a fixed seed and fixed replies give the
same run; an unreachable or refusing server is a clear error.
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import scripted_candidates  # noqa: E402

KTUNE = os.environ.get("KTUNE_BINARY", str(HERE.parent.parent / "build" / "ktune"))
SHARED = Path(os.environ.get("KTUNE_SHARED_DIR", str(HERE.parent.parent.parent / "shared")))
CACHES = SHARED / "data" / "benchmark_hub" / "cachefiles"
TRAINING = [str(CACHES / k / f"{g}.json.gz") for k in ("convolution_milo", "dedispersion_milo")
            for g in ("A100", "A4000", "MI250X")]


class MockServer:
    def __init__(self, tmp, steps, lifetime=500):
        self.script = tmp / f"script-{id(self)}.json"
        self.requests = tmp / f"requests-{id(self)}.jsonl"
        port_file = tmp / f"port-{id(self)}"
        self.script.write_text(json.dumps(steps))
        self.process = subprocess.Popen([sys.executable, str(HERE / "mock_llm_server.py"), str(self.script),
                                         str(self.requests), "--port-file", str(port_file),
                                         "--lifetime", str(lifetime)])
        for _ in range(200):
            if port_file.exists():
                break
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port_file.read_text()}/v1"

    def served(self):
        if not self.requests.exists():
            return []
        return [json.loads(line) for line in complete_lines(self.requests)]

    def close(self):
        self.process.kill()
        self.process.wait()


def design_args(server, out, budget=16, extra=()):
    return [KTUNE, "design", "--spaces", *TRAINING, "--llm-url", server.url, "--model", "mock-model",
            "--budget", str(budget), "--parents", "4", "--offspring", "4", "--output", str(out),
            "--llm-backoff", "0.1", "--time-limit", "5", "--memory-limit", "2048", "--seed", "7", *extra]


def complete_lines(path):
    """The lines of a file another process may be appending to: a last line without its newline is still being
    written (a long line reaches the file in several writes) and is left for the next read."""
    text = path.read_text()
    return [line for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def log_records(out):
    return [json.loads(line) for line in complete_lines(out / "design.jsonl")]


def candidates(out):
    return [r for r in log_records(out) if r["event"] == "candidate"]


def test_sixteen_candidates_failures_fed_back_best_kept(tmp_path, env):
    server = MockServer(tmp_path, scripted_candidates.script())
    out = tmp_path / "run"
    try:
        start = time.monotonic()
        done = subprocess.run(design_args(server, out, extra=["--json"]), env=env, capture_output=True, text=True,
                              timeout=300)
        elapsed = time.monotonic() - start
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert elapsed < 300
    result = json.loads(done.stdout)
    assert len(result["candidates"]) == 16
    stages = [c["result"]["stage"] for c in result["candidates"]]
    for stage in ("compile", "crash", "timeout", "reply", "run", "memory"):
        assert stage in stages, stages
    assert stages.count("scored") == 10
    # Every failure is in the log with its message, and the next prompt carries it.
    served = server.served()
    ok_requests = [s for s in served if s["status"] == 200]
    assert len(ok_requests) == 16 and len(served) == 17  # one 429, retried
    assert served[0]["authorization"] == "Bearer test-key"
    logged = candidates(out)
    assert len(logged) == 16
    for i, c in enumerate(logged):
        if c["result"]["ok"]:
            continue
        assert c["result"]["error"], c
        next_prompt = ok_requests[i + 1]["request"]["messages"][1]["content"]
        assert c["result"]["error"].splitlines()[0][:60] in next_prompt, (c["result"]["stage"], next_prompt[-800:])
    assert "undeclared_function" in ok_requests[2]["request"]["messages"][1]["content"]
    # The best is kept: best.cpp is the code of the highest score.
    scored = [c for c in result["candidates"] if c["result"]["ok"]]
    best = max(scored, key=lambda c: (c["result"]["score"], -c["id"]))
    assert result["leaderboard"][0] == best["id"]
    assert (out / "best.cpp").read_text() == Path(best["code_file"]).read_text()
    assert "ktune tune" not in done.stdout  # --json: one object only


def test_resume_after_kill_does_not_repeat_finished_candidates(tmp_path, env):
    steps = [s for s in scripted_candidates.script() if "endless" not in s.get("content", "")]
    server = MockServer(tmp_path, steps)
    out = tmp_path / "run"
    try:
        process = subprocess.Popen(design_args(server, out, budget=12), env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (out / "design.jsonl").exists() and len(candidates(out)) >= 5:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        done_before = {c["call"] for c in candidates(out)}
        replies_before = {r["call"] for r in log_records(out) if r["event"] == "reply"}
        assert len(done_before) >= 5
        asked_before = len(server.served())
        done = subprocess.run(design_args(server, out, budget=12, extra=["--json"]), env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    finally:
        server.close()
    result = json.loads(done.stdout)
    assert len(result["candidates"]) == 12
    assert result["resumed"] == len(done_before)
    # Each call was scored once, and the model was asked only for calls whose reply the log did not hold.
    calls = [c["call"] for c in candidates(out)]
    assert sorted(calls) == list(range(12))
    asked_after = [s for s in server.served()[asked_before:] if s["status"] == 200]
    assert len(asked_after) == 12 - len(replies_before)
    assert result["llm_calls"] == 12 - len(replies_before)


def test_same_seed_same_replies_same_run(tmp_path, env):
    steps = [s for s in scripted_candidates.script()
             if "endless" not in s.get("content", "") and "hog" not in s.get("content", "")]
    runs = []
    for name in ("a", "b"):
        server = MockServer(tmp_path, steps)
        try:
            done = subprocess.run(design_args(server, tmp_path / name, budget=10, extra=["--json"]), env=env,
                                  capture_output=True, text=True, timeout=300)
        finally:
            server.close()
        assert done.returncode == 0, done.stderr
        prompts = [s["request"]["messages"] for s in server.served() if s["status"] == 200]
        runs.append((json.loads(done.stdout), json.dumps(prompts)))  # no paths of the output directory in them
    (a, prompts_a), (b, prompts_b) = runs
    keys = lambda r: [(c["id"], c["kind"], c["parent"], c["name"], c["result"]["stage"], c["result"]["score"])
                      for c in r["candidates"]]
    assert keys(a) == keys(b)
    assert a["leaderboard"] == b["leaderboard"] and a["population"] == b["population"]
    assert prompts_a == prompts_b


def test_unreachable_and_refusing_servers_are_clear_errors(tmp_path, env):
    out = tmp_path / "run"
    # Nothing listens on this port: retried, then an error naming the URL, and the log says what happened.
    args = design_args(type("S", (), {"url": "http://127.0.0.1:9/v1"})(), out, budget=2)
    args += ["--llm-retries", "1"]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "127.0.0.1:9/v1/chat/completions" in done.stderr and "resume" in done.stderr
    assert any(r["event"] == "llm_error" for r in log_records(out))
    # A 401 is not retried.
    server = MockServer(tmp_path, [{"status": 401, "body": {"error": {"message": "bad key"}}}])
    try:
        done = subprocess.run(design_args(server, tmp_path / "refused", budget=2), env=env, capture_output=True,
                              text=True, timeout=120)
    finally:
        server.close()
    assert done.returncode == 1
    assert "HTTP 401" in done.stderr and "bad key" in done.stderr
    assert len(server.served()) == 1


def test_server_shapes_bare_host_parts_null_and_retry_after(tmp_path, env):
    good = scripted_candidates.working(1)
    steps = [{"status": 503, "retry_after": 1},
             {"content": [{"type": "text", "text": good[:40]}, {"type": "text", "text": good[40:]}]},
             {"content": None},
             {"content": "<think>reasoning</think>\n" + scripted_candidates.working(2)},
             {"content": scripted_candidates.working(3), "stream": True}]
    server = MockServer(tmp_path, steps)
    server.process.kill()
    server.process.wait()
    # The same script behind a server that serves only /chat/completions, given as a bare host.
    port_file = tmp_path / "port-bare"
    process = subprocess.Popen([sys.executable, str(HERE / "mock_llm_server.py"), str(server.script),
                                str(server.requests), "--port-file", str(port_file), "--lifetime", "200",
                                "--path", "/chat/completions"])
    try:
        for _ in range(200):
            if port_file.exists():
                break
            time.sleep(0.05)
        server.url = f"http://127.0.0.1:{port_file.read_text()}"
        start = time.monotonic()
        done = subprocess.run(design_args(server, tmp_path / "run", budget=4, extra=["--json"]), env=env,
                              capture_output=True, text=True, timeout=120)
        elapsed = time.monotonic() - start
    finally:
        process.kill()
        process.wait()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    stages = [c["result"]["stage"] for c in result["candidates"]]
    # Parts joined; null content fed back as no code; an event stream's deltas joined into the reply.
    assert stages == ["scored", "reply", "scored", "scored"], stages
    assert elapsed >= 1.0  # the 503's Retry-After was honoured over the 0.1 s back-off
    assert "no code block" in server.served()[3]["request"]["messages"][1]["content"]
