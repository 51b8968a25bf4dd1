# `cpack -G DEB` in the build directory: ufjit_<version>_<arch>.deb, one
# package with the library, the tool, the headers, the CMake package and
# ufjit.pc under /usr. Run-time dependencies come from dpkg-shlibdeps
# (Debian dpkg-dev); with the shlibs file CPack writes postinst and postrm
# scripts that run ldconfig. libdevice stays the CUDA toolkit's (UFJIT_LIBDEVICE
# overrides the path compiled in); the CUDA driver is opened with dlopen.
set(CPACK_PACKAGE_NAME ufjit)
set(CPACK_PACKAGE_VENDOR "ufjit")
set(CPACK_PACKAGE_CONTACT "ufjit maintainers <ufjit@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Stage with DESTDIR, so that the install scripts see CMAKE_INSTALL_PREFIX=/usr
# (ufjit.pc is written with it), not the staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# The tool links the package's own libufjit.so.0: dpkg-shlibdeps finds it here.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR})
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libdlpack-dev, pkg-config, cmake")
# Loaded at run time (codegen/VectorMath.h): the CPU target's vector math.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libsleef3")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Scalar functions in a Python-like language become ufuncs that run on
NVIDIA GPUs (NVPTX, CUDA driver API opened at run time) or on the CPU (LLVM
ORC), with NumPy broadcasting. LLVM is linked in statically and hidden. The
GPU target needs the CUDA driver, and libdevice from the CUDA toolkit.")
include(CPack)
