# Embedding kernel sources into a library, so that nothing is ever read from the working directory.
#
#   duet_embed_kernels(<target> <file.duet>...)
#
# compiles each file into <target> as a string literal registered with duet when the library is
# loaded: duet::shared_kernel_source("<stem>") returns it and duet::extension::builtin_kernel(device,
# "<stem>", "<kernel>", defines) compiles it once per device (duet/extension.hpp). Any target that
# links duet::core may call it: the core's shared kernels, duet::blas, users' own libraries.
# Installed with the package, so projects outside duet's build can call it too.
set(_duet_embed_script ${CMAKE_CURRENT_LIST_DIR}/embed_sources.cmake)

function(duet_embed_kernels target)
  set(files "")
  foreach(file IN LISTS ARGN)
    get_filename_component(file "${file}" ABSOLUTE)
    list(APPEND files "${file}")
  endforeach()
  if(NOT files)
    message(FATAL_ERROR "duet_embed_kernels(${target}): no kernel files given")
  endif()
  set(output ${CMAKE_CURRENT_BINARY_DIR}/generated/${target}_kernels.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} "-DFILES=${files}" -DMODE=kernels -P ${_duet_embed_script}
    DEPENDS ${files} ${_duet_embed_script}
    COMMENT "Embedding the kernels of ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()

# duet_embed_text(<target> <file> <function> <header>): defines `const char* <function>()`
# (namespace-qualified, declared in <header>) returning the text of <file>; the core embeds the
# dialect prelude this way.
function(duet_embed_text target file function header)
  get_filename_component(file "${file}" ABSOLUTE)
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" stem "${function}")
  set(output ${CMAKE_CURRENT_BINARY_DIR}/generated/${stem}.cpp)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DFILES=${file} -DMODE=function -DFUNCTION=${function}
            -DHEADER=${header} -P ${_duet_embed_script}
    DEPENDS ${file} ${_duet_embed_script}
    COMMENT "Embedding ${file}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
