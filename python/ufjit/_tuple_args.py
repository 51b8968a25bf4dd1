"""Tuples and namedtuples as kernel arguments, as Numba's dispatcher takes them.

A C++ launch takes arrays and scalars only. A launch with tuple arguments
passes each tuple's leaves (arrays and numbers, in order) as parameters of
their own, ``x__0``, ``x__1_0``, ..., and compiles, once per tuple structure,
the kernel's source with the tuple parameter rebuilt from them:

    x[1][0] -> x__1_0          x.y -> x__1 (a namedtuple's field)
    len(x)  -> 3               x[2] -> (x__2_0, x__2_1) (a tuple of numbers)
    x[i]    -> (x__0 if (i) == 0 or (i) == -2 else x__1) (x of two numbers)

Subscripts and attributes with constant indices are replaced by the leaf
they name; a (sub)tuple of numbers used as a value (``for v in x``,
``x[i]``, an argument of a device function) becomes a tuple of its leaves.
Each replacement stays on its own line, so diagnostics still point at the
user's file and line (columns after a replacement may shift).
"""

import ast
import numbers

import numpy as np

# A leaf's kind in a structure.
_ARRAY = "array"
_NUMBER = "number"


class _Tuple:
    """A tuple argument's shape: its items' structures (a leaf kind or a
    _Tuple) and a namedtuple's field names (None for a plain tuple).
    Equal structures compile to the same source."""

    def __init__(self, items, fields):
        self.items = tuple(items)
        self.fields = tuple(fields) if fields is not None else None

    def key(self):
        return (self.fields, tuple(i.key() if isinstance(i, _Tuple) else i for i in self.items))

    def numbers_only(self):
        return all(i == _NUMBER or (isinstance(i, _Tuple) and i.numbers_only()) for i in self.items)


def _leaf_kind(value):
    """_NUMBER, _ARRAY, or None for something a launch does not take."""
    if isinstance(value, (numbers.Number, np.generic)):
        return _NUMBER
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__") or hasattr(value, "__dlpack__"):
        return _ARRAY
    from ._kernels import ArgHint

    if isinstance(value, ArgHint):
        return _leaf_kind(value.value)
    return None


def _structure(value, where):
    """The _Tuple of a tuple argument; TypeError naming the element
    (``where``, as ``x[1][0]``) that is neither an array, a number nor a tuple."""
    items = []
    for k, item in enumerate(value):
        at = f"{where}[{k}]"
        if isinstance(item, tuple):
            items.append(_structure(item, at))
            continue
        kind = _leaf_kind(item)
        if kind is None:
            raise TypeError(f"element {at} of a tuple argument is a {type(item).__name__}: "
                            "a kernel's tuple arguments hold NumPy arrays, device arrays, numbers and tuples")
        items.append(kind)
    return _Tuple(items, getattr(type(value), "_fields", None))


def tuple_structures(args, params, kernel_name):
    """{argument position: _Tuple} of a launch's tuple arguments."""
    found = {}
    for k, arg in enumerate(args):
        if isinstance(arg, tuple):
            name = params[k]
            try:
                found[k] = _structure(arg, name)
            except TypeError as e:
                raise TypeError(f"argument {k + 1} ('{name}') of kernel '{kernel_name}': {e}") from None
    return found


def structure_key(structures):
    """What the compiled variant depends on: each tuple argument's structure."""
    return tuple(sorted((k, s.key()) for k, s in structures.items()))


def flattened(args, structures):
    """The launch's arguments with each tuple replaced by its leaves, in order."""
    flat = []
    for k, arg in enumerate(args):
        if k in structures:
            _leaves_of(arg, flat)
        else:
            flat.append(arg)
    return tuple(flat)


def _leaves_of(value, out):
    for item in value:
        if isinstance(item, tuple):
            _leaves_of(item, out)
        else:
            out.append(item)


