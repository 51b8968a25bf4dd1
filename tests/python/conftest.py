"""Shared test helpers: GPU detection and the libraries a GPU test may use.

GPU tests skip (with a reason) where there is no GPU. On the GPU host, set
UFJIT_REQUIRE_GPU=1: a GPU test that would skip fails instead, so nothing
is skipped silently there.
"""

import importlib
import os

import pytest

import ufjit

REQUIRE_GPU = os.environ.get("UFJIT_REQUIRE_GPU") == "1"


def gpu_available():
    return ufjit.cuda.is_available()


def need_gpu():
    """Skips (or fails under UFJIT_REQUIRE_GPU=1) without a usable GPU."""
    if not gpu_available():
        if REQUIRE_GPU:
            pytest.fail("UFJIT_REQUIRE_GPU=1 but no CUDA device is usable")
        pytest.skip("no CUDA device (ufjit.cuda.is_available() is False)")


def need_module(name):
    """Imports a GPU library (cupy, torch, numba.cuda) or skips without it."""
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        if REQUIRE_GPU:
            pytest.fail(f"UFJIT_REQUIRE_GPU=1 but {name} is not importable ({e})")
        pytest.skip(f"{name} is not installed")
    return module


@pytest.fixture
def gpu():
    need_gpu()
