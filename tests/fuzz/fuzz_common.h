/* fuzz_common.h -- what the libFuzzer targets of tests/fuzz share: a scratch directory
 * (under $TMPDIR, else /dev/shm, else /tmp) made once per process and removed at exit,
 * writing the input bytes into one fixed file there, and the checks of an error message.
 * Header-only, test code. */
#ifndef INSDG_TEST_FUZZ_COMMON_H
#define INSDG_TEST_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fail loudly: libFuzzer reports the abort with the input that caused it. */
#define FUZZ_REQUIRE(cond, ...)                                                     \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "fuzz: invariant broken: %s (%s:%d): ", #cond, __FILE__,     \
              __LINE__);                                                            \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fputc('\n', stderr);                                                          \
      abort();                                                                      \
    }                                                                               \
  } while (0)

/* The scratch directory of this process (created on the first call). */
static char fuzz_root[1024];
/* Files and directories made under it, removed at exit (deepest last made, first removed). */
static char fuzz_made[32][1200];
static int fuzz_nmade;

static inline void fuzz_cleanup(void)
{
  for (int i = fuzz_nmade - 1; i >= 0; i--) remove(fuzz_made[i]);
  if (fuzz_root[0]) rmdir(fuzz_root);
}

static inline const char *fuzz_scratch(const char *tag)
{
  if (fuzz_root[0]) return fuzz_root;
  const char *base = getenv("TMPDIR");
  struct stat st;
  if (!base || !*base || stat(base, &st) != 0 || !S_ISDIR(st.st_mode))
    base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  snprintf(fuzz_root, sizeof fuzz_root, "%s/insdg_%s.XXXXXX", base, tag);
  if (!mkdtemp(fuzz_root)) {
    perror(fuzz_root);
    abort();
  }
  atexit(fuzz_cleanup);
  return fuzz_root;
}

/* Remember root/rel for removal at exit; returns the full path (static storage). */
static inline const char *fuzz_path(const char *rel)
{
  FUZZ_REQUIRE(fuzz_nmade < (int)(sizeof fuzz_made / sizeof fuzz_made[0]), "too many files");
  char *p = fuzz_made[fuzz_nmade++];
  snprintf(p, sizeof fuzz_made[0], "%s/%s", fuzz_root, rel);
  return p;
}

static inline void fuzz_mkdir(const char *rel)
{
  const char *p = fuzz_path(rel);
  if (mkdir(p, 0700) != 0 && errno != EEXIST) {
    perror(p);
    abort();
  }
}

/* Replace the contents of path by data[0..size) (O_CREAT|O_TRUNC: one name per process). */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    perror(path);
    abort();
  }
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      perror(path);
      abort();
    }
    data += n, size -= (size_t)n;
  }
  if (close(fd) != 0) {
    perror(path);
    abort();
  }
}

/* A reader's message after a failure (printed when INSDG_FUZZ_VERBOSE is set): err[0..errlen) was filled with 'X' up to
   err[errlen + 7] before the call. It must be NUL-terminated inside the buffer, leave the
   bytes after it alone, and (for a buffer of full size) be one non-empty line starting with
   the path. */
static inline void fuzz_check_message(const char *err, size_t errlen, int full, const char *path)
{
  static int verbose = -1;   /* INSDG_FUZZ_VERBOSE set: print every message (reproducing) */
  if (verbose < 0) verbose = getenv("INSDG_FUZZ_VERBOSE") != NULL;
  if (verbose && memchr(err, '\0', errlen)) fprintf(stderr, "fuzz: message: %s\n", err);
  FUZZ_REQUIRE(memchr(err, '\0', errlen) != NULL, "message not NUL-terminated within %zu bytes",
               errlen);
  for (size_t i = errlen; i < errlen + 8; i++)
    FUZZ_REQUIRE(err[i] == 'X', "message written past its %zu-byte buffer", errlen);
  if (!full) return;
  FUZZ_REQUIRE(err[0] != '\0', "empty message");
  FUZZ_REQUIRE(strncmp(err, path, strlen(path)) == 0, "message does not start with the path: %s",
               err);
  FUZZ_REQUIRE(strchr(err, '\n') == NULL, "message of more than one line: %s", err);
}

/* The size of the message buffer for this input: mostly the full INSDG_ERRMSG_LEN-sized one;
   one input size in eight gets a short buffer (1..61 bytes) to check truncation. */
static inline size_t fuzz_errlen(size_t size, size_t full)
{
  return size % 8 == 7 ? 1 + size % 61 : full;
}

#endif
