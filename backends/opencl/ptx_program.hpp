// PTX that another backend's compiler made (NVRTC), made fit for NVIDIA's OpenCL, which takes PTX
// text as a program binary. Two things differ from what CUDA's driver takes:
//   - a kernel's buffer parameters must say they are global pointers (`.ptr .global`), or the
//     driver passes the cl_mem handle itself rather than the memory's address;
//   - OpenCL has no dynamic shared memory past its 48 KiB of local memory, while static shared
//     memory declared in the PTX may be as large as the multiprocessor's: a kernel's dynamic shared
//     array becomes a static one of the size the source declares for it
//     (`duet_dynamic_shared_bytes_<kernel>`, as the CUDA backend reads it).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace duet::backend::opencl {

// `ptx` with those two changes; `buffer_params` says per kernel which parameters are buffers. Empty
// with `problem` saying why when the PTX cannot be made fit (a buffer parameter that is not 64 bits,
// dynamic shared memory without a declared size).
std::string opencl_ptx(const std::string& ptx, const std::map<std::string, std::vector<bool>>& buffer_params,
                       std::string& problem);

}  // namespace duet::backend::opencl
