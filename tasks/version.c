/* version.c -- version.h; INSDG_VERSION comes from CMake's project(), the commit from the
 * header cmake/build_info.cmake regenerates at every build. */
#include "version.h"

#include "insdg_build_info.h"

const char *insdg_version_string(void)
{
  return "insdg " INSDG_VERSION " (commit " INSDG_BUILD_COMMIT ", " INSDG_BUILD_COMMIT_DATE ")";
}
