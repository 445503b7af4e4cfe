# Sourced by the scripts that run on the GPU machine (gpu-session.sh, gpu-python-crash.sh): the
# carried set-up, a C++ runtime the linker can share, and one variable per OpenCL driver.
source .device/setup.sh
# The GPU machine's default C++ compiler (CXX=/opt/gcc/bin/g++) finds only libstdc++.a, so each
# shared library took a private copy of the C++ runtime; a stream made by one copy and written by
# another crashed the Python module (issue 12). Its system g++ links the libstdc++.so.6 the
# processes load; a build folder configured with the other compiler starts again.
compiler=${CXX:-c++}
if [ "$("$compiler" -print-file-name=libstdc++.so)" = libstdc++.so ] &&
   [ "$(/usr/bin/g++ -print-file-name=libstdc++.so)" != libstdc++.so ]; then
  echo "$compiler has no libstdc++.so: building with /usr/bin/g++"
  export CXX=/usr/bin/g++ CC=/usr/bin/gcc CUDAHOSTCXX=/usr/bin/g++
fi
build=${DUET_BUILD_DIR:-build-gpu}
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:FILEPATH=${CXX:-}$" "$build/CMakeCache.txt"; then
  [ -n "${CXX:-}" ] && rm -rf "$build"
fi
# OCL_ICD_VENDORS alone does not keep the other driver out there; OCL_ICD_FILENAMES does.
# Use as OCL_ICD_FILENAMES=$ocl_nvidia command.
ocl_nvidia=libnvidia-opencl.so.1
ocl_pocl=$(head -1 /etc/OpenCL/vendors/pocl.icd 2>/dev/null)
