"""Explicit kernels: Numba's ``@cuda.jit`` dispatcher and launch syntax over
ufjit's C++ kernels (LANGUAGE.md section 9).

    @cuda.jit
    def add(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] + y[i]

    add[blocks, threads](x, y, out)   # also [g, b, stream] and [g, b, stream, dynamic_shared_bytes]

The function's source (with the device functions, constants and imports it
reads, _source.py) is compiled at the first launch; a kernel without
signatures is then typed per argument types, as Numba's dispatcher does.
"""

import functools
import linecache
import numbers
import threading
import types

import numpy as np

from . import _records, _tuple_args, _ufjit
from ._host_device import HostStream
from ._source import kernel_source, scope_of
from ._streams import as_stream
from .types import signature_text

# Numba's options that the compiler reads from the decorator line (each
# written there as a bool), and those it accepts and that change no result.
_FORWARDED = ("fastmath", "debug", "boundscheck")
_ACCEPTED = ("opt", "lineinfo", "cache", "max_registers", "inline", "forceinline", "lto", "link", "extensions")

_MISSING_CONFIG = ("Kernel launch configuration was not specified. Use the syntax:\n\n"
                   "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)")

# Threads per block of kernel.forall(n) when not given.
_FORALL_THREADS = 256


def signature_list(func_or_sig):
    """A decorator's signatures as text: a list is several, anything else
    (a string, ``void(float32[:])``, a tuple of argument types) one."""
    sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
    return [signature_text(s) for s in sigs]


def decorator_line(signatures, options):
    """The ``@cuda.jit(...)`` line the compiler reads: the signatures and
    the options it knows. TypeError for an option Numba's cuda.jit lacks."""
    args = [repr(signatures)] if signatures else []
    for name, value in options.items():
        if name in _FORWARDED:
            if value is not None:
                args.append(f"{name}={bool(value)!r}")  # Numba's fastmath may be a set of flags
        elif name == "link":
            if value:
                args.append(f"link={list(value) if not isinstance(value, str) else [value]!r}")
        elif name not in _ACCEPTED:
            raise TypeError(f"cuda.jit() got an unexpected keyword argument {name!r}")
    return f"@cuda.jit({', '.join(args)})"


def _dims(dims, name):
    """A grid's or block's extents as a tuple of 1 to 3 ints (Numba's checks)."""
    if type(dims) is int:  # the usual launch, kernel[blocks, threads]: no more to check
        return (dims,)
    items = list(dims) if isinstance(dims, (tuple, list)) else [dims]
    if not 1 <= len(items) <= 3:
        raise ValueError(f"{name} must be a sequence of 1, 2 or 3 integers, got {items!r}")
    if not all(isinstance(v, numbers.Integral) for v in items):
        raise TypeError(f"{name} must be a sequence of integers, got {items!r}")
    return tuple(int(v) for v in items)


def _stream(stream):
    """None for the default stream (0 or None: a synchronous launch; a
    HostStream of the CPU target), else a ufjit.Stream."""
    if stream is None or (isinstance(stream, int) and stream == 0) or isinstance(stream, HostStream):
        return None
    return as_stream(stream)


# KernelError's subclasses for the user's own exception classes, by class.
_USER_ERRORS = {}


def _as_user_class(error, fn):
    """``error`` (a KernelError) as an instance of the class the kernel
    raised when the kernel's module or closure defines it (``class
    MyError(Exception)``, then ``raise MyError("...")``), so that ``except
    MyError`` catches it as it catches Numba's; else ``error`` itself.
    Builtin classes are the extension's (a KernelError that is a ValueError)."""
    cls = scope_of(fn).get(getattr(error, "exception", None))
    if not isinstance(cls, type) or not issubclass(cls, Exception) or isinstance(error, cls):
        return error
    try:
        if cls not in _USER_ERRORS:
            _USER_ERRORS[cls] = type(cls.__name__, (type(error), cls), {"__module__": cls.__module__})
        raised = _USER_ERRORS[cls](*error.args)
    except TypeError:  # a layout that does not mix, or a constructor that wants more
        return error
    for attr in ("exception", "message", "file", "line", "column"):
        setattr(raised, attr, getattr(error, attr))
    return raised


