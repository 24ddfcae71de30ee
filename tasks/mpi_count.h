/* mpi_count.h -- counts of this rank's MPI calls, by PMPI wrappers (mpi_count.c) */
#ifndef INSDG_MPI_COUNT_H
#define INSDG_MPI_COUNT_H

/* point-to-point messages sent and their bytes, MPI_Test calls, collectives, since start */
void insdg_mpi_counters_get(long *messages, long *bytes, long *tests, long *collectives);

#endif
