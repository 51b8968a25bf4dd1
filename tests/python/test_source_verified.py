"""ufjit compiles the code Python runs: the source text it finds (the
module's file, linecache) is checked against the function's own code
object, so an edited file is refused rather than compiled, and functions
from exec and notebook cells compile where their text is in linecache."""

import __future__
import contextlib
import importlib
import linecache
import os
import sys
import textwrap

import numpy as np
import pytest

from ufjit import vectorize

_FACTORY = '''\
from ufjit import vectorize


def helper(x):
    return x {helper_op}


def make():
    @vectorize(["float64(float64)"], target="cpu")
    def f(x):
        return helper(x) {op}

    return f
'''


def _write_module(folder, name, op, helper_op="+ 0"):
    path = folder / f"{name}.py"
    path.write_text(_FACTORY.format(op=op, helper_op=helper_op))
    return path


def _imported(folder, name):
    """The factory module, first version (``x + 1``), imported and checked."""
    path = _write_module(folder, name, "+ 1")
    module = importlib.import_module(name)
    assert module.make()(np.array([1.0]))[0] == 2.0
    return path, module


@contextlib.contextmanager
def _importable(folder):
    """``folder`` on sys.path, and no .pyc written: a reload compiles the
    file, never a stale cached one."""
    sys.path.insert(0, str(folder))
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield folder
    finally:
        sys.dont_write_bytecode = saved
        sys.path.remove(str(folder))


def test_a_file_edited_after_import_is_refused(tmp_path):
    with _importable(tmp_path) as module_folder:
        path, module = _imported(module_folder, "edited_factory")
        _write_module(module_folder, "edited_factory", "* 1000")  # Python still runs `+ 1`
        with pytest.raises(TypeError, match=r"changed since Python compiled it.*importlib.reload"):
            module.make()
        assert str(path) in _error_text(module.make)


def test_a_same_size_edit_linecache_misses_still_compiles_the_code_run(tmp_path):
    with _importable(tmp_path) as module_folder:
        path, module = _imported(module_folder, "same_size_factory")
        stat = os.stat(path)
        _write_module(module_folder, "same_size_factory", "- 1")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # linecache keeps the old text
        f = module.make()
        assert f.__wrapped__(1.0) == 2.0  # Python still runs `+ 1`
        assert f(np.array([1.0]))[0] == 2.0
        linecache.clearcache()  # now only the edited file is there: refused
        with pytest.raises(TypeError, match="changed since Python compiled it"):
            module.make()


def test_a_reload_after_a_same_size_edit_compiles_the_new_code(tmp_path):
    with _importable(tmp_path) as module_folder:
        path, module = _imported(module_folder, "reloaded_factory")
        stat = os.stat(path)
        _write_module(module_folder, "reloaded_factory", "+ 7")
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        module = importlib.reload(module)
        f = module.make()
        assert f.__wrapped__(1.0) == 8.0  # what Python runs now
        assert f(np.array([1.0]))[0] == 8.0


def test_an_edited_helper_is_refused_too(tmp_path):
    with _importable(tmp_path) as module_folder:
        _, module = _imported(module_folder, "edited_helper")
        _write_module(module_folder, "edited_helper", "+ 1", helper_op="* 5")
        with pytest.raises(TypeError, match=r"'helper'.*changed since Python compiled it"):
            module.make()


def test_an_edit_elsewhere_in_the_file_is_harmless(tmp_path):
    with _importable(tmp_path) as module_folder:
        path, module = _imported(module_folder, "edited_elsewhere")
        path.write_text(path.read_text() + "\n\nUNUSED = 1\n")
        assert module.make()(np.array([1.0]))[0] == 2.0


_SOURCE = """\
def triple_plus(x, y):
    return 3 * x + y
"""


def _error_text(call):
    try:
        call()
    except TypeError as e:
        return str(e)
    raise AssertionError("no TypeError")


def test_exec_of_a_string_compiles():
    # As Numba's tests make kernels: exec of a string, decorated later.
    namespace = {}
    exec(_SOURCE, namespace)
    f = vectorize(["float64(float64, float64)"], target="cpu")(namespace["triple_plus"])
    np.testing.assert_array_equal(f(np.array([1.0, 2.0]), 1.0), [4.0, 7.0])


