/* error.h -- the one error discipline of insdg.
 *
 * Two kinds of failure, two paths:
 *  - user errors (bad mesh, bad case file, bad option): the library functions that
 *    read user input return a nonzero status and fill a message buffer that names the
 *    file and the line, key or element; programs print it with insdg_die_user(), which
 *    exits with status 2 (INSDG_EXIT_USER).
 *  - internal errors (a broken invariant, a failed allocation, a LAPACK failure): the
 *    INSDG_CHECK macro prints the failing expression with its file and line and aborts.
 */
#ifndef INSDG_ERROR_H
#define INSDG_ERROR_H

#include <stddef.h>

#define INSDG_EXIT_USER 2

/* Size of the message buffers passed to functions that read user input. */
#define INSDG_ERRMSG_LEN 512

/* Print "insdg: error: <msg>" on stderr and exit with status 2. */
void insdg_die_user(const char *msg) __attribute__((noreturn));

/* Print the failed expression and its location on stderr and abort(). */
void insdg_internal_error(const char *file, int line, const char *what)
    __attribute__((noreturn));

#define INSDG_CHECK(cond)                                                     \
  do {                                                                        \
    if (!(cond)) insdg_internal_error(__FILE__, __LINE__, #cond);             \
  } while (0)

/* malloc/calloc that never return NULL (internal error on failure). calloc zeroes. */
void *insdg_malloc(size_t bytes);
void *insdg_calloc(size_t count, size_t size);

#endif
