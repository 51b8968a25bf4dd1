# `cmake --install build --prefix P` (GNUInstallDirs layout, relocatable):
#   P/lib/libufjit.so.0.2.0 (+ .so.0, .so)   P/bin/ufjit (RUNPATH $ORIGIN/../lib)
#   P/include/ufjit/*.h                      P/lib/pkgconfig/ufjit.pc
#   P/lib/cmake/ufjit/ufjit{Config,ConfigVersion,Targets*}.cmake
# Nothing installed names the build or source tree (tests/packaging checks):
# the CMake package finds the prefix from its own directory, ufjit.pc names
# the install prefix. `cpack -G DEB` packs the same files
# (cmake/UfjitPackage.cmake).
include(CMakePackageConfigHelpers)

set(UFJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ufjit)

install(TARGETS ufjit EXPORT ufjitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ufjit NAMELINK_COMPONENT ufjit)
if(TARGET ufjit_tool)
  install(TARGETS ufjit_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ufjit)
endif()
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ufjit
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT ufjit FILES_MATCHING PATTERN "*.h")

install(EXPORT ufjitTargets NAMESPACE ufjit:: DESTINATION ${UFJIT_CMAKE_DIR} COMPONENT ufjit)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ufjitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ufjitConfig.cmake INSTALL_DESTINATION ${UFJIT_CMAKE_DIR})
# 0.x: a minor version may break the API, so find_package(ufjit 0.2) takes 0.2.*.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ufjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ufjitConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/ufjitConfigVersion.cmake
  DESTINATION ${UFJIT_CMAKE_DIR} COMPONENT ufjit)

# ufjit.pc names the prefix it is installed under, so it is written at
# install time: `--prefix P` gives prefix=P, the .deb prefix=/usr (where
# pkg-config then prints no -I/-L at all). The first pass fills in everything
# but the prefix; each install configures its own copy (cpack and
# cmake --install may run at once).
set(UFJIT_PC_PREFIX "@UFJIT_PC_PREFIX@")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ufjit.pc.in ${CMAKE_CURRENT_BINARY_DIR}/ufjit.pc.in @ONLY)
install(CODE "
  set(UFJIT_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  string(MD5 pc_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(pc_dir \"${CMAKE_CURRENT_BINARY_DIR}/ufjit-pc/\${pc_dir}\")
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/ufjit.pc.in\" \"\${pc_dir}/ufjit.pc\" @ONLY)
  file(INSTALL \"\${pc_dir}/ufjit.pc\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
" COMPONENT ufjit)

if(PROJECT_IS_TOP_LEVEL)
  include(UfjitPackage)
endif()
