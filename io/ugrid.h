/* ugrid.h -- parallel NetCDF-4 output of DG fields, following the UGRID 1.0 conventions.
 *
 * One file holds one mesh and any number of time records of nodal fields. Every triangle
 * of the mesh is drawn as N^2 linear sub-triangles on its own Np nodes: nodes are not
 * shared between elements, so the discontinuous DG solution is kept exactly and any
 * UGRID reader (ParaView's "NetCDF UGRID reader", xarray/uxarray, netCDF4-python) shows
 * it without knowing about DG. File layout (docs/output.md has the full listing):
 *
 *   dimensions   mesh2d_nNodes = K*Np, mesh2d_nFaces = K*N^2, mesh2d_nMax_face_nodes = 3,
 *                time (unlimited)
 *   mesh2d                       topology container (cf_role = "mesh_topology")
 *   mesh2d_node_x, mesh2d_node_y (mesh2d_nNodes) double, m; node e*Np + n is node n of
 *                                element e (the ordering of insdg_ref)
 *   mesh2d_face_nodes            (mesh2d_nFaces, 3) int32, start_index 0, counter-clockwise
 *   mesh2d_face_element          (mesh2d_nFaces) int32, the element a sub-triangle draws;
 *                                sub-triangles e*N^2 .. (e+1)*N^2-1 belong to element e
 *                                (mesh = "mesh2d", location = "face")
 *   time                         (time) double, simulation time in seconds; units
 *                                "seconds since 1970-01-01 00:00:00" (a placeholder date)
 *   <field>                      (time, mesh2d_nNodes) double, mesh = "mesh2d",
 *                                location = "node", coordinates = the node coordinates
 *
 * Parallel model: every rank of the communicator owns one contiguous range of elements
 * [e_begin, e_end); the ranges follow rank order and tile [0, K) (a rank may own none).
 * Each rank writes only its own hyperslab (nodes e_begin*Np.., faces e_begin*N^2..) with
 * collective MPI-IO through NetCDF-4/HDF5; every function below is collective.
 *
 * Crash safety: the file is written as "<path>.tmp" and renamed to <path> only by a
 * successful insdg_ugrid_close, so a file under the final name is always complete. On any
 * error the writer discards the .tmp file and every rank returns the same message.
 *
 * Errors: functions return 0, or nonzero with "<path>: <reason> (<what was being done>)"
 * in err (identical on all ranks). Ownership: the writer borrows the mesh until close and
 * copies everything else it is given.
 */
#ifndef INSDG_UGRID_H
#define INSDG_UGRID_H

#include <stddef.h>

#include <mpi.h>

#include "mesh.h"

typedef struct insdg_ugrid insdg_ugrid;

/* Units and calendar of the time variable: CF wants a reference date; the values are
   the simulation time in seconds, the date is a placeholder (docs/output.md). */
#define INSDG_UGRID_TIME_UNITS "seconds since 1970-01-01 00:00:00"
#define INSDG_UGRID_TIME_CALENDAR "proleptic_gregorian"

/* Collective over comm. Each rank passes its own range [e_begin, e_end) of the K elements
   of mesh (whose geometry, mesh->ref, mesh->x, mesh->y, is set for all K elements on every
   rank); rank r's range starts where rank r-1's ends, rank 0's at 0, the last one's ends
   at K. All ranks must pass the same path and title (title may be NULL). Creates
   "<path>.tmp" (replacing any file of that name) and defines the mesh; the mesh arrays
   are written with the first record. On success *out is the writer; on failure *out is
   NULL, nothing is left on disk and err holds the message. */
int insdg_ugrid_create(MPI_Comm comm, const char *path, const insdg_mesh *mesh, int e_begin,
                       int e_end, const char *title, insdg_ugrid **out, char *err,
                       size_t errlen);

/* Define one nodal field (before the first insdg_ugrid_write): its variable name (a
   NetCDF name, not one of the mesh2d_* or time names), units (UDUNITS string, e.g.
   "m s-1"; "1" for dimensionless) and long_name (a human description). Collective: all
   ranks add the same fields in the same order. */
int insdg_ugrid_add_field(insdg_ugrid *w, const char *name, const char *units,
                          const char *long_name, char *err, size_t errlen);

/* Append one time record at `time` (s). fields[i] is this rank's array [e_end-e_begin][Np]
   (element-major, the block layout) of the i-th field added; it may be NULL on a rank
   that owns no elements. The first call also writes the mesh. */
int insdg_ugrid_write(insdg_ugrid *w, double time, const double *const *fields, char *err,
                      size_t errlen);

/* Finish the file (writing the mesh if no record was written), close it and rename
   "<path>.tmp" to <path>. Always frees w. Returns nonzero if this or an earlier call
   failed, in which case no file is left under either name. */
int insdg_ugrid_close(insdg_ugrid *w, char *err, size_t errlen);

#endif
