"""A gufunc's layout (``'(m,n),(n,p)->(m,p)'``) read in Python, with Numba's
words and exception classes for a bad one, so that the errors Numba users
catch (``ValueError``, ``NameError``, ``TypeError``) come before the C++
compiler sees the decorator. A layout without ``->`` names inputs only: every
argument is an input, and results are written into them in place."""

import re

_TOKEN = re.compile(r"\s*(?:(?P<name>\w+)|(?P<punct>[(),]|->))")


def _tokens(layout):
    pos = 0
    while pos < len(layout):
        if layout[pos:].strip() == "":
            return
        m = _TOKEN.match(layout, pos)
        if m is None:
            raise ValueError(f"bad token in signature {layout[pos:].strip()[:1]!r}")
        pos = m.end()
        yield m.group("name") or m.group("punct")


def _arguments(tokens, layout):
    """The argument lists before the next '->' or the end: [('m', 'n'), ()]."""
    args = []
    while tokens and tokens[0] == "(":
        tokens.pop(0)
        dims = []
        while tokens and tokens[0] != ")":
            name = tokens.pop(0)
            if not re.fullmatch(r"\w+", name):
                raise ValueError(f"bad token in signature {name!r}")
            dims.append(name)
            if tokens and tokens[0] == ",":
                tokens.pop(0)
        if not tokens:
            raise ValueError(f"bad token in signature: unclosed '(' in {layout!r}")
        tokens.pop(0)
        args.append(tuple(dims))
        if tokens and tokens[0] == ",":
            tokens.pop(0)
    return args


def parse_layout(layout):
    """([input dims], [output dims]) of a layout, as Numba's parse_signature:
    ValueError for a bad token or a '->' with no outputs, NameError for an
    output dimension no input names."""
    if not isinstance(layout, str):
        raise TypeError(f"a gufunc layout must be a string like '(n),(n)->()', not {type(layout).__name__}")
    tokens = list(_tokens(layout))
    inputs = _arguments(tokens, layout)
    outputs = []
    if tokens and tokens[0] == "->":
        tokens.pop(0)
        outputs = _arguments(tokens, layout)
        if not outputs:
            raise ValueError(f"the layout {layout!r} has '->' but no outputs after it")
    if tokens:
        raise ValueError(f"bad token in signature {tokens[0]!r}")
    if "->" in layout:
        known = {d for arg in inputs for d in arg}
        missing = sorted({d for arg in outputs for d in arg if d not in known and not d.isdigit()})
        if missing:
            raise NameError("undefined output symbols: " + ",".join(missing))
    return inputs, outputs


def all_scalar(layout):
    """Whether every core of the layout is a scalar (``'(),()->()'``): Numba's
    gufunc then has no ``signature`` (None) and has the ufunc methods."""
    inputs, outputs = parse_layout(layout)
    return all(len(a) == 0 for a in inputs + outputs)


def _argument_text(signature_text):
    """The arguments of ``'void(a, b)'``, ``'(a, b)'`` or ``'a, b'``: ``'a, b'``."""
    text = signature_text.strip()
    m = re.fullmatch(r"\w*\s*\((.*)\)", text)
    return m.group(1) if m else text


def split_arguments(signature_text):
    """The argument texts of ``'void(int32[:], int32, c8[:,:])'``:
    ``['int32[:]', 'int32', 'c8[:,:]']`` (commas inside brackets kept)."""
    args, depth, current = [], 0, ""
    for ch in _argument_text(signature_text) + ",":
        if ch == "," and depth == 0:
            if current.strip():
                args.append(current.strip())
            current = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        current += ch
    return args


def _argument_ndims(signature_text):
    """The dimensions of each argument of ``'void(int32[:], int32, int32[:,:])'``: [1, 0, 2]."""
    return [a.count(":") for a in split_arguments(signature_text)]


def check_signature(layout, signature_text):
    """Numba's checks of a gufunc signature against its layout, with its words:
    a scalar type given for an array argument, or an array of the wrong number
    of dimensions, is a TypeError (a scalar core may be declared as a 1-element
    array, ``int32[:]`` for ``()``)."""
    inputs, outputs = parse_layout(layout)
    cores = inputs + outputs
    for i, (core, ndim) in enumerate(zip(cores, _argument_ndims(signature_text))):
        if ndim == 0 and len(core) > 0:
            type_name = split_arguments(signature_text)[i]
            raise TypeError(f"scalar type {type_name} given for non scalar argument #{i + 1}")
        if ndim > 0 and len(core) > 0 and ndim != len(core):
            raise TypeError(f"type and shape signature mismatch for arg #{i + 1}")
