#!/usr/bin/python3
"""Fault injection for every file ktune writes: kill -9, a file-size limit (SIGXFSZ) and a full disk (ENOSPC) at
random points of a run, then a check of what was left.

    /usr/bin/python3 tests/faults/fault_injection.py --ktune build/ktune --shared ../shared [--points 20] [--seed 1]
                     [--writers cache,t4,csv,compare,hypertune,design] [--faults kill,xfsz,enospc]

Writers: the tune cache (--cache), T4 (--output), CSV (--csv), compare --output, hypertune --output (its score
cache) and the design log (design.jsonl). Before each trial a previous good file is in place (from a run that
ended normally). After the fault:
- a file written whole (T4, CSV, compare report) is byte for byte the previous one, or a complete new one;
- a cache (tune, hypertune) resumes, still holds every previous entry, and lost at most the measurement in flight
  (every evaluation the run reported on stderr before the fault is in it);
- the design log has only whole lines but possibly its last, which the next run drops (and resumes).
A full disk needs a private mount namespace (`unshare -m`, as root): without one those trials are skipped and said.
Prints a table of trials per writer and fault, and exits 1 if any check failed.
"""
import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cache_entries(path):
    """The complete entries of a (possibly open-ended) Kernel Tuner cache: its lines '"key": {...},'."""
    _, sep, body = Path(path).read_text().partition('"cache": {')
    if not sep:
        raise ValueError(f"{path}: no cache")
    return sum(1 for line in body.split("\n") if line.startswith('"') and line.rstrip(",").endswith("}"))


class Trial:
    """Runs ktune with one fault. Output goes through pipes (a file-size limit does not cut them)."""

    def __init__(self, scratch):
        self.scratch = Path(scratch)
        self.scratch.mkdir(parents=True, exist_ok=True)

    def run(self, command, fault, point, cwd, env=None, fs_dir=None):
        """`fault` at `point`: kill -> SIGKILL `point` seconds after the start; xfsz -> a file-size limit of `point`
        bytes; enospc -> `fs_dir` on a tmpfs with `point` bytes free beyond its files (in a private mount namespace;
        the folder's files are copied in before and back out after, as the user would find them on that disk).
        Returns (exit status, stdout, stderr)."""
        env = dict(os.environ if env is None else env)
        if fault == "kill":
            p = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
            try:
                out, err = p.communicate(timeout=point)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
            return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")
        if fault == "xfsz":
            def limit():
                resource.setrlimit(resource.RLIMIT_FSIZE, (point, point))
            done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, preexec_fn=limit, timeout=900)
            return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
        keep, stash = self.scratch / "keep", self.scratch / "stash"
        for folder in (keep, stash):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        used = sum((f.stat().st_size + 4095) // 4096 * 4096 for f in Path(fs_dir).rglob("*") if f.is_file())
        size = used + 65536 + (point + 4095) // 4096 * 4096
        script = ('set -e; cp -a "$1/." "$2"; mount -t tmpfs -o size=$3 tmpfs "$1"; cp -a "$2/." "$1"; cd "$(pwd)"; '
                  'shift 3; set +e; "$@"; code=$?; cp -a "$FSDIR/." "$STASH"; exit $code')
        env["STASH"], env["FSDIR"] = str(stash), str(fs_dir)
        done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", str(fs_dir),
                               str(keep), str(size), *command], cwd=cwd, env=env, capture_output=True, timeout=900)
        shutil.rmtree(fs_dir)
        shutil.copytree(stash, fs_dir, symlinks=True)
        return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def whole_file_check(path, previous_bytes, complete):
    """The previous file byte for byte, or a complete new one."""
    if not Path(path).exists():
        return previous_bytes is None, "the file is gone" if previous_bytes is not None else "not written"
    data = Path(path).read_bytes()
    if previous_bytes is not None and data == previous_bytes:
        return True, "previous kept"
    try:
        ok = complete(data)
    except Exception as e:  # noqa: BLE001 - any parse failure is a broken file
        return False, f"neither the previous file nor a complete one: {e}"
    return (True, "new complete") if ok else (False, "neither the previous file nor a complete one")


