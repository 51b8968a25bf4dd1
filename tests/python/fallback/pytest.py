"""A stand-in for the few pytest features tests/python uses, for hosts
without pytest (the GPU host has NumPy, CuPy, PyTorch and Numba from pip
but maybe not pytest, and no network). run_pytest.py puts this directory on
sys.path only when `import pytest` fails, then runs `main()` here.

Supported: test_* functions in test_*.py, conftest.py, @pytest.fixture
(functions used by argument name) plus the built-in tmp_path,
@pytest.mark.parametrize (one name), pytest.raises(match=), pytest.skip,
pytest.fail. Exit status: 0 all passed, 1 a failure, 5 nothing collected.
"""

import importlib.util
import inspect
import pathlib
import re
import sys
import tempfile
import traceback

_fixtures = {}


class _Skip(Exception):
    pass


class _Fail(Exception):
    pass


def skip(reason=""):
    raise _Skip(reason)


def fail(reason=""):
    raise _Fail(reason)


def fixture(fn):
    _fixtures[fn.__name__] = fn
    return fn


class _Mark:
    @staticmethod
    def parametrize(name, values):
        def decorate(fn):
            fn._parametrize = (name, list(values))
            return fn

        return decorate


mark = _Mark()


class _Raises:
    def __init__(self, expected, match):
        self.expected = expected
        self.match = match
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            raise _Fail(f"DID NOT RAISE {self.expected}")
        if not issubclass(kind, self.expected):
            return False
        if self.match is not None and not re.search(self.match, str(value)):
            raise _Fail(f"{value!r} does not match {self.match!r}")
        self.value = value
        return True


def raises(expected, match=None):
    return _Raises(expected, match)


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _cases(module):
    for name, fn in vars(module).items():
        if name.startswith("test_") and inspect.isfunction(fn):
            if hasattr(fn, "_parametrize"):
                param, values = fn._parametrize
                for i, v in enumerate(values):
                    yield f"{module.__name__}::{name}[{i}]", fn, {param: v}
            else:
                yield f"{module.__name__}::{name}", fn, {}


def _run(fn, given):
    kwargs = dict(given)
    with tempfile.TemporaryDirectory() as tmp:
        for p in inspect.signature(fn).parameters:
            if p in kwargs:
                continue
            if p == "tmp_path":
                kwargs[p] = pathlib.Path(tmp)
            else:
                kwargs[p] = _fixtures[p]()
        fn(**kwargs)


def main(args, plugins=()):
    folder = pathlib.Path(next(a for a in args if not a.startswith("-")))
    sys.path.insert(0, str(folder))
    if (folder / "conftest.py").exists():
        _load(folder / "conftest.py")
    cases = []
    for path in sorted(folder.glob("test_*.py")):
        cases += list(_cases(_load(path)))
    for plugin in plugins:
        plugin.collected = len(cases)
    if not cases:
        print("no tests collected")
        return 5
    failed = skipped = 0
    for name, fn, given in cases:
        try:
            _run(fn, given)
        except _Skip as e:
            skipped += 1
            print(f"SKIPPED {name}: {e}")
        except Exception:  # noqa: BLE001 (a test's failure, whatever it is)
            failed += 1
            print(f"FAILED {name}\n{traceback.format_exc()}")
    print(f"{len(cases) - failed - skipped} passed, {failed} failed, {skipped} skipped (fallback runner)")
    return 1 if failed else 0
