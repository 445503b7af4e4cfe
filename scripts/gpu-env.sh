# Sourced by the scripts that run on the GPU machine (gpu-session.sh, gpu-python-crash.sh): the
# carried set-up, a C++ runtime the linker can share, and one variable per OpenCL driver.
source .device/setup.sh
# The GPU machine's g++ finds only libstdc++.a (its libstdc++.so link is missing), so each shared
# library took a private copy of the C++ runtime; a stream made by one copy and written by another
# crashed the Python module (issue 12). Point the linker at the runtime the process will load.
if [ "$(g++ -print-file-name=libstdc++.so)" = libstdc++.so ]; then
  mkdir -p /opt/devroot/libstdcxx
  ln -sf "$(g++ -print-file-name=libstdc++.so.6)" /opt/devroot/libstdcxx/libstdc++.so
  export LIBRARY_PATH=/opt/devroot/libstdcxx${LIBRARY_PATH:+:$LIBRARY_PATH}
  echo "libstdc++.so: linked from $(readlink /opt/devroot/libstdcxx/libstdc++.so)"
fi
# OCL_ICD_VENDORS alone does not keep the other driver out there; OCL_ICD_FILENAMES does.
# Use as OCL_ICD_FILENAMES=$ocl_nvidia command.
ocl_nvidia=libnvidia-opencl.so.1
ocl_pocl=$(head -1 /etc/OpenCL/vendors/pocl.icd 2>/dev/null)