def reported_evaluations(stderr):
    """Evaluations the run reported (--verbose lines: '     12  param=..., time=...')."""
    return len(re.findall(r"^\s+\d+  \S", stderr, flags=re.M))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ktune", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--points", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--writers", default="cache,t4,csv,compare,hypertune,design")
    ap.add_argument("--faults", default="kill,xfsz,enospc")
    args = ap.parse_args()
    ktune = str(Path(args.ktune).resolve())
    caches = Path(args.shared).resolve() / "data" / "benchmark_hub" / "cachefiles"
    simulate = str(caches / "convolution_milo" / "A4000.json.gz")
    other = str(caches / "dedispersion_milo" / "A4000.json.gz")
    rng = random.Random(args.seed)
    writers = args.writers.split(",")
    faults = args.faults.split(",")
    can_mount = subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0
    if "enospc" in faults and not can_mount:
        print("fault_injection: no private mount namespace here (unshare -m needs root): full-disk trials skipped")
        faults = [f for f in faults if f != "enospc"]
    root = Path(tempfile.mkdtemp(prefix="ktune_faults_"))
    results = {}
    failures = []

    def record(writer, fault, ok, detail, lost=0):
        r = results.setdefault((writer, fault), {"trials": 0, "ok": 0, "lost": 0, "kept": 0, "new": 0})
        r["trials"] += 1
        r["ok"] += ok
        r["lost"] = max(r["lost"], lost)
        r["kept"] += detail == "previous kept"
        r["new"] += detail == "new complete"
        if not ok:
            failures.append(f"{writer}/{fault}: {detail}")

    def timed(command, cwd, env=None):
        start = time.monotonic()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise SystemExit(f"fault_injection: a clean run failed: {' '.join(command)}\n{done.stderr}")
        return time.monotonic() - start

    def point_for(fault, duration, final_size):
        if fault == "kill":
            return rng.uniform(0.0, duration * 1.1)
        return rng.randint(0, max(1, int(final_size * 1.05)))

    # ---- the tune cache ----------------------------------------------------------------------------------------
    if "cache" in writers:
        d = root / "cache"
        d.mkdir()
        base = [ktune, "tune", "--simulate", simulate, "--cache", "c.json", "--verbose"]
        timed(base + ["--strategy", "random_sample", "--seed", "1", "--max-fevals", "50"], d)
        previous = (d / "c.json").read_bytes()
        duration = timed(base + ["--strategy", "random_sample", "--seed", "2", "--max-fevals", "4000"], d)
        final_size = (d / "c.json").stat().st_size
        trial = Trial(root / "cache-scratch")
        for fault in faults:
            for _ in range(args.points):
                (d / "c.json").write_bytes(previous)
                point = point_for(fault, duration, final_size)
                _, _, err = trial.run(base + ["--strategy", "random_sample", "--seed", "2", "--max-fevals", "4000"],
                                      fault, point, d, fs_dir=d)
                for stray in d.glob(".c.json.ktune-*"):  # the resume's new file, left by a kill -9 before its rename
                    stray.unlink()
                reported = reported_evaluations(err)
                # A cache that stopped being written says how many results are safe in it: those must be there.
                said = re.search(r"its (\d+) results \((\d+) of this run\) are safe there", err)
                check = subprocess.run([ktune, "tune", "--simulate", simulate, "--cache", "c.json", "--json",
                                        "--quiet", "--strategy", "random_sample", "--max-fevals", "1",
                                        "--budget-new-only"], cwd=d, capture_output=True, text=True)
                if check.returncode != 0:
                    record("cache", fault, False, f"does not resume: {check.stderr.strip()}")
                    continue
                entries = json.loads(check.stdout)["resumed"]
                expected = int(said.group(1)) if said else 50 + reported
                lost = max(0, expected - entries)
                ok = entries >= 50 and lost == 0
                record("cache", fault, ok, "resumes" if ok else
                       f"{entries} entries, {expected} expected (lost {lost})", lost)

    # ---- T4 and CSV -----------------------------------------------------------------------------------------------
    def whole_writer(name, flag, complete):
        d = root / name
        d.mkdir()
        out = d / ("out." + name)
        base = [ktune, "tune", "--simulate", simulate, "--strategy", "brute_force", "--quiet", flag, str(out)]
        timed(base, d)
        previous = out.read_bytes()
        duration = timed(base, d)
        trial = Trial(root / (name + "-scratch"))
        for fault in faults:
            for _ in range(args.points):
                out.write_bytes(previous)
                point = point_for(fault, duration, len(previous))
                trial.run(base, fault, point, d, fs_dir=d)
                ok, detail = whole_file_check(out, previous, complete)
                record(name, fault, ok, detail)
                for stray in d.glob(".out.*.ktune-*"):  # a temporary file left by a kill -9
                    stray.unlink()

    if "t4" in writers:
        whole_writer("t4", "--output", lambda b: len(json.loads(b)["results"]) == 4362)
    if "csv" in writers:
        whole_writer("csv", "--csv", lambda b: b.endswith(b"\n") and b.count(b"\n") == 4363)

    # ---- compare --output -------------------------------------------------------------------------------------------
    if "compare" in writers:
        d = root / "compare"
        d.mkdir()
        out = d / "report.json"
        base = [ktune, "compare", "--spaces", simulate, other, "--strategies", "random_sample", "pso", "--repeats",
                "30", "--threads", "1", "--quiet", "--output", str(out)]
        timed(base, d)
        previous = out.read_bytes()
        duration = timed(base, d)
        trial = Trial(root / "compare-scratch")
        for fault in faults:
            for _ in range(args.points):
                out.write_bytes(previous)
                point = point_for(fault, duration, len(previous))
                trial.run(base, fault, point, d, fs_dir=d)
                ok, detail = whole_file_check(out, previous, lambda b: "spaces" in json.loads(b))
                record("compare", fault, ok, detail)
                for stray in d.glob(".report.json.ktune-*"):
                    stray.unlink()

    # ---- hypertune --output (a cache of scores) ------------------------------------------------------------------
    if "hypertune" in writers:
        d = root / "hypertune"
        d.mkdir()
        space = d / "hyperspace.json"
        space.write_text(json.dumps({"ConfigurationSpace": {"TuningParameters": [
            {"Name": "popsize", "Type": "int", "Values": "[6, 12, 24, 48]"},
            {"Name": "method", "Type": "string", "Values": "['uniform', 'two_point', 'single_point']"}],
            "Conditions": []}}))
        base = [ktune, "hypertune", "--strategy", "genetic_algorithm", "--repeats", "10", "--threads", "1",
                "--hyperspace", str(space), "--spaces", simulate, "--quiet", "--output", "scores.json"]
        timed(base + ["--budget", "3"], d)
        previous = (d / "scores.json").read_bytes()
        previous_entries = cache_entries(d / "scores.json")
        duration = timed(base, d)
        final_size = (d / "scores.json").stat().st_size
        trial = Trial(root / "hypertune-scratch")
        for fault in faults:
            for _ in range(args.points):
                (d / "scores.json").write_bytes(previous)
                point = point_for(fault, duration, final_size)
                trial.run(base, fault, point, d, fs_dir=d)
                for stray in d.glob(".scores.json.ktune-*"):
                    stray.unlink()
                check = subprocess.run(base + ["--json"], cwd=d, capture_output=True, text=True)
                if check.returncode != 0:
                    record("hypertune", fault, False, f"does not resume: {check.stderr.strip()[:300]}")
                    continue
                resumed = json.loads(check.stdout)["resumed"]
                record("hypertune", fault, resumed >= previous_entries,
                       "resumes" if resumed >= previous_entries else f"{resumed} < {previous_entries} entries")

    # ---- the design log --------------------------------------------------------------------------------------------
    if "design" in writers:
        sys.path.insert(0, str(HERE.parent / "design"))
        import scripted_candidates  # noqa: E402
        d = root / "design"
        d.mkdir()
        steps = [s for s in scripted_candidates.script() if "endless" not in s.get("content", "")]
        (d / "script.json").write_text(json.dumps(steps * 4))
        server = subprocess.Popen([sys.executable, str(HERE.parent / "design" / "mock_llm_server.py"),
                                   str(d / "script.json"), str(d / "requests.jsonl"), "--port-file",
                                   str(d / "port"), "--lifetime", "3000"])
        try:
            for _ in range(200):
                if (d / "port").exists():
                    break
                time.sleep(0.05)
            url = f"http://127.0.0.1:{(d / 'port').read_text()}/v1"
            env = dict(os.environ, OPENAI_API_KEY="test-key", KTUNE_PLUGIN_CACHE=str(d / "plugins"))
            out = d / "run"
            base = [ktune, "design", "--spaces", simulate, "--llm-url", url, "--model", "mock-model", "--budget",
                    "6", "--parents", "2", "--offspring", "2", "--output", str(out), "--llm-backoff", "0.1",
                    "--time-limit", "5", "--memory-limit", "2048", "--seed", "7", "--quiet"]
            duration = timed(base, d, env)
            log = out / "design.jsonl"
            final_size = log.stat().st_size
            trial = Trial(root / "design-scratch")
            for fault in faults:
                for _ in range(max(1, args.points // 4)):  # each design run compiles candidates: fewer trials
                    shutil.rmtree(out, ignore_errors=True)
                    out.mkdir()
                    point = point_for(fault, duration, final_size)
                    trial.run(base, fault, point, d, env=env, fs_dir=out)
                    lines = log.read_text(errors="replace").split("\n") if log.exists() else []
                    whole = lines[:-1]  # the text after the last newline may be a cut line
                    try:
                        for line in whole:
                            if line.strip():
                                json.loads(line)
                        record("design", fault, True, "whole lines")
                    except ValueError as e:
                        record("design", fault, False, f"a broken line before the last: {e}")
        finally:
            server.kill()
            server.wait()

    print(f"{'writer':<10} {'fault':<7} {'trials':>6} {'held':>5} {'previous kept':>14} {'new complete':>13} "
          f"{'most lost':>10}")
    for (writer, fault), r in results.items():
        print(f"{writer:<10} {fault:<7} {r['trials']:>6} {r['ok']:>5} {r['kept']:>14} {r['new']:>13} {r['lost']:>10}")
    shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("\n".join(["FAILED:"] + failures[:40]))
        return 1
    total = sum(r["trials"] for r in results.values())
    print(f"{total} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
