"""``numba.np.ufunc.deviceufunc``'s scheduler: how a gufunc call splits its
operands' shapes into core shapes and the loop over the outer dimensions.
ufjit's runtime schedules calls itself (in C++); this answers the same
question in Python for code that asks Numba's ``GUFuncEngine``."""

import math

import numpy as np

from ..._layout import parse_layout


class GUFuncSchedule:
    """``ishapes``/``oshapes``: the core shapes of the inputs and outputs;
    ``loopdims``: the outer shape looped over (``loopn`` iterations);
    ``pinned``: per input, whether it is the same for every iteration (its
    outer shape is broadcast); ``output_shapes``: the full output shapes."""

    def __init__(self, parent, ishapes, oshapes, loopdims, pinned):
        self.parent = parent
        self.ishapes = ishapes
        self.oshapes = oshapes
        self.loopdims = loopdims
        self.loopn = math.prod(loopdims)
        self.pinned = pinned
        self.output_shapes = [loopdims + s for s in oshapes]

    def __str__(self):
        attrs = ("ishapes", "oshapes", "loopdims", "loopn", "pinned")
        return str({k: getattr(self, k) for k in attrs})


class GUFuncEngine:
    """``GUFuncEngine.from_signature('(m,n),(n,p)->(m,p)').schedule(shapes)``."""

    @classmethod
    def from_signature(cls, signature):
        return cls(*parse_layout(signature))

    def __init__(self, inputsig, outputsig):
        self.sin = inputsig
        self.sout = outputsig
        self.nin = len(inputsig)
        self.nout = len(outputsig)

    def schedule(self, ishapes):
        """The GUFuncSchedule of inputs of these shapes: a ValueError, with
        Numba's words, for too few dimensions or core sizes that differ."""
        if len(ishapes) != self.nin:
            raise TypeError("invalid number of input argument")
        sizes = {}
        outer_shapes, inner_shapes = [], []
        for argn, (shape, symbols) in enumerate(zip(ishapes, self.sin), start=1):
            shape = tuple(shape)
            if len(shape) < len(symbols):
                raise ValueError(f"arg #{argn}: insufficient inner dimension")
            split = len(shape) - len(symbols)
            for axis, (dim, sym) in enumerate(zip(shape[split:], symbols), start=split):
                if sizes.setdefault(sym, dim) != dim:
                    raise ValueError(f"arg #{argn}: shape[{axis}] mismatch argument")
            outer_shapes.append(shape[:split])
            inner_shapes.append(shape[split:])
        oshapes = [tuple(sizes[sym] for sym in sig) for sig in self.sout]
        try:
            loopdims = tuple(np.broadcast_shapes(*outer_shapes))
        except ValueError:
            raise ValueError("outer dimension mismatch") from None
        pinned = [shape != loopdims for shape in outer_shapes]
        return GUFuncSchedule(self, inner_shapes, oshapes, loopdims, pinned)


__all__ = ["GUFuncEngine", "GUFuncSchedule"]
