#!/usr/bin/python3
"""The search-space construction paper's experiment, one command: builds the 8 real-world and 112 synthetic spaces
with `ktune space --json`, checks every valid count against ../shared/data/searchspaces/index.json, and prints the
construction time per space (best of --repeats), the totals and the time by dimension count; the same spaces in the
lazy form as well (those with independent groups), so both forms' times are side by side.

    scripts/reproduce/construction.py [--ktune build/ktune] [--shared ../shared] [--repeats 3] [--json FILE]

Exits 1 if any count differs from the index (the paper's counts)."""
import argparse
import json
import os
import statistics
import subprocess
import sys


def build(ktune, path, form):
    out = subprocess.run([ktune, "space", path, "--json", "--form", form], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ktune space {path} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


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
            rows.append({
                "file": entry["file"], "set": group, "dimensions": len(runs[0]["parameters"]),
                "cartesian_size": runs[0]["cartesian_size"], "valid_configs": got, "expected": entry["valid_configs"],
                "ok": ok, "seconds": min(r["construction_seconds"] for r in runs),
                "groups": runs[0]["independent_groups"], "lazy": lazy[0]["form"] == "lazy",
                "lazy_seconds": min(r["construction_seconds"] for r in lazy),
            })

    print(f"{'space':<44} {'dims':>4} {'cartesian':>12} {'valid':>10} {'groups':>6} {'ms':>9} {'lazy ms':>9}  count")
    for r in rows:
        lazy_ms = f"{1e3 * r['lazy_seconds']:9.2f}" if r["lazy"] else f"{'-':>9}"
        print(f"{os.path.basename(r['file']):<44} {r['dimensions']:>4} {r['cartesian_size']:>12} {r['valid_configs']:>10}"
              f" {r['groups']:>6} {1e3 * r['seconds']:9.2f} {lazy_ms}  {'ok' if r['ok'] else 'WRONG (index: %d)' % r['expected']}")
    for group in ("realworld", "synthetic"):
        part = [r for r in rows if r["set"] == group]
        times = [r["seconds"] for r in part]
        print(f"\n{group}: {len(part)} spaces, total {1e3 * sum(times):.1f} ms, median {1e3 * statistics.median(times):.2f} ms,"
              f" max {1e3 * max(times):.1f} ms ({max(part, key=lambda r: r['seconds'])['file']})")
    synthetic = [r for r in rows if r["set"] == "synthetic"]
    print("\nsynthetic spaces by dimension count (total construction ms):")
    for d in sorted({r["dimensions"] for r in synthetic}):
        part = [r for r in synthetic if r["dimensions"] == d]
        print(f"  {d} dimensions: {len(part):>3} spaces, {1e3 * sum(r['seconds'] for r in part):9.1f} ms")
    print(f"\n{len(rows) - wrong} of {len(rows)} valid counts equal the index" + ("" if not wrong else f"; {wrong} DIFFER"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
