# ctest duet.build.library_only: configures duet from scratch with only the library switched on
# (no tools, tests or examples) while CLI11, libpng and doctest are hidden from CMake, so a
# dependency of the tools that leaks into the library's configure fails here.
# Run as: cmake -DSOURCE=<repo> -DBINARY=<scratch dir> -DGENERATOR=<generator> -P library_only_configure.cmake
file(REMOVE_RECURSE "${BINARY}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR}
          -DDUET_BUILD_TOOLS=OFF -DBUILD_TESTING=OFF -DDUET_BUILD_EXAMPLES=OFF
          -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON
          -DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "a library-only configure failed: the library needs a dependency of the tools or tests")
endif()
