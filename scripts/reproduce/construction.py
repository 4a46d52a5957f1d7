#!/usr/bin/python3
"""The search-space construction paper's experiment, one command: builds the 8 real-world and 112 synthetic spaces
with `ktune space --json`, checks every valid count against ../shared/data/searchspaces/index.json, and prints the
construction time per space (best of --repeats), the constraint evaluations (checks of a constraint on an
assignment) beside brute force's, the totals and the time by dimension count; the same spaces in the lazy form as
well (those with independent groups), so both forms' times are side by side.

    scripts/reproduce/construction.py [--ktune build/ktune] [--shared ../shared] [--repeats 3] [--json FILE]

Exits 1 if any count differs from the index (the paper's counts)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys


def build(ktune, path, form):
    out = subprocess.run([ktune, "space", path, "--json", "--form", form], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ktune space {path} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def write_rows(rows, path):
    """Every space's figures as JSON, if a file was asked for."""
    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)


def parameters_per_constraint(space):
    """The number of constraints as given and the mean number of distinct parameters each names (the paper's space
    statistics), from `ktune space --json`'s constraints and parameters."""
    names = {p["name"] for p in space["parameters"]}
    counts = [len(set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", c)) & names) for c in space["constraints"]]
    return len(counts), (sum(counts) / len(counts) if counts else 0.0)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ktune", default=os.path.join(root, "build", "ktune"))
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(root), "shared"))
    parser.add_argument("--repeats", type=int, default=3, help="construction time: the best of this many builds")
    parser.add_argument("--json", help="also write every space's figures to this file")
    args = parser.parse_args()
    spaces_dir = os.path.join(args.shared, "data", "searchspaces")
    with open(os.path.join(spaces_dir, "index.json")) as f:
        index = json.load(f)

    rows, wrong = [], 0
    for group in ("realworld", "synthetic"):
        for entry in index[group]:
            path = os.path.join(spaces_dir, entry["file"])
            runs = [build(args.ktune, path, "materialised") for _ in range(max(1, args.repeats))]
            lazy = [build(args.ktune, path, "lazy") for _ in range(max(1, args.repeats))]
            got = runs[0]["valid_configs"]
            ok = got == entry["valid_configs"] and lazy[0]["valid_configs"] == got
            wrong += not ok
            constraints, per_constraint = parameters_per_constraint(runs[0])
            rows.append({
                "constraints": constraints, "parameters_per_constraint": per_constraint,
                "file": entry["file"], "set": group, "dimensions": len(runs[0]["parameters"]),
                "cartesian_size": runs[0]["cartesian_size"], "valid_configs": got, "expected": entry["valid_configs"],
                "ok": ok, "seconds": min(r["construction_seconds"] for r in runs),
                "groups": runs[0]["independent_groups"], "lazy": lazy[0]["form"] == "lazy",
                "lazy_seconds": min(r["construction_seconds"] for r in lazy),
                "constraint_evaluations": runs[0]["constraint_evaluations"],
            })

    print(f"{'space':<44} {'dims':>4} {'cons':>4} {'p/c':>4} {'cartesian':>14} {'valid':>10} {'groups':>6}"
          f" {'checks':>9} {'ms':>9} {'lazy ms':>9}  count")
    for r in rows:
        lazy_ms = f"{1e3 * r['lazy_seconds']:9.2f}" if r["lazy"] else f"{'-':>9}"
        print(f"{os.path.basename(r['file']):<44} {r['dimensions']:>4} {r['constraints']:>4}"
              f" {r['parameters_per_constraint']:4.1f} {r['cartesian_size']:>14} {r['valid_configs']:>10}"
              f" {r['groups']:>6} {r['constraint_evaluations']:9.3g} {1e3 * r['seconds']:9.2f} {lazy_ms}"
              f"  {'ok' if r['ok'] else 'WRONG (index: %d)' % r['expected']}")
    for group in ("realworld", "synthetic"):
        part = [r for r in rows if r["set"] == group]
        times = [r["seconds"] for r in part]
        print(f"\n{group}: {len(part)} spaces, total {1e3 * sum(times):.1f} ms, median {1e3 * statistics.median(times):.2f} ms,"
              f" max {1e3 * max(times):.1f} ms ({max(part, key=lambda r: r['seconds'])['file']})")
        # What brute force would enumerate (every combination, each checked against the constraints) against what
        # the solver lists.
        cartesian = sum(r["cartesian_size"] for r in part)
        valid = sum(r["valid_configs"] for r in part)
        per_constraint = [r["parameters_per_constraint"] for r in part if r["constraints"]]
        print(f"  brute force: {cartesian:.4g} combinations, {valid:.4g} valid ({100 * valid / cartesian:.3g} %);"
              f" {sum(r['constraints'] for r in part)} constraints, on average"
              f" {statistics.mean(per_constraint) if per_constraint else 0:.2f} parameters each")
        # Brute force checks every combination against every constraint (fewer where Python's `and` stops early).
        checks = sum(r["constraint_evaluations"] for r in part)
        brute_checks = sum(r["cartesian_size"] * r["constraints"] for r in part)
        print(f"  constraint evaluations: {checks:.4g} ({checks / cartesian:.3g} per combination, "
              f"{checks / max(1, valid):.3g} per valid configuration); brute force: up to {brute_checks:.4g}")
    synthetic = [r for r in rows if r["set"] == "synthetic"]
    print("\nsynthetic spaces by dimension count (total construction ms):")
    for d in sorted({r["dimensions"] for r in synthetic}):
        part = [r for r in synthetic if r["dimensions"] == d]
        print(f"  {d} dimensions: {len(part):>3} spaces, {1e3 * sum(r['seconds'] for r in part):9.1f} ms")
    print(f"\n{len(rows) - wrong} of {len(rows)} valid counts equal the index" + ("" if not wrong else f"; {wrong} DIFFER"))
    write_rows(rows, args.json)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
