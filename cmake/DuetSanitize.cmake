# Sanitizer builds: -DDUET_SANITIZE=address,undefined (AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer) or -DDUET_SANITIZE=thread (ThreadSanitizer) compiles and links every
# target defined after this file is included (library, modules, tests, tools, examples) with
# -fsanitize=<list>. Undefined behaviour is not recoverable, so it fails the test that met it.
#
#   duet_sanitize_tests()
#
# gives every test of the calling folder the sanitizers' run-time options below, with LeakSanitizer's
# suppressions (tests/sanitizers/lsan.supp, which says what each covers). Every folder that adds
# tests calls it last; duet_sanitize_check_tests() at the end of the top-level CMakeLists.txt fails
# the configure when a folder with tests did not, so no test of a sanitizer build runs without them.
set(DUET_SANITIZE "" CACHE STRING
    "Sanitizers for every target: address,undefined or thread (empty: none); see cmake/DuetSanitize.cmake")

set(DUET_SANITIZE_ENVIRONMENT "")
if(DUET_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "DUET_SANITIZE needs GCC or Clang")
  endif()
  string(REPLACE "," ";" _duet_sanitizers "${DUET_SANITIZE}")
  foreach(_sanitizer IN LISTS _duet_sanitizers)
    if(NOT _sanitizer MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "DUET_SANITIZE: '${_sanitizer}' is not one of address, undefined, thread")
    endif()
  endforeach()
  if("thread" IN_LIST _duet_sanitizers AND "address" IN_LIST _duet_sanitizers)
    message(FATAL_ERROR "DUET_SANITIZE: thread and address cannot be combined; build them apart")
  endif()

  # Frame pointers keep duet's own frames in every report, at little cost. Undefined behaviour aborts
  # at once instead of printing and going on, so the test that met it fails.
  add_compile_options(-fsanitize=${DUET_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DUET_SANITIZE})
  if("undefined" IN_LIST _duet_sanitizers)
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()

  # The run-time options, the same for every test. None of them switches a check off; the ICD
  # loader and PoCL need no special option (protect_shadow_gap and the like) under ASan.
  # - detect_leaks=1: leaks fail the test (LeakSanitizer, on at exit), but for the third-party
  #   allocations listed in lsan.supp.
  # - fast_unwind_on_malloc=0: allocation stacks unwound with DWARF, not frame pointers. PoCL, its
  #   LLVM, Open MPI and glibc have no frame pointers, so the fast unwinder stops at their first
  #   frame, and lsan.supp could then only name whole libraries, which would hide duet's own leaks of
  #   driver objects too. It makes allocations slower: duet.nvrtc, where NVRTC allocates a great
  #   deal, goes back to frame pointers (tests/CMakeLists.txt).
  # - halt_on_error=1: the first report ends the process (ASan and UBSan do so anyway without
  #   recovery; said here so that no one's environment can change it).
  # - print_stacktrace=1: UBSan reports with the stack, not the line alone.
  # - use_tls=0: LeakSanitizer does not take thread-local storage as roots. Its walk of the dynamic
  #   TLS of dlopen'd libraries (PoCL's compiled kernels, the drivers) meets a garbage entry on
  #   Debian 12's glibc in some layouts and the leak check dies ("Tracer caught signal 11"); duet
  #   keeps nothing reachable from thread-local storage alone at exit. The TLS blocks themselves are
  #   then leaks that LeakSanitizer's own suppressions cover.
  # - print_suppressions=0: which suppressions matched is not news, and tests that want a quiet
  #   stderr (DUET_LOG=verbose prints nothing) must not see the list.
  # UBSan checks only the code compiled with it, duet's, so there is nothing of others' to suppress.
  # TSan needs no suppressions: PoCL is not instrumented, so TSan sees only its calls into libc
  # (pthread, memcpy), which order its worker threads' copies after duet's enqueue and before the
  # wait for them; a read of the host memory before that wait is reported.
  if("address" IN_LIST _duet_sanitizers)
    list(APPEND DUET_SANITIZE_ENVIRONMENT
      "ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:halt_on_error=1"
      "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:use_tls=0:print_suppressions=0")
  endif()
  if("undefined" IN_LIST _duet_sanitizers)
    list(APPEND DUET_SANITIZE_ENVIRONMENT "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
  endif()
  if("thread" IN_LIST _duet_sanitizers)
    list(APPEND DUET_SANITIZE_ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
  endif()
  message(STATUS "duet: sanitizers ${DUET_SANITIZE}, tests run with ${DUET_SANITIZE_ENVIRONMENT}")
endif()

function(duet_sanitize_tests)
  set_property(DIRECTORY PROPERTY DUET_SANITIZE_TESTS ON)
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(DUET_SANITIZE_ENVIRONMENT AND tests)
    set_property(TEST ${tests} APPEND PROPERTY ENVIRONMENT ${DUET_SANITIZE_ENVIRONMENT})
  endif()
endfunction()

function(duet_sanitize_check_tests dir)
  get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
  get_property(done DIRECTORY ${dir} PROPERTY DUET_SANITIZE_TESTS)
  if(tests AND NOT done)
    message(FATAL_ERROR "${dir} adds tests but does not call duet_sanitize_tests() after them")
  endif()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    duet_sanitize_check_tests(${subdir})
  endforeach()
endfunction()
