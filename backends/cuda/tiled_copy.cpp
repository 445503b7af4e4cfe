// Tiled-copy descriptors on CUDA: tensor maps for the tensor memory accelerator, encoded on the host
// by cuTensorMapEncodeTiled (core checked the shape). A map holds the matrix's address, so it is
// made per buffer view; it is 128 bytes, which the caller places 64-byte aligned in device memory.
#include <cstring>
#include <string>

#include "buffer.hpp"
#include "device.hpp"
#include "driver_api.hpp"
#include "errors.hpp"

namespace duet::backend::cuda {

std::string CudaDevice::encode_tiled_copy(const BufferImpl& buffer, std::size_t offset,
                                          const extension::TiledCopy& shape) {
  const DriverApi& api = driver();
  // Tensor maps are read by sm_90 and later only; elsewhere the caller copies another way.
  int major = 0;
  if (!api.cuTensorMapEncodeTiled ||
      api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_) !=
          CUDA_SUCCESS ||
      major < 9)
    return {};
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  if (shape.element_bytes == 2) type = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  if (shape.element_bytes == 4) type = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  if (shape.element_bytes == 8) type = CU_TENSOR_MAP_DATA_TYPE_UINT64;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  if (shape.swizzle_bytes == 32) swizzle = CU_TENSOR_MAP_SWIZZLE_32B;
  if (shape.swizzle_bytes == 64) swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
  if (shape.swizzle_bytes == 128) swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  void* base = reinterpret_cast<void*>(static_cast<const CudaBuffer&>(buffer).handle() + offset);
  const cuuint64_t dims[2] = {shape.cols, shape.rows};
  const cuuint64_t strides[1] = {shape.row_bytes};  // the innermost dimension's stride is the element
  const cuuint32_t box[2] = {shape.box_cols, shape.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map;
  DUET_CU(cuTensorMapEncodeTiled, &map, type, 2, base, dims, strides, box, element_strides,
          CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  std::string out(sizeof map, '\0');
  std::memcpy(&out[0], &map, sizeof map);
  return out;
}

}  // namespace duet::backend::cuda
