# duet_add_module(<name> SOURCES <file>... [KERNELS <file.duet>...] [LINK <target>...]): a module of
# duet in the current folder: the shared library duet_<name> (alias and export name duet::<name>),
# linking the core and LINK publicly, built with hidden visibility (its headers mark what it exports
# with DUET_API), with its public headers in include/ (installed with the core's, under include/duet)
# and its dialect kernels embedded in namespace duet.<name>
# (duet_embed_kernels: its code finds them through embedded_kernels). The caller
# decides how it is installed and exported: modules without dependencies of their own join
# duet::duet (DUET_MODULE_TARGETS), others get an export of their own.
function(duet_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 module "" "" "SOURCES;KERNELS;LINK")
  set(target duet_${name})
  add_library(${target} SHARED ${module_SOURCES})
  add_library(duet::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES
    EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    INSTALL_RPATH "$ORIGIN")
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  # As libduet: only what the module's headers mark DUET_API (duet/export.hpp) is exported. A fuzzing
  # build keeps every symbol visible, as it does for the core.
  if(NOT DUET_BUILD_FUZZERS)
    set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  endif()
  target_link_libraries(${target} PUBLIC duet_core ${module_LINK})
  if(module_KERNELS)
    duet_embed_kernels(${target} NAMESPACE duet.${name} ${module_KERNELS})
  endif()
  install(DIRECTORY include/duet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
