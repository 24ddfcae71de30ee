/* checkpoint.c -- see checkpoint.h. */
#include "checkpoint.h"

#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define NC_TRY(call, what)                                                                       \
  do {                                                                                           \
    const int nc_status_ = (call);                                                               \
    if (nc_status_ != NC_NOERR) {                                                                \
      snprintf(err, errlen, "%s: %s (%s)", path, nc_strerror(nc_status_), what);                 \
      goto fail;                                                                                 \
    }                                                                                            \
  } while (0)

/* rank 0's status and message to every rank */
static int agree(insdg_tasks *T, int status, char *err, size_t errlen)
{
  MPI_Bcast(&status, 1, MPI_INT, 0, T->comm);
  if (status) MPI_Bcast(err, (int)errlen, MPI_CHAR, 0, T->comm);
  return status;
}

int insdg_checkpoint_write(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                           char *err, size_t errlen)
{
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[INSDG_INS_MAX_STATE];
  const int nf = insdg_ins_state(ins, fields, names);
  const insdg_mesh *m = T->L->mesh;
  const size_t n = (size_t)m->K * m->ref->Np;
  double *buf = insdg_malloc(sizeof(double) * n), t, t_hist[4];
  int steps, status = 0, ncid = -1, dim, var[INSDG_INS_MAX_STATE];
  char tmp[4200];
  err[0] = 0;
  insdg_ins_state_times(ins, &t, &steps, t_hist);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (T->rank == 0) {
    NC_TRY(nc_create(tmp, NC_NETCDF4 | NC_CLOBBER, &ncid), "creating the checkpoint");
    NC_TRY(nc_def_dim(ncid, "node", n, &dim), "defining the node dimension");
    for (int k = 0; k < nf; ++k) NC_TRY(nc_def_var(ncid, names[k], NC_DOUBLE, 1, &dim, &var[k]), names[k]);
    NC_TRY(nc_put_att_text(ncid, NC_GLOBAL, "description",
                           strlen("insdg checkpoint: state of the BDF/EXT splitting scheme, original element order"),
                           "insdg checkpoint: state of the BDF/EXT splitting scheme, original element order"),
           "attributes");
    NC_TRY(nc_put_att_double(ncid, NC_GLOBAL, "time", NC_DOUBLE, 1, &t), "attributes");
    NC_TRY(nc_put_att_double(ncid, NC_GLOBAL, "history_times", NC_DOUBLE, 4, t_hist), "attributes");
    NC_TRY(nc_put_att_int(ncid, NC_GLOBAL, "steps", NC_INT, 1, &steps), "attributes");
    const int ints[4] = {info->N, info->K, info->S, info->Ns};
    NC_TRY(nc_put_att_int(ncid, NC_GLOBAL, "N_K_S_Ns", NC_INT, 4, ints), "attributes");
    NC_TRY(nc_put_att_double(ncid, NC_GLOBAL, "dt", NC_DOUBLE, 1, &info->dt), "attributes");
    NC_TRY(nc_enddef(ncid), "leaving define mode");
  }
fail:
  status = agree(T, err[0] && T->rank == 0 ? 1 : 0, err, errlen);
  for (int k = 0; k < nf && !status; ++k) {   /* every rank gathers, rank 0 writes */
    insdg_dfield_gather(fields[k], buf);
    if (T->rank == 0) {
      const int s = nc_put_var_double(ncid, var[k], buf);
      if (s != NC_NOERR) snprintf(err, errlen, "%s: %s (writing %s)", path, nc_strerror(s), names[k]), status = 1;
    }
    status = agree(T, status, err, errlen);
  }
  if (T->rank == 0 && ncid >= 0) {
    const int s = nc_close(ncid);
    if (!status && s != NC_NOERR) snprintf(err, errlen, "%s: %s (closing)", path, nc_strerror(s)), status = 1;
    if (!status && rename(tmp, path) != 0) snprintf(err, errlen, "%s: cannot rename %s into place", path, tmp), status = 1;
    if (status) remove(tmp);
  }
  free(buf);
  return agree(T, status, err, errlen);
}

int insdg_checkpoint_read(const char *path, insdg_tasks *T, insdg_ins *ins, const insdg_checkpoint_info *info,
                          char *err, size_t errlen)
{
  insdg_dfield *fields[INSDG_INS_MAX_STATE];
  const char *names[INSDG_INS_MAX_STATE];
  const int nf = insdg_ins_state(ins, fields, names);
  const insdg_layout *L = T->L;
  const int Np = L->mesh->ref->Np, K = L->mesh->K;
  const size_t n = (size_t)K * Np;
  double *orig = insdg_malloc(sizeof(double) * n), *renum = insdg_malloc(sizeof(double) * n), t, t_hist[4], dt;
  int ncid = -1, steps, ints[4], status = 0;
  size_t len;
  err[0] = 0;
  NC_TRY(nc_open(path, NC_NOWRITE, &ncid), "opening the checkpoint");
  NC_TRY(nc_get_att_int(ncid, NC_GLOBAL, "N_K_S_Ns", ints), "reading N, K, S, Ns");
  NC_TRY(nc_get_att_double(ncid, NC_GLOBAL, "dt", &dt), "reading dt");
  if (ints[0] != info->N || ints[1] != info->K || ints[2] != info->S || ints[3] != info->Ns || dt != info->dt) {
    snprintf(err, errlen,
             "%s: written for N=%d, K=%d, S=%d, Ns=%d, dt=%g but this run has N=%d, K=%d, S=%d, Ns=%d, dt=%g", path,
             ints[0], ints[1], ints[2], ints[3], dt, info->N, info->K, info->S, info->Ns, info->dt);
    goto fail;
  }
  NC_TRY(nc_get_att_double(ncid, NC_GLOBAL, "time", &t), "reading the time");
  NC_TRY(nc_get_att_double(ncid, NC_GLOBAL, "history_times", t_hist), "reading the history times");
  NC_TRY(nc_get_att_int(ncid, NC_GLOBAL, "steps", &steps), "reading the step count");
  for (int k = 0; k < nf; ++k) {
    int var, dim;
    NC_TRY(nc_inq_varid(ncid, names[k], &var), names[k]);
    NC_TRY(nc_inq_vardimid(ncid, var, &dim), names[k]);
    NC_TRY(nc_inq_dimlen(ncid, dim, &len), names[k]);
    if (len != n) {
      snprintf(err, errlen, "%s: %s has %zu values, the mesh needs %zu", path, names[k], len, n);
      goto fail;
    }
    NC_TRY(nc_get_var_double(ncid, var, orig), names[k]);
    for (int e = 0; e < K; ++e)   /* original order -> renumbered */
      memcpy(renum + (size_t)e * Np, orig + (size_t)L->old_elem[e] * Np, sizeof(double) * Np);
    insdg_dfield_set(fields[k], renum);
  }
  insdg_ins_restore_state(ins, t, steps, t_hist);
fail:
  if (ncid >= 0) nc_close(ncid);
  status = err[0] != 0;
  free(orig), free(renum);
  /* every rank read the same file: the same outcome everywhere, but agree anyway */
  int any = status;
  MPI_Allreduce(&status, &any, 1, MPI_INT, MPI_MAX, T->comm);
  if (any && !status) snprintf(err, errlen, "%s: another rank could not read the checkpoint", path);
  return any;
}
