/* version.h -- what insdg this is: the version, the git commit it was built from (with
 * "+modified" when the tree had uncommitted changes) and that commit's date. Printed by
 * `insdg --version`, at the start of `insdg run`'s log and in summary.json. */
#ifndef INSDG_VERSION_H
#define INSDG_VERSION_H

/* "insdg 0.1 (commit 0629065abcde, 2026-11-26)" */
const char *insdg_version_string(void);

#endif
