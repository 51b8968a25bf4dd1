# cmake -DBUILD=<build dir> -DPREFIX=<prefix> -DLIBDIR=<lib> -P fresh_install.cmake
# Empties PREFIX, installs the build into it and checks the expected files.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD} --prefix ${PREFIX} failed")
endif()
foreach(f
    bin/ufjit include/ufjit/ufjit.h include/ufjit/dlpack.h
    ${LIBDIR}/libufjit.so ${LIBDIR}/libufjit.so.0 ${LIBDIR}/pkgconfig/ufjit.pc
    ${LIBDIR}/cmake/ufjit/ufjitConfig.cmake ${LIBDIR}/cmake/ufjit/ufjitConfigVersion.cmake
    ${LIBDIR}/cmake/ufjit/ufjitTargets.cmake)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
file(GLOB versioned ${PREFIX}/${LIBDIR}/libufjit.so.*.*.*)
if(NOT versioned)
  message(FATAL_ERROR "no versioned libufjit.so.X.Y.Z in ${PREFIX}/${LIBDIR}")
endif()
execute_process(COMMAND ${PREFIX}/bin/ufjit --version OUTPUT_VARIABLE v RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT v MATCHES "^ufjit [0-9]")
  message(FATAL_ERROR "installed ufjit --version: rc ${rc}, '${v}'")
endif()
