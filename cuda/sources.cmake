# The GPU kernel sources (cuda/<name>.cu), one list for both builds: cuda/CMakeLists.txt
# compiles them with nvcc, hip/CMakeLists.txt with hipcc.
set(INSDG_GPU_SOURCES gpu_runtime local_gradient grad_div sipdg adv_volume adv_surface mass_pmg vector curved)
set(INSDG_GPU_HEADERS gpu_port.h gpu_common.cuh insdg_gpu.h)
