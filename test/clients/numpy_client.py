"""A real client: NumPy's float32 matmul and matrix-vector products go through cblas_sgemm /
cblas_sgemv of the BLAS it was built against. Run with libshimblas preloaded; checks results
against float64 and that shimblas served the calls (its counters, read through ctypes)."""
import ctypes
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy not installed (Debian package python3-numpy)")
    sys.exit(77)


class Counts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in ("calls", "gpu", "cpu", "trivial", "errors", "gpu_failed")]


class Stats(ctypes.Structure):
    _fields_ = [("sgemv", Counts), ("sgemm", Counts)]


def main():
    lib = ctypes.CDLL(os.environ["SHIMBLAS_LIB"])
    rng = np.random.default_rng()
    failures = 0

    def check(name, got, x, y):
        """got must match x @ y within a componentwise bound proportional to k * eps * |x||y|"""
        nonlocal failures
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        k = x.shape[-1]
        bound = 4 * (k + 2) * np.finfo(np.float32).eps * (np.abs(x64) @ np.abs(y64))
        err = np.abs(got.astype(np.float64) - x64 @ y64)
        ok = got.dtype == np.float32 and bool(np.all(err <= bound))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max error {err.max():.3g}")
        failures += not ok

    lib.shimblas_reset_stats()
    for m, n, k in [(300, 200, 100), (1, 64, 7), (129, 3, 513)]:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        check(f"matmul {m}x{k} @ {k}x{n}", a @ b, a, b)
        check(f"matmul transposed views {m}x{n}", (b.T @ a.T).T, a, b)
        check(f"matmul Fortran-ordered {m}x{n}", np.asfortranarray(a) @ np.asfortranarray(b), a, b)
    for m, n in [(500, 300), (64, 1000)]:
        a = rng.standard_normal((m, n), dtype=np.float32)
        x = rng.standard_normal(n, dtype=np.float32)
        check(f"matvec {m}x{n}", a @ x, a, x)
        z = rng.standard_normal(m, dtype=np.float32)
        check(f"vecmat {m}x{n}", z @ a, z, a)
    st = Stats()
    lib.shimblas_get_stats(ctypes.byref(st))
    print(f"shimblas served sgemm {st.sgemm.calls} (gpu {st.sgemm.gpu}, cpu {st.sgemm.cpu}), "
          f"sgemv {st.sgemv.calls} (gpu {st.sgemv.gpu}, cpu {st.sgemv.cpu})")
    # 13 products above; NumPy turns the 1-row ones into sgemv calls
    if st.sgemm.calls == 0 or st.sgemv.calls == 0 or st.sgemm.calls + st.sgemv.calls < 13:
        print("FAIL: numpy's float32 products did not go through shimblas")
        failures += 1
    print(f"numpy_client: {failures} failures")
    return failures != 0


if __name__ == "__main__":
    sys.exit(main())
