// The dialect prelude and the shared kernels, embedded into libduet at build time (see
// cmake/embed_kernels.cmake) so nothing is ever read from the working directory.
#pragma once

namespace duet::embedded {

const char* prelude();
// The source of a shared kernel file by its stem ("matmul"), or nullptr.
const char* kernel_source(const char* name);
const char* const* kernel_names();  // null-terminated

}  // namespace duet::embedded
