#!/usr/bin/env python3
"""The nested validation protocol of the default strategy (issue 35; docs/strategies.md, "How auto is chosen").

Input: `ktune compare --json` reports (any number, merged by space name) that scored the candidate strategies on
the training spaces: the brute-forced parents and their sub-spaces (subspaces.py). A space's kernel is its folder.

Outer loop: leave one kernel out. On the other kernels the selection rule picks one candidate; its score on the
held-out kernel's parent spaces (and, reported apart, its sub-spaces) is that fold's held-out score. The estimate is
the mean over the held-out parent spaces of all folds, each scored with the choice made without its kernel. Every
choice the rule makes (which candidate, hence which members and settings) is inside the folds.

The selection rule: the candidate with the best training score, where the training score weighs the parent spaces
and the sub-spaces of the training kernels equally (mean of the two means), so that the small-budget regime the
sub-spaces add counts as much as the full spaces. Candidates listed in --exclude are not chosen.

usage: nested_cv.py REPORT.json... --spaces PATHS_FILE [--exclude NAME ...] [--only STRATEGY] [--json]
"""
import argparse
import json
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--spaces", required=True,
                    help="file listing every space path in the order compare was given them (names are derived)")
    ap.add_argument("--exclude", nargs="*", default=[])
    ap.add_argument("--only", help="candidates of one strategy only (NAME and NAME:settings): choose its setting")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    scores = {}
    order = []
    for r in a.reports:
        for s in json.load(open(r))["spaces"]:
            if s["name"] not in scores:
                order.append(s["name"])
            scores.setdefault(s["name"], {}).update(s["scores"])
    paths = open(a.spaces).read().split()
    if len(paths) != len(order):
        raise SystemExit(f"{a.spaces}: {len(paths)} paths, reports have {len(order)} spaces")
    info = {}
    for name, path in zip(order, paths):
        parts = path.split("/")
        info[name] = {"kernel": parts[-2], "sub": "__" in parts[-1]}
    candidates = sorted(set.intersection(*(set(v) for v in scores.values())) - set(a.exclude) - {"random_sample"})
    if a.only:
        candidates = [c for c in candidates if c.split(":")[0] == a.only]
    kernels = sorted({i["kernel"] for i in info.values()})

    def mean_of(names, cand):
        return statistics.mean(scores[n][cand] for n in names) if names else float("nan")

    def training_score(cand, names):
        par = [n for n in names if not info[n]["sub"]]
        sub = [n for n in names if info[n]["sub"]]
        parts = [mean_of(x, cand) for x in (par, sub) if x]
        return statistics.mean(parts)

    folds = []
    held_parent_scores = {}
    for k in kernels:
        train = [n for n in order if info[n]["kernel"] != k]
        test_par = [n for n in order if info[n]["kernel"] == k and not info[n]["sub"]]
        test_sub = [n for n in order if info[n]["kernel"] == k and info[n]["sub"]]
        ranked = sorted(candidates, key=lambda c: -training_score(c, train))
        chosen = ranked[0]
        for n in test_par:
            held_parent_scores[n] = {c: scores[n][c] for c in candidates} | {"chosen": scores[n][chosen]}
        folds.append({"kernel": k, "chosen": chosen, "train": training_score(chosen, train),
                      "held_out_parents": mean_of(test_par, chosen), "held_out_subspaces": mean_of(test_sub, chosen),
                      "best_single_on_fold": max(candidates, key=lambda c: mean_of(test_par, c)),
                      "runner_up": ranked[1]})
    parents = list(held_parent_scores)
    estimate = statistics.mean(held_parent_scores[n]["chosen"] for n in parents)
    singles = {c: statistics.mean(held_parent_scores[n][c] for n in parents) for c in candidates}
    sub_names = [n for n in order if info[n]["sub"]]
    singles_sub = {c: mean_of(sub_names, c) for c in candidates}
    everything = sorted(candidates, key=lambda c: -training_score(c, order))
    out = {"folds": folds, "estimate": estimate, "parent_spaces": len(parents),
           "singles_on_parents": singles, "singles_on_subspaces": singles_sub,
           "chosen_on_all": everything[0]}
    if a.json:
        print(json.dumps(out, indent=1))
        return
    for f in folds:
        print(f"fold {f['kernel']:18} chosen {f['chosen']:24} train {f['train']:.3f}  held-out parents "
              f"{f['held_out_parents']:.3f}  sub-spaces {f['held_out_subspaces']:.3f}  (best single on fold: "
              f"{f['best_single_on_fold']}, runner-up {f['runner_up']})")
    print(f"estimate (mean over {len(parents)} held-out parent spaces): {estimate:.3f}")
    print("single candidates, same spaces:  " + ", ".join(f"{c} {v:.3f}" for c, v in sorted(singles.items(), key=lambda x: -x[1])))
    print("single candidates, sub-spaces:   " + ", ".join(f"{c} {v:.3f}" for c, v in sorted(singles_sub.items(), key=lambda x: -x[1])))
    print(f"chosen on every space (what ships): {everything[0]}")


if __name__ == "__main__":
    main()