class _Rewriter:
    """Edits a kernel's text: tuple parameters become their leaves."""

    def __init__(self, fn_node, tuples, where):
        self.tuples = tuples  # parameter name -> _Tuple
        self.where = where  # (file, line of the text's first line)
        used = {n.id for n in ast.walk(fn_node) if isinstance(n, ast.Name)} | {a.arg for a in fn_node.args.args}
        self.leaf_names = {}  # (parameter, path) -> name
        for param, struct in tuples.items():
            self._name_leaves(param, (), struct, used)
        self.edits = []  # ((line, col), (end line, end col), text), cols in UTF-8 bytes

    def _name_leaves(self, param, path, struct, used):
        for k, item in enumerate(struct.items):
            if isinstance(item, _Tuple):
                self._name_leaves(param, path + (k,), item, used)
                continue
            name = f"{param}__{'_'.join(str(i) for i in path + (k,))}"
            while name in used:
                name += "_"
            used.add(name)
            self.leaf_names[(param, path + (k,))] = name

    def parameters(self, params):
        """The new parameter list: each tuple's leaf names in its place."""
        out = []
        for p in params:
            if p in self.tuples:
                out += [n for (param, _), n in self.leaf_names.items() if param == p]
            else:
                out.append(p)
        return out

    def _error(self, node, message):
        file, first = self.where
        return TypeError(f"{file}:{first + node.lineno - 1}: {message}")

    def _resolve(self, node):
        """(parameter, path, structure) when ``node`` names a tuple
        parameter or a part of one through constant indices and fields."""
        if isinstance(node, ast.Name) and node.id in self.tuples:
            if not isinstance(node.ctx, ast.Load):
                raise self._error(node, f"the tuple parameter '{node.id}' is assigned to; give the result "
                                        "another name")
            return node.id, (), self.tuples[node.id]
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            base = self._resolve(node.value)
            if base is None or not isinstance(base[2], _Tuple):
                return None
            param, path, struct = base
            k = self._constant_index(node, struct)
            if k is None:
                return None
            return param, path + (k,), struct.items[k]
        return None

    @staticmethod
    def _constant_index(node, struct):
        """The item ``node`` (``t[k]``, ``t[-k]``, ``t.field``) picks from ``struct``, or None."""
        if isinstance(node, ast.Attribute):
            fields = struct.fields or ()
            return fields.index(node.attr) if node.attr in fields else None
        index = node.slice
        sign = 1
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            index, sign = index.operand, -1
        if not isinstance(index, ast.Constant) or type(index.value) is not int:
            return None
        k = sign * index.value
        n = len(struct.items)
        return k % n if -n <= k < n else None

    def _value_text(self, node, resolved):
        """The text that replaces a resolved part used as a value."""
        param, path, struct = resolved
        if not isinstance(struct, _Tuple):
            return self.leaf_names[(param, path)]
        if not struct.numbers_only():
            shown = ast.unparse(node)
            raise self._error(node, f"the tuple {shown} holds arrays, so it is used by its parts only: index it "
                                    f"with constants ({shown}[0]) or take len({shown})")
        parts = [self._value_text(node, (param, path + (k,), item)) for k, item in enumerate(struct.items)]
        return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"  # () when empty

    def visit(self, node):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
                and len(node.args) == 1 and not node.keywords):
            resolved = self._resolve(node.args[0])
            if resolved is not None and isinstance(resolved[2], _Tuple):
                self._replace(node, str(len(resolved[2].items)))
                return
        if self._dynamic_item(node):
            return
        resolved = self._resolve(node)
        if resolved is not None:
            if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
                raise self._error(node, f"{ast.unparse(node)} is an item of a tuple, which cannot be assigned to")
            self._replace(node, self._value_text(node, resolved))
            return
        for child in ast.iter_child_nodes(node):
            self.visit(child)

    def _dynamic_item(self, node):
        """Replaces ``t[i]``, ``i`` not a constant, on a tuple of numbers by
        a choice among its items (the kernel language indexes tuples with
        constants only), as Numba indexes a UniTuple; negative ``i`` count
        from the end. Only an index without calls and tuple parameters,
        which may be evaluated more than once. Whether it did."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            return False
        base = self._resolve(node.value)
        if base is None or not isinstance(base[2], _Tuple) or self._resolve(node) is not None:
            return False
        param, path, struct = base
        index = node.slice
        if (not struct.items or any(i != _NUMBER for i in struct.items) or isinstance(index, ast.Slice)
                or any(isinstance(n, ast.Call) or (isinstance(n, ast.Name) and n.id in self.tuples)
                       for n in ast.walk(index))):
            return False
        i = f"({ast.unparse(index)})"
        n = len(struct.items)
        names = [self.leaf_names[(param, path + (k,))] for k in range(n)]
        arms = [f"{name} if {i} == {k} or {i} == {k - n} else " for k, name in enumerate(names[:-1])]
        self._replace(node, "(" + "".join(arms) + names[-1] + ")")
        return True

    def _replace(self, node, text):
        if node.end_lineno != node.lineno:  # keep the line count: the newlines go inside brackets
            text = f"({text}" + "\n" * (node.end_lineno - node.lineno) + ")"
        else:  # a shorter text keeps the columns after it: x[1][0] -> "x__1_0 "
            text += " " * (node.end_col_offset - node.col_offset - len(text.encode()))
        self.edits.append(((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset), text))


def rewritten(text, tuples, file, first_line):
    """A kernel's text (from its ``def`` line on) with its tuple parameters
    (name -> _Tuple) replaced by their leaves; as many lines as before."""
    fn = ast.parse(text).body[0]
    args = fn.args
    if args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg or args.defaults:
        raise TypeError(f"{file}:{first_line}: kernel '{fn.name}' takes tuple arguments only with plain "
                        "positional parameters")
    rewriter = _Rewriter(fn, tuples, (file, first_line))
    for stmt in fn.body:
        rewriter.visit(stmt)
    params = [a.arg for a in args.args]
    first, last = args.args[0], args.args[-1]
    newlines = "\n" * (last.end_lineno - first.lineno)
    rewriter.edits.append(((first.lineno, first.col_offset), (last.end_lineno, last.end_col_offset),
                           ", ".join(rewriter.parameters(params)) + newlines))
    return _applied(text, rewriter.edits)


def _applied(text, edits):
    """``text`` with each edit's span (1-based lines, UTF-8 byte columns) replaced."""
    lines = [line.encode() for line in text.split("\n")]
    for (line, col), (end_line, end_col), new in sorted(edits, reverse=True):
        head = lines[line - 1][:col]
        tail = lines[end_line - 1][end_col:]
        lines[line - 1:end_line] = (head + new.encode() + tail).split(b"\n")
    return "\n".join(line.decode() for line in lines)
