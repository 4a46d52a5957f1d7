"""`ktune design` scoring the hostile plug-ins of tests/data/hostile, delivered as the language model's replies.

Each is stopped: what the sandbox ends is the candidate's failure with the reason, fed back to the model; what it
cannot end (reading or writing a file it cannot see, reading a key that is not there) has no effect. The planted
secret and the API key never reach the mock server, design.jsonl or ktune's output, the listener on 127.0.0.1 gets
no connection, nothing is written outside, and no process of the run is left.
"""
import json
import os
import pathlib
import socket
import subprocess
import threading
import time

import pytest

from test_design_cli import MockServer, design_args

HOSTILE = pathlib.Path(__file__).resolve().parent.parent / "data" / "hostile"
SECRET = "TOPSECRET_hostile_7d41"
KEY = "sk-hostile-design-key-93af"

# The candidates in the order the model gives them, and the stage each must end at.
EXPECTED = [
    ("clean", "scored"),
    ("write_outside", "scored"),
    ("read_secret", "scored"),
    ("read_key", "scored"),
    ("connect_listener", "sandbox"),
    ("spawn_processes", "sandbox"),
    ("daemons", "sandbox"),
    ("static_constructor", "sandbox"),
    ("include_secret", "compile"),
    ("allocate", "memory"),
    ("endless_loop", "timeout"),
    ("huge_file", "sandbox"),
]


class Listener:
    """A TCP listener on 127.0.0.1 that records connections and what it is sent."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.connections = 0
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.settimeout(1)
                try:
                    while chunk := conn.recv(4096):
                        self.received += chunk
                except OSError:
                    pass

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def reply(name, secret_file, outside, port):
    code = (HOSTILE / "skeleton.cpp").read_text().replace("// @ATTACK@\n", (HOSTILE / f"{name}.inc").read_text())
    code = code.replace("@NAME@", name)
    code = code.replace("@SECRET_FILE@", str(secret_file)).replace("@OUTSIDE@", str(outside))
    code = code.replace("@PORT@", str(port)).replace("@HOME@", os.environ.get("HOME", "/root"))
    code = code.replace("@KEY_HEX@", KEY.encode().hex())
    return f"# Description: {name}, random sampling with a hostile part\n\n```cpp\n{code}```\n"


def processes_named(name):
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm, state = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2]
        if comm == name and state != "Z":
            found.append(stat.parent.name)
    return found


def test_without_namespaces_the_key_stays_hidden_and_seccomp_still_stops_them(tmp_path, env):
    """The degraded mode: every namespace forced off, seccomp left. ktune's own /proc/PID/environ (which holds the
    key it started with) is visible then, and must not be readable."""
    expected = [("clean", "scored"), ("read_key", "scored"), ("connect_listener", "sandbox"),
                ("spawn_processes", "sandbox")]
    run_hostile(tmp_path, dict(env, KTUNE_SANDBOX_DISABLE="user,mount,pid,network,ipc,proc"), expected)


def test_hostile_candidates_are_stopped_and_leak_nothing(tmp_path, env):
    run_hostile(tmp_path, env, EXPECTED, every_layer=True)


def run_hostile(tmp_path, env, expected, every_layer=False):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret_file = outside / "secret.txt"
    secret_file.write_text(SECRET + "\n")
    env = dict(env, OPENAI_API_KEY=KEY)
    listener = Listener()
    out = tmp_path / "run"
    server = MockServer(tmp_path, [{"content": reply(n, secret_file, outside, listener.port)} for n, _ in expected])
    try:
        done = subprocess.run(design_args(server, out, budget=len(expected), extra=["--json"]), env=env,
                              capture_output=True, text=True, timeout=600)
    finally:
        server.close()
        time.sleep(0.2)
        listener.close()
    assert done.returncode == 0, done.stderr
    refused = [line for line in done.stderr.splitlines() if "sandbox for unreviewed code: no" in line]
    if every_layer and refused and "on this system" in refused[0]:
        # A kernel that refuses a layer (a chroot or a container refuses user namespaces): the candidates see what
        # the missing layer would hide, as ktune says; the forced-off test above covers what still holds then.
        pytest.skip(refused[0])
    result = json.loads(done.stdout)
    got = [(c["name"], c["result"]["stage"]) for c in result["candidates"]]
    assert got == expected, json.dumps([c["result"] for c in result["candidates"]], indent=1)
    by_name = {c["name"]: c["result"] for c in result["candidates"]}
    # What cannot be ended changes nothing: the same score as the same strategy without its hostile part.
    for name in ("write_outside", "read_secret", "read_key"):
        if name in by_name:
            assert by_name[name]["score"] == by_name["clean"]["score"], name
    # What is ended says why.
    reasons = {"connect_listener": "forbids: socket", "spawn_processes": "forbids", "daemons": "forbids",
               "static_constructor": "plug-in was stopped by the sandbox", "include_secret": "is refused",
               "allocate": "ran out of memory", "huge_file": "file larger than"}
    for name, reason in reasons.items():
        if name in by_name:
            assert reason in by_name[name]["error"], (name, by_name[name]["error"])
    # Nothing went anywhere.
    # (The key goes to the model's server in the Authorization header, as it should: only the requests are searched.)
    requests = json.dumps([s["request"] for s in server.served()])
    for where, text in [("requests", requests), ("design.jsonl", (out / "design.jsonl").read_text()),
                        ("stdout", done.stdout), ("stderr", done.stderr),
                        ("listener", listener.received.decode(errors="replace"))]:
        for secret in (SECRET, KEY):
            at = text.find(secret)
            assert at < 0, f"{where}: ...{text[max(0, at - 300):at + 100]}"
    assert listener.connections == 0
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    home = pathlib.Path(os.environ.get("HOME", "/root"))
    assert not (home / "ktune-hostile-written").exists() and not pathlib.Path("/tmp/ktune-hostile-written").exists()
    assert processes_named("ktune-hostile-d") == []
    assert not (out / "scratch").exists() or not any((out / "scratch").iterdir())
