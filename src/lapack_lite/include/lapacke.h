/* lapacke.h (lapack_lite) -- the LAPACKE names insdg uses, mapped onto lapack_lite.h.
 * On the include path of INSDG_GPU_ONLY builds only; see lapack_lite.h. */
#ifndef INSDG_LITE_LAPACKE_H
#define INSDG_LITE_LAPACKE_H

#include "../lapack_lite.h"

typedef int lapack_int;
#define LAPACK_ROW_MAJOR INSDG_LITE_ROW_MAJOR
#define LAPACK_COL_MAJOR INSDG_LITE_COL_MAJOR
#define LAPACKE_dstev insdg_lite_dstev
#define LAPACKE_dgetrf insdg_lite_dgetrf
#define LAPACKE_dgetrs insdg_lite_dgetrs
#define LAPACKE_dgesv insdg_lite_dgesv

#endif
