#!/usr/bin/env python3
"""annulus.py -- a high-order Gmsh mesh of the annulus r_in <= r <= r_out (or of a disk
when r_in = 0 is not wanted: this makes annuli only), for the curved-element tests.

Usage: annulus.py OUT.msh --nr NR --nt NT --order Q [--rin 0.5] [--rout 1] [--format 2.2|4.1]
                  [--straight] [--swap-edge TAG] [--bend TAG]

Structured in (r, theta): NR layers of NT cells, each cut into two triangles along
alternating diagonals, counter-clockwise. Edge nodes of order Q are equispaced in angle
on the two circles (the exact arc) and equispaced on the chord elsewhere; triangle
interior nodes (Q >= 3) are placed on the straight triangle (insdg does not read them).
--straight puts every edge node on its chord (the polygon of the same vertices).
Physical names: "inner" and "outer" (lines), "fluid" (surface).
--swap-edge TAG exchanges the first and last edge node of the first edge of triangle TAG
(a node-order error); --bend TAG pushes that edge's nodes far outward (an inverted
element): both for the tests of the mesh checks.
"""
import argparse
import math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nr", type=int, required=True)
    ap.add_argument("--nt", type=int, required=True)
    ap.add_argument("--order", type=int, required=True)
    ap.add_argument("--rin", type=float, default=0.5)
    ap.add_argument("--rout", type=float, default=1.0)
    ap.add_argument("--format", default="2.2", choices=["2.2", "4.1"])
    ap.add_argument("--straight", action="store_true")
    ap.add_argument("--swap-edge", type=int, default=0)
    ap.add_argument("--bend", type=int, default=0)
    a = ap.parse_args()
    q, nr, nt = a.order, a.nr, a.nt
    radii = [a.rin + (a.rout - a.rin) * i / nr for i in range(nr + 1)]

    nodes = []  # (x, y)

    def add(x, y):
        nodes.append((x, y))
        return len(nodes)  # 1-based tags

    vert = {}
    for i in range(nr + 1):
        for j in range(nt):
            t = 2 * math.pi * j / nt
            vert[i, j] = add(radii[i] * math.cos(t), radii[i] * math.sin(t))

    edge_nodes = {}  # (va, vb) -> list of q-1 node tags from va to vb

    def edge(va, vb, circle):
        if (va, vb) in edge_nodes:
            return edge_nodes[va, vb]
        if (vb, va) in edge_nodes:
            return edge_nodes[vb, va][::-1]
        (xa, ya), (xb, yb) = nodes[va - 1], nodes[vb - 1]
        mids = []
        for k in range(1, q):
            s = k / q
            if circle is not None and not a.straight:
                r = circle
                ta, tb = math.atan2(ya, xa), math.atan2(yb, xb)
                d = (tb - ta + math.pi) % (2 * math.pi) - math.pi
                t = ta + s * d
                mids.append(add(r * math.cos(t), r * math.sin(t)))
            else:
                mids.append(add((1 - s) * xa + s * xb, (1 - s) * ya + s * yb))
        edge_nodes[va, vb] = mids
        return mids

    tris = []  # (v0, v1, v2, edge nodes..., interior nodes...)
    lines = []  # (phys, [va, vb, mids...])
    for i in range(nr):
        for j in range(nt):
            a00, a01 = vert[i, j], vert[i, (j + 1) % nt]
            a10, a11 = vert[i + 1, j], vert[i + 1, (j + 1) % nt]
            if (i + j) % 2 == 0:
                cells = [(a00, a01, a11), (a00, a11, a10)]
            else:
                cells = [(a00, a01, a10), (a01, a11, a10)]
            for v in cells:
                ho = []
                for k in range(3):
                    va, vb = v[k], v[(k + 1) % 3]
                    circle = None
                    if (va, vb) == (a00, a01) or (va, vb) == (a01, a00):
                        circle = radii[i] if i == 0 else None
                    if (va, vb) == (a10, a11) or (va, vb) == (a11, a10):
                        circle = radii[i + 1] if i + 1 == nr else None
                    ho += edge(va, vb, circle)
                (x0, y0), (x1, y1), (x2, y2) = (nodes[t - 1] for t in v)
                inner = []
                for m in range(1, q):
                    for n in range(1, q - m):
                        l1, l2 = m / q, n / q
                        inner.append(add(x0 + l1 * (x1 - x0) + l2 * (x2 - x0), y0 + l1 * (y1 - y0) + l2 * (y2 - y0)))
                tris.append(list(v) + ho + inner)
    for j in range(nt):
        va, vb = vert[0, (j + 1) % nt], vert[0, j]
        lines.append((1, [va, vb] + edge(va, vb, radii[0])))
        va, vb = vert[nr, j], vert[nr, (j + 1) % nt]
        lines.append((2, [va, vb] + edge(va, vb, radii[nr])))

    if a.swap_edge and q >= 3:
        t = tris[a.swap_edge - 1]
        t[3], t[3 + q - 2] = t[3 + q - 2], t[3]
    if a.bend:
        t = tris[a.bend - 1]
        (x0, y0), (x1, y1) = nodes[t[0] - 1], nodes[t[1] - 1]
        nx, ny = y1 - y0, -(x1 - x0)
        for k in range(q - 1):
            tag = t[3 + k]
            x, y = nodes[tag - 1]
            nodes[tag - 1] = (x - 3 * nx, y - 3 * ny)

    ltype = {1: 1, 2: 8, 3: 26, 4: 27, 5: 28, 6: 62, 7: 63, 8: 64, 9: 65, 10: 66}[q]
    ttype = {1: 2, 2: 9, 3: 21, 4: 23, 5: 25, 6: 42, 7: 43, 8: 44, 9: 45, 10: 46}[q]
    with open(a.out, "w") as f:
        f.write("$MeshFormat\n%s 0 8\n$EndMeshFormat\n" % a.format)
        f.write('$PhysicalNames\n3\n1 1 "inner"\n1 2 "outer"\n2 3 "fluid"\n$EndPhysicalNames\n')
        if a.format == "2.2":
            f.write("$Nodes\n%d\n" % len(nodes))
            for k, (x, y) in enumerate(nodes):
                f.write("%d %.17g %.17g 0\n" % (k + 1, x, y))
            f.write("$EndNodes\n$Elements\n%d\n" % (len(lines) + len(tris)))
            tag = 1
            for phys, ns in lines:
                f.write("%d %d 2 %d %d %s\n" % (tag, ltype, phys, phys, " ".join(map(str, ns))))
                tag += 1
            for t in tris:
                f.write("%d %d 2 3 1 %s\n" % (tag, ttype, " ".join(map(str, t))))
                tag += 1
            f.write("$EndElements\n")
        else:
            f.write("$Entities\n0 2 1 0\n")
            f.write("1 0 0 0 0 0 0 1 1 0\n2 0 0 0 0 0 0 1 2 0\n")
            f.write("1 0 0 0 0 0 0 1 3 2 1 2\n$EndEntities\n")
            f.write("$Nodes\n1 %d 1 %d\n2 1 0 %d\n" % (len(nodes), len(nodes), len(nodes)))
            for k in range(len(nodes)):
                f.write("%d\n" % (k + 1))
            for x, y in nodes:
                f.write("%.17g %.17g 0\n" % (x, y))
            f.write("$EndNodes\n")
            inner = [ns for p, ns in lines if p == 1]
            outer = [ns for p, ns in lines if p == 2]
            f.write("$Elements\n3 %d 1 %d\n" % (len(lines) + len(tris), len(lines) + len(tris)))
            tag = 1
            for ent, group in ((1, inner), (2, outer)):
                f.write("1 %d %d %d\n" % (ent, ltype, len(group)))
                for ns in group:
                    f.write("%d %s\n" % (tag, " ".join(map(str, ns))))
                    tag += 1
            f.write("2 1 %d %d\n" % (ttype, len(tris)))
            for t in tris:
                f.write("%d %s\n" % (tag, " ".join(map(str, t))))
                tag += 1
            f.write("$EndElements\n")


if __name__ == "__main__":
    main()
