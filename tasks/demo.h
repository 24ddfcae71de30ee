/* demo.h -- the operator demonstration: the paper's operators run as a StarPU task
 * graph on a Gmsh mesh cut into blocks, errors against exact derivatives printed by
 * rank 0, fields written to a NetCDF-UGRID file. No StarPU or MPI types here, so that
 * cli/main.c stays free of them. */
#ifndef INSDG_DEMO_H
#define INSDG_DEMO_H

typedef struct {
  const char *mesh_path;
  int order;
  int blocks;            /* total blocks; <= 0: 4 per rank */
  const char *output;    /* NetCDF file, or NULL */
} insdg_demo_opts;

/* Initialises and shuts down the runtime itself. Returns the process exit status. */
int insdg_demo_run(int *argc, char ***argv, const insdg_demo_opts *opts);

#endif
