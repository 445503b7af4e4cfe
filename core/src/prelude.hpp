// The dialect prelude (core/kernels/prelude.h), embedded into libduet at build time (duet_embed_text in
// core/CMakeLists.txt) so nothing is ever read from the working directory. The built-in kernels are
// embedded and registered like any module's (duet/extension.hpp).
#pragma once

namespace duet::embedded {

const char* prelude();

}  // namespace duet::embedded
