#!/usr/bin/env python3
"""Writes the T1 files of bench/spaces/kernels (python3 gen.py). Each space: parameters, conditions, geometry,
arguments; the *_large variants differ only in the problem size."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def cond(expr, params):
    return {"Expression": expr, "Parameters": params}


def t1(name, params, conds, spec):
    return {
        "General": {"BenchmarkName": name, "OutputFormat": "JSON"},
        "ConfigurationSpace": {
            "TuningParameters": [{"Name": k, "Type": "int", "Values": str(v)} for k, v in params.items()],
            "Conditions": conds,
        },
        "KernelSpecification": spec,
    }


def vec(name, typ, size, access="ReadOnly", seed=None, **kw):
    a = {"Name": name, "Type": typ, "MemoryType": "Vector", "AccessType": access, "Size": size}
    if seed is not None:
        a["FillType"] = "Random"
        a["RandomSeed"] = seed
    a.update(kw)
    return a


def scalar(name, value, typ="int32"):
    return {"Name": name, "Type": typ, "MemoryType": "Scalar", "FillValue": value}


def write(folder, fname, doc):
    path = os.path.join(HERE, "kernels", folder, fname)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print("wrote", path)


# ---------------------------------------------------------------- transpose
def transpose(n):
    params = {"block_size_x": [8, 16, 32, 64, 128], "block_size_y": [1, 2, 4, 8, 16, 32],
              "tile_size_y": [1, 2, 4, 8], "use_local": [0, 1], "padding": [0, 1]}
    conds = [cond("16 <= block_size_x*block_size_y <= 1024", ["block_size_x", "block_size_y"]),
             cond("use_local == 1 or padding == 0", ["use_local", "padding"]),
             cond("4*block_size_y*tile_size_y*(block_size_x + padding) <= 65536",
                  ["block_size_y", "tile_size_y", "block_size_x", "padding"])]
    spec = {"Language": "OpenCL", "KernelName": "transpose", "KernelFile": "transpose.cl",
            "ProblemSize": [n, n], "GridDivX": ["block_size_x"], "GridDivY": ["block_size_y", "tile_size_y"],
            "Arguments": [vec("out", "float", n * n, "WriteOnly"), vec("in", "float", n * n, seed=1),
                          scalar("n", n)],
            "Iterations": 7,
            "Metrics": {"GB/s": f"2*4*{n}*{n}/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 16, "block_size_y": 16, "tile_size_y": 1, "use_local": 0,
                                       "padding": 0},
            "Tolerance": {"atol": 0, "rtol": 0}}
    return t1(f"transpose_{n}", params, conds, spec)


# ---------------------------------------------------------------- reduction
def reduction(n):
    params = {"block_size_x": [32, 64, 128, 256, 512, 1024], "elems_per_item": [1, 2, 4, 8, 16, 32],
              "vector_width": [1, 2, 4, 8], "loop_unroll": [1, 2, 4], "manual_unroll": [0, 1]}
    conds = [cond("loop_unroll*vector_width <= elems_per_item", ["loop_unroll", "vector_width", "elems_per_item"])]
    spec = {"Language": "OpenCL", "KernelName": "reduction", "KernelFile": "reduction.cl",
            "ProblemSize": [n], "GridDivX": ["block_size_x", "elems_per_item"],
            "Arguments": [vec("out", "float", 1, "WriteOnly"),
                          # per-group partial sums: their number depends on the configuration, so not verified
                          vec("partial", "float", n // 32, "ReadWrite", Tolerance={"atol": 1e30, "rtol": 0}),
                          vec("ticket", "int32", 1, "ReadWrite"),
                          vec("in", "float", n, seed=1), scalar("n", n)],
            "Iterations": 7,
            "Metrics": {"GB/s": f"4*{n}/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 256, "elems_per_item": 1, "vector_width": 1,
                                       "loop_unroll": 1, "manual_unroll": 0},
            "Tolerance": {"atol": 0, "rtol": 1e-5}}
    return t1(f"reduction_{n}", params, conds, spec)


# ---------------------------------------------------------------- pnpoly
def pnpoly(n):
    params = {"block_size_x": [32, 64, 128, 256, 512, 1024], "points_per_item": [1, 2, 4, 8],
              "between_method": [0, 1, 2, 3], "polygon_memory": [0, 1, 2], "vertex_unroll": [1, 4]}
    conds = [cond("block_size_x*points_per_item <= 2048", ["block_size_x", "points_per_item"])]
    spec = {"Language": "OpenCL", "KernelName": "pnpoly", "KernelFile": "pnpoly.cl",
            "ProblemSize": [n], "GridDivX": ["block_size_x", "points_per_item"],
            "Defines": {"nvertices": "600"},
            "Arguments": [vec("bitmap", "int32", n, "WriteOnly"),
                          vec("points", "float", 2 * n, FillType="BinaryRaw", DataSource=f"points_{n}.bin"),
                          vec("vertices", "float", 1200, FillType="BinaryRaw", DataSource="vertices.bin"),
                          scalar("n", n)],
            "Iterations": 7,
            "Metrics": {"Gtests/s": f"{n}*600/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 256, "points_per_item": 1, "between_method": 0,
                                       "polygon_memory": 0, "vertex_unroll": 1}}
    return t1(f"pnpoly_{n}", params, conds, spec)


# ---------------------------------------------------------------- hotspot
def hotspot(n):
    params = {"block_size_x": [8, 16, 32, 64, 128], "block_size_y": [1, 2, 4, 8, 16],
              "tile_size_x": [1, 2, 4], "tile_size_y": [1, 2, 4], "use_local": [0, 1]}
    conds = [cond("16 <= block_size_x*block_size_y <= 1024", ["block_size_x", "block_size_y"]),
             cond("use_local == 0 or 4*(block_size_x*tile_size_x + 2)*(block_size_y*tile_size_y + 2) <= 65536",
                  ["use_local", "block_size_x", "tile_size_x", "block_size_y", "tile_size_y"])]
    spec = {"Language": "OpenCL", "KernelName": "hotspot", "KernelFile": "hotspot.cl",
            "ProblemSize": [n, n], "GridDivX": ["block_size_x", "tile_size_x"],
            "GridDivY": ["block_size_y", "tile_size_y"],
            "Arguments": [vec("temp_out", "float", n * n, "WriteOnly"),
                          vec("temp", "float", n * n, seed=1), vec("power", "float", n * n, seed=2),
                          scalar("nx", n), scalar("ny", n), scalar("step_div_cap", 0.05, "float"),
                          scalar("rx_1", 0.5, "float"), scalar("ry_1", 0.5, "float"), scalar("rz_1", 0.01, "float"),
                          scalar("amb", 0.3, "float")],
            "Iterations": 7,
            "Metrics": {"GB/s": f"3*4*{n}*{n}/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 16, "block_size_y": 16, "tile_size_x": 1, "tile_size_y": 1,
                                       "use_local": 0},
            "Tolerance": {"atol": 1e-6, "rtol": 1e-6}}
    return t1(f"hotspot_{n}", params, conds, spec)


# ---------------------------------------------------------------- nbody
def nbody(n):
    params = {"block_size_x": [32, 64, 128, 256, 512], "bodies_per_item": [1, 2, 4], "use_local": [0, 1],
              "tile_mult": [1, 2, 4], "inner_unroll": [1, 2, 4, 8]}
    conds = [cond("use_local == 1 or tile_mult == 1", ["use_local", "tile_mult"]),
             cond("block_size_x*tile_mult <= 1024", ["block_size_x", "tile_mult"])]
    spec = {"Language": "OpenCL", "KernelName": "nbody", "KernelFile": "nbody.cl",
            "ProblemSize": [n], "GridDivX": ["block_size_x", "bodies_per_item"],
            "Arguments": [vec("acc", "float", 3 * n, "WriteOnly"), vec("bodies", "float", 4 * n, seed=1),
                          scalar("n", n)],
            "Iterations": 7,
            "Metrics": {"GInteractions/s": f"{n}*{n}/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 128, "bodies_per_item": 1, "use_local": 0, "tile_mult": 1,
                                       "inner_unroll": 1},
            "Tolerance": {"atol": 1e-3, "rtol": 1e-4}}
    return t1(f"nbody_{n}", params, conds, spec)


# ---------------------------------------------------------------- expdist
def expdist(m):
    params = {"block_size_x": [32, 64, 128, 256, 512], "block_size_y": [1, 2, 4, 8, 16],
              "tile_size_x": [1, 2, 4, 8], "col_unroll": [1, 2, 4]}
    conds = [cond("32 <= block_size_x*block_size_y <= 1024", ["block_size_x", "block_size_y"])]
    spec = {"Language": "OpenCL", "KernelName": "expdist", "KernelFile": "expdist.cl",
            "ProblemSize": [m, 1], "GridDivX": ["block_size_x", "tile_size_x"],
            "GridDivY": ["block_size_y"],
            "Arguments": [vec("out", "float", m, "WriteOnly"), vec("a", "float", 3 * m, seed=1),
                          vec("b", "float", 3 * m, seed=2), scalar("m", m), scalar("n", m)],
            "Iterations": 7,
            "Metrics": {"Gpairs/s": f"{m}*{m}/(time/1e3)/1e9"},
            "ReferenceConfiguration": {"block_size_x": 128, "block_size_y": 1, "tile_size_x": 1, "col_unroll": 1},
            "Tolerance": {"atol": 1e-4, "rtol": 1e-4}}
    return t1(f"expdist_{m}", params, conds, spec)


if __name__ == "__main__":
    import sys
    which = sys.argv[1:] or ["all"]
    if set(which) & {"all", "transpose"}:
        write("transpose", "transpose.json", transpose(2048))
        write("transpose", "transpose_large.json", transpose(4096))
        write("transpose", "transpose_1024.json", transpose(1024))  # the four sizes: transfer from three
        write("transpose", "transpose_3072.json", transpose(3072))
    if set(which) & {"all", "reduction"}:
        write("reduction", "reduction.json", reduction(1 << 24))
        write("reduction", "reduction_small.json", reduction(1 << 22))
    if set(which) & {"all", "pnpoly"}:
        write("pnpoly", "pnpoly.json", pnpoly(131072))
    if set(which) & {"all", "hotspot"}:
        write("hotspot", "hotspot.json", hotspot(2048))
        write("hotspot", "hotspot_small.json", hotspot(1024))
        write("hotspot", "hotspot_512.json", hotspot(512))
        write("hotspot", "hotspot_1536.json", hotspot(1536))
    if set(which) & {"all", "nbody"}:
        write("nbody", "nbody.json", nbody(4096))
    if set(which) & {"all", "expdist"}:
        write("expdist", "expdist.json", expdist(4096))
