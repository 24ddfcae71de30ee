/* fuzz_text.h -- what the mutation fuzzers (fuzz_gmsh.c, fuzz_case.c) share: a
 * deterministic random source (splitmix64, seeded by FUZZ_SEED, defined before the
 * include), a growable text buffer, and the line-level mutations. Header-only, test code. */
#ifndef INSDG_TEST_FUZZ_TEXT_H
#define INSDG_TEST_FUZZ_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static uint64_t rng_state = FUZZ_SEED;

static uint64_t rng_next(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 */
static size_t rng_below(size_t n)
{
  return (size_t)(rng_next() % n);
}

typedef struct {
  char *data;
  size_t len, cap;
} text;

static void text_reserve(text *t, size_t len)
{
  if (len + 1 <= t->cap) return;
  size_t cap = 2 * t->cap > len + 1 ? 2 * t->cap : len + 1;
  char *p = insdg_malloc(cap);
  if (t->len) memcpy(p, t->data, t->len);
  free(t->data);
  t->data = p;
  t->cap = cap;
}

/* Replace bytes [at, at + del) with the n bytes of ins. */
static void text_splice(text *t, size_t at, size_t del, const char *ins, size_t n)
{
  text_reserve(t, t->len - del + n);
  memmove(t->data + at + n, t->data + at + del, t->len - at - del);
  memcpy(t->data + at, ins, n);
  t->len = t->len - del + n;
}

/* Start of the line containing byte at, and the length of that line with its '\n'. */
static size_t line_around(const text *t, size_t at, size_t *len)
{
  size_t start = at, end = at;
  while (start > 0 && t->data[start - 1] != '\n') start--;
  while (end < t->len && t->data[end] != '\n') end++;
  *len = end - start + (end < t->len);
  return start;
}

static void mutate_truncate(text *t)
{
  t->len = t->len ? rng_below(t->len) : 0;
}

static void mutate_delete_line(text *t)
{
  if (!t->len) return;
  size_t len, start = line_around(t, rng_below(t->len), &len);
  text_splice(t, start, len, "", 0);
}

static void mutate_duplicate_line(text *t)
{
  if (!t->len) return;
  size_t len, start = line_around(t, rng_below(t->len), &len);
  char *copy = insdg_malloc(len + 1);
  memcpy(copy, t->data + start, len);
  text_splice(t, start, 0, copy, len);
  free(copy);
}

static void mutate_swap_lines(text *t)
{
  if (!t->len) return;
  size_t la, a = line_around(t, rng_below(t->len), &la);
  size_t lb, b = line_around(t, rng_below(t->len), &lb);
  if (a == b) return;
  if (a > b) {
    size_t s = a; a = b; b = s;
    s = la; la = lb; lb = s;
  }
  if (a + la > b) return;   /* last line without '\n' overlaps nothing, but be safe */
  char *first = insdg_malloc(la + 1), *second = insdg_malloc(lb + 1);
  memcpy(first, t->data + a, la);
  memcpy(second, t->data + b, lb);
  text_splice(t, b, lb, first, la);
  text_splice(t, a, la, second, lb);
  free(first);
  free(second);
}

/* The fuzzing loop: each iteration copies one of the two seeds, applies 1 to 4 mutations,
   and hands the text to run_once (which writes it to path, reads it and checks the
   invariants; short_buffer every 10th call); an input that breaks an invariant is kept as
   /tmp/insdg_fuzz_<name>_fail_<it><suffix>. Returns the number of such inputs. */
static int fuzz_loop(const char *name, const char *suffix, const text seeds[2], int iterations,
                     void (*mutate)(text *), int (*run_once)(const text *, const char *, int, int *))
{
  char path[64];
  snprintf(path, sizeof path, "/tmp/insdg_fuzz_%s_XXXXXX", name);
  const int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  int nbad = 0, nread = 0;
  text t = {0};
  for (int it = 0; it < iterations; it++) {
    const text *seed = &seeds[it % 2];
    t.len = 0;
    text_splice(&t, 0, 0, seed->data, seed->len);
    const int nmut = 1 + (int)rng_below(4);
    for (int k = 0; k < nmut; k++) mutate(&t);
    if (!run_once(&t, path, it % 10 == 9, &nread)) {
      char keep[96];
      snprintf(keep, sizeof keep, "/tmp/insdg_fuzz_%s_fail_%d%s", name, it, suffix);
      fprintf(stderr, "fuzz_%s: iteration %d broke an invariant (input kept in %s)\n", name, it, keep);
      rename(path, keep);
      nbad++;
    }
  }
  unlink(path);
  free(t.data);
  printf("fuzz_%s: %d iterations, %d read successfully, %d invariant failures\n", name, iterations, nread, nbad);
  return nbad;
}

#endif
