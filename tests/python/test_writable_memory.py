"""Memory a kernel writes must be writable, on every path it comes by: a
writable_args input, out= (keyword, tuple, positional) and the methods'
out=. Read-only memory from each source (np.frombuffer of bytes, a
read-only memory map, writeable=False, a broadcast view, a read-only
memoryview, __cuda_array_interface__'s data=(ptr, True), a DLPack 1.0
tensor flagged read-only) is a ValueError naming the argument, raised
before anything runs; the memory is left as it was. CPU target
(test_writable_memory_gpu.py has the GPU's)."""

import numpy as np
import pytest

import ufjit
from ufjit import _ufjit, guvectorize, vectorize


@guvectorize(["void(float64[:], float64[:])", "void(uint8[:], uint8[:])"], "(n)->(n)", writable_args=("a",),
             target="cpu")
def bump(a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + 1
        out[i] = a[i]


@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->(n)", writable_args=(1,), target="cpu")
def bump_second(x, a, out):
    for i in range(a.shape[0]):
        a[i] = a[i] + x[i]
        out[i] = a[i]


@vectorize(["float64(float64, float64)"], identity=0, target="cpu")
def add(x, y):
    return x + y


def read_only_sources(tmp_path):
    """(description, read-only float64 array of [0, 1, 2, 3], what must stay unchanged)."""
    raw = np.arange(4.0).tobytes()
    path = tmp_path / "a.npy"
    np.save(path, np.arange(4.0))
    flagged = np.arange(4.0)
    flagged.flags.writeable = False
    return [
        ("frombuffer of bytes", np.frombuffer(raw, np.float64), raw),
        ("mmap_mode='r'", np.load(path, mmap_mode="r"), None),
        ("writeable=False", flagged, None),
        ("broadcast view", np.broadcast_to(np.arange(4.0), (4,)), None),
        ("read-only memoryview", memoryview(raw).cast("d"), raw),
        ("DLPack 1.0 read-only", ufjit.from_dlpack(_ufjit._export_dlpack_versioned(np.arange(4.0), True)), None),
    ]


def test_a_writable_args_input_in_read_only_memory_is_refused_before_the_call(tmp_path):
    for what, array, raw in read_only_sources(tmp_path):
        with pytest.raises(ValueError, match=r"argument 1 \('a'\) of 'bump', in writable_args, is a read-only"):
            bump(array)
        np.testing.assert_array_equal(np.asarray(array), np.arange(4.0), err_msg=what)
        if raw is not None:
            assert raw == np.arange(4.0).tobytes(), what


def test_the_second_input_is_named_by_its_position_and_name():
    ro = np.zeros(3)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 2 \('a'\) of 'bump_second'"):
        bump_second(np.ones(3), ro)
    bump_second(ro, np.zeros(3))  # the first input is only read: a read-only one is fine


def test_writable_memory_that_is_not_an_ndarray_is_written_in_place():
    buf = bytearray(b"\x01\x02\x03")
    np.testing.assert_array_equal(bump(buf), [2, 3, 4])
    assert buf == bytearray(b"\x02\x03\x04")
    a = np.zeros(4)
    bump(a)
    np.testing.assert_array_equal(a, np.ones(4))


@pytest.mark.parametrize("value", [[1.0, 2.0], (1.0, 2.0), 3.0, np.float64(3.0)])
def test_a_writable_args_input_converted_into_a_new_array_is_refused(value):
    with pytest.raises(ValueError, match="would be converted into a new array and the writes lost"):
        bump(value)


class ReadOnlyCudaArrayInterface:
    """A device array whose producer lends it for reading only. The pointer is
    never followed: the check comes first (no GPU needed)."""

    def __init__(self, shape=(4,)):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f8", "data": (4096, True), "version": 3,
                                         "strides": None}


def test_a_read_only_cuda_array_interface_is_refused_where_it_is_written():
    with pytest.raises(ValueError, match=r"argument 1 \('a'\) of 'bump'.*read-only device array.*data=\(ptr, True\)"):
        bump(ReadOnlyCudaArrayInterface())
    with pytest.raises(ValueError, match=r"out= is a read-only device array"):
        add(np.zeros(4), 1.0, out=ReadOnlyCudaArrayInterface())


def test_read_only_outputs_are_refused_on_every_path(tmp_path):
    for what, array, _ in read_only_sources(tmp_path):
        if not isinstance(array, np.ndarray):
            continue
        with pytest.raises(ValueError, match="out= is a read-only array"):
            add(np.ones(4), 1.0, out=array)
        with pytest.raises(ValueError, match="out= is a read-only array"):
            add(np.ones(4), 1.0, out=(array,))
        with pytest.raises(ValueError, match="out= is a read-only array"):
            add(np.ones(4), 1.0, array)
        np.testing.assert_array_equal(np.asarray(array), np.arange(4.0), err_msg=what)
    ro = np.zeros(())
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        add.reduce(np.ones(4), out=ro)
    ro2 = np.zeros((2, 2))
    ro2.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        add.accumulate(np.ones((2, 2)), out=ro2)
    with pytest.raises(ValueError, match="read-only"):
        add.outer(np.ones(2), np.ones(2), out=ro2)
    with pytest.raises(ValueError, match=r"out= is a read-only array"):
        bump(np.zeros(4), out=(np.broadcast_to(np.zeros(4), (4,)),))


def test_dlpack_1_0_capsules_carry_the_read_only_flag():
    a = np.arange(4.0)
    writable = ufjit.from_dlpack(_ufjit._export_dlpack_versioned(a, False))
    assert writable.flags.writeable and np.shares_memory(writable, a)
    bump(writable)
    np.testing.assert_array_equal(a, np.arange(4.0) + 1)
    read_only = ufjit.from_dlpack(_ufjit._export_dlpack_versioned(a, True))
    assert not read_only.flags.writeable
    np.testing.assert_array_equal(add(read_only, 1.0), a + 1)  # reading is fine


class VersionedProducer:
    """A producer that speaks DLPack 1.0 (max_version), as NumPy >= 2.1 does."""

    def __init__(self, array, read_only):
        self.array, self.read_only = array, read_only

    def __dlpack__(self, stream=None, max_version=None):
        if max_version is None or max_version[0] < 1:
            raise BufferError("this producer exports DLPack 1.0 only")
        return _ufjit._export_dlpack_versioned(self.array, self.read_only)

    def __dlpack_device__(self):
        return (1, 0)


def test_a_dlpack_operand_flagged_read_only_is_refused_where_it_is_written():
    a = np.zeros(4)
    with pytest.raises(ValueError, match=r"argument 1 \('a'\) of 'bump', in writable_args, is a read-only"):
        bump(VersionedProducer(a, True))
    np.testing.assert_array_equal(a, np.zeros(4))
    bump(VersionedProducer(a, False))
    np.testing.assert_array_equal(a, np.ones(4))


def test_a_dlpack_major_version_ufjit_does_not_know_is_refused_and_left_unconsumed():
    capsule = _ufjit._export_dlpack_versioned(np.zeros(2), False, 2)
    with pytest.raises(BufferError, match="DLPack 2.0"):
        ufjit.from_dlpack(capsule)
