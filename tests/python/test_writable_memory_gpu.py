"""Memory a GPU kernel writes must be writable (test_writable_memory.py has
the CPU's): a read-only host array given to a writable_args input of a GPU
gufunc (which would be copied to the device, written, and copied back into
read-only memory) and a device array lent read-only through
__cuda_array_interface__ are refused, before anything runs. Skipped
without a GPU."""

import numpy as np
import pytest

import ufjit
from ufjit import guvectorize, vectorize

from conftest import need_gpu


@guvectorize(["void(float32[:], float32[:])"], "(n)->(n)", writable_args=("a",), target="cuda")
def bump(a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        out[i] = a[i]


@vectorize(["float32(float32, float32)"], target="cuda")
def add(x, y):
    return x + y


class LentReadOnly:
    """A device array its producer lends for reading only."""

    def __init__(self, device_array):
        self.keep = device_array
        cai = dict(device_array.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], True)
        self.__cuda_array_interface__ = cai


def test_read_only_host_memory_is_refused_for_a_gpu_writable_args_input(tmp_path):
    need_gpu()
    raw = np.arange(8, dtype=np.float32).tobytes()
    path = tmp_path / "a.npy"
    np.save(path, np.arange(8, dtype=np.float32))
    for array in (np.frombuffer(raw, np.float32), np.load(path, mmap_mode="r")):
        with pytest.raises(ValueError, match=r"argument 1 \('a'\) of 'bump', in writable_args, is a read-only"):
            bump(array)
        np.testing.assert_array_equal(np.asarray(array), np.arange(8, dtype=np.float32))
    assert raw == np.arange(8, dtype=np.float32).tobytes()


def test_a_read_only_cuda_array_interface_is_refused_where_it_is_written():
    need_gpu()
    d = ufjit.to_device(np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="read-only device array"):
        bump(LentReadOnly(d))
    with pytest.raises(ValueError, match="out= is a read-only device array"):
        add(d, 1.0, out=LentReadOnly(d))
    np.testing.assert_array_equal(d.copy_to_host(), np.zeros(8, np.float32))
    r = add(LentReadOnly(d), 1.0)  # reading it is fine
    np.testing.assert_array_equal(r.copy_to_host(), np.ones(8, np.float32))
    bump(d)  # a writable device array is written in place
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(8, np.float32))
