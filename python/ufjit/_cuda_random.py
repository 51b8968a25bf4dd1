"""``cuda.random``: Numba's xoroshiro128+ random number generators for
kernels, one generator state per thread.

``create_xoroshiro128p_states(n, seed)`` makes ``n`` states, a device array of
records ``(s0, s1)`` of two uint64 (``xoroshiro128p_dtype``); a kernel draws
from its own with ``xoroshiro128p_uniform_float32(states, i)`` and the other
device functions below, giving Numba's numbers: state 0 is the seed through
SplitMix64 and each next state starts 2^64 steps after the one before (a
jump), made by one thread (as Numba makes them on one CPU core).

On the GPU, a ufjit device array holds numbers only: there the states are a
host array (``cuda.HostDeviceArray``), copied to the device and back at each
launch that takes them.
"""

import math

import numpy as np

from . import cuda
from ._host_device import HostDeviceArray
from .types import float32, float64, uint32, uint64

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)
xoroshiro128p_type = xoroshiro128p_dtype

_TWO_PI = 2.0 * math.pi


@cuda.jit(device=True)
def rotl(x, k):
    """``x`` rotated left by ``k`` bits (0 < k < 64)."""
    x = uint64(x)
    return (x << uint32(k)) | (x >> uint32(64 - k))


@cuda.jit(device=True)
def xoroshiro128p_next(states, index):
    """The next 64 random bits of state ``index``, which moves on."""
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = rotl(s0, 55) ^ s1 ^ (s1 << uint32(14))
    states[index]["s1"] = rotl(s1, 36)
    return result


@cuda.jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform on [0, 1) from state ``index``."""
    return float32(xoroshiro128p_uniform_float64(states, index))


@cuda.jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform on [0, 1) from state ``index``."""
    return float64(xoroshiro128p_next(states, index) >> uint32(11)) * (1.0 / 9007199254740992.0)


@cuda.jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 standard normal from state ``index`` (Box-Muller)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(float32(-2.0) * math.log(u1)) * math.cos(float32(_TWO_PI) * u2)


@cuda.jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 standard normal from state ``index`` (Box-Muller)."""
    u1 = xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2)


@cuda.jit(device=True)
def init_xoroshiro128p_state(states, index, seed):
    """State ``index`` from a 64-bit seed through SplitMix64 (so that small
    seeds do not start predictably), both words the same, as Numba's."""
    z = uint64(seed) + uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
    z = z ^ (z >> uint32(31))
    states[index]["s0"] = z
    states[index]["s1"] = z


@cuda.jit(device=True)
def xoroshiro128p_jump(states, index):
    """Moves state ``index`` 2^64 steps on: the xoroshiro128+ jump polynomial."""
    s0 = uint64(0)
    s1 = uint64(0)
    for word in (uint64(0xBEAC0467EBA5FACB), uint64(0xD86B048B86AA9922)):
        for b in range(64):
            if word & (uint64(1) << uint32(b)):
                s0 ^= states[index]["s0"]
                s1 ^= states[index]["s1"]
            xoroshiro128p_next(states, index)
    states[index]["s0"] = s0
    states[index]["s1"] = s1


@cuda.jit
def _seed_states(states, seed, subsequence_start):
    # One thread: each state is the one before it 2^64 steps on.
    if cuda.grid(1) == 0 and states.shape[0] > 0:
        init_xoroshiro128p_state(states, 0, seed)
        for _ in range(subsequence_start):
            xoroshiro128p_jump(states, 0)
        for i in range(1, states.shape[0]):
            states[i] = states[i - 1]
            xoroshiro128p_jump(states, i)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Seeds every state of ``states`` (an array of xoroshiro128p_dtype):
    state 0 from ``seed`` moved ``subsequence_start`` jumps on, each next
    one a jump (2^64 steps) after it, as Numba's."""
    _seed_states[1, 1, stream](states, np.uint64(seed), np.int64(subsequence_start))


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """``n`` seeded generator states: a device array where kernels run on the
    CPU target, a host array copied at each launch on the GPU (module doc)."""
    if n < 0:
        raise ValueError(f"create_xoroshiro128p_states: n must be at least 0, got {n}")
    states = np.zeros(int(n), dtype=xoroshiro128p_dtype).view(HostDeviceArray)
    init_xoroshiro128p_states(states, int(seed) & (2**64 - 1), int(subsequence_start), stream)
    return states
