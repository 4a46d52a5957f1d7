#!/usr/bin/python3
"""python-constraint beside ktune on the construction paper's spaces: each space built by python-constraint (the
solver Kernel Tuner uses; string constraints, its default OptimizedBacktrackingSolver) and by `ktune space --json`,
in the same run, best of --repeats each. Both times are in-process construction (python-constraint: the problem's
variables and constraints set up and every solution listed; ktune: its `construction_seconds`, which also validates
the problem and builds the space's indexes), without either program's start-up. The valid counts are checked against
../shared/data/searchspaces/index.json.

python-constraint is not in Debian's archive: give a folder that holds its `constraint` package (a checkout of
github.com/python-constraint/python-constraint, used as it is, pure Python) or have it installed.

    scripts/reproduce/construction_python_constraint.py [--python-constraint DIR] [--ktune build/ktune]
        [--shared ../shared] [--repeats 3] [--synthetic] [--json FILE]

Exits 1 if a count differs from the index, 2 if python-constraint cannot be imported."""
import argparse
import ast
import json
import os
import sys
import time
import warnings

from construction import build, write_rows  # this folder's construction.py


def python_constraint_space(constraint, path, implicit):
    """Builds the T1 file's space with python-constraint; returns (seconds, valid count)."""
    with open(path) as f:
        space = json.load(f)["ConfigurationSpace"]
    start = time.perf_counter()
    problem = constraint.Problem()
    for parameter in space["TuningParameters"]:
        values = parameter["Values"]
        problem.addVariable(parameter["Name"], ast.literal_eval(values) if isinstance(values, str) else values)
    for condition in space.get("Conditions", []):
        problem.addConstraint(condition["Expression"])
    if implicit:
        problem.addConstraint(implicit)
    count = len(problem.getSolutions())
    return time.perf_counter() - start, count


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python-constraint", help="folder holding python-constraint's `constraint` package")
    parser.add_argument("--ktune", default=os.path.join(root, "build", "ktune"))
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(root), "shared"))
    parser.add_argument("--repeats", type=int, default=3, help="the best of this many builds, each side")
    parser.add_argument("--synthetic", action="store_true", help="the 112 synthetic spaces too")
    parser.add_argument("--json", help="also write every space's figures to this file")
    args = parser.parse_args()
    if args.python_constraint:
        sys.path.insert(0, os.path.abspath(args.python_constraint))
    # python-constraint compiles each string constraint and Python warns about some of its rewritten forms.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    try:
        import constraint
    except ImportError as e:
        print(f"python-constraint cannot be imported ({e}): give --python-constraint DIR", file=sys.stderr)
        return 2
    spaces_dir = os.path.join(args.shared, "data", "searchspaces")
    with open(os.path.join(spaces_dir, "index.json")) as f:
        index = json.load(f)

    rows, wrong = [], 0
    print(f"python-constraint {getattr(constraint, '__version__', '?')} from {os.path.dirname(constraint.__file__)}")
    print(f"{'space':34} {'valid':>9} {'python-constraint':>18} {'ktune':>10} {'ratio':>8}")
    for group in ("realworld", "synthetic") if args.synthetic else ("realworld",):
        for entry in index[group]:
            path = os.path.join(spaces_dir, entry["file"])
            runs = [build(args.ktune, path, "materialised") for _ in range(max(1, args.repeats))]
            implicit = runs[0].get("implicit_constraint")
            theirs = [python_constraint_space(constraint, path, implicit) for _ in range(max(1, args.repeats))]
            ours_s = min(r["construction_seconds"] for r in runs)
            theirs_s = min(t[0] for t in theirs)
            ok = runs[0]["valid_configs"] == entry["valid_configs"] == theirs[0][1]
            wrong += not ok
            rows.append({"file": entry["file"], "set": group, "valid_configs": entry["valid_configs"],
                         "ktune_valid": runs[0]["valid_configs"], "python_constraint_valid": theirs[0][1],
                         "ktune_seconds": ours_s, "python_constraint_seconds": theirs_s})
            flag = "" if ok else f"  COUNT DIFFERS: ktune {runs[0]['valid_configs']}, python-constraint {theirs[0][1]}"
            print(f"{entry['file']:34} {entry['valid_configs']:9d} {theirs_s * 1e3:15.1f} ms {ours_s * 1e3:7.1f} ms "
                  f"{theirs_s / max(ours_s, 1e-9):7.0f}x{flag}")
    for group in sorted({r["set"] for r in rows}):
        part = [r for r in rows if r["set"] == group]
        theirs_total = sum(r["python_constraint_seconds"] for r in part)
        ours_total = sum(r["ktune_seconds"] for r in part)
        print(f"{group}: {len(part)} spaces, python-constraint {theirs_total:.3f} s, ktune {ours_total:.3f} s "
              f"({theirs_total / max(ours_total, 1e-9):.0f}x)")
    write_rows(rows, args.json)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
