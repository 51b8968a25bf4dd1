"""GPU tests: ufjit device arrays, CuPy, PyTorch and Numba device arrays
through __cuda_array_interface__, and borrowed streams. They skip without a
GPU (or without the library), and fail instead under UFJIT_REQUIRE_GPU=1."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import ufjit
from ufjit import vectorize

from conftest import need_gpu, need_module

N = 2 ** 20 + 1  # past a launch boundary


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def axpy2(x, y):
    return 2 * x + y


@vectorize(["float32(float32, float32, float32)"], target="cuda")
def gaussian_pdf(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * 2.5066282746310002)


def inputs(dtype=np.float32, n=N):
    rng = np.random.default_rng(7)
    return rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)


EXIT_RIGHT_AFTER_FIRST_CALLS = """
import math, sys
import numpy as np
from ufjit import vectorize
{kernels}
x = np.linspace(0.5, 2.0, 1000)
for f in list(globals().values()):
    if hasattr(f, "signatures"):
        f(x)
"""


def test_exit_right_after_first_calls_while_kernels_tier_up(gpu, tmp_path):
    # Each first call runs a quick kernel and queues the optimised compile on
    # the runtime's worker; the script then exits at once. The process used to
    # die of SIGSEGV there about one run in three: the worker was still in
    # LLVM while the libraries' static destructors ran.
    kernels = "".join(
        f"@vectorize(['float64(float64)'], target='cuda')\ndef k{i}(x):\n    return math.sin(x * {i + 1}) + x ** {i % 5}\n"
        for i in range(12))
    script = tmp_path / "exit_now.py"
    script.write_text(EXIT_RIGHT_AFTER_FIRST_CALLS.format(kernels=kernels))
    for attempt in range(6):
        env = dict(os.environ, UFJIT_CACHE_DIR=str(tmp_path / f"cache{attempt}"))  # nothing cached: all tier up
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"run {attempt}: rc {done.returncode}\n{done.stderr[-2000:]}"


def test_numpy_in_numpy_out_on_the_gpu(gpu):
    x, y = inputs()
    r = axpy2(x, y)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    np.testing.assert_allclose(r, 2 * x + y, rtol=1e-6)
    np.testing.assert_allclose(axpy2(x[::-3], y[::-3]), 2 * x[::-3] + y[::-3], rtol=1e-6)


def test_ufjit_device_arrays(gpu):
    x, y = inputs()
    dx, dy = ufjit.to_device(x), ufjit.to_device(y)
    assert dx.shape == x.shape and dx.dtype == np.float32
    r = axpy2(dx, dy)
    assert isinstance(r, ufjit.DeviceArray)
    cai = r.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["shape"] == (N,) and cai["version"] == 3
    np.testing.assert_allclose(r.copy_to_host(), 2 * x + y, rtol=1e-6)
    out = ufjit.device_array(N, np.float32)
    assert axpy2(dx, 1.0, out=out) is out
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + 1, rtol=1e-6)


def test_cupy_arrays_and_stream(gpu):
    cp = need_module("cupy")
    x, y = inputs()
    cx, cy = cp.asarray(x), cp.asarray(y)
    r = axpy2(cx, cy)
    np.testing.assert_allclose(cp.asarray(r).get(), 2 * x + y, rtol=1e-6)
    # a strided, reversed CuPy view
    np.testing.assert_allclose(cp.asarray(axpy2(cx[::-2], cy[::-2])).get(), 2 * x[::-2] + y[::-2], rtol=1e-6)
    # async on CuPy's stream, into a CuPy out, ordered with CuPy's own work
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        out = cp.empty_like(cx)
        cz = cx * 3  # CuPy work on s, before ours
        axpy2(cz, cy, out=out, stream=s.ptr)
        twice = out * 2  # CuPy work on s, after ours
    s.synchronize()
    np.testing.assert_allclose(cp.asnumpy(twice), 2 * (6 * x + y), rtol=1e-5)


def test_torch_tensors_and_stream(gpu):
    torch = need_module("torch")
    x, y = inputs()
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    r = axpy2(tx, ty)
    np.testing.assert_allclose(torch.as_tensor(r, device="cuda").cpu().numpy(), 2 * x + y, rtol=1e-6)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        tz = tx * 3
        out = torch.empty_like(tx)
        axpy2(tz, ty, out=out, stream=s)  # a torch stream object, borrowed
        back = out.cpu()
    np.testing.assert_allclose(back.numpy(), 6 * x + y, rtol=1e-5)
    cur = ufjit.Stream.borrow(torch.cuda.current_stream().cuda_stream)
    assert cur.borrowed


def test_numba_device_arrays(gpu):
    numba_cuda = need_module("numba.cuda")
    x, y = inputs(np.float64)
    nx, ny = numba_cuda.to_device(x), numba_cuda.to_device(y)
    r = axpy2(nx, ny)
    np.testing.assert_allclose(numba_cuda.as_cuda_array(r).copy_to_host(), 2 * x + y)


def test_ufjit_streams(gpu):
    x, y = inputs()
    dx, dy = ufjit.to_device(x), ufjit.to_device(y)
    out = ufjit.device_array(N, np.float32)
    s = ufjit.stream()
    assert not s.borrowed and s.handle != 0
    axpy2(dx, dy, out=out, stream=s)
    s.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + y, rtol=1e-6)
    legacy = ufjit.Stream.borrow(0)
    axpy2(dx, 0.0, out=out, stream=legacy)
    legacy.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), 2 * x, rtol=1e-6)
    # Without out=, a new device array comes back at once (Numba's way); host
    # operands wait for the stream and give a NumPy array.
    result = axpy2(dx, dy, stream=s)
    s.synchronize()
    assert isinstance(result, ufjit.DeviceArray) and result.dtype == np.float32
    np.testing.assert_allclose(result.copy_to_host(), 2 * x + y, rtol=1e-6)
    np.testing.assert_allclose(axpy2(x, y, stream=s), 2 * x + y, rtol=1e-6)


def test_cpu_target_rejects_device_arrays(gpu):
    @vectorize(["float32(float32)"], target="cpu")
    def neg(x):
        return -x

    with pytest.raises(ufjit.InputError):
        neg(ufjit.to_device(np.zeros(3, np.float32)))


def test_gaussian_on_cupy(gpu):
    cp = need_module("cupy")
    x = cp.linspace(-3, 3, N, dtype=cp.float32)
    r = cp.asarray(gaussian_pdf(x, 0.0, 1.0))
    ref = np.exp(-0.5 * cp.asnumpy(x).astype(np.float64) ** 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(cp.asnumpy(r), ref, rtol=2e-6, atol=1e-7)


cube_plus = ufjit.cuda.declare_device("cube_plus", "float32(float32, float32)")
halve = ufjit.cuda.declare_device("halve", "float64(float64)", abi="c")


def test_cuda_cpp_helpers_from_link_run_in_the_kernel(gpu, tmp_path):
    helpers = tmp_path / "helpers.cu"
    helpers.write_text(
        'extern "C" __device__ int cube_plus(float *ret, float x, float y) { *ret = x * x * x + y; return 0; }\n'
        'extern "C" __device__ double halve(double x) { return 0.5 * x; }\n')

    @vectorize(["float32(float32, float32)"], target="cuda", link=[str(helpers)])
    def f(x, y):
        return cube_plus(x, y) * 2

    @vectorize(["float64(float64)"], target="cuda", link=[helpers])  # a path object too
    def g(x):
        return halve(x) + 1

    x, y = inputs()
    np.testing.assert_allclose(f(x, y), 2 * (x.astype(np.float64) ** 3 + y), rtol=1e-5, atol=1e-5)
    xd = np.linspace(-1e3, 1e3, 4097)
    r = g(ufjit.to_device(xd))
    assert isinstance(r, ufjit.DeviceArray)
    np.testing.assert_array_equal(r.copy_to_host(), 0.5 * xd + 1)  # exact in float64


def test_device_out_of_another_dtype_is_cast_on_the_device(gpu):
    x, y = inputs(np.float64, 1000)
    out = ufjit.device_array(1000, np.float32)
    assert axpy2(ufjit.to_device(x), ufjit.to_device(y), out=out) is out
    np.testing.assert_allclose(out.copy_to_host(), (2 * x + y).astype(np.float32), rtol=1e-6)
    with pytest.raises(TypeError, match="Cannot cast"):
        axpy2(ufjit.to_device(x), ufjit.to_device(y), out=ufjit.device_array(1000, np.int32))
