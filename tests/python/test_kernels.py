"""Explicit kernels from Python: ``@cuda.jit`` and ``kernel[grid, block](args)``
with only the import changed (numba -> ufjit). The tutorials' kernels, the
launch syntax, lazily typed kernels, and the errors of a bad launch, checked
against NumPy. Where there is no GPU they run on the CPU target with the
GPU's semantics (test_kernels_gpu.py runs them on a GPU)."""

import os
import threading

import numpy as np
import pytest

import ufjit
from ufjit import cuda, float32, int32, types, void
from ufjit import cuda as cu
from ufjit import float32 as f32

TPB = 16  # threads per block side of the tiled matmul
BLOCK = 128  # threads per block of the block reduction
DT = np.float64  # a module-level NumPy dtype used inside a kernel
COUNT_DTYPE = np.dtype("int64")  # a dtype object, and a scalar type under another name
Count = np.int64
ONE = np.int64(1)


@cuda.jit
def add_kernel(x, y, out):
    """Grid-stride loop: any grid covers every element."""
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


@cuda.jit("void(float64[:, :], float64[:, :])")
def increment_2d(a, out):
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        out[x, y] = a[x, y] + 1


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit
def block_sum(a, partial):
    buf = cuda.shared.array(BLOCK, DT)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < a.size:
        buf[tid] = a[i]
    else:
        buf[tid] = 0
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]


@cuda.jit
def histogram(x, xmin, xmax, hist):
    nbins = hist.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = np.int32((x[i] - xmin) / bin_width)
        if bin_number >= 0 and bin_number < nbins:
            cuda.atomic.add(hist, bin_number, 1)


