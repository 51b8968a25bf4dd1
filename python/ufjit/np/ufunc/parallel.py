"""``numba.np.ufunc.parallel``: the CPU target's threads, as Numba names them."""

import os


def get_thread_count():
    """The number of threads the CPU target may use (the machine's CPUs)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def get_num_threads():
    return get_thread_count()


__all__ = ["get_thread_count", "get_num_threads"]
