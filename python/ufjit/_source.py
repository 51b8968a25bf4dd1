"""The source text a Python function gives the C++ compiler.

ufjit compiles the function's own source (``inspect.getsource``, dedented,
decorators stripped) in its kernel language (a Python subset; see
LANGUAGE.md). What the function reads from its module is written in front of
it: ``import math``/``cmath``/``numpy`` and ``from math import exp`` lines, module constants (ints, floats,
complex numbers, bools and NumPy scalars, as constant assignments), CUDA C++
functions declared with ``declare_device`` (as declarations) and the
device functions it calls (``@ufjit.cuda.jit(device=True)``, Numba's
``@cuda.jit(device=True)``, or plain functions), which become helpers.

Each function is placed at its own line of its file where the text before it
leaves room, so that diagnostics point at the user's file and line.
"""

import __future__
import ast
import collections
import inspect
import linecache
import math
import numbers
import os
import sys
import textwrap
import tokenize
import types

import numpy as np

from . import _records

_MODULES = {"math", "cmath", "numpy"}
# ufjit's and Numba's modules as the kernel language knows them (Numba's):
# the import that gives one its name in the source, and the name it has
# there without one (None: it needs the import).
_NUMBA_MODULES = {
    "ufjit": ("import numba", "numba"),  # ufjit.cuda.grid(1), ufjit.float32
    "numba": ("import numba", "numba"),
    "ufjit.cuda": ("from numba import cuda", "cuda"),  # from ufjit import cuda as cu
    "numba.cuda": ("from numba import cuda", "cuda"),
    "ufjit.types": ("from numba import types", None),  # types.float32
    "numba.types": ("from numba import types", None),
    "numba.core.types": ("from numba import types", None),
}

# The compiler flags of `from __future__ import ...`, which code objects carry.
_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


# Texts that exec() or compile() of a string compiled (Python's "compile"
# audit event, which names the text), newest last: a function made so has no
# file and, unless its text was registered with linecache, no other trace of
# its source. Numba's own tests make kernels so; Numba reads bytecode. Only
# texts named like "<string>" and holding a def are kept, the newest
# _MAX_COMPILED_CHARS characters of them (dataclasses and namedtuples exec
# small texts of their own all the time).
_COMPILED_TEXTS = collections.OrderedDict()  # (filename, text) -> None
_MAX_COMPILED_CHARS = 8 << 20
_compiled_chars = 0


def _remember_compiled_text(event, args):
    global _compiled_chars
    if event != "compile" or len(args) < 2:
        return
    text, filename = args[0], args[1]
    if not isinstance(filename, str) or not filename.startswith("<"):
        return
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return
    if not isinstance(text, str) or len(text) > _MAX_COMPILED_CHARS // 8 or "def " not in text:
        return
    key = (filename, text)
    if key in _COMPILED_TEXTS:
        _COMPILED_TEXTS.move_to_end(key)
        return
    _COMPILED_TEXTS[key] = None
    _compiled_chars += len(text)
    while _compiled_chars > _MAX_COMPILED_CHARS:
        (_, old), _ = _COMPILED_TEXTS.popitem(last=False)
        _compiled_chars -= len(old)


sys.addaudithook(_remember_compiled_text)


def _command_line_text():
    """The program of ``python -c PROGRAM`` (compiled before ufjit could
    remember it), or None."""
    argv = getattr(sys, "orig_argv", [])
    return argv[argv.index("-c") + 1] if "-c" in argv[:-1] else None


def _compiled_text_lines(fn):
    """The lines of a remembered exec()'d text that defines ``fn`` (or of
    ``python -c``'s program), or []."""
    name = fn.__code__.co_filename
    program = _command_line_text() if name == "<string>" else None
    texts = list(_COMPILED_TEXTS) + ([(name, program)] if program else [])
    for filename, text in reversed(texts):
        if filename == name:
            lines = text.splitlines(True)
            if _compiles_to(lines, fn):
                return lines
    return []


class StaleSourceError(TypeError):
    """The text found for a function is not the code Python runs for it."""


