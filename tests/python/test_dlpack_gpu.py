"""DLPack on the GPU: PyTorch and CuPy tensors into ufjit and ufjit's
DeviceArrays out to them, zero-copy, values checked against NumPy. They skip
without a GPU (or without the library), and fail instead under
UFJIT_REQUIRE_GPU=1 (python/gpu_check.sh)."""

import gc
import importlib.util
import pathlib
import re
import textwrap

import numpy as np

import ufjit

from conftest import need_module
from test_dlpack import DLPackOnly, capsule_name
from test_gpu import N, axpy2, inputs


PYTHON_GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md"


def device_pointer(a):
    return a.__cuda_array_interface__["data"][0]


def test_torch_cuda_tensor_through_a_ufunc_to_torch_from_dlpack(gpu):
    torch = need_module("torch")
    x, y = inputs()
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    r = axpy2(tx, ty)
    assert isinstance(r, ufjit.DeviceArray) and r.__dlpack_device__() == (2, tx.device.index or 0)
    t = torch.from_dlpack(r)
    assert t.is_cuda and t.dtype == torch.float32 and t.data_ptr() == device_pointer(r)  # zero-copy
    del r
    gc.collect()  # the tensor keeps ufjit's memory alive
    np.testing.assert_allclose(t.cpu().numpy(), 2 * x + y, rtol=1e-6)
    # a strided torch view (torch has no negative strides), passed as a
    # DLPack-only object: ufjit asks for stream=1, the legacy default stream
    wrapped = DLPackOnly(tx[::3])
    r = axpy2(wrapped, ty[::3])
    assert wrapped.streams == [1]
    np.testing.assert_allclose(torch.from_dlpack(r).cpu().numpy(), 2 * x[::3] + y[::3], rtol=1e-6)
    # an async call asks the producer for the call's own stream
    s = ufjit.stream()
    wrapped = DLPackOnly(tx)
    out = ufjit.device_array(N, np.float32)
    axpy2(wrapped, ty, out=out, stream=s)
    s.synchronize()
    assert wrapped.streams == [s.handle]
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + y, rtol=1e-6)


def test_torch_from_ufjit_from_dlpack(gpu):
    torch = need_module("torch")
    x, _ = inputs(np.float64)
    tx = torch.from_numpy(x).cuda()
    d = ufjit.from_dlpack(tx)
    assert isinstance(d, ufjit.DeviceArray) and device_pointer(d) == tx.data_ptr()
    r = axpy2(d, d)
    np.testing.assert_allclose(r.copy_to_host(), 3 * x)


def test_cupy_through_ufjit_from_dlpack_and_back(gpu):
    cp = need_module("cupy")
    x, y = inputs()
    cx, cy = cp.asarray(x), cp.asarray(y)
    dx = ufjit.from_dlpack(cx)
    assert isinstance(dx, ufjit.DeviceArray) and device_pointer(dx) == cx.data.ptr  # zero-copy
    assert dx.shape == (N,) and dx.dtype == np.float32
    r = axpy2(dx, ufjit.from_dlpack(cy))
    c = cp.from_dlpack(r)
    assert c.data.ptr == device_pointer(r)  # zero-copy
    del r, dx
    gc.collect()
    np.testing.assert_allclose(cp.asnumpy(c), 2 * x + y, rtol=1e-6)
    # strided views (DLPack strides count elements). Not reversed ones: CuPy
    # before cupy/cupy#10228 exports negative strides wrapped as unsigned.
    r = axpy2(ufjit.from_dlpack(cx[::2]), ufjit.from_dlpack(cy[::2]))
    np.testing.assert_allclose(cp.asnumpy(cp.from_dlpack(r)), 2 * x[::2] + y[::2], rtol=1e-6)


def test_device_capsules_consumed_once_or_freed(gpu):
    torch = need_module("torch")
    x, _ = inputs()
    d = ufjit.to_device(x)
    unconsumed = d.__dlpack__()
    assert capsule_name(unconsumed) == "dltensor"
    del unconsumed  # freed by the capsule's destructor: no leak, no double free
    capsule = d.__dlpack__(stream=1)
    t = torch.utils.dlpack.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    del d, capsule
    gc.collect()
    ufjit.to_device(np.zeros(N, np.float32))  # reuse freed memory, if any was wrongly freed
    np.testing.assert_array_equal(t.cpu().numpy(), x)


def test_python_guide_dlpack_example(gpu, tmp_path):
    torch = need_module("torch")
    cp = need_module("cupy")
    section = PYTHON_GUIDE.read_text()
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    example = textwrap.dedent(next(b for b in blocks if "from_dlpack" in b))
    path = tmp_path / "readme_dlpack_example.py"  # a file: the decorator reads its source
    path.write_text(blocks[0] + example)  # blocks[0] defines gaussian_pdf
    spec = importlib.util.spec_from_file_location("readme_dlpack_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = module.t.cpu().numpy().astype(np.float64)
    assert isinstance(module.y, torch.Tensor) and module.y.is_cuda
    np.testing.assert_allclose(module.y.cpu().numpy(), np.exp(-0.5 * x ** 2) / np.sqrt(2 * np.pi), rtol=2e-6,
                               atol=1e-7)
    np.testing.assert_allclose(cp.asnumpy(module.c), np.full(4, 1 / np.sqrt(2 * np.pi)), rtol=2e-6)
