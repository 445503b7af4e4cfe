# The CUDA backend's sources, for the top-level CMakeLists.txt to add to libduet when the CUDA
# toolkit is found. The backend needs only the toolkit's headers (CUDAToolkit_INCLUDE_DIRS): libcuda
# and libnvrtc are loaded at run time, so libduet must link neither, only ${CMAKE_DL_LIBS} for
# dlopen. Define DUET_HAVE_CUDA, and DUET_CUDA_TOOLKIT_LIBDIR="<toolkit lib dir>" so NVRTC is also
# looked for in the toolkit duet was built with.
set(DUET_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/driver_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvrtc_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queue.cpp
)
