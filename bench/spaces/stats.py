#!/usr/bin/env python3
"""Summarises the cachefiles: configurations recorded, valid (timed) ones, errors, the spread of the objective and
the run-to-run noise (median coefficient of variation of a configuration's timed launches)."""
import collections, glob, gzip, json, statistics, sys

for path in sorted(sys.argv[1:] or glob.glob("cachefiles/*/*.json.gz")):
    d = json.load(gzip.open(path))
    c = d["cache"]
    ok = [v for v in c.values() if isinstance(v.get("time"), (int, float))]
    errs = collections.Counter(v.get("__error__", "?") for v in c.values() if v not in ok)
    times = sorted(v["time"] for v in ok)
    cvs = [statistics.pstdev(v["times"]) / statistics.mean(v["times"]) for v in ok if len(v.get("times", [])) > 1]
    print(f"{path}: params {len(d['tune_params_keys'])}, recorded {len(c)}, valid {len(ok)}, errors {dict(errs)}, "
          f"time min {times[0]:.3g} ms median {statistics.median(times):.3g} max {times[-1]:.3g}, "
          f"median CV {statistics.median(cvs):.2f}")
