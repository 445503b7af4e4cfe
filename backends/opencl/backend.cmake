# The OpenCL backend, included by core/CMakeLists.txt when DUET_WITH_OPENCL is on: the ICD loader
# (OpenCL::OpenCL) and the C and C++ headers. The API level (OpenCL 1.2) is fixed in cl_api.hpp,
# not here, so it cannot differ between build systems.
if(NOT DUET_WITH_OPENCL)
  duet_backend_left_out(opencl "duet was built without OpenCL (DUET_WITH_OPENCL=OFF)")
  return()
endif()
find_package(OpenCLHeaders REQUIRED)
find_package(OpenCLHeadersCpp REQUIRED)
find_package(OpenCL REQUIRED)
target_sources(duet_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/command_buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ptx_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ptx_program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queue.cpp)
target_link_libraries(duet_core PRIVATE OpenCL::HeadersCpp OpenCL::Headers OpenCL::OpenCL)
duet_backend_built(opencl)