def test_exec_in_a_function_of_a_formatted_string_compiles():
    def make(op):
        text = textwrap.dedent(f"""
        def combine(x, y):
            return x {op} y
        """)
        names = {}
        exec(text, {}, names)
        return names["combine"]

    plus, times = make("+"), make("*")
    assert vectorize(["int64(int64, int64)"], target="cpu")(plus)(3, 4) == 7
    assert vectorize(["int64(int64, int64)"], target="cpu")(times)(3, 4) == 12


def test_exec_of_a_string_long_forgotten_says_how_to_fix_it():
    namespace = {}
    exec(compile(_SOURCE, "<string>", "exec"), namespace)
    padding = "#" * (1 << 19)
    for k in range(20):  # 10 MB of later texts push the first out of what ufjit remembers
        exec(f"def later_{k}(): return {k}\n{padding}\n", {})
    text = _error_text(lambda: vectorize(["float64(float64, float64)"], target="cpu")(namespace["triple_plus"]))
    assert "'triple_plus'" in text
    assert "exec" in text and "linecache.cache[name]" in text and "define the function in a file" in text


@pytest.mark.parametrize(
    "name",
    ["<ufjit-test-cell>", "<ipython-input-3-0123456789ab>", "/tmp/ipykernel_4242/2893472913.py"],
)
def test_exec_with_the_text_in_linecache_compiles(name):
    # exec with a registered name; IPython's and Jupyter's cell names (the
    # Jupyter one names no existing file: linecache's entry is the text).
    linecache.cache[name] = (len(_SOURCE), None, _SOURCE.splitlines(True), name)
    try:
        namespace = {}
        exec(compile(_SOURCE, name, "exec"), namespace)
        f = vectorize(["float64(float64, float64)"], target="cpu")(namespace["triple_plus"])
        x = np.array([1.0, -2.5, 4.0])
        np.testing.assert_array_equal(f(x, 0.5), 3 * x + 0.5)
    finally:
        linecache.cache.pop(name, None)


def test_exec_with_inherited_future_flags_compiles():
    name = "<ufjit-test-future>"
    linecache.cache[name] = (len(_SOURCE), None, _SOURCE.splitlines(True), name)
    try:
        namespace = {}
        flags = __future__.annotations.compiler_flag
        exec(compile(_SOURCE, name, "exec", flags=flags, dont_inherit=True), namespace)
        f = vectorize(["float64(float64, float64)"], target="cpu")(namespace["triple_plus"])
        assert f(2.0, 1.0) == 7.0
    finally:
        linecache.cache.pop(name, None)


def test_registered_text_that_is_not_the_code_run_is_refused():
    name = "<ufjit-test-wrong-text>"
    other = _SOURCE.replace("3 * x", "4 * x")
    linecache.cache[name] = (len(other), None, other.splitlines(True), name)
    try:
        namespace = {}
        exec(compile(_SOURCE, name, "exec"), namespace)
        with pytest.raises(TypeError, match="not the code Python runs"):
            vectorize(["float64(float64, float64)"], target="cpu")(namespace["triple_plus"])
    finally:
        linecache.cache.pop(name, None)


def test_functions_of_this_file_still_compile():
    offset = 2.0

    @vectorize(["float64(float64)"], target="cpu")
    def closure_reader(x):
        return x + offset

    assert closure_reader(1.0) == 3.0


def test_a_kernel_with_assert_compiles_in_a_module_pytest_rewrote():
    @vectorize(["float64(float64)"], target="cpu")
    def checked_double(x):
        assert x >= 0, "negative"
        return x * 2

    np.testing.assert_array_equal(checked_double(np.array([2.0, 0.5])), [4.0, 1.0])


def test_a_kernel_in_python_dash_c_compiles():
    """`python -c PROGRAM` compiles the program before ufjit is imported, so
    its text comes from the command line (sys.orig_argv), as Numba's print
    tests run kernels."""
    import subprocess

    program = textwrap.dedent("""\
        from ufjit import cuda
        import numpy as np

        @cuda.jit
        def twice(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] *= 2

        a = np.arange(4.0)
        twice[1, 4](a)
        print(a.tolist())
    """)
    env = dict(os.environ, UFJIT_TARGET="cpu")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0.0, 2.0, 4.0, 6.0]"
