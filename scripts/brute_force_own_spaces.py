#!/usr/bin/env python3
"""Brute-forces the examples' kernels live on this machine, at several problem sizes, into Kernel Tuner caches: more
varied training spaces for strategies (docs/hyperparameters.md, cross-validation) than the GPU caches of
benchmark_hub. Each space is written to tests/data/spaces/own/<kernel>/<device>_<size>.json.gz (the folder names
the kernel and the file the device, as `hypertune --cv` reads them).

  scripts/brute_force_own_spaces.py [--device NAME]   (KTUNE: the binary, default build/ktune; minutes on PoCL)
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KTUNE = os.environ.get("KTUNE", os.path.join(ROOT, "build", "ktune"))
OUT = os.path.join(ROOT, "tests", "data", "spaces", "own")


def resize_matmul(arguments, size):
    """n x n matrices: C, A, B hold n*n elements and the scalar n is n."""
    n = size[0]
    for a in arguments:
        if a["Name"] in ("C", "A", "B"):
            a["Size"] = n * n
        elif a["Name"] == "n":
            a["FillValue"] = n


def resize_convolution(arguments, size):
    """The output image is width x height (the input's size is an expression over the problem size)."""
    for a in arguments:
        if a["Name"] == "out":
            a["Size"] = size[0] * size[1]
        elif a["Name"] == "width":
            a["FillValue"] = size[0]
        elif a["Name"] == "height":
            a["FillValue"] = size[1]


# (example T1 file, kernel name, how its arguments follow the problem size, problem sizes)
KERNELS = [
    ("examples/matmul/matmul_cpp.json", "matmul_cpp", resize_matmul, [[256, 256], [512, 512]]),
    ("examples/matmul/matmul_opencl.json", "matmul_opencl", resize_matmul, [[256, 256], [512, 512]]),
    ("examples/convolution/convolution_opencl.json", "convolution_opencl", resize_convolution,
     [[512, 512], [1024, 1024]]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="the device's name in the file names (this machine's CPU: "
                        "the cpp backend, and OpenCL through PoCL)")
    args = parser.parse_args()
    for t1, kernel, resize, sizes in KERNELS:
        path = os.path.join(ROOT, t1)
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        spec = document["KernelSpecification"]
        spec["KernelFile"] = os.path.join(os.path.dirname(path), spec["KernelFile"])
        for size in sizes:
            spec["ProblemSize"] = size
            resize(spec["Arguments"], size)
            label = "x".join(str(s) for s in size)
            target = os.path.join(OUT, kernel, f"{args.device}_{label}.json.gz")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with tempfile.TemporaryDirectory() as scratch:
                problem = os.path.join(scratch, "problem.json")
                with open(problem, "w", encoding="utf-8") as f:
                    json.dump(document, f)
                cache = os.path.join(scratch, "cache.json")
                subprocess.run([KTUNE, "tune", problem, "--cache", cache, "--quiet"], check=True)
                with open(cache, "rb") as src, gzip.open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            print(f"{target}: brute-forced {kernel} at {label}")


if __name__ == "__main__":
    main()
