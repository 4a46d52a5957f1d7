"""The Python layer's overhead on a simulated run (`make bench`): tune_cache against the same job through the
native call and through the ktune CLI, on a brute-forced cache of over 10 000 configurations. Prints the medians."""
import os
import statistics
import subprocess
import sys
import time

import ktune
from ktune import _ktune


def median_seconds(run, repeats=7):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    shared = os.environ.get("KTUNE_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))
    cache = os.path.join(shared, "data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    results, _ = ktune.tune_cache(cache, quiet=True)
    n = len(results)
    python = median_seconds(lambda: ktune.tune_cache(cache, quiet=True))
    native = median_seconds(lambda: _ktune.simulate(cache, "brute_force", [], None, None, [], [], [], None, 0))
    print(f"brute_force over {n} configurations of {os.path.basename(cache)} (median of 7)")
    print(f"  ktune.tune_cache        {python * 1e3:8.1f} ms  {python / n * 1e6:6.2f} us per configuration")
    print(f"  _ktune.simulate         {native * 1e3:8.1f} ms  (the job and the result dicts, no Python layer)")
    print(f"  Python layer            {(python - native) / n * 1e6:6.2f} us per configuration")
    if binary:
        cli = median_seconds(lambda: subprocess.run([binary, "tune", "--simulate", cache, "--json"], check=True,
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        print(f"  ktune tune --json (CLI) {cli * 1e3:8.1f} ms  (process start included)")
        print(f"  tune_cache - CLI        {(python - cli) / n * 1e6:6.2f} us per configuration")


if __name__ == "__main__":
    main()
