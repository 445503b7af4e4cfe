// Launch arguments from Python objects, converted by the kernel's declared parameter types.
#pragma once

#include <vector>

#include "bindings.hpp"

namespace duet::python {

// Converts args[first:] for `kernel` into `out`, which points to the Arrays' buffers (the Python
// objects must outlive the launch call, which the argument tuple guarantees) and, for views, to the
// ranges of their elements made in `ranges` (which must outlive it too).
//   buffer parameter:  a duet.Array (its dtype is checked against the element type by the launch)
//   integer scalar:    a Python or NumPy integer in the type's range (ArgumentError otherwise: no
//                      silent truncation); a float is refused, even a whole one
//   half/float/double: any real number (float, int, NumPy scalar) the type reaches: a finite value
//                      beyond its largest is an ArgumentError, infinities and NaN pass
// Values are range-checked by duet::convert_scalar, as C++'s generated kernels check theirs.
// Kernels without a parsed signature (compile_native) take Arrays and NumPy scalars, whose type is
// their dtype; a bare Python number there is an ArgumentError asking for numpy.int32(5) and the like.
void convert_args(const Kernel& kernel, nb::handle args, std::size_t first, std::vector<KernelArg>& out,
                  std::vector<RawBuffer>& ranges);

// Argument `index` (from 0) of `kernel` alone, converted as convert_args converts it (for
// Graph.set_arg); `range` holds a view's elements and must outlive the use of `out`.
void convert_one_arg(const Kernel& kernel, std::size_t index, nb::handle value, KernelArg& out,
                     RawBuffer& range);

// Launches `kernel` on `q`: args[first] is the global size, args[first + 1] the local size (None:
// duet chooses), the rest the kernel's arguments.
Event launch(Queue& q, const Kernel& kernel, nb::handle args, std::size_t first);

// A scalar KernelArg of a plain Python value as its natural type (int64, or uint64 above its range;
// float64), for the generators, which convert to the declared type themselves.
KernelArg natural_scalar(nb::handle value, const char* what);

}  // namespace duet::python
