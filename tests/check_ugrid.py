#!/usr/bin/python3
"""check_ugrid.py -- check a file written by tests/test_ugrid.c, as its readers see it.

    /usr/bin/python3 check_ugrid.py out.nc

Reads <out.nc>.expect (K N area, written by test_ugrid) and checks with netCDF4-python:
the UGRID topology attributes, dimension sizes, the 32-bit connectivity and its start
index, that each sub-triangle's nodes belong to the element named by
mesh2d_face_element, positive sub-triangle areas that tile each element and the domain,
u = x + 2y and v = sin(x) y at the nodes (twice that in record 1), the times, and units
and long_name on the variables. CF/UGRID metadata: every variable with a mesh dimension
(other than the topology's own coordinate and connectivity variables) has `mesh` naming
the topology and `location` (node/face/edge) matching its dimension, node variables
name the node coordinates in `coordinates`, and `time` has CF units with a reference
date ("seconds since ..."), a CF calendar, standard_name and axis. Then it checks the
dimension sizes again with a second reader, `ncdump -h` (netcdf-bin), and, if xarray is
importable (Debian's python3-xarray), opens the file with xarray's default decoding and
checks the decoded times. Exits 1 listing every failed check.
"""
import os
import re
import subprocess
import sys

import numpy as np
from netCDF4 import Dataset

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def read_expectations(path):
    with open(path + ".expect") as f:
        K, N, area = f.read().split()
    return int(K), int(N), float(area)


def check_global(ds, N):
    check(ds.getncattr("Conventions") == "CF-1.8 UGRID-1.0", "Conventions")
    check(ds.getncattr("source") == "insdg", "source")
    check(int(ds.getncattr("N")) == N, "global attribute N")
    check("title" in ds.ncattrs(), "title")


def check_topology(ds):
    mesh = ds.variables["mesh2d"]
    check(mesh.cf_role == "mesh_topology", "mesh2d cf_role")
    check(int(mesh.topology_dimension) == 2, "mesh2d topology_dimension")
    check(mesh.node_coordinates == "mesh2d_node_x mesh2d_node_y", "mesh2d node_coordinates")
    check(mesh.face_node_connectivity == "mesh2d_face_nodes", "mesh2d face_node_connectivity")
    check(mesh.face_dimension == "mesh2d_nFaces", "mesh2d face_dimension")
    check(int(mesh[...]) == 0, "mesh2d holds 0")
    faces = ds.variables["mesh2d_face_nodes"]
    check(faces.dtype == np.int32, f"mesh2d_face_nodes dtype {faces.dtype}, want int32")
    check(faces.cf_role == "face_node_connectivity", "mesh2d_face_nodes cf_role")
    check(int(faces.start_index) == 0, "mesh2d_face_nodes start_index")
    check(faces.dimensions == ("mesh2d_nFaces", "mesh2d_nMax_face_nodes"), "face_nodes dims")
    for name, std in (("mesh2d_node_x", "projection_x_coordinate"),
                      ("mesh2d_node_y", "projection_y_coordinate")):
        check(ds.variables[name].standard_name == std, f"{name} standard_name")


def check_dimensions(ds, K, N):
    Np = (N + 1) * (N + 2) // 2
    dims = ds.dimensions
    check(len(dims["mesh2d_nNodes"]) == K * Np, "mesh2d_nNodes")
    check(len(dims["mesh2d_nFaces"]) == K * N * N, "mesh2d_nFaces")
    check(len(dims["mesh2d_nMax_face_nodes"]) == 3, "mesh2d_nMax_face_nodes")
    check(len(dims["time"]) == 2 and dims["time"].isunlimited(), "time: unlimited, 2 records")


def triangle_areas(x, y, tri):
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    return 0.5 * ((x[b] - x[a]) * (y[c] - y[a]) - (x[c] - x[a]) * (y[b] - y[a]))


