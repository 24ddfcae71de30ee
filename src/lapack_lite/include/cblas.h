/* cblas.h (lapack_lite) -- cblas_dgemm mapped onto lapack_lite.h. On the include path of
 * INSDG_GPU_ONLY builds only; see lapack_lite.h. */
#ifndef INSDG_LITE_CBLAS_H
#define INSDG_LITE_CBLAS_H

#include "../lapack_lite.h"

enum CBLAS_ORDER { CblasRowMajor = INSDG_LITE_ROW_MAJOR, CblasColMajor = INSDG_LITE_COL_MAJOR };
enum CBLAS_TRANSPOSE { CblasNoTrans = INSDG_LITE_NOTRANS, CblasTrans = INSDG_LITE_TRANS };
#define cblas_dgemm (void)insdg_lite_dgemm

#endif