class _Where:
    """Points errors about a kernel's compiled text at the user's file.

    The text (_source.kernel_source) keeps the lines of the kernel's file
    where it can, but the C++ compiler knows it as "<string>": a diagnostic
    or a ``raise`` on a line that reads as the file's same line is told
    there. A typing error at a launch lists its diagnostics in its message."""

    def __init__(self, source, file, unrewritten=None):
        # A variant for tuple arguments (_tuple_args) edits some lines but
        # keeps them in place: its lines are checked as the source's before.
        self.lines = (unrewritten or source).splitlines()
        self.file = file

    def _file_of(self, line):
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else None
        return self.file if text and linecache.getline(self.file, line).strip() == text else "<string>"

    def locate(self, error):
        message = str(error)
        if isinstance(error, _ufjit.KernelError):
            error.file = self._file_of(error.line)
            message = message.replace(f"<string>:{error.line}:", f"{error.file}:{error.line}:", 1)
        for d in getattr(error, "diagnostics", []):
            if d["file"] == "<string>":
                d["file"] = self._file_of(d["line"])
            where = f"{d['file']}:{d['line']}:{d['column']}:"
            if f"<string>:{d['line']}:{d['column']}:" in message:
                message = message.replace(f"<string>:{d['line']}:{d['column']}:", where, 1)
            elif where not in message:
                message += f"\n{where} {d['severity']}: {d['message']}"
        error.args = (message,)


class LaunchConfiguration:
    """``kernel[griddim, blockdim, stream, sharedmem]``: calling it launches."""

    def __init__(self, dispatcher, griddim, blockdim, stream=0, sharedmem=0):
        self.dispatcher = dispatcher
        self.griddim = _dims(griddim, "griddim")
        self.blockdim = _dims(blockdim, "blockdim")
        self.stream = stream
        self.sharedmem = sharedmem
        if not isinstance(sharedmem, numbers.Integral):
            raise TypeError(f"dynamic shared memory is a number of bytes, not {sharedmem!r}")
        self._stream = _stream(stream)

    def __call__(self, *args):
        self.dispatcher._launch(self.griddim, self.blockdim, self._stream, int(self.sharedmem), args)

    def __repr__(self):
        return f"<launch of {self.dispatcher.__name__}[{self.griddim}, {self.blockdim}]>"


class ForAll:
    """``kernel.forall(ntasks)``: a 1-D launch of at least ``ntasks`` threads."""

    def __init__(self, dispatcher, ntasks, tpb=0, stream=0, sharedmem=0):
        if ntasks < 0:
            raise ValueError(f"Can't create ForAll with negative task count: {ntasks}")
        self.dispatcher = dispatcher
        self.ntasks = ntasks
        self.thread_per_block = tpb
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        block = self.thread_per_block or min(_FORALL_THREADS, self.ntasks)
        grid = (self.ntasks + block - 1) // block
        self.dispatcher[grid, block, self.stream, self.sharedmem](*args)


class _Ptx:
    """``kernel.ptx``: called with a signature's text (and an arch), or
    indexed by a signature as Numba's ``kernel.ptx[sig]``."""

    def __init__(self, dispatcher):
        self._kernel = dispatcher._compiled()

    def __call__(self, signature, arch="sm_90"):
        return self._kernel.ptx(signature, arch)

    def __getitem__(self, signature):
        text = signature_text(signature)
        # The compiled signatures are written canonically ("float32[:, :]"),
        # without the contiguity a decorator may give ("float32[:,::1]").
        wanted = _loose(text)
        found = [sig for sig in self._kernel.signatures if _loose(sig) == wanted]
        return self._kernel.ptx(found[0] if found else text, "sm_90")


def _loose(signature):
    """A signature's text without spaces or contiguity marks, for comparing."""
    return signature.replace(" ", "").replace("::1", ":")


