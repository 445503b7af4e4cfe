# The CUDA backend, included by core/CMakeLists.txt: built when DUET_WITH_CUDA is on and the CUDA
# toolkit is found. It needs only the toolkit's headers: libcuda and libnvrtc are loaded at run
# time, so libduet links neither, only ${CMAKE_DL_LIBS} for dlopen. DUET_CUDA_TOOLKIT_LIBDIR lets
# NVRTC also be looked for in the toolkit duet was built with.
if(NOT DUET_WITH_CUDA)
  duet_backend_left_out(cuda "duet was built without the CUDA toolkit (DUET_WITH_CUDA=OFF)")
  return()
endif()
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  duet_backend_left_out(cuda "duet was built without the CUDA toolkit")
  message(STATUS "duet: CUDA toolkit not found, the CUDA backend is left out")
  return()
endif()
target_sources(duet_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/buffer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/driver_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tiled_copy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_params.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvrtc_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/queue.cpp)
target_include_directories(duet_core PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/nvrtc_api.cpp PROPERTIES
  COMPILE_DEFINITIONS "DUET_CUDA_TOOLKIT_LIBDIR=\"${CUDAToolkit_LIBRARY_DIR}\"")
duet_backend_built(cuda)
message(STATUS "duet: CUDA backend enabled (toolkit ${CUDAToolkit_VERSION} headers)")
