// Launching an OpenCL kernel: translating duet's checked arguments into clSetKernelArg calls and
// the launch shape into clEnqueueNDRangeKernel. The launch only enqueues; nothing here waits for
// the device.
#include "kernel.hpp"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "buffer.hpp"
#include "errors.hpp"

namespace duet::backend::opencl {

namespace {

std::string sizes(const std::size_t* values, int dims) {
  std::string text = "{";
  for (int d = 0; d < dims; ++d) text += (d ? ", " : "") + std::to_string(values[d]);
  return text + "}";
}

}  // namespace

OpenCLKernel::OpenCLKernel(cl::Kernel kernel, std::string name, cl_device_id device)
    : kernel_(std::move(kernel)), name_(std::move(name)), device_(device) {
  cl_uint count = 0;
  if (clGetKernelInfo(kernel_(), CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr) == CL_SUCCESS)
    arg_count_ = static_cast<int>(count);
}

std::string OpenCLKernel::describe(const LaunchShape& shape) const {
  std::string text = "kernel '" + name_ + "', global " + sizes(shape.global, shape.dims) + ", local " +
                     sizes(shape.local, shape.dims);
  // Reported as the driver's own number rather than as a limit: NVIDIA answers 256 for kernels
  // it then launches with 1024 work-items per group, but on other drivers it is the real bound.
  std::size_t reported = 0;
  if (clGetKernelWorkGroupInfo(kernel_(), device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof reported,
                               &reported, nullptr) == CL_SUCCESS)
    text += " (the driver reports CL_KERNEL_WORK_GROUP_SIZE " + std::to_string(reported) +
            " for this kernel)";
  return text;
}

bool OpenCLKernel::arg_text(cl_uint index, cl_kernel_arg_info what, std::string& out) const {
  std::size_t size = 0;
  if (clGetKernelArgInfo(kernel_(), index, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return false;
  out.resize(size);
  if (clGetKernelArgInfo(kernel_(), index, what, size, &out[0], nullptr) != CL_SUCCESS) return false;
  out.resize(out.find('\0') == std::string::npos ? out.size() : out.find('\0'));
  return true;
}

// Programs are built with -cl-kernel-arg-info; a program loaded from a binary may not keep it, and
// then the driver tells nothing.
std::vector<ParamInfo> OpenCLKernel::params() const {
  std::vector<ParamInfo> params(arg_count_ > 0 ? static_cast<std::size_t>(arg_count_) : 0);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto index = static_cast<cl_uint>(i);
    ParamInfo& p = params[i];
    cl_kernel_arg_address_qualifier space = 0;
    cl_kernel_arg_type_qualifier qualifiers = 0;
    if (clGetKernelArgInfo(kernel_(), index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, nullptr) !=
            CL_SUCCESS ||
        clGetKernelArgInfo(kernel_(), index, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifiers, &qualifiers,
                           nullptr) != CL_SUCCESS ||
        !arg_text(index, CL_KERNEL_ARG_TYPE_NAME, p.type_name))
      return {};
    arg_text(index, CL_KERNEL_ARG_NAME, p.name);
    p.space = space == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? ParamInfo::Space::global
              : space == CL_KERNEL_ARG_ADDRESS_CONSTANT ? ParamInfo::Space::constant
              : space == CL_KERNEL_ARG_ADDRESS_LOCAL    ? ParamInfo::Space::local
                                                        : ParamInfo::Space::value;
    p.is_const = (qualifiers & CL_KERNEL_ARG_TYPE_CONST) != 0 || space == CL_KERNEL_ARG_ADDRESS_CONSTANT;
  }
  return params;
}

ArgumentError OpenCLKernel::wrong_size(cl_uint index, const LaunchArg& arg) const {
  std::string param;
  std::string type, name;
  if (arg_text(index, CL_KERNEL_ARG_TYPE_NAME, type) && arg_text(index, CL_KERNEL_ARG_NAME, name))
    param = " ('" + type + " " + name + "')";
  const std::string given =
      arg.buffer ? std::string("a buffer") : "a " + std::to_string(arg.scalar_size) + "-byte value";
  return ArgumentError("kernel '" + name_ + "': argument " + std::to_string(index + 1) + param + " is " + given +
                       ", which is not the size of the kernel's parameter (clSetKernelArg returned "
                       "CL_INVALID_ARG_SIZE); pass a value of the parameter's type");
}

void OpenCLKernel::set_arg(cl_kernel target, std::size_t i, const LaunchArg& arg,
                           std::vector<cl::Buffer>& views, SetArg* last) const {
  const auto index = static_cast<cl_uint>(i);
  cl_int err;
  if (arg.buffer != nullptr) {
    const auto& buffer = *static_cast<const OpenCLBuffer*>(arg.buffer);
    cl_mem mem = buffer.mem();
    // A view at offset 0 is the whole buffer to a kernel; an empty view is never dereferenced.
    const bool whole = arg.offset == 0 || arg.bytes == 0;
    if (whole && last && last->known && last->serial == buffer.serial()) return;
    if (!whole) {
      cl_buffer_region region{arg.offset, arg.bytes};
      err = CL_SUCCESS;
      cl_mem sub = clCreateSubBuffer(mem, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (err != CL_SUCCESS)
        throw_driver_error("clCreateSubBuffer", err,
                           "a view of " + std::to_string(arg.bytes) + " bytes at byte offset " +
                               std::to_string(arg.offset) + " as argument " + std::to_string(i + 1) +
                               " of kernel '" + name_ + "'" +
                               (err == CL_MISALIGNED_SUB_BUFFER_OFFSET
                                    ? ": the offset is not a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN"
                                    : ""));
      views.emplace_back(sub);  // takes the reference clCreateSubBuffer returned
      mem = sub;
    }
    if (last) last->known = false;
    err = clSetKernelArg(target, index, sizeof mem, &mem);
    if (err == CL_SUCCESS && whole && last) {
      last->known = true;
      last->serial = buffer.serial();
    }
  } else {
    const bool small = arg.scalar_size <= sizeof last->bytes;
    if (small && last && last->known && last->serial == 0 && last->size == arg.scalar_size &&
        std::memcmp(last->bytes, arg.scalar, arg.scalar_size) == 0)
      return;
    if (last) last->known = false;
    err = clSetKernelArg(target, index, arg.scalar_size, arg.scalar);
    if (err == CL_SUCCESS && small && last) {
      last->known = true;
      last->serial = 0;
      last->size = arg.scalar_size;
      std::memcpy(last->bytes, arg.scalar, arg.scalar_size);
    }
  }
  if (err == CL_INVALID_ARG_SIZE) throw wrong_size(index, arg);
  if (err != CL_SUCCESS)
    throw_driver_error(
        "clSetKernelArg", err,
        "argument " + std::to_string(i + 1) + " of kernel '" + name_ + "' (" +
            (arg.buffer ? std::string("a buffer") : std::to_string(arg.scalar_size) + "-byte scalar") + ")");
}

void OpenCLKernel::set_args(cl_kernel target, const std::vector<LaunchArg>& args,
                            std::vector<cl::Buffer>& views) const {
  for (std::size_t i = 0; i < args.size(); ++i) set_arg(target, i, args[i], views, nullptr);
}

cl::Kernel OpenCLKernel::create_copy() const {
  cl_program program = nullptr;
  cl_int err = clGetKernelInfo(kernel_(), CL_KERNEL_PROGRAM, sizeof program, &program, nullptr);
  if (err != CL_SUCCESS)
    throw_driver_error("clGetKernelInfo", err, "CL_KERNEL_PROGRAM of kernel '" + name_ + "'");
  cl_kernel copy = clCreateKernel(program, name_.c_str(), &err);
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateKernel", err, "a second object of kernel '" + name_ + "'");
  return cl::Kernel(copy);
}

cl_event OpenCLKernel::enqueue(cl_command_queue queue, const LaunchShape& shape,
                               const std::vector<LaunchArg>& args, bool with_event) const {
  // Views become sub-buffers, released when this call returns: the enqueued launch keeps its own
  // reference to each for as long as it runs.
  std::vector<cl::Buffer> views;
  std::lock_guard<std::mutex> lock(launch_mutex_);
  if (set_args_.size() < args.size()) set_args_.resize(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) set_arg(kernel_(), i, args[i], views, &set_args_[i]);
  cl_event event = nullptr;
  const cl_int err = clEnqueueNDRangeKernel(queue, kernel_(), static_cast<cl_uint>(shape.dims), nullptr,
                                            shape.global, shape.local, 0, nullptr,
                                            with_event ? &event : nullptr);
  if (err != CL_SUCCESS) throw_driver_error("clEnqueueNDRangeKernel", err, describe(shape));
  return event;
}

}  // namespace duet::backend::opencl
