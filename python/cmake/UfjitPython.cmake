# Finds what the `ufjit` Python package needs: a Python 3 interpreter that
# imports NumPy, its development headers, and pybind11. Sets
# UFJIT_PYTHON_FOUND. Included by the top-level CMakeLists.txt.
#
# The first `python3` on PATH may be one without NumPy (a pyenv shim, a
# virtualenv); unless Python_EXECUTABLE is given, the first candidate that
# imports NumPy wins: python3 on PATH, then the system's /usr/bin/python3.
# CMake's `Python` package (not `Python3`, which tests/lit and tests/cli use
# for their own interpreter) keeps the two choices apart; pybind11 uses it.
if(NOT Python_EXECUTABLE)
  find_program(_ufjit_path_python3 python3)
  foreach(_candidate IN ITEMS ${_ufjit_path_python3} /usr/bin/python3)
    if(EXISTS "${_candidate}")
      execute_process(COMMAND "${_candidate}" -c "import numpy" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(Python_EXECUTABLE "${_candidate}" CACHE FILEPATH "The Python 3 interpreter of the ufjit package")
        break()
      endif()
    endif()
  endforeach()
endif()
find_package(Python 3 COMPONENTS Interpreter Development.Module NumPy QUIET)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG QUIET)
if(Python_FOUND AND pybind11_FOUND)
  set(UFJIT_PYTHON_FOUND ON)
else()
  set(UFJIT_PYTHON_FOUND OFF)
  message(STATUS "ufjit Python package: off (needs Python 3 with NumPy and headers, and pybind11)")
endif()
