/* test_init_order.c -- StarPU started in two rounds on the ranks of a node (tasks/runtime.c,
 * starpu_init_in_turn): the first rank of each STARPU_HOSTNAME and STARPU_HOME alone, then the
 * others, so that two ranks never write and read StarPU's bus calibration files at once.
 *
 * 1. insdg_runtime_first_of_kind on a table of keys (which ranks go first).
 * 2. Run on 3 ranks (mpirun -np 3): a fresh STARPU_HOME made by rank 0 (no bus files: the
 *    first ranks measure and write them), ranks 0 and 1 with one STARPU_HOSTNAME, rank 2 with
 *    another (two first ranks, 0 and 2, and one that waits for them, 1): every rank starts
 *    StarPU with one CPU worker and runs a task, and the files of both names are there
 *    afterwards. (Without the two rounds a start on a fresh STARPU_HOME aborted on a
 *    half-written file in 1 of 15-20 starts of 2 ranks under load; that race is not forced
 *    here, the start in rounds with mixed names is what this runs.) */
#include <mpi.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "expect.h"
#include "runtime.h"

static void touch(void *buffers[], void *arg)
{
  (void)buffers;
  *(int *)arg = 1;
}

static struct starpu_codelet cl = {.cpu_funcs = {touch}, .nbuffers = 0, .name = "touch"};

static void first_of_kind(void)
{
  enum { W = 8 };
  const char keys[][W] = {"a|h", "b|h", "a|h", "a|x", "b|h", "a|h"};
  const int want[] = {1, 1, 0, 1, 0, 0}, n = 6;
  for (int r = 0; r < n; ++r)
    EXPECT(insdg_runtime_first_of_kind(&keys[0][0], W, n, r) == want[r], "key %d (%s): first %d, expected %d", r,
           keys[r], insdg_runtime_first_of_kind(&keys[0][0], W, n, r), want[r]);
  /* keys that differ only past the width compare equal */
  const char wide[][4] = {{'a', 'b', 'c', 'd'}, {'a', 'b', 'c', 'd'}};
  EXPECT(insdg_runtime_first_of_kind(&wide[0][0], 4, 2, 1) == 0, "unterminated equal keys");
}

int main(int argc, char **argv)
{
  setenv("INSDG_DIRECT", "0", 1);   /* its own StarPU tasks need StarPU's workers (runtime.h) */
  setenv("INSDG_HOST_WORKER", "0", 1);
  char err[256];
  if (insdg_runtime_init_mpi(&argc, &argv, err, sizeof err)) insdg_die_user(err);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) first_of_kind();
  char home[256] = "";
  if (rank == 0) {
    strcpy(home, "/tmp/insdg-init-order.XXXXXX");
    INSDG_CHECK(mkdtemp(home) != NULL);
  }
  MPI_Bcast(home, sizeof home, MPI_CHAR, 0, MPI_COMM_WORLD);
  setenv("STARPU_HOME", home, 1);
  setenv("STARPU_HOSTNAME", rank == 2 ? "init-order-b" : "init-order-a", 1);
  insdg_runtime_opts opts = {.ncpu = 1};
  const int failed = insdg_runtime_init_starpu(&opts, err, sizeof err);
  EXPECT(!failed, "rank %d: StarPU did not start: %s", rank, err);
  int ran = 0;
  if (!failed) {
    struct starpu_task *t = starpu_task_create();
    t->cl = &cl, t->cl_arg = &ran, t->synchronous = 1;
    EXPECT(starpu_task_submit(t) == 0, "rank %d: submit", rank);
    EXPECT(ran == 1, "rank %d: the task did not run", rank);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int k = 0; k < (size > 2 ? 2 : 1); ++k) {
      char path[512];
      snprintf(path, sizeof path, "%s/.starpu/sampling/bus/init-order-%c.config", home, "ab"[k]);
      EXPECT(access(path, R_OK) == 0, "no bus file %s", path);
    }
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!failed) insdg_runtime_shutdown();
  else MPI_Finalize();
  if (rank == 0) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    if (system(cmd) != 0) printf("could not remove %s\n", home);
    printf("test_init_order: %d failure(s) on %d rank(s)\n", all, size);
  }
  return all != 0;
}
