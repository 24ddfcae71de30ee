#!/usr/bin/env python3
"""Summarise an insdg NetCDF-UGRID file with netCDF4 (not insdg's own code).

usage: /usr/bin/python3 tools/ncsummary.py FILE.nc
"""
import sys

import netCDF4
import numpy as np


def main(path):
    with netCDF4.Dataset(path) as nc:
        topo = nc.variables["mesh2d"]
        print(f"{path}: {nc.Conventions}, order N = {nc.N}, "
              f"{nc.dimensions['mesh2d_nFaces'].size} sub-triangles on "
              f"{nc.dimensions['mesh2d_nNodes'].size} nodes, {nc.dimensions['time'].size} time record(s)")
        print(f"  topology: {topo.cf_role}, dimension {topo.topology_dimension}, nodes {topo.node_coordinates}")
        for name, var in nc.variables.items():
            if getattr(var, "location", None) != "node":
                continue
            data = np.asarray(var[-1, :])
            print(f"  {name:8s} [{var.units:7s}] min {data.min():+.4e} max {data.max():+.4e}  ({var.long_name})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
