#!/usr/bin/env python3
"""The constraint-aware paper's Fig. 5: the gain of constraint awareness against the sparsity of the search space.

For every Kernel Tuner cache given, the four algorithms as the paper publishes them (variant=paper), aware and blind,
are scored by `ktune compare`; the gain is aware minus blind. The density of a space is its number of configurations
over the size of the Cartesian product of its parameters' values. Prints a table and the Spearman correlation of the
gain with the sparsity (1 - density), and writes an SVG scatter plot.

usage: constraint_aware_density.py OUT.svg CACHE.json[.gz]... [--ktune build/ktune] [--repeats 100] [--seed 0]
"""
import argparse
import gzip
import json
import math
import subprocess
import sys

ALGORITHMS = ["genetic_algorithm", "pso", "firefly_algorithm", "diff_evo"]


def density(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        doc = json.load(f)
    cartesian = math.prod(len(values) for values in doc["tune_params"].values())
    return len(doc["cache"]) / cartesian


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1  # ties share their mean rank
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def svg(points, path):
    """Mean gain (y) against sparsity (x): one dot per space, the zero line, axes from 0 to 1."""
    w, h, m = 480, 320, 48
    ys = [g for _, g, _ in points] + [0.0]
    lo, hi = min(ys) - 0.05, max(ys) + 0.05
    px = lambda x: m + x * (w - 2 * m)
    py = lambda y: h - m - (y - lo) / (hi - lo) * (h - 2 * m)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{m}" y1="{h - m}" x2="{w - m}" y2="{h - m}" stroke="black"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="black"/>',
           f'<line x1="{m}" y1="{py(0):.1f}" x2="{w - m}" y2="{py(0):.1f}" stroke="#999" stroke-dasharray="4 3"/>',
           f'<text x="{w / 2}" y="{h - 12}" text-anchor="middle">sparsity (1 - valid / Cartesian)</text>',
           f'<text x="14" y="{h / 2}" text-anchor="middle" transform="rotate(-90 14 {h / 2})">'
           'gain of awareness (score)</text>']
    for t in (0, 0.25, 0.5, 0.75, 1):
        out.append(f'<text x="{px(t):.1f}" y="{h - m + 14}" text-anchor="middle">{t:g}</text>')
    for t in (lo, 0, hi):
        out.append(f'<text x="{m - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{t:.2f}</text>')
    for x, g, name in points:
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(g):.1f}" r="4" fill="#1f77b4"><title>{name}: {g:+.3f}</title>'
                   '</circle>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--ktune", default="build/ktune")
    ap.add_argument("--repeats", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    strategies = []
    for algorithm in ALGORITHMS:
        strategies += [f"{algorithm}:variant=paper", f"{algorithm}:variant=paper,constraint_aware=false"]
    report = json.loads(subprocess.run(
        [a.ktune, "compare", "--spaces", *a.caches, "--strategies", *strategies, "--repeats", str(a.repeats),
         "--seed", str(a.seed), "--json", "--quiet"], check=True, capture_output=True, text=True).stdout)
    rows = []
    for path, space in zip(a.caches, report["spaces"]):
        scores = space["scores"]
        gains = [scores[f"{g}:variant=paper"] - scores[f"{g}:variant=paper,constraint_aware=false"] for g in ALGORITHMS]
        rows.append((space["name"], 1 - density(path), gains))
    rows.sort(key=lambda r: r[1])
    print(f"{'space':34} {'sparsity':>8} " + " ".join(f"{g[:10]:>10}" for g in ALGORITHMS) + f" {'mean':>7}")
    for name, sparsity, gains in rows:
        print(f"{name:34} {sparsity:8.3f} " + " ".join(f"{g:+10.3f}" for g in gains) +
              f" {sum(gains) / len(gains):+7.3f}")
    sparsities = [r[1] for r in rows]
    for k, g in enumerate(ALGORITHMS):
        print(f"Spearman(sparsity, gain) {g}: {spearman(sparsities, [r[2][k] for r in rows]):+.2f}")
    means = [sum(r[2]) / len(r[2]) for r in rows]
    print(f"Spearman(sparsity, gain) mean of the four: {spearman(sparsities, means):+.2f} over {len(rows)} spaces")
    svg([(s, m, r[0]) for s, m, r in zip(sparsities, means, rows)], a.svg)
    print(f"figure: {a.svg}")


if __name__ == "__main__":
    sys.exit(main())
