#!/usr/bin/env python3
"""Writes the pnpoly inputs: a star-shaped polygon of 600 vertices around (0.5, 0.5) and n random points in the
unit square. Vertex y are multiples of 1/4096 and point y odd multiples of 1/8192, so no point lies at a vertex's
height and every between_method gives the same answer."""
import math, random, struct, sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 131072
rng = random.Random(42)
V = 600
verts = []
for i in range(V):
    t = 2 * math.pi * i / V
    r = 0.25 + 0.2 * rng.random()
    x = 0.5 + r * math.cos(t)
    y = round((0.5 + r * math.sin(t)) * 4096) / 4096
    verts += [x, y]
pts = []
for i in range(n):
    pts += [rng.random(), (rng.randrange(4096) + 0.5) / 4096]
open("vertices.bin", "wb").write(struct.pack("<%df" % len(verts), *verts))
open("points_%d.bin" % n, "wb").write(struct.pack("<%df" % len(pts), *pts))