def _verified_lines(fn):
    """The lines of the text that defines ``fn``, checked to compile to the
    code Python runs: ``fn.__code__``. Text read from a file edited since
    the import (or a stale linecache entry) would compile something else
    than what Python runs; that is refused.

    The text is linecache's (refreshed first), which also holds what
    ``exec`` of a registered name, IPython (``<ipython-input-N-...>``) and
    Jupyter (``/tmp/ipykernel_*/...``) cells registered; then the file on disk,
    which linecache misses when a rewrite kept the size and time stamp; then
    a text that ``exec`` of a string compiled since ufjit was imported."""
    code = fn.__code__
    name = code.co_filename
    linecache.checkcache(name)
    cached = linecache.getlines(name, fn.__globals__)
    if cached and _compiles_to(cached, fn):
        return cached
    on_disk = _file_lines(name)
    if on_disk and on_disk != cached and _compiles_to(on_disk, fn):
        return on_disk
    if not cached and not on_disk:
        executed = _compiled_text_lines(fn)
        if executed:
            return executed
    what = f"{fn.__qualname__!r} ({name}:{code.co_firstlineno})"
    if not cached and not on_disk:
        raise TypeError(
            f"ufjit needs the source of {what}, and Python kept none: a function made by exec() or compile() "
            "of a string has no file to read, and ufjit remembers such texts only after it is imported (the "
            f"newest {_MAX_COMPILED_CHARS >> 20} MB of them). Import ufjit first, define the function in a file, "
            "or name its text "
            "when compiling it and "
            "register it with linecache: linecache.cache[name] = (len(src), None, src.splitlines(True), name); "
            "exec(compile(src, name, 'exec'))"
        )
    if os.path.isfile(name):
        raise StaleSourceError(
            f"the source of {what} changed since Python compiled it: its file no longer holds the code Python "
            "runs, and ufjit compiles only that. Reload the module (importlib.reload) or restart Python, "
            "then decorate again"
        )
    raise StaleSourceError(
        f"the text registered for {name!r} (linecache) is not the code Python runs for {what}. Register "
        "the text that was compiled, under the name given to compile()"
    )


def _file_lines(name):
    """A source file's lines as Python reads them (its coding cookie), or []."""
    try:
        with tokenize.open(name) as f:
            return f.readlines()
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []


def _compiles_to(lines, fn):
    """Whether compiling ``lines`` as Python compiled ``fn``'s module makes
    ``fn.__code__`` again (same bytecode, constants, names, line table,
    nested code): a function's code object is found by its name and line."""
    code = fn.__code__
    text = "".join(lines)
    for compiled in _compilations(text, fn):
        stack = [compiled]
        while stack:
            c = stack.pop()
            if c.co_name == code.co_name and c.co_firstlineno == code.co_firstlineno and c == code:
                return True
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return False