@cuda.jit
def warp_sum(a, out):
    i = cuda.grid(1)
    v = a[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v


@cuda.jit
def reverse_blocks(a):
    buf = cuda.shared.array(0, dtype=f32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = a[i]
    cuda.syncthreads()
    a[i] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


@cuda.jit(void(float32[:], float32))
def scale_f32(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


@cuda.jit(["void(int32[:], int32)", "void(float64[:], float64)"], fastmath=False, opt=True, lineinfo=True)
def fill(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = value


@cuda.jit()
def negate(a):
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        a[i] = -a[i]


@cuda.jit(device=True)
def store(out, i, value):
    out[i] = value


@cuda.jit
def squares(out):
    i = cuda.grid(1)
    if i < out.size:
        store(out, i, i * i)


@cuda.jit
def checked_sqrt(a):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] < 0:
            raise ValueError("negative input")
        a[i] = a[i] ** 0.5


@cuda.jit
def add_3d(a, value):
    x, y, z = cuda.grid(3)
    if x < a.shape[0] and y < a.shape[1] and z < a.shape[2]:
        a[x, y, z] += value


@cuda.jit
def bump_scalar(a):
    if cuda.grid(1) == 0:
        a[0] += 1


@cuda.jit
def count_positive(a, count):
    seen = cuda.shared.array(1, COUNT_DTYPE)
    i = cuda.grid(1)
    if cuda.threadIdx.x == 0:
        seen[0] = 0
    cuda.syncthreads()
    if i < a.size and a[i] > 0:
        cuda.atomic.add(seen, 0, ONE)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(count, 0, Count(seen[0]))


@cu.jit
def lane_ids(out):
    i = cu.grid(1)
    if i < out.size:
        out[i] = cu.laneid


@ufjit.cuda.jit
def reverse_quads(a):
    s = ufjit.cuda.shared.array(4, types.float32)
    i = ufjit.cuda.grid(1)
    t = ufjit.cuda.threadIdx.x
    s[t] = a[i]
    ufjit.cuda.syncthreads()
    a[i] = s[3 - t]


@cuda.jit(debug=True)
def off_by_one(a):
    i = cuda.grid(1)
    a[i + 1] = 1


def test_grid_stride_add_covers_every_element_with_fewer_threads():
    x = np.arange(10000, dtype=np.float32)
    y = 0.5 * x
    out = np.full_like(x, -1)
    add_kernel[7, 64](x, y, out)
    np.testing.assert_array_equal(out, x + y)
    assert add_kernel.signatures == ["void(float32[:], float32[:], float32[:])"]


def test_two_dimensional_grid():
    a = np.arange(50 * 37, dtype=np.float64).reshape(50, 37)
    out = np.zeros_like(a)
    increment_2d[(4, 3), (16, 16)](a, out)
    np.testing.assert_array_equal(out, a + 1)


def test_tiled_shared_memory_matmul():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((45, 70)).astype(np.float32)
    b = rng.standard_normal((70, 33)).astype(np.float32)
    c = np.zeros((45, 33), dtype=np.float32)
    blocks = ((33 + TPB - 1) // TPB, (45 + TPB - 1) // TPB)
    # The loop over tiles runs gridDim.x times: enough for A's 70 columns.
    fast_matmul[(5, blocks[1]), (TPB, TPB)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_block_reduction_with_syncthreads():
    a = np.random.default_rng(2).standard_normal(1000)
    blocks = (a.size + BLOCK - 1) // BLOCK
    partial = np.zeros(blocks)
    block_sum[blocks, BLOCK](a, partial)
    expected = [a[k * BLOCK:(k + 1) * BLOCK].sum() for k in range(blocks)]
    np.testing.assert_allclose(partial, expected, rtol=1e-12)


@cuda.jit
def live_sum(a, partial, counts):
    """Threads past the end return before the barriers; the rest reduce."""
    buf = cuda.shared.array(BLOCK, DT)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = 0
    cuda.syncthreads()
    if i >= a.size:
        return
    buf[tid] = a[i]
    live = cuda.syncthreads_count(1)
    s = BLOCK // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]
        counts[cuda.blockIdx.x] = live


def test_threads_that_return_early_leave_the_later_barriers_to_the_others():
    a = np.random.default_rng(4).standard_normal(300)
    blocks = (a.size + BLOCK - 1) // BLOCK
    partial = np.zeros(blocks)
    counts = np.zeros(blocks, dtype=np.int32)
    live_sum[blocks, BLOCK](a, partial, counts)
    expected = [a[k * BLOCK:(k + 1) * BLOCK].sum() for k in range(blocks)]
    np.testing.assert_allclose(partial, expected, rtol=1e-12)
    np.testing.assert_array_equal(counts, [BLOCK, BLOCK, a.size - 2 * BLOCK])


def test_atomic_histogram():
    x = np.random.default_rng(3).uniform(-1.0, 1.0, 5000)
    hist = np.zeros(10, dtype=np.int64)
    histogram[8, 64](x, -1.0, 1.0, hist)
    expected, _ = np.histogram(x, bins=10, range=(-1.0, 1.0))
    np.testing.assert_array_equal(hist, expected)


def test_shfl_down_warp_reduction():
    a = np.arange(256, dtype=np.int32)
    out = np.zeros(8, dtype=np.int32)
    warp_sum[2, 128](a, out)
    np.testing.assert_array_equal(out, a.reshape(8, 32).sum(axis=1))


def test_dynamic_shared_memory_of_the_launch():
    a = np.arange(96, dtype=np.float32)
    reverse_blocks[3, 32, 0, 32 * 4](a)
    np.testing.assert_array_equal(a, np.arange(96, dtype=np.float32).reshape(3, 32)[:, ::-1].ravel())


def test_lazily_typed_kernel_compiles_per_argument_types():
    d = np.arange(5, dtype=np.float64)
    scale[1, 32](d, 3)
    np.testing.assert_array_equal(d, [0, 3, 6, 9, 12])
    i = np.arange(3, dtype=np.int32)
    scale[2, 2](i, 2)
    np.testing.assert_array_equal(i, [0, 2, 4])
    c = np.array([1 + 1j, 2], dtype=np.complex128)
    scale[1, 32](c, 1j)
    np.testing.assert_array_equal(c, [-1 + 1j, 2j])
    f = np.ones(4, dtype=np.float32)
    scale[1, 4](f, np.float32(0.5))
    np.testing.assert_array_equal(f, np.full(4, 0.5, dtype=np.float32))
    assert scale.signatures[:3] == ["void(float64[:], int64)", "void(int32[:], int64)",
                                    "void(complex128[:], complex128)"]


def test_decorator_with_parentheses_and_the_generated_ptx():
    a = np.arange(6, dtype=np.int16)
    negate[1, 4](a)
    np.testing.assert_array_equal(a, -np.arange(6))
    assert negate.signatures == ["void(int16[:])"]
    assert ".entry" in fill.ptx("void(int32[:], int32)")
    assert list(fill.inspect_asm()) == fill.signatures
    assert fill.ptx[(int32[:], int32)] == fill.ptx("void(int32[:], int32)")  # Numba's mapping
    assert increment_2d.ptx["void(float64[:, ::1], float64[:,:])"] == increment_2d.inspect_asm(
        "void(float64[:, :], float64[:, :])")
    assert fill.inspect_asm("void(int32[:], int32)") == fill.ptx("void(int32[:], int32)")
    with pytest.raises(ufjit.DispatchError, match="no signature 'void\\(int8\\[:\\]\\)'"):
        negate.ptx("void(int8[:])")


def test_signatures_given_as_type_objects_and_lists():
    a = np.ones(10, dtype=np.float32)
    scale_f32[1, 16](a, 2.5)
    np.testing.assert_array_equal(a, np.full(10, 2.5, dtype=np.float32))
    assert scale_f32.signatures == ["void(float32[:], float32)"]
    ints = np.zeros(7, dtype=np.int32)
    fill[1, 8](ints, 4)
    floats = np.zeros(7)
    fill[1, 8](floats, 0.25)
    np.testing.assert_array_equal(ints, np.full(7, 4))
    np.testing.assert_array_equal(floats, np.full(7, 0.25))
    assert fill.signatures == ["void(int32[:], int32)", "void(float64[:], float64)"]


def test_no_signature_fits_the_arguments():
    with pytest.raises(ufjit.DispatchError, match="no signature") as info:
        scale_f32[1, 16](np.ones(4), 2.0)
    assert isinstance(info.value, TypeError)


def test_a_bad_signature_is_a_compile_error_at_the_first_launch():
    @cuda.jit("float32(float32[:])")
    def returns(a):
        a[0] = 1

    with pytest.raises(ufjit.CompileError, match="returns nothing"):
        returns[1, 1](np.zeros(1, dtype=np.float32))


def test_an_unknown_option_is_refused_at_the_decorator():
    with pytest.raises(TypeError, match="no_such_option"):
        cuda.jit(no_such_option=True)


def test_wrong_argument_count():
    with pytest.raises(ufjit.InputError, match="takes 3 arguments, 2 were given"):
        add_kernel[1, 32](np.zeros(3), np.zeros(3))


def test_read_only_arrays_are_refused():
    a = np.zeros(4)
    a.flags.writeable = False
    with pytest.raises(ufjit.InputError, match="read-only"):
        scale[1, 4](a, 2.0)
    with pytest.raises(ufjit.InputError, match="read-only"):
        scale[1, 4](np.broadcast_to(np.ones(1), (4,)), 2.0)


def test_lists_and_tuples_are_refused():
    with pytest.raises(TypeError, match="argument 1 \\('a'\\) of kernel 'scale' is a list"):
        scale[1, 4]([1.0, 2.0], 2.0)


def test_non_contiguous_views_are_written_in_place():
    a = np.arange(20, dtype=np.float64)
    scale[1, 32](a[::2], 10)
    expected = np.arange(20, dtype=np.float64)
    expected[::2] *= 10
    np.testing.assert_array_equal(a, expected)
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = np.zeros((4, 3))
    increment_2d[(1, 1), (8, 8)](m.T, out)
    np.testing.assert_array_equal(out, m.T + 1)
    out2 = np.zeros((4, 6))
    increment_2d[(1, 1), (8, 8)](m.T, out2[:, ::2])
    np.testing.assert_array_equal(out2[:, ::2], m.T + 1)
    np.testing.assert_array_equal(out2[:, 1::2], 0)


def test_zero_d_and_three_d_arrays():
    z = np.array(41.0)
    with pytest.raises(TypeError, match="argument 1 \\('a'\\) of kernel 'bump_scalar' is a 0-d array"):
        bump_scalar[1, 1](z)
    bump_scalar[1, 1](z.reshape(1))
    assert z[()] == 42.0
    a = np.zeros((5, 6, 7), dtype=np.int64)
    add_3d[(1, 2, 2), (8, 4, 4)](a, 3)
    np.testing.assert_array_equal(a, np.full((5, 6, 7), 3))


def test_launch_syntax_variants():
    x = np.arange(100, dtype=np.float64)
    for launch in (add_kernel[2, 64], add_kernel[(2,), (64,)], add_kernel[2, 64, 0], add_kernel[2, 64, None],
                   add_kernel[2, 64, 0, 0], add_kernel[np.int64(2), [8, 8]], add_kernel.configure(1, 32),
                   add_kernel.forall(100), add_kernel.forall(100, tpb=16)):
        out = np.zeros_like(x)
        launch(x, x, out)
        np.testing.assert_array_equal(out, 2 * x)
    launcher = add_kernel[3, (4, 2), 0, 0]
    assert launcher.griddim == (3,) and launcher.blockdim == (4, 2) and launcher.sharedmem == 0
    out = np.zeros(3)
    add_kernel.forall(0)(x, x, out)  # no task: no launch
    np.testing.assert_array_equal(out, 0)


def test_bad_launch_configurations():
    with pytest.raises(ValueError, match="griddim and blockdim"):
        add_kernel[4]
    with pytest.raises(ValueError, match=r"1, 2 or 3 integers, got \[1, 1, 1, 1\]"):
        add_kernel[(1, 1, 1, 1), 32]
    with pytest.raises(TypeError, match=r"sequence of integers, got \[1.5\]"):
        add_kernel[1.5, 32]
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        add_kernel(np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(ufjit.InputError, match="block .* outside CUDA's limits"):
        add_kernel[1, 2048](np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(ufjit.InputError, match="grid .* outside CUDA's limits"):
        add_kernel[0, 32](np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(ValueError, match="negative task count"):
        add_kernel.forall(-1)


def test_a_kernel_calls_a_device_function_that_writes_an_array():
    out = np.zeros(40, dtype=np.int64)
    squares[2, 32](out)
    np.testing.assert_array_equal(out, np.arange(40) ** 2)


def test_raise_in_a_kernel_is_a_kernel_error():
    a = np.array([4.0, -1.0, 9.0])
    with pytest.raises(ufjit.KernelError, match="negative input") as info:
        checked_sqrt[1, 32](a)
    assert isinstance(info.value, ValueError)
    assert info.value.exception == "ValueError"
    assert info.value.file == __file__  # the raise's own line of this file
    assert __file__ in str(info.value)
    ok = np.array([4.0, 9.0])
    checked_sqrt[1, 32](ok)
    np.testing.assert_array_equal(ok, [2.0, 3.0])


class OutOfRange(Exception):
    pass


@cuda.jit("void(int32[:], int32)")
def check_range(a, limit):
    i = cuda.grid(1)
    if i < a.size and a[i] > limit:
        raise OutOfRange("over the limit")


def test_the_users_exception_class_is_raised():
    check_range[1, 8](np.arange(4, dtype=np.int32), 10)
    with pytest.raises(OutOfRange, match="over the limit") as info:
        check_range[1, 8](np.arange(4, dtype=np.int32), 2)
    assert isinstance(info.value, ufjit.KernelError) and info.value.exception == "OutOfRange"


def test_debug_checks_every_index():
    # The CPU target names the index, the extent and the thread; a GPU the array and the axis.
    detail = r" \(index 4, size 4\), in thread \(3, 0, 0\)" if not cuda.is_available() else ""
    with pytest.raises(IndexError, match=r"axis 0 of 'a'" + detail):
        off_by_one[1, 4](np.zeros(4))


@cuda.jit(debug=True)
def racy_neighbours(a):
    s = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    a[t] = s[(t + 1) % 8]  # no cuda.syncthreads() between the write and the read


def test_debug_reports_a_shared_memory_race_with_both_lines_on_the_cpu():
    if cuda.is_available():
        pytest.skip("races are reported on the CPU target (compute-sanitizer's racecheck on a GPU)")
    pattern = r"data race on shared memory.*thread \(0, 0, 0\) reads it at line \d+, thread \(1, 0, 0\) writes"
    with pytest.raises(RuntimeError, match=pattern):
        racy_neighbours[1, 8](np.arange(8, dtype=np.float32))


def test_ufjit_check_makes_kernels_checked():
    @cuda.jit
    def past_the_end(a):
        a[cuda.grid(1) + 1] = 1

    os.environ["UFJIT_CHECK"] = "1"  # read when the kernel is compiled, at its first launch
    try:
        with pytest.raises(IndexError, match="index 4, size 4" if not cuda.is_available() else "axis 0 of 'a'"):
            past_the_end[1, 4](np.zeros(4))
    finally:
        del os.environ["UFJIT_CHECK"]


def test_module_dtypes_and_constants_in_a_kernel():
    a = np.array([1.0, -2.0, 3.0, 0.0, 5.0] * 10)
    count = np.zeros(1, dtype=np.int64)
    count_positive[4, 16](a, count)
    assert count[0] == 30
    assert "from numpy import int64 as Count" in count_positive.source


def test_cuda_under_another_name():
    out = np.zeros(70, dtype=np.int32)
    lane_ids[1, 70](out)
    np.testing.assert_array_equal(out, np.arange(70) % 32)
    assert "from numba import cuda as cu" in lane_ids.source
    a = np.arange(8, dtype=np.float32)
    reverse_quads[2, 4](a)
    np.testing.assert_array_equal(a, [3, 2, 1, 0, 7, 6, 5, 4])


def test_compile_errors_point_at_the_kernel_line():
    @cuda.jit
    def typo(a):
        a[0] = a.nonexistent()

    with pytest.raises(ufjit.CompileError, match="nonexistent") as info:
        typo[1, 1](np.zeros(1))
    assert f"{__file__}:" in str(info.value)
    assert info.value.diagnostics[0]["file"] == __file__


def test_dispatcher_keeps_the_function_and_its_names():
    assert add_kernel.__name__ == "add_kernel"
    assert add_kernel.__doc__.startswith("Grid-stride loop")
    assert add_kernel.py_func.__name__ == "add_kernel"
    assert add_kernel.parameters == ["x", "y", "out"]
    assert "@cuda.jit()" in add_kernel.source and "def add_kernel(x, y, out):" in add_kernel.source
    assert "TPB = 16" in fast_matmul.source


def test_device_functions_stay_device_functions():
    @cuda.jit(device=True)
    def twice(x):
        return 2 * x

    @cuda.jit("float64(float64)", device=True)
    def thrice(x):
        return 3 * x

    assert isinstance(twice, cuda.DeviceFunction) and twice(4) == 8
    assert isinstance(thrice, cuda.DeviceFunction) and thrice(2) == 6


def test_numba_host_array_helpers_are_host_arrays():
    pinned = cuda.pinned_array(100, np.float64)
    mapped = cuda.mapped_array((100,), np.float64)
    pinned[:] = 1.0
    mapped[:] = 2.0
    with cuda.pinned(pinned, mapped):
        add_kernel.forall(100)(pinned, mapped, pinned)
    np.testing.assert_array_equal(pinned, np.full(100, 3.0))
    assert not cuda.is_cuda_array(pinned)
    for like in (cuda.pinned_array_like(pinned), cuda.mapped_array_like(mapped)):
        assert like.shape == (100,) and like.dtype == np.float64


def test_specialize_and_overloads_as_numba():
    @cuda.jit
    def copy(x, y):
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
            y[i] = x[i]

    f32 = np.arange(4, dtype=np.float32)
    only_f32 = copy.specialize(f32, f32)
    assert copy.specialize(f32, f32) is only_f32 and len(copy.specializations) == 1
    fortran = np.zeros((2, 2), order="F")
    assert copy.specialize(fortran, fortran) is not copy.specialize(np.zeros((2, 2)), np.zeros((2, 2)))
    out = np.zeros(4, dtype=np.float32)
    only_f32[1, 4](f32, out)
    np.testing.assert_array_equal(out, f32)
    assert list(only_f32.overloads) == ["void(float32[:], float32[:])"]
    with pytest.raises(ufjit.DispatchError):
        only_f32[1, 4](np.zeros(4), np.zeros(4))
    with pytest.raises(RuntimeError, match="already specialized"):
        only_f32.specialize(f32, f32)
    assert copy.overloads == {}


def test_numba_device_array_code_runs_where_kernels_run_on_the_cpu():
    if ufjit._ufjit.default_target() != "cpu":
        pytest.skip("kernels run on the GPU here: test_kernels_gpu.py has these")
    x = np.arange(1000, dtype=np.float64)
    stream = cuda.stream()
    dx = cuda.to_device(x, stream)
    dout = cuda.device_array_like(dx)
    assert cuda.is_cuda_array(dx) and cuda.to_device(dx) is dx
    with stream.auto_synchronize():
        add_kernel[4, 128, stream](dx, dx, dout)
    host = np.zeros_like(x)
    assert dout.copy_to_host(host, stream=stream) is host
    np.testing.assert_array_equal(host, 2 * x)
    result = dout.copy_to_host()
    assert type(result) is np.ndarray and result[1] == 2.0
    dout.copy_to_device(np.ones(1000))
    np.testing.assert_array_equal(dout.copy_to_host(), np.ones(1000))
    empty = cuda.device_array((2, 3), np.int32, order="F")
    assert empty.shape == (2, 3) and empty.is_f_contiguous()
    assert cuda.to_device(x, copy=False).shape == x.shape
    with pytest.raises(ValueError, match="same shape and dtype"):
        dout.copy_to_device(np.ones(3))
    stream.synchronize()
    cuda.synchronize()


def as_int(x):
    return int(x)


def wrap_in_kernel(pyfunc):
    """Numba's tests' pattern: a device function under a local name."""
    wrapped_func = cuda.jit(device=True)(pyfunc)

    @cuda.jit
    def wrapper(arg, res):
        res[0] = wrapped_func(arg[0]) + as_int(arg[0])

    return wrapper


def test_a_device_function_called_under_another_name():
    res = np.zeros(1, dtype=np.int64)
    wrap_in_kernel(as_int)[1, 1](np.array([3.7]), res)
    assert res[0] == 6


def test_lazy_compile_from_many_threads():
    @cuda.jit
    def plus_one(r, x):
        r[0] = x + 1

    errors = []

    def launch():
        try:
            r = np.zeros(1, dtype=np.int64)
            plus_one[1, 1](r, 1)
            assert r[0] == 2
        except Exception as e:  # noqa: BLE001: reported below
            errors.append(e)

    threads = [threading.Thread(target=launch) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and plus_one.signatures == ["void(int64[:], int64)"]


sum_reduce = cuda.Reduce(lambda a, b: a + b)


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


def test_reductions_as_numba():
    for n in (1, 15, 1025, 34567):
        a = np.arange(n, dtype=np.float64) + 1
        assert sum_reduce(a) == a.sum()
    assert sum_reduce(np.zeros(0)) == 0.0
    assert sum_reduce(np.arange(10.0) + 1, init=3) == 58.0
    assert sum_reduce(np.arange(10.0) + 1, size=4) == 10.0
    assert max_reduce(np.array([3, 9, 2], dtype=np.int32), init=0) == 9
    prod_reduce = cuda.reduce(lambda a, b: a * b)
    assert prod_reduce(np.arange(6.0) + 1, init=1) == 720.0
    res = cuda.to_device(np.zeros(1))
    assert sum_reduce(np.arange(10.0) + 1, res=res) is None
    assert res.copy_to_host()[0] == 55.0


# Device functions given a function, a dtype and a shared array's size, as
# Numba's own atomics tests write them.
@cuda.jit(device=True)
def as_is(n):
    return n


@cuda.jit(device=True)
def count_into(out, bins, dtype, nbins, op, cast):
    tid = cuda.threadIdx.x
    counts = cuda.shared.array(nbins, dtype)
    if tid < nbins:
        counts[tid] = 0
    cuda.syncthreads()
    op(counts, cast(bins[tid] % nbins), 1)
    cuda.syncthreads()
    if tid < nbins:
        out[tid] = counts[tid]


def histogram_of(bins, out):
    count_into(out, bins, types.uint32, 16, cuda.atomic.add, as_is)


def test_a_device_function_takes_an_atomic_a_dtype_and_a_size_as_arguments():
    bins = np.arange(64, dtype=np.uint32) * 5 % 23
    out = np.zeros(16, dtype=np.uint32)
    cuda.jit("void(uint32[:], uint32[:])")(histogram_of)[1, 64](bins, out)
    np.testing.assert_array_equal(out, np.bincount(bins % 16, minlength=16))


def test_a_kernel_made_by_exec_of_a_string_compiles():
    text = """
def fill(a, value):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = value
"""
    names = {}
    exec(text, {"cuda": cuda}, names)
    a = np.zeros(10)
    cuda.jit(names["fill"])[1, 32](a, 2.5)
    np.testing.assert_array_equal(a, np.full(10, 2.5))


@cuda.jit
def set_first_to_three(a):
    a[0] = 3


class DefaultIn:
    """A Numba launch extension: every argument travels as cuda.In."""

    def prepare_args(self, ty, val, **kwargs):
        return ty, (val if isinstance(val, cuda.In) else cuda.In(val))


def test_in_leaves_the_host_array_and_inout_and_out_write_it():
    for hint, written in ((cuda.In, False), (cuda.InOut, True), (cuda.Out, True)):
        a = np.zeros(1, dtype=np.int64)
        set_first_to_three[1, 1](hint(a))
        assert a[0] == (3 if written else 0), hint


def test_launch_extensions_prepare_every_argument_and_write_back_after():
    kernel = cuda.jit(set_first_to_three.py_func)
    kernel.bind()
    kernel.extensions.append(DefaultIn())
    a = np.zeros(1, dtype=np.int64)
    kernel[1, 1](a)
    assert a[0] == 0
    written = []

    class Later:
        def prepare_args(self, ty, val, stream=0, retr=None):
            retr.append(lambda: written.append(ty))
            return ty, val

    later = cuda.jit(extensions=[Later()])(set_first_to_three.py_func)
    later[1, 1](a)
    assert a[0] == 3 and written == ["int64[::1]"]


RAMP = np.arange(6, dtype=np.float32).reshape(2, 3) / 2  # a module-level NumPy array: a constant
PRIMES = np.array([2, 3, 5, 7, 11])


@cuda.jit
def read_constants(out):
    ramp = cuda.const.array_like(RAMP)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = ramp[i // 3 % 2, i % 3] * PRIMES[i % PRIMES.size]


def test_module_numpy_arrays_are_constants_kernels_read():
    out = np.zeros(12, dtype=np.float32)
    read_constants[2, 8](out)
    i = np.arange(12)
    np.testing.assert_array_equal(out, RAMP[i // 3 % 2, i % 3] * PRIMES[i % 5])


def test_a_kernel_may_call_an_operator_function_it_closes_over():
    import operator

    def apply(op):
        @cuda.jit
        def kernel(a, b):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = op(a[i], b[i])

        return kernel

    for op in (operator.add, operator.floordiv, operator.pow):
        a, b = np.arange(1.0, 9.0), np.full(8, 2.0)
        expected = op(a, b)
        apply(op)[1, 8](a, b)
        np.testing.assert_array_equal(a, expected)


TILE_SHAPE = (4, 2)  # a module-level tuple: a constant of the kernel language


def test_tuples_of_numbers_from_the_module_and_a_closure_are_constants():
    weights = (0.5, 1.5, (2, 3))

    @cuda.jit
    def fill(out):
        tile = cuda.shared.array(TILE_SHAPE, dtype=float32)
        i = cuda.grid(1)
        if i == 0:
            tile[0, 0] = weights[0] + weights[2][1]
            total = 0.0
            for w in (weights[0], weights[1]):
                total += w
            out[0] = tile[0, 0]
            out[1] = total
            out[2] = tile.size

    out = np.zeros(3, dtype=np.float32)
    fill[1, 1](out)
    np.testing.assert_array_equal(out, [3.5, 2.0, 8.0])


def test_a_bool_dtype_object_from_a_closure_types_a_shared_array():
    dt = np.dtype(np.bool_)

    @cuda.jit
    def reverse(x, y):
        sm = cuda.shared.array(8, dtype=dt)
        i = cuda.threadIdx.x
        sm[i] = x[i]
        cuda.syncthreads()
        y[i] = sm[7 - i]

    x = np.array([True, False, False, True, True, False, True, False])
    y = np.zeros_like(x)
    reverse[1, 8](x, y)
    np.testing.assert_array_equal(y, x[::-1])
