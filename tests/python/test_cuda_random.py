"""``cuda.random`` (Numba's xoroshiro128+ generators) with only the import
changed: the states equal a plain-Python reference of the generator (the
seed through SplitMix64, each next state a 2^64-step jump after the one
before), later subsequence starts shift them, and kernels draw uniform and
normal numbers from them with the expected moments."""

import math

import numpy as np
import pytest

from ufjit import cuda
from ufjit.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_normal_float64,
                               xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

MASK = 2**64 - 1
JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


def reference_states(n, seed, start=0):
    """The generator's states, computed with Python integers."""
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & MASK

    def step(s0, s1):
        s1 ^= s0
        return rotl(s0, 55) ^ s1 ^ ((s1 << 14) & MASK), rotl(s1, 36)

    def jump(s0, s1):
        t0 = t1 = 0
        for word in JUMP:
            for b in range(64):
                if word >> b & 1:
                    t0 ^= s0
                    t1 ^= s1
                s0, s1 = step(s0, s1)
        return t0, t1

    z = (seed + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    state = (z ^ (z >> 31), z ^ (z >> 31))
    for _ in range(start):
        state = jump(*state)
    states = [state]
    for _ in range(n - 1):
        states.append(jump(*states[-1]))
    return states


@cuda.jit
def draw(states, uniform32, uniform64, normal64):
    i = cuda.grid(1)
    if i < states.shape[0]:
        for k in range(uniform32.shape[1]):
            uniform32[i, k] = xoroshiro128p_uniform_float32(states, i)
            uniform64[i, k] = xoroshiro128p_uniform_float64(states, i)
            normal64[i, k] = xoroshiro128p_normal_float64(states, i)


def test_states_are_the_generators_seeded_and_jumped_as_numbas():
    got = create_xoroshiro128p_states(5, seed=42).copy_to_host()
    assert [(int(s["s0"]), int(s["s1"])) for s in got] == reference_states(5, 42)


def test_a_later_subsequence_start_shifts_the_states():
    first = create_xoroshiro128p_states(8, seed=1).copy_to_host()
    later = create_xoroshiro128p_states(8, seed=1, subsequence_start=3).copy_to_host()
    np.testing.assert_array_equal(first[3:], later[:-3])
    assert len(np.unique(first)) == 8


def test_kernels_draw_uniform_and_normal_numbers_from_their_own_state():
    n, draws = 128, 64
    states = create_xoroshiro128p_states(n, seed=7)
    uniform32 = np.zeros((n, draws), dtype=np.float32)
    uniform64 = np.zeros((n, draws))
    normal64 = np.zeros((n, draws))
    draw[4, 32](states, uniform32, uniform64, normal64)
    for u in (uniform32, uniform64):
        assert u.min() >= 0.0 and u.max() < 1.0
        assert abs(u.mean() - 0.5) < 0.01
        assert abs(u.std() - 1 / math.sqrt(12)) < 0.01
    assert abs(normal64.mean()) < 0.03 and abs(normal64.std() - 1.0) < 0.03
    assert len(np.unique(uniform64[:, 0])) == n  # every thread its own sequence


def test_a_negative_count_is_refused():
    with pytest.raises(ValueError, match="at least 0"):
        create_xoroshiro128p_states(-1, seed=1)
