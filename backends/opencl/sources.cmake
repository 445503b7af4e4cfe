# The OpenCL backend's sources, for the top-level CMakeLists.txt, which includes this file when it
# builds with OpenCL (DUET_HAVE_OPENCL) and links OpenCL::OpenCL and OpenCL::HeadersCpp. The API
# level (OpenCL 1.2) is fixed in cl_api.hpp, not here, so it cannot differ between build systems.
set(DUET_OPENCL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queue.cpp
)
