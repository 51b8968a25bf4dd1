"""Ctrl-C during a long CPU call: KeyboardInterrupt soon after, whatever the
call (ufunc, gufunc, method), and the next call works. Python runs signal
handlers between the call's chunks of work (RuntimeOptions::interrupt)."""

import signal
import threading
import time

import numpy as np
import pytest

from ufjit import guvectorize, vectorize

ITERATIONS = 1000
# Calls sized to take 8 s are stopped at 0.3 s; the exception may wait for
# the chunks running then (65536 elements, a few hundred ms on a busy host).
LATE = 0.3 + 2.5


@vectorize(["float64(float64)"], target="cpu")
def slow(x):
    acc = x
    for i in range(ITERATIONS):
        acc = acc * 0.5 + 1.0
    return acc


@vectorize(["float64(float64, float64)"], target="cpu", identity="reorderable")
def slow_max(a, b):
    acc = a
    for i in range(ITERATIONS):
        acc = acc * 0.5 + 1.0
    return max(a, b) + 0.0 * acc


@guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cpu")
def slow_rows(a, res):
    acc = 0.0
    for i in range(a.shape[0]):
        for k in range(ITERATIONS):
            acc = acc * 0.5 + a[i]
    res[0] = acc


def _elements_for(seconds, call):
    """Elements that ``call(np.ones(n))`` needs to take about ``seconds``."""
    n = 1 << 16
    call(np.full(n, 2.0))  # compiled here
    start = time.perf_counter()
    call(np.full(n, 2.0))
    per_element = max((time.perf_counter() - start) / n, 1e-9)
    return min(int(seconds / per_element), 1 << 24)


def _interrupted_after(delay, call, *args, signum=signal.SIGINT, expected=KeyboardInterrupt):
    """Sends ``signum`` to the main thread after ``delay`` seconds while
    ``call(*args)`` runs; returns the seconds from the call to the exception."""
    main = threading.get_ident()
    sender = threading.Timer(delay, signal.pthread_kill, (main, signum))
    start = time.perf_counter()
    sender.start()
    try:
        with pytest.raises(expected):
            call(*args)
    finally:
        sender.cancel()
        sender.join()
    return time.perf_counter() - start


def test_ctrl_c_stops_a_long_ufunc_call_and_the_next_call_works():
    n = _elements_for(8.0, slow)
    x = np.full(n, 2.0)
    assert _interrupted_after(0.3, slow, x) < LATE
    y = np.linspace(-1.0, 1.0, 1001)
    expected = y.copy()
    for _ in range(ITERATIONS):
        expected = expected * 0.5 + 1.0
    np.testing.assert_allclose(slow(y), expected, rtol=1e-15)


def test_ctrl_c_stops_a_call_with_out_and_out_holds_old_or_new_values():
    n = _elements_for(8.0, slow)
    x = np.full(n, 2.0)
    out = np.full(n, -1.0)
    assert _interrupted_after(0.3, lambda: slow(x, out=out)) < LATE
    assert np.all((out == -1.0) | (out == 2.0))  # 2 is slow's fixed point
    assert np.count_nonzero(out == 2.0) < n


def test_ctrl_c_stops_reduce_and_gufunc_calls():
    n = _elements_for(8.0, lambda a: slow_max.reduce(a))
    assert _interrupted_after(0.3, slow_max.reduce, np.full(n, 3.0)) < LATE
    assert slow_max.reduce(np.array([1.0, 5.0, 2.0])) == 5.0

    rows = _elements_for(8.0, lambda a: slow_rows(a.reshape(-1, 64))) // 64
    assert _interrupted_after(0.3, slow_rows, np.ones((rows, 64))) < LATE
    expected = 0.0
    for _ in range(3 * ITERATIONS):
        expected = expected * 0.5 + 1.0
    np.testing.assert_allclose(slow_rows(np.ones((2, 3))), [expected, expected], rtol=1e-15)


class _Alarm(Exception):
    pass


def test_an_exception_raised_by_any_signal_handler_stops_the_call():
    def handler(signum, frame):
        raise _Alarm("time is up")

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        n = _elements_for(8.0, slow)
        assert _interrupted_after(0.3, slow, np.full(n, 2.0), signum=signal.SIGUSR1, expected=_Alarm) < LATE
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert slow(np.array([2.0]))[0] == 2.0


def test_a_signal_whose_handler_does_not_raise_lets_the_call_finish():
    seen = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: seen.append(signum))
    try:
        n = _elements_for(1.0, slow)
        main = threading.get_ident()
        sender = threading.Timer(0.2, signal.pthread_kill, (main, signal.SIGUSR1))
        sender.start()
        result = slow(np.full(n, 2.0))
        sender.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == [signal.SIGUSR1]
    assert np.all(result == 2.0)