def check_geometry(ds, K, N, area):
    Np = (N + 1) * (N + 2) // 2
    x = ds.variables["mesh2d_node_x"][:]
    y = ds.variables["mesh2d_node_y"][:]
    tri = ds.variables["mesh2d_face_nodes"][:].astype(np.int64)
    elem = ds.variables["mesh2d_face_element"][:]
    check(np.array_equal(elem, np.arange(K * N * N) // (N * N)), "face_element order")
    check(np.all(tri // Np == elem[:, None]), "a face's nodes belong to its element")
    used = np.zeros(K * Np, dtype=bool)
    used[tri.ravel()] = True
    check(used.all(), "every node is a vertex of some sub-triangle")
    sub = triangle_areas(x, y, tri)
    check(sub.min() > 0, f"sub-triangle areas positive (min {sub.min():.3e})")
    corners = np.arange(K)[:, None] * Np + np.array([0, N, Np - 1])
    elem_area = triangle_areas(x, y, corners)
    per_elem = sub.reshape(K, N * N).sum(axis=1)
    check(np.allclose(per_elem, elem_area, rtol=1e-12, atol=0), "sub-triangles tile each element")
    check(abs(sub.sum() - area) <= 1e-12 * area, f"total area {sub.sum()!r}, want {area!r}")


def check_fields(ds):
    x = ds.variables["mesh2d_node_x"][:]
    y = ds.variables["mesh2d_node_y"][:]
    exact = {"u": x + 2 * y, "v": np.sin(x) * y}
    for name, values in exact.items():
        var = ds.variables[name]
        check(var.dimensions == ("time", "mesh2d_nNodes"), f"{name} dims")
        check(getattr(var, "mesh", None) == "mesh2d" and getattr(var, "location", None) == "node",
              f"{name} mesh/location")
        check(getattr(var, "coordinates", None) == "mesh2d_node_x mesh2d_node_y",
              f"{name} coordinates")
        for record, scale in ((0, 1.0), (1, 2.0)):
            got = var[record, :]
            err = np.max(np.abs(got - scale * values) / np.maximum(1.0, np.abs(values)))
            check(err <= 1e-14, f"{name}[{record}] differs from the exact values by {err:.2e}")
    time = ds.variables["time"]
    check(np.array_equal(time[:], [0.5, 1.0]), f"time values {time[:]}")


# CF calendars (CF-1.8 section 4.4.1, without the deprecated "none")
CF_CALENDARS = {"standard", "gregorian", "proleptic_gregorian", "noleap", "365_day",
                "all_leap", "366_day", "360_day", "julian"}
TIME_UNITS = "seconds since 1970-01-01 00:00:00"   # io/ugrid.h INSDG_UGRID_TIME_UNITS


def check_time(ds):
    time = ds.variables["time"]
    attrs = {a: time.getncattr(a) for a in time.ncattrs()}
    units = attrs.get("units", "")
    check(re.fullmatch(r"\s*seconds?\s+since\s+\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}:\d{2})?\s*",
                       units) is not None,
          f"time units {units!r}: CF wants '<unit> since <reference date>'")
    check(units == TIME_UNITS, f"time units {units!r}, want {TIME_UNITS!r}")
    check(attrs.get("calendar") in CF_CALENDARS, f"time calendar {attrs.get('calendar')!r}")
    check(attrs.get("standard_name") == "time", "time standard_name")
    check(attrs.get("axis") == "T", "time axis")
    check(time.dimensions == ("time",), "time is a coordinate variable (time)")


def topology(ds, mesh_name):
    """The mesh's own variables and its node/face/edge dimensions."""
    mesh = ds.variables[mesh_name]
    attrs = {a: mesh.getncattr(a) for a in mesh.ncattrs()}
    own = set(attrs.get("node_coordinates", "").split())
    for key in ("face_node_connectivity", "edge_node_connectivity", "face_edge_connectivity",
                "face_face_connectivity", "edge_face_connectivity", "boundary_node_connectivity",
                "face_coordinates", "edge_coordinates"):
        own.update(attrs.get(key, "").split())
    dims = {}
    node_coords = attrs.get("node_coordinates", "").split()
    if node_coords and node_coords[0] in ds.variables:
        dims["node"] = ds.variables[node_coords[0]].dimensions[0]
    for loc in ("face", "edge"):
        conn = attrs.get(f"{loc}_node_connectivity")
        if f"{loc}_dimension" in attrs:
            dims[loc] = attrs[f"{loc}_dimension"]
        elif conn in ds.variables:
            dims[loc] = ds.variables[conn].dimensions[0]
    return own, dims, node_coords


def check_mesh_attributes(ds):
    """UGRID: every data variable on a mesh says which mesh and where on it."""
    meshes = [n for n, v in ds.variables.items()
              if getattr(v, "cf_role", None) == "mesh_topology"]
    check(meshes == ["mesh2d"], f"mesh topology variables {meshes}")
    tops = {m: topology(ds, m) for m in meshes}
    nchecked = {"node": 0, "face": 0}
    for name, var in ds.variables.items():
        on = [m for m, (own, dims, _) in tops.items()
              if name not in own and name != m and set(var.dimensions) & set(dims.values())]
        if not on:
            continue
        attrs = var.ncattrs()
        check("mesh" in attrs, f"{name}: no 'mesh' attribute (it has a mesh dimension)")
        check("location" in attrs, f"{name}: no 'location' attribute (it has a mesh dimension)")
        if "mesh" not in attrs or "location" not in attrs:
            continue
        mesh, loc = var.getncattr("mesh"), var.getncattr("location")
        check(mesh in tops, f"{name}: mesh = {mesh!r} is not a mesh topology variable")
        if mesh not in tops:
            continue
        _, dims, node_coords = tops[mesh]
        check(loc in ("node", "face", "edge"), f"{name}: location = {loc!r}")
        check(loc in dims and dims[loc] in var.dimensions,
              f"{name}: location = {loc!r} but dimensions {var.dimensions}")
        if loc in nchecked:
            nchecked[loc] += 1
        if loc == "node":
            coords = var.getncattr("coordinates").split() if "coordinates" in attrs else []
            check(coords == node_coords,
                  f"{name}: coordinates {coords}, want the node coordinates {node_coords}")
    # the fields u, v on the nodes and mesh2d_face_element on the faces
    check(nchecked["node"] >= 2 and nchecked["face"] >= 1,
          f"variables checked per location: {nchecked}")


def check_with_xarray(path):
    """A third reader, with CF decoding on (the default): the file must open and the
    times decode to the simulation times."""
    try:
        import xarray as xr
    except ImportError:
        print(f"{path}: xarray not importable, its check skipped")
        return
    try:
        with xr.open_dataset(path) as ds:
            t = ds["time"].values
            decoded = np.issubdtype(t.dtype, np.datetime64)
            check(decoded, f"xarray: time decoded as {t.dtype}, want datetime64")
            if decoded:
                seconds = (t - np.datetime64("1970-01-01T00:00:00")) / np.timedelta64(1, "s")
                check(np.array_equal(seconds, [0.5, 1.0]),
                      f"xarray: time - 1970-01-01 = {seconds} s, want [0.5, 1.0]")
            for name in ("u", "v"):
                check(ds[name].dims == ("time", "mesh2d_nNodes"), f"xarray: {name} dims")
                check(ds[name].attrs.get("location") == "node", f"xarray: {name} location")
            elem = ds["mesh2d_face_element"]
            check(elem.attrs.get("mesh") == "mesh2d" and elem.attrs.get("location") == "face",
                  "xarray: mesh2d_face_element mesh/location")
    except Exception as e:  # a decoding error is a failed check, not a crash
        check(False, f"xarray.open_dataset: {type(e).__name__}: {e}")


def check_units_and_names(ds):
    for name, var in ds.variables.items():
        check("long_name" in var.ncattrs(), f"{name} has a long_name")
        if name not in ("mesh2d", "mesh2d_face_nodes"):  # topology and connectivity
            check("units" in var.ncattrs(), f"{name} has units")


def check_with_ncdump(path, K, N):
    """A second reader: the C library's ncdump, parsed for the header."""
    Np = (N + 1) * (N + 2) // 2
    kind = subprocess.run(["ncdump", "-k", path], capture_output=True, text=True, check=True)
    check(kind.stdout.strip() == "netCDF-4", f"ncdump -k says {kind.stdout.strip()!r}")
    header = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True, check=True)
    dims = dict(re.findall(r"^\s*(\w+) = (\d+) ;", header.stdout, re.M))
    check(dims.get("mesh2d_nNodes") == str(K * Np), "ncdump: mesh2d_nNodes")
    check(dims.get("mesh2d_nFaces") == str(K * N * N), "ncdump: mesh2d_nFaces")
    check(dims.get("mesh2d_nMax_face_nodes") == "3", "ncdump: mesh2d_nMax_face_nodes")
    check(re.search(r"time = UNLIMITED ; // \(2 currently\)", header.stdout) is not None,
          "ncdump: time = UNLIMITED (2 currently)")
    check(re.search(r"\bint mesh2d_face_nodes\(mesh2d_nFaces, mesh2d_nMax_face_nodes\)",
                    header.stdout) is not None, "ncdump: int mesh2d_face_nodes")


def main():
    path = sys.argv[1]
    K, N, area = read_expectations(path)
    check(not os.path.exists(path + ".tmp"), "no .tmp left")
    with Dataset(path) as ds:
        ds.set_auto_mask(False)
        check_global(ds, N)
        check_topology(ds)
        check_dimensions(ds, K, N)
        if not failures:
            check_geometry(ds, K, N, area)
            check_fields(ds)
        check_time(ds)
        check_mesh_attributes(ds)
        check_units_and_names(ds)
    check_with_ncdump(path, K, N)
    check_with_xarray(path)
    if failures:
        print(f"{path}: {len(failures)} failed checks:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"{path}: OK (K = {K}, N = {N}, {K * N * N} sub-triangles, area {area:.6g})")


if __name__ == "__main__":
    main()
