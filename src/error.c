/* error.c -- see error.h: user errors exit 2 with one message, internal errors abort. */
#include "error.h"

#include <stdio.h>
#include <stdlib.h>

void insdg_die_user(const char *msg)
{
  fprintf(stderr, "insdg: error: %s\n", msg);
  exit(INSDG_EXIT_USER);
}

void insdg_internal_error(const char *file, int line, const char *what)
{
  fprintf(stderr, "insdg: internal error at %s:%d: %s\n", file, line, what);
  abort();
}

void *insdg_malloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p) insdg_internal_error(__FILE__, __LINE__, "out of memory");
  return p;
}

void *insdg_calloc(size_t count, size_t size)
{
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) insdg_internal_error(__FILE__, __LINE__, "out of memory");
  return p;
}
