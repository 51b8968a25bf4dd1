"""Explicit kernels on the GPU: ufjit device arrays (used in place), NumPy
arrays (copied to the device and back), CuPy and PyTorch arrays through
__cuda_array_interface__, launches on a stream, and Numba's helpers around
launches (device_array_like, to_device(to=), copy_to_device, copy_to_host(ary)).
They skip without a GPU (or without the library), and fail instead under
UFJIT_REQUIRE_GPU=1."""

import numpy as np
import pytest

import ufjit
from ufjit import cuda

from conftest import need_module
from test_kernels import BLOCK, TPB, add_kernel, block_sum, fast_matmul, reverse_blocks, scale


def test_device_arrays_are_used_in_place(gpu):
    x = np.arange(1 << 20, dtype=np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(2 * x)
    dout = cuda.device_array_like(dx)
    add_kernel[256, 256](dx, dy, dout)
    np.testing.assert_array_equal(dout.copy_to_host(), 3 * x)
    host = np.zeros_like(x)
    assert dout.copy_to_host(host) is host
    np.testing.assert_array_equal(host, 3 * x)


def test_host_arrays_are_copied_in_and_back(gpu):
    a = np.random.default_rng(5).standard_normal(10000)
    blocks = (a.size + BLOCK - 1) // BLOCK
    partial = np.zeros(blocks)
    block_sum[blocks, BLOCK](a, partial)
    np.testing.assert_allclose(partial.sum(), a.sum(), rtol=1e-9)


def test_tiled_matmul_and_dynamic_shared_memory(gpu):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((128, 96)).astype(np.float32)
    b = rng.standard_normal((96, 64)).astype(np.float32)
    c = cuda.device_array((128, 64), np.float32)
    fast_matmul[(8, 8), (TPB, TPB)](cuda.to_device(a), cuda.to_device(b), c)
    np.testing.assert_allclose(c.copy_to_host(), a @ b, rtol=1e-4, atol=1e-4)
    r = cuda.to_device(np.arange(64, dtype=np.float32))
    reverse_blocks[2, 32, 0, 128](r)
    np.testing.assert_array_equal(r.copy_to_host(), np.arange(64, dtype=np.float32).reshape(2, 32)[:, ::-1].ravel())


def test_to_device_into_an_existing_array_and_copy_to_device(gpu):
    d = cuda.device_array(5, np.float64)
    assert cuda.to_device(np.arange(5.0), to=d) is d
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(5.0))
    d.copy_to_device(np.full(5, 7.0))
    np.testing.assert_array_equal(d.copy_to_host(), np.full(5, 7.0))
    with pytest.raises(ValueError, match="same shape and dtype"):
        d.copy_to_device(np.zeros(4))
    empty = cuda.to_device(np.ones(3), copy=False)
    assert empty.shape == (3,) and empty.dtype == np.float64


def test_launch_on_a_stream(gpu):
    s = cuda.stream()
    d = cuda.to_device(np.ones(1000))
    with s.auto_synchronize():
        scale[4, 256, s](d, 3.0)
    np.testing.assert_array_equal(d.copy_to_host(), np.full(1000, 3.0))
    assert cuda.is_cuda_array(d) and cuda.to_device(d) is d
    with pytest.raises(ufjit.InputError, match="every array must be on the device"):
        scale[4, 256, s](np.ones(10), 3.0)


def test_cupy_arrays_in_place(gpu):
    cupy = need_module("cupy")
    x = cupy.arange(1000, dtype=cupy.float64)
    scale[4, 256](x, 2.0)
    np.testing.assert_array_equal(cupy.asnumpy(x), 2 * np.arange(1000.0))
    s = cupy.cuda.Stream()
    with s:
        y = cupy.ones(1000, dtype=cupy.float64)
    scale[4, 256, s](y, 5.0)
    s.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(y), np.full(1000, 5.0))


def test_torch_tensors_in_place(gpu):
    torch = need_module("torch")
    t = torch.ones(1000, dtype=torch.float32, device="cuda")
    scale[4, 256](t, 4.0)
    np.testing.assert_array_equal(t.cpu().numpy(), np.full(1000, 4.0, dtype=np.float32))
