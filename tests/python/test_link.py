"""CUDA C++ helpers from Python: ``cuda.declare_device`` and ``link=`` (the
decorator's, or the declaration's), as Numba writes them. Here (no GPU) the
CPU target refuses a call of a helper, naming it and its file, which shows
the file was found and linked; test_gpu.py runs them on the GPU."""

import contextlib
import os
import pathlib
import tempfile

import numpy as np
import pytest

import ufjit
from ufjit import cuda, vectorize

HELPER = ('extern "C" __device__ int cube_plus(float *ret, float x, float y) { *ret = x * x * x + y; return 0; }\n'
          'extern "C" __device__ float halve(float x) { return 0.5f * x; }\n')

cube_plus = cuda.declare_device("cube_plus", "float32(float32, float32)")
halve = cuda.declare_device("halve", "float32(float32)", abi="c")
with open(__file__) as _f:  # the line of cube_plus's declare_device above, as an editor counts
    CUBE_PLUS_LINE = next(i for i, t in enumerate(_f, 1) if t.startswith("cube_plus = cuda.declare_device("))


@contextlib.contextmanager
def helpers_folder():
    """helpers.cu in a fresh folder that is the current one meanwhile."""
    with tempfile.TemporaryDirectory() as d:
        pathlib.Path(d, "helpers.cu").write_text(HELPER)
        old = os.getcwd()
        os.chdir(d)
        try:
            yield pathlib.Path(d)
        finally:
            os.chdir(old)


def cpu_call_names_the_helper(f, helper_file):
    x = np.ones(3, np.float32)
    with pytest.raises(ufjit.Error, match=r"calls CUDA C\+\+ function '\w+' \(declare_device, from .*" + helper_file):
        f._core(x, x, target="cpu")


def test_declared_functions_become_declarations_in_the_source():
    with helpers_folder():
        @vectorize(["float32(float32, float32)"], target="cuda", link=["helpers.cu"])
        def f(x, y):
            return halve(cube_plus(x, y)) + 1

        lines = f.source.splitlines()
        # Each on its own line of this file, so that errors about it point there.
        assert lines[CUBE_PLUS_LINE - 1] == "cube_plus = declare_device('cube_plus', 'float32(float32, float32)')"
        assert lines[CUBE_PLUS_LINE] == "halve = declare_device('halve', 'float32(float32)', abi='c')"
        cpu_call_names_the_helper(f, "helpers.cu")


def test_link_paths_are_relative_to_the_current_folder_as_numbas():
    with helpers_folder() as helpers:
        os.mkdir("sub")
        os.rename("helpers.cu", os.path.join("sub", "helpers.cu"))

        @vectorize(["float32(float32, float32)"], link=[os.path.join("sub", "helpers.cu")])
        def f(x, y):
            return cube_plus(x, y)

        os.chdir("/")  # resolved when the decorator ran
        cpu_call_names_the_helper(f, os.path.join(str(helpers), "sub", "helpers.cu"))


def test_declare_device_link_is_linked_too():
    with helpers_folder():
        scaled = cuda.declare_device("cube_plus", "float32(float32, float32)", link="helpers.cu")

        @vectorize(["float32(float32, float32)"])
        def f(x, y):
            return scaled(x, y)

        assert "scaled = declare_device('cube_plus', 'float32(float32, float32)')" in f.source
        cpu_call_names_the_helper(f, "helpers.cu")


def test_without_link_the_kernel_is_a_compile_error():
    with helpers_folder():
        with pytest.raises(ufjit.CompileError, match="names no file that defines it"):
            @vectorize(["float32(float32, float32)"])
            def f(x, y):
                return cube_plus(x, y)


def test_missing_link_file_is_a_compile_error_naming_it():
    with helpers_folder():
        with pytest.raises(ufjit.CompileError, match=r"link file '.*nothere\.cu' \(given with the link option\) not found"):
            @vectorize(["float32(float32, float32)"], link=["nothere.cu"])
            def f(x, y):
                return cube_plus(x, y)


def test_declared_function_is_not_callable_from_python():
    with pytest.raises(TypeError, match="call it from a ufjit kernel"):
        cube_plus(1.0, 2.0)


def test_declare_device_checks_its_arguments():
    with pytest.raises(ValueError, match="abi must be 'numba' or 'c'"):
        cuda.declare_device("f", "float32(float32)", abi="cpp")
    with pytest.raises(TypeError, match="takes two strings"):
        cuda.declare_device("f", None)


class FakeNumbaSignature:
    """What Numba's ExternFunction.sig offers: return_type and args that print as type names."""

    def __init__(self, ret, *args):
        self.return_type = ret
        self.args = args


class FakeNumbaExtern:
    def __init__(self, name, sig):
        self.name = name
        self.sig = sig


numba_declared = FakeNumbaExtern("cube_plus", FakeNumbaSignature("float32", "float32", "float32"))


def test_numbas_declare_device_objects_are_read_by_their_name_and_sig():
    with helpers_folder():
        @vectorize(["float32(float32, float32)"], link=["helpers.cu"])
        def f(x, y):
            return numba_declared(x, y)

        assert "numba_declared = declare_device('cube_plus', 'float32(float32, float32)')" in f.source
        cpu_call_names_the_helper(f, "helpers.cu")
