/* expect.h -- the one assertion of the C test programs: EXPECT(cond, printf-args) counts a
 * failure in the file's `failures` and prints it with its location; the program returns
 * nonzero when failures > 0. Header-only, test code. */
#ifndef INSDG_TEST_EXPECT_H
#define INSDG_TEST_EXPECT_H

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                   \
  do {                                                                      \
    if (!(cond)) {                                                          \
      ++failures;                                                           \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                           \
      printf(__VA_ARGS__);                                                  \
      printf("\n");                                                         \
    }                                                                       \
  } while (0)

#endif
