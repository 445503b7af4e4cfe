// What duet's shared libraries export. libduet and its modules are built with hidden visibility
// (CMake's CXX_VISIBILITY_PRESET hidden), so only what is marked DUET_API is part of their ABI: the
// classes and functions of the installed headers. Everything else stays inside its library.
//
// Mark every public class with out-of-line members or a vtable, and every public function defined
// in a library. Classes whose type information crosses libraries must be marked even when all
// their members are inline: the exceptions (caught in a module, in Python or in a user's program)
// and anything caught or cast by type, or a catch in another library no longer matches.
//
// One macro serves the core and every module: on ELF a symbol is exported or not, whichever
// library declares it, so they need no macro of their own (Windows, where they would, is not a
// platform duet builds for).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define DUET_API __attribute__((visibility("default")))
#else
#define DUET_API
#endif
