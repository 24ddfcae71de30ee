/* fuzz_gmsh.c -- deterministic mutation fuzzer for the Gmsh reader (io/gmsh.c).
 *
 * Usage: fuzz_gmsh MESHDIR [ITERATIONS]. Starts from the valid square22.msh and
 * square41.msh, applies 1 to 4 random mutations per iteration (byte changes including
 * NUL, truncation, deleted / duplicated / swapped lines, numbers replaced by huge,
 * negative or garbage values, stray section markers), writes the result to a temporary
 * file and reads it. The seed is fixed, so every run sees the same inputs.
 *
 * Invariants checked on every call: success gives indices inside their arrays and
 * NUL-terminated names (then the mesh is freed); failure gives a zeroed result and one
 * non-empty line containing the path; a short message buffer is never overrun. Memory
 * errors and leaks are left to -fsanitize=address,undefined builds. With the environment
 * variable FUZZ_GMSH_VERBOSE set, every error message is printed.
 * Exit status: 0 if every iteration satisfied the invariants, 1 otherwise.
 */
#include "error.h"
#include "gmsh.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the shared random source, text buffer and line mutations */
#define FUZZ_SEED 0x1d5e6a7b3c2f9081ULL
#include "fuzz_text.h"

static int load(const char *path, text *t)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) text_splice(t, t->len, 0, buf, n);
  fclose(f);
  return 0;
}

/* ---- mutations ----------------------------------------------------------------------- */

static void mutate_byte(text *t)
{
  if (!t->len) return;
  char c = (char)rng_below(256);
  t->data[rng_below(t->len)] = c;
}

static const char *const replacements[] = {
    "99999999999999999999", "-1", "0", "2147483647", "2147483648", "-2147483648",
    "4294967297", "1e308", "-1e308", "1e-320", "nan", "inf", "0x10", "", "abc", "1.5",
    "\"", "\"quoted name\"", "$End", "$Nodes", "-0", "+3", "3.0", "1 2", "\t", "\r"};

/* Replace the number (run of digits, signs, '.', 'e') around a random byte. */
static void mutate_number(text *t)
{
  if (!t->len) return;
  size_t at = rng_below(t->len), end = at;
  const char *num = "0123456789+-.eE";
  while (at > 0 && strchr(num, t->data[at - 1]) && t->data[at - 1]) at--;
  while (end < t->len && t->data[end] && strchr(num, t->data[end])) end++;
  const char *r = replacements[rng_below(sizeof replacements / sizeof replacements[0])];
  text_splice(t, at, end - at, r, strlen(r));
}

static const char *const markers[] = {"$Nodes\n", "$EndNodes\n", "$Elements\n",
                                      "$EndElements\n", "$PhysicalNames\n", "$Entities\n",
                                      "$MeshFormat\n", "$Foo\n", "\n", "\"\n"};

static void mutate_insert_marker(text *t)
{
  size_t len, start = t->len ? line_around(t, rng_below(t->len), &len) : 0;
  const char *m = markers[rng_below(sizeof markers / sizeof markers[0])];
  text_splice(t, start, 0, m, strlen(m));
}

static void mutate(text *t)
{
  switch (rng_below(10)) {
  case 0: mutate_byte(t); break;
  case 1: mutate_truncate(t); break;
  case 2: mutate_delete_line(t); break;
  case 3: mutate_duplicate_line(t); break;
  case 4: mutate_swap_lines(t); break;
  case 5: mutate_insert_marker(t); break;
  default: mutate_number(t); break;
  }
}

/* ---- the invariants ------------------------------------------------------------------ */

static int check_success(const insdg_gmsh *m)
{
  int ok = m->nnodes >= 0 && m->ntri >= 0 && m->nline >= 0 && m->nphys >= 0;
  for (int i = 0; ok && i < 3 * m->ntri; i++) ok = m->tri[i] >= 0 && m->tri[i] < m->nnodes;
  for (int i = 0; ok && i < 2 * m->nline; i++)
    ok = m->line[i] >= 0 && m->line[i] < m->nnodes;
  for (int i = 0; ok && i < m->nphys; i++)
    ok = memchr(m->phys[i].name, '\0', sizeof m->phys[i].name) != NULL;
  return ok;
}

static int check_failure(const insdg_gmsh *m, const char *err, const char *path)
{
  static const insdg_gmsh zero;
  return err[0] != '\0' && strstr(err, path) == err && strchr(err, '\n') == NULL &&
         memcmp(m, &zero, sizeof zero) == 0;
}

/* One read of the mutated text; returns 1 if the invariants hold. */
static int run_once(const text *t, const char *path, int short_buffer, int *nread)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(t->data, 1, t->len, f) != t->len || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  insdg_gmsh m;
  char err[INSDG_ERRMSG_LEN + 8];
  memset(err, 'X', sizeof err);
  size_t errlen = short_buffer ? 1 + rng_below(40) : INSDG_ERRMSG_LEN;
  int status = insdg_gmsh_read(path, &m, err, errlen);
  if (status == 0) {
    int ok = check_success(&m);
    insdg_gmsh_free(&m);
    (*nread)++;
    return ok;
  }
  if (getenv("FUZZ_GMSH_VERBOSE")) printf("%s\n", err);
  if (short_buffer)   /* terminated inside the buffer, nothing written past it */
    return memchr(err, '\0', errlen) != NULL && err[errlen] == 'X';
  return check_failure(&m, err, path);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s MESHDIR [ITERATIONS]\n", argv[0]);
    return 2;
  }
  const int iterations = argc > 2 ? atoi(argv[2]) : 4000;
  static const char *const seeds[2] = {"square22.msh", "square41.msh"};
  text original[2] = {{0}, {0}};
  for (int s = 0; s < 2; s++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], seeds[s]);
    if (load(path, &original[s]) != 0) {
      perror(path);
      return 1;
    }
  }
  const int nbad = fuzz_loop("gmsh", ".msh", original, iterations, mutate, run_once);
  free(original[0].data);
  free(original[1].data);
  return nbad != 0;
}