class KernelDispatcher:
    """A ``@cuda.jit`` kernel: ``kernel[grid, block](args)`` launches it.

    Arrays are passed by reference (NumPy arrays are written in place; on
    the GPU they are copied to the device and back), scalars by value. The
    kernel runs on the GPU when there is one, else on the CPU with the GPU's
    semantics; ``UFJIT_TARGET=cpu|cuda`` overrides.
    """

    def __init__(self, fn, signatures, options):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self.targetoptions = dict(options)
        self._line = decorator_line(signatures, options)
        self._given = bool(signatures)
        self.specializations = {}  # specialize's kernels, by argument types and layouts
        self._kernel = None  # the C++ Kernel, made at the first launch
        self._where = None  # _Where, for its errors
        self._variants = {}  # (Kernel, _Where) taking tuple arguments as leaves, by tuple structures
        self._lock = threading.Lock()
        self.source = None  # the text given to the C++ compiler, once compiled
        # Numba's launch extensions: objects whose prepare_args(ty, val, stream=, retr=)
        # may replace each argument; the callables put in retr run after the launch.
        self.extensions = list(options.get("extensions") or [])

    def _compiled(self):
        """The C++ Kernel, compiled from the function's source at first use."""
        with self._lock:
            if self._kernel is None:
                self._kernel, self._where, self.source = self._compile()
            return self._kernel

    def _compile(self, tuples=None):
        """(Kernel, _Where, source) of the function's source; with
        ``tuples`` ({parameter: structure}), of its variant that takes
        those tuple parameters as their leaves (_tuple_args)."""
        source, file, _, name = kernel_source(self.py_func, self._line)
        compiled = source
        if tuples:
            def rewrite(text, file, line):
                return _tuple_args.rewritten(text, tuples, file, line)

            compiled = kernel_source(self.py_func, self._line, rewrite)[0]
        where = _Where(compiled, file, source)
        try:
            return _ufjit.kernel(compiled, name), where, compiled
        except _ufjit.CompileError as e:
            where.locate(e)
            raise

    def _with_tuples(self, kernel, args):
        """(Kernel, _Where, arguments) of a launch whose tuple arguments are
        passed as their leaves, to the variant compiled for their structure."""
        if self._given:
            raise TypeError(f"kernel '{self.__name__}' was given signatures, which name no tuple types in ufjit: "
                            "leave the signature out to pass tuples (the kernel is then typed at the launch)")
        params = kernel.parameters
        if len(args) != len(params):  # as the C++ launch words it, which would first refuse the tuple
            raise _ufjit.InputError(f"launch of kernel '{kernel.name}': the kernel takes {len(params)} arguments, "
                                    f"{len(args)} were given")
        structures = _tuple_args.tuple_structures(args, params, self.__name__)
        key = _tuple_args.structure_key(structures)
        with self._lock:
            if key not in self._variants:
                named = {params[k]: s for k, s in structures.items()}
                self._variants[key] = self._compile(named)[:2]
        variant, where = self._variants[key]
        return variant, where, _tuple_args.flattened(args, structures)

    def _with_records(self, kernel, where, args):
        """(Kernel, _Where, arguments) of a launch with records: each passed
        as its bytes, to the kernel compiled for their record types (the
        decorator's own signatures spell them, when it has some)."""
        if not self._given:
            variant = self._specialized(args)
            kernel, where = variant._kernel or variant._compiled(), variant._where
        return kernel, where, tuple(_records.as_bytes(a) if _records.is_record_argument(a) else a for a in args)

    def _launch(self, griddim, blockdim, stream, sharedmem, args):
        kernel = self._kernel or self._compiled()
        where = self._where
        written_back = []
        if self.extensions:
            args = tuple(self._prepared(a, stream, written_back) for a in args)
        if any(isinstance(a, tuple) for a in args):
            kernel, where, args = self._with_tuples(kernel, args)
        if any(isinstance(a, ArgHint) for a in args):
            args = tuple(a.launch_value() if isinstance(a, ArgHint) else a for a in args)
        if any(_records.is_record_argument(a) for a in args):
            kernel, where, args = self._with_records(kernel, where, args)
        try:
            kernel.launch(griddim, blockdim, sharedmem, stream, *args)
        except _ufjit.CompileError as e:
            where.locate(e)
            raise
        except _ufjit.KernelError as e:
            where.locate(e)
            raised = _as_user_class(e, self.py_func)
            if raised is e:
                raise
            raise raised.with_traceback(e.__traceback__) from None
        for write_back in written_back:
            write_back()

    def _prepared(self, arg, stream, written_back):
        for extension in self.extensions:
            _, arg = extension.prepare_args(_argument_type(arg), arg, stream=stream, retr=written_back)
        return arg

    def bind(self):
        """Numba's: compiles the kernel now rather than at its first launch."""
        self._compiled()

    def __getitem__(self, config):
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            raise ValueError("must specify at least the griddim and blockdim")
        return LaunchConfiguration(self, *config)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """Numba's spelling of ``kernel[griddim, blockdim, stream, sharedmem]``."""
        return LaunchConfiguration(self, griddim, blockdim, stream, sharedmem)

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher of a 1-D grid covering ``ntasks`` threads (``tpb`` per block; 0: ufjit's choice)."""
        return ForAll(self, ntasks, tpb, stream, sharedmem)

    def __call__(self, *args, **kwargs):
        raise ValueError(_MISSING_CONFIG)

    @property
    def signatures(self):
        """The signatures compiled so far: the decorator's, or one per argument types launched."""
        return self._compiled().signatures

    @property
    def parameters(self):
        """The kernel's parameter names."""
        return self._compiled().parameters

    @property
    def overloads(self):
        """Numba's: the compiled signatures (the decorator's, or one per
        argument types launched), each mapped to its own text."""
        return {sig: sig for sig in self.signatures}

    def specialize(self, *args):
        """Numba's: a kernel compiled for ``args``' types only (the same one
        for the same types and layouts, kept in ``specializations``)."""
        if self._given:
            raise RuntimeError("Dispatcher already specialized")
        if any(isinstance(a, tuple) for a in args):
            raise TypeError("specialize() takes no tuples in ufjit (its signatures have no tuple types); "
                            "launch the kernel itself, which compiles a variant per tuple structure")
        return self._specialized(args)

    def _specialized(self, args):
        """The kernel compiled for ``args``' types only, made once per types."""
        key = tuple(_argument_type(a) for a in args)
        with self._lock:
            if key not in self.specializations:
                sig = f"void({', '.join(t.replace('::1', ':') for t in key)})"
                self.specializations[key] = KernelDispatcher(self.py_func, [sig], self.targetoptions)
            return self.specializations[key]

    @property
    def ptx(self):
        """The generated PTX: ``kernel.ptx(signature, arch="sm_90")``, or as
        Numba's mapping, ``kernel.ptx[signature]`` (a string or type objects)."""
        return _Ptx(self)

    def inspect_asm(self, signature=None):
        """Numba's: the PTX of ``signature``, or {signature: PTX} of every compiled one."""
        if signature is not None:
            return self.ptx[signature]
        return {sig: self.ptx(sig) for sig in self.signatures}

    def __repr__(self):
        return f"<ufjit.cuda kernel {self.__name__}>"


class ArgHint:
    """Numba's ``cuda.In``/``Out``/``InOut``: how a host array travels to a
    launch. Arrays are passed by reference anyway; ``In`` promises the kernel
    only reads it, so the host array is left as it was."""

    def __init__(self, value):
        self.value = value

    def launch_value(self):
        return self.value


class In(ArgHint):
    """A host array the kernel reads: copied in, never back."""

    def launch_value(self):
        if isinstance(self.value, np.ndarray):
            return self.value.copy()
        return self.value


class Out(ArgHint):
    """A host array the kernel writes: copied back after the launch."""


class InOut(ArgHint):
    """A host array the kernel reads and writes (what a bare array is)."""


def _argument_type(arg):
    """The type a launch gives ``arg``, as a signature writes it, with the
    layout of a contiguous array (``float64[:, ::1]``, ``float64[::1, :]``)."""
    if isinstance(arg, bool):
        return "bool"
    if isinstance(arg, int):
        return "int64"
    if isinstance(arg, float):
        return "float64"
    if isinstance(arg, complex):
        return "complex128"
    if _records.is_record_argument(arg):
        return _records.argument_type(arg)
    if isinstance(arg, np.generic):
        return arg.dtype.name
    if isinstance(arg, ArgHint):
        return _argument_type(arg.value)
    a = arg if hasattr(arg, "__cuda_array_interface__") else np.asarray(arg)
    dims = [":"] * len(a.shape)
    flags = getattr(a, "flags", None)
    if dims and flags is not None and flags.c_contiguous:
        dims[-1] = "::1"
    elif dims and flags is not None and flags.f_contiguous:
        dims[0] = "::1"
    return f"{np.dtype(a.dtype).name}[{', '.join(dims)}]"


def is_function(value):
    """Whether ``cuda.jit``'s first argument is the function to decorate."""
    return isinstance(value, types.FunctionType)
