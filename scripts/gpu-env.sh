# Sourced by scripts/gpu.sh (and by hand before any command of your own on the GPU machine): the
# carried set-up, a C++ runtime the libraries can share, and one variable per OpenCL driver.
# shellcheck shell=bash
# The carried set-up (headers, CLBlast, NVIDIA's OpenCL registered); absent on a machine that
# needs none, such as a PoCL-only one.
if [ -f .device/setup.sh ]; then
  # shellcheck source=/dev/null
  source .device/setup.sh
fi
# The GPU machine's default C++ compiler (CXX=/opt/gcc/bin/g++) finds only libstdc++.a, so each
# shared library took a private copy of the C++ runtime; a stream made by one copy and written by
# another crashed the Python module. Its system g++ links the libstdc++.so.6 the processes load; a
# build folder configured with the other compiler starts again.
_duet_compiler=${CXX:-c++}
if [ "$("$_duet_compiler" -print-file-name=libstdc++.so)" = libstdc++.so ] &&
   [ "$(/usr/bin/g++ -print-file-name=libstdc++.so)" != libstdc++.so ]; then
  echo "$_duet_compiler has no libstdc++.so: building with /usr/bin/g++"
  export CXX=/usr/bin/g++ CC=/usr/bin/gcc CUDAHOSTCXX=/usr/bin/g++
fi
# A build folder configured with another compiler (any folder named in DUET_ENV_BUILD_DIRS, default
# DUET_BUILD_DIR, else build-gpu) starts again.
for _duet_dir in ${DUET_ENV_BUILD_DIRS:-${DUET_BUILD_DIR:-build-gpu}}; do
  if [ -n "${CXX:-}" ] && [ -f "$_duet_dir/CMakeCache.txt" ] &&
     ! grep -q "^CMAKE_CXX_COMPILER:FILEPATH=$CXX$" "$_duet_dir/CMakeCache.txt"; then
    rm -rf "$_duet_dir"
  fi
done
unset _duet_dir _duet_compiler
# OCL_ICD_VENDORS alone does not keep the other driver out there; OCL_ICD_FILENAMES does.
# Use as OCL_ICD_FILENAMES=$ocl_nvidia command.
export ocl_nvidia=libnvidia-opencl.so.1
ocl_pocl=$(head -1 /etc/OpenCL/vendors/pocl.icd 2>/dev/null)
export ocl_pocl