def _compilations(text, fn):
    """``text`` compiled as Python did (its __future__ flags), then as
    pytest's assertion rewriting did for a test module it imported."""
    code = fn.__code__
    flags = code.co_flags & _FUTURE_FLAGS
    try:
        yield compile(text, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return
    loader = fn.__globals__.get("__loader__")
    if type(loader).__name__ != "AssertionRewritingHook":
        return
    try:
        from _pytest.assertion.rewrite import rewrite_asserts

        tree = ast.parse(text, code.co_filename)
        rewrite_asserts(tree, text.encode(), code.co_filename, getattr(loader, "config", None))
        yield compile(tree, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except Exception:  # noqa: BLE001: another pytest's API; the plain compile stands
        return


class Piece:
    """One function's source: its text from the ``def`` line on, where it came from."""

    def __init__(self, fn):
        self.fn = fn
        fn = inspect.unwrap(fn)  # as inspect.getsource: a functools.wraps wrapper's own function
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"ufjit compiles Python functions, not {fn!r}")
        first_line = fn.__code__.co_firstlineno
        self.file = fn.__code__.co_filename
        self.name = fn.__name__
        if fn.__code__.co_name == "<lambda>":
            self._from_lambda(fn, _verified_lines(fn))
            return
        lines = inspect.getblock(_verified_lines(fn)[first_line - 1:])
        source = textwrap.dedent("".join(lines))
        tree = ast.parse(source)
        node = tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise TypeError(f"ufjit compiles functions defined with 'def' or 'lambda', not {fn!r}")
        body = source.splitlines()[node.lineno - 1:]
        self.text = "\n".join(body) + "\n"
        self.def_line = first_line + node.lineno - 1 if first_line > 0 else 0
        self.names = _names_read(node)

    def rename(self, name):
        """The function under another name: the one its caller reads it by
        (an alias, a lambda assigned to a name), which the compiled text's
        calls must use."""
        self.text = self.text.replace(f"def {self.name}(", f"def {name}(", 1)
        self.name = name

    def _from_lambda(self, fn, lines):
        """A lambda as the kernel language's ``def``: ``lambda a, b: a + b``
        becomes ``def lambda_<line>(a, b): return (a + b)`` at the lambda's
        line. The lambda is the one of its line whose code is ``fn``'s."""
        node = _lambda_node("".join(lines), fn)
        if node is None:
            raise TypeError(f"ufjit found no lambda in the source of {fn!r} that compiles to its code")
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise TypeError(f"ufjit compiles lambdas of plain positional parameters, not {fn!r}")
        body = ast.get_source_segment("".join(lines), node.body, padded=False)
        self.name = f"lambda_{node.lineno}_{node.col_offset}"
        params = ", ".join(a.arg for a in args.args)
        body_lines = body.splitlines()
        self.text = f"def {self.name}({params}):\n    return (" + "\n    ".join(body_lines) + ")\n"
        self.def_line = node.lineno
        self.names = _names_read(ast.FunctionDef(name=self.name, args=args, body=[ast.Return(node.body)],
                                                 decorator_list=[]))


def _lambda_node(text, fn):
    """The ``ast.Lambda`` of ``text`` whose body is ``fn``'s (several lambdas
    may share a line): the one whose body's span is among the positions of
    ``fn.__code__``'s instructions (its result's), or None. ``text`` is
    verified to compile to ``fn.__code__`` (_verified_lines)."""
    code = fn.__code__
    try:
        tree = ast.parse(text, code.co_filename)
    except SyntaxError:
        return None
    on_line = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno]
    if not hasattr(code, "co_positions"):  # Python < 3.11: the line's only lambda
        return on_line[0] if len(on_line) == 1 else None
    positions = set(code.co_positions())
    for node in on_line:
        body = node.body
        if (body.lineno, body.end_lineno, body.col_offset, body.end_col_offset) in positions:
            return node
    return None


def _names_read(node):
    """Names the function reads and does not bind itself (arguments, assignments)."""
    bound = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
    read = []
    for n in (n for stmt in node.body for n in ast.walk(stmt)):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                read.append(n.id)
            else:
                bound.add(n.id)
    seen = set()
    return [n for n in read if n not in bound and not (n in seen or seen.add(n))]


