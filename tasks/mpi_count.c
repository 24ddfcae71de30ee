/* mpi_count.c -- the MPI profiling interface (MPI standard, §14.2): these definitions of
 * MPI_Isend, MPI_Issend, MPI_Send, MPI_Ssend, MPI_Test, MPI_Testall and the collectives
 * insdg calls (MPI_Allreduce, MPI_Bcast, MPI_Allgather, MPI_Iallgather, MPI_Iallgatherv)
 * take the place of the library's for the whole process, count, and call the PMPI_
 * entry points. The program links this file because runtime.c calls
 * insdg_mpi_counters_get. Counters are atomic: worker threads (the exchange tasks) and
 * the main thread both call MPI. */
#include "mpi_count.h"

#include <mpi.h>
#include <stdatomic.h>

static atomic_long messages, bytes, tests, collectives;

static void sent(int count, MPI_Datatype type)
{
  int size = 0;
  PMPI_Type_size(type, &size);
  atomic_fetch_add_explicit(&messages, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&bytes, (long)count * size, memory_order_relaxed);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  sent(count, type);
  return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  sent(count, type);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
  atomic_fetch_add_explicit(&tests, 1, memory_order_relaxed);
  return PMPI_Test(req, flag, status);
}

int MPI_Testall(int n, MPI_Request req[], int *flag, MPI_Status status[])
{
  atomic_fetch_add_explicit(&tests, 1, memory_order_relaxed);
  return PMPI_Testall(n, req, flag, status);
}

static void collective(void) { atomic_fetch_add_explicit(&collectives, 1, memory_order_relaxed); }

int MPI_Allgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u, MPI_Comm comm)
{
  collective();
  return PMPI_Allgather(in, n, t, out, m, u, comm);
}

int MPI_Iallgather(const void *in, int n, MPI_Datatype t, void *out, int m, MPI_Datatype u, MPI_Comm comm,
                   MPI_Request *req)
{
  collective();
  return PMPI_Iallgather(in, n, t, out, m, u, comm, req);
}

int MPI_Iallgatherv(const void *in, int n, MPI_Datatype t, void *out, const int counts[], const int displs[],
                    MPI_Datatype u, MPI_Comm comm, MPI_Request *req)
{
  collective();
  return PMPI_Iallgatherv(in, n, t, out, counts, displs, u, comm, req);
}

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  atomic_fetch_add_explicit(&collectives, 1, memory_order_relaxed);
  return PMPI_Allreduce(in, out, count, type, op, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  atomic_fetch_add_explicit(&collectives, 1, memory_order_relaxed);
  return PMPI_Bcast(buf, count, type, root, comm);
}

void insdg_mpi_counters_get(long *m, long *b, long *t, long *c)
{
  *m = atomic_load(&messages), *b = atomic_load(&bytes), *t = atomic_load(&tests), *c = atomic_load(&collectives);
}
