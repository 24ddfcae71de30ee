/* case_check.c -- read a case file as the program will, for the tests of its messages.
 *
 * Usage: case_check FILE.ini [MESH_BOUNDARY_NAME ...]. Reads the case file and, when
 * boundary names are given, checks the case against them as if they were the mesh's
 * boundary physical names. On a user error prints "insdg: error: <message>" (one line)
 * and exits 2; otherwise prints the case's summary on stdout and exits 0.
 */
#include "case.h"
#include "error.h"

#include <stdio.h>

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE.ini [MESH_BOUNDARY_NAME ...]\n", argv[0]);
    return 1;
  }
  char err[INSDG_ERRMSG_LEN];
  insdg_case *c;
  if (insdg_case_read(argv[1], &c, err, sizeof err) != 0) insdg_die_user(err);
  if (argc > 2 &&
      insdg_case_check_boundaries(c, (const char *const *)argv + 2, argc - 2, err, sizeof err)) {
    insdg_case_destroy(c);
    insdg_die_user(err);
  }
  insdg_case_print(c, stdout);
  insdg_case_destroy(c);
  return 0;
}