def scope_of(fn):
    """What the function's free names refer to: its closure, then its module."""
    values = dict(fn.__globals__)
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                values[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
    return values


def _helper_function(value, module):
    """The Python function behind a device function, or None. Plain functions
    count only when defined in the kernel's own module."""
    from .cuda import DeviceFunction

    if isinstance(value, DeviceFunction):
        return value.py_func
    py_func = getattr(value, "py_func", None)  # Numba's dispatchers
    if isinstance(py_func, types.FunctionType):
        return py_func
    if isinstance(value, types.FunctionType) and value.__module__ == module:
        return value
    return None


class _Declaration:
    """``name = declare_device(...)`` for a declared CUDA C++ function, the
    files its declaration links, and where it was written (file, line; 0:
    unknown)."""

    def __init__(self, text, links, file, line):
        self.text = text
        self.links = links
        self.file = file
        self.line = line


def _declaration(name, value):
    """The _Declaration of ufjit's DeclaredDevice or of Numba's ExternFunction
    (``.name`` and a ``.sig`` with ``return_type`` and ``args``); None for
    anything else."""
    from .cuda import DeclaredDevice

    if isinstance(value, DeclaredDevice):
        abi = ", abi='c'" if value.abi == "c" else ""
        text = f"{name} = declare_device({value.name!r}, {value.sig!r}{abi})"
        return _Declaration(text, value.link, value.file, value.line)
    sig = getattr(value, "sig", None)
    c_name = getattr(value, "name", None)
    if isinstance(c_name, str) and hasattr(sig, "return_type") and hasattr(sig, "args"):
        text = f"{sig.return_type}({', '.join(str(a) for a in sig.args)})"
        return _Declaration(f"{name} = declare_device({c_name!r}, {text!r})", [], "", 0)
    return None


def _dtype_name(value):
    """The name of the kernel language's dtype that ``value`` stands for
    (``float32`` for ufjit's and Numba's ``float32`` type objects, NumPy's
    ``np.float32`` and ``np.dtype('f4')``), or None for anything else: as an
    argument of ``cuda.shared.array(128, float32)`` or a cast."""
    from .types import ScalarType

    if isinstance(value, ScalarType):
        return {"void": None, "bool": "bool_"}.get(value.name, value.name)
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        dtype = np.dtype(value)
        if dtype.kind == "b":
            return "bool_"  # NumPy's name for it in every version (np.bool is NumPy 2's only)
        return dtype.name if dtype.kind in "iufc" and dtype.isnative else None
    if type(value).__module__.startswith("numba.") and isinstance(getattr(value, "name", None), str):
        try:  # Numba's scalar types: numba.float32.name == 'float32'
            return _dtype_name(np.dtype(value.name))
        except TypeError:
            return None
    return None


# The largest module-level NumPy array a kernel may read as a constant (the
# GPU's constant memory holds 64 KiB).
_MAX_CONSTANT_ARRAY_BYTES = 64 * 1024


def _constant_array(value):
    """A module-level NumPy array's text, ``np.array([...], dtype=np.float64)``,
    or None: numbers of a native dtype, at least one dimension, at most
    _MAX_CONSTANT_ARRAY_BYTES (Numba copies such arrays into the kernel as
    constants too)."""
    dtype = value.dtype
    if dtype.names is not None:
        return _constant_records(value)
    if dtype.kind not in "biufc" or not dtype.isnative or dtype == np.float16 or value.ndim == 0:
        return None
    if value.nbytes > _MAX_CONSTANT_ARRAY_BYTES:
        return None

    def text(item):
        if isinstance(item, list):
            return "[" + ", ".join(text(i) for i in item) + "]"
        return _constant(item)

    return f"np.array({text(value.tolist())}, dtype=np.{dtype.name})"


def _constant_records(value):
    """A module-level array of records' text, ``np.array([(1.0, 2), ...],
    dtype='record(...)')``, or None (fields the compiler cannot hold, too big)."""
    try:
        record = _records.record_type(value.dtype)
    except TypeError:
        return None
    if value.ndim == 0 or value.nbytes > _MAX_CONSTANT_ARRAY_BYTES:
        return None

    def text(item):
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if isinstance(item, list):
            return "[" + ", ".join(text(i) for i in item) + "]"
        if isinstance(item, tuple):
            return "(" + ", ".join(text(i) for i in item) + ("," if len(item) == 1 else "") + ")"
        return _constant(item)

    return f"np.array({text(value.tolist())}, dtype='{record}')"


# The operator module's functions a kernel may be given (a closure's
# `op = operator.add`), as the expressions they stand for.
_OPERATORS = {
    "add": "a + b", "sub": "a - b", "mul": "a * b", "truediv": "a / b", "floordiv": "a // b",
    "mod": "a % b", "pow": "a ** b", "and_": "a & b", "or_": "a | b", "xor": "a ^ b",
    "lshift": "a << b", "rshift": "a >> b", "eq": "a == b", "ne": "a != b", "lt": "a < b",
    "le": "a <= b", "gt": "a > b", "ge": "a >= b", "neg": "-a", "pos": "+a", "invert": "~a",
    "not_": "not a", "abs": "abs(a)", "truth": "bool(a)",
}


def _operator_helper(name, value):
    """``def name(a, b): return a + b`` for ``operator.add`` under ``name``, or None."""
    if not isinstance(value, types.BuiltinFunctionType) or getattr(value, "__module__", None) not in (
            "operator", "_operator"):
        return None
    expression = _OPERATORS.get(value.__name__)
    if expression is None:
        return None
    params = "a, b" if "b" in expression.split() else "a"
    return f"def {name}({params}): return {expression}"


def _constant(value):
    """A module constant's text in the kernel language, or None."""
    if isinstance(value, np.ndarray):
        return _constant_array(value)
    if isinstance(value, np.generic):
        if value.dtype.kind not in "biufc":
            return None
        return f"{value.dtype.name}({_constant(value.item())})"
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(value)
    if isinstance(value, complex):
        return f"complex({_constant(value.real)}, {_constant(value.imag)})"
    if type(value) is tuple:  # of numbers and such tuples (TILE = (16, 16)); not namedtuples
        items = [None if isinstance(v, np.ndarray) else _constant(v) for v in value]
        if None in items:
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


class _Collector:
    """Walks a kernel and its helpers, collecting what they read."""

    def __init__(self):
        self.imports = {}  # name -> line
        self.constants = {}  # name -> line
        self.declarations = {}  # name -> _Declaration
        self.links = []  # files of declare_device(..., link=[...])
        self.helpers = []  # Pieces, callees before callers
        self._visited = set()  # (id(function), name it is called by)

    def visit(self, piece, fn):
        scope = scope_of(fn)
        for name in piece.names:
            if name not in scope:
                continue
            value = scope[name]
            if isinstance(value, types.ModuleType):
                module = value.__name__
                if module in _MODULES:
                    line = f"import {module}" if name == module else f"import {module} as {name}"
                    self.imports.setdefault(name, line)
                elif module in _NUMBA_MODULES and name != _NUMBA_MODULES[module][1]:
                    line = _NUMBA_MODULES[module][0]
                    self.imports.setdefault(name, line if line.endswith(f" {name}") else f"{line} as {name}")
                continue
            dtype = _dtype_name(value)
            if dtype is not None:
                if name != dtype:  # `float32` is always a dtype; an alias is imported as one
                    self.imports.setdefault(name, f"from numpy import {dtype} as {name}")
                continue
            module = getattr(value, "__module__", None)
            if isinstance(value, types.BuiltinFunctionType) and module in ("math", "cmath"):
                line = f"from {module} import {value.__name__}"  # from math import exp
                self.imports.setdefault(name, line if name == value.__name__ else f"{line} as {name}")
                continue
            # Device functions (with py_func) are helpers, never declarations.
            declared = _declaration(name, value) if _helper_function(value, fn.__module__) is None else None
            if declared is not None:
                self.declarations.setdefault(name, declared)
                self.links += [f for f in declared.links if f not in self.links]
                continue
            text = _constant(value)
            if text is not None:
                self.constants.setdefault(name, f"{name} = {text}")
                continue
            operator_helper = _operator_helper(name, value)
            if operator_helper is not None:
                self.constants.setdefault(name, operator_helper)  # one line, as a constant's
                continue
            helper = _helper_function(value, fn.__module__)
            if helper is not None and helper is not fn and (id(helper), name) not in self._visited:
                self._visited.add((id(helper), name))
                try:
                    helper_piece = Piece(helper)
                except StaleSourceError:
                    raise
                except TypeError:
                    continue  # no source (a builtin or C function): the compiler names it
                if helper_piece.name != name:  # an alias (`wrapped = cuda.jit(device=True)(f)`)
                    helper_piece.rename(name)
                self.visit(helper_piece, helper)
                self.helpers.append(helper_piece)


def kernel_source(fn, decorator, rewrite=None):
    """The whole source for ``fn``: preamble, helpers, ``decorator`` line, the def.
    ``rewrite(text, file, def_line)``, when given, edits the kernel's own
    text (from its ``def`` line on) and keeps its number of lines.

    Returns (source, source_name, links, name): ``links`` are the files named
    by the ``declare_device`` calls it reads, ``name`` the kernel's name in
    the source (a lambda's is made up). Pieces from ``fn``'s own file land
    on their own line numbers when the text before them leaves room.
    """
    kernel = Piece(fn)
    if rewrite is not None:
        kernel.text = rewrite(kernel.text, kernel.file, kernel.def_line)
    collector = _Collector()
    collector._visited.add((id(fn), kernel.name))
    collector.visit(kernel, fn)
    out = ["import math", "import cmath"]
    out += [line for name, line in collector.imports.items() if name not in ("math", "cmath")]
    out += list(collector.constants.values())
    # Declarations sit on their own line of the kernel's file where there is
    # room, so that an error about one (a helper defined with another
    # signature) points at the user's declare_device.
    for decl in sorted(collector.declarations.values(), key=lambda d: d.line if d.file == kernel.file else 0):
        free = (decl.line if decl.file == kernel.file else 0) - 1 - len(out)
        out += [""] * max(free, 0)
        out.append(decl.text)
    for piece in collector.helpers + [kernel]:
        header = ["# helper, from " + f"{piece.file}:{piece.def_line}"] if piece is not kernel else [decorator]
        target_line = piece.def_line if piece.file == kernel.file else 0
        free = target_line - 1 - len(header) - len(out)
        if free >= 0:
            out += [""] * free
        out += header
        out += piece.text.rstrip("\n").split("\n")
    return "\n".join(out) + "\n", kernel.file, collector.links, kernel.name
