"""A pip NumPy as a client. NumPy's wheels from PyPI do not use the system BLAS: they bundle an
OpenBLAS (numpy.libs/libscipy_openblas64_-*.so) whose entry points carry a prefix and a suffix,
ILP64 (scipy_cblas_sgemm64_, scipy_cblas_sgemv64_, ...). Preloaded, libshimblas must serve the
float32 products NumPy sends there and leave the float64 ones alone.

Runs the same products twice, each in its own process of the pip NumPy's python: once without
the shim (the reference: NumPy's own OpenBLAS, saved with np.savez together with the operands)
and once with libshimblas preloaded, which compares:
- float32: elementwise within 4 (k + 2) eps (|a| @ |b|) of the reference (the GPU rounds
  differently from OpenBLAS; both are within about k eps |a||b| of the exact product);
- float64: bitwise identical (the shim must not touch them);
- the library's counters (shimblas_get_stats through ctypes): sgemm and sgemv calls served, none
  rejected, none failed on the GPU, the cases that NumPy always hands to BLAS each counted, and
  the float64 products leaving the counters unchanged.
SHIMBLAS_TEST_EXPECT=gpu: every computing call must have run on the GPU (skipped, 77, without a
usable GPU); =cpu: on the CPU BLAS.

Usage: python3 numpy_pip_client.py [PYTHON]
  PYTHON: the python whose NumPy to test (default: the one running this); SHIMBLAS_LIB: the
  library. Skipped (77) when PYTHON does not exist or has no NumPy. SHIMBLAS_TEST_PRELOAD:
  libraries to preload before libshimblas (a sanitizer build's runtimes); SHIMBLAS_TEST_SEED:
  the operands' seed. The environment passes through (SHIMBLAS_MODE, ...).
The script itself needs only the standard library; its two phases run in PYTHON."""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile

# the names NumPy 2.x's wheels call for float32 products (its _multiarray_umath imports them)
WHEEL_NAMES = ("scipy_cblas_sgemm64_", "scipy_cblas_sgemv64_")


class Counts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in ("calls", "gpu", "cpu", "trivial", "errors", "gpu_failed")]


class Stats(ctypes.Structure):
    _fields_ = [("sgemv", Counts), ("sgemm", Counts)]


# --- the products ------------------------------------------------------------------------------
# Each case builds its operands (views of saved arrays) and says whether every NumPy since 1.16
# hands it to BLAS ("blas": each must then be counted by the shim). NumPy computes some products
# in its own loops (matmul on operands with no unit stride, k = 1), and a @ a.T of one buffer
# goes to ssyrk: none of those is required to reach the shim, all are compared.

def float32_cases():
    cases = []

    def add(name, blas, make):
        cases.append((name, blas, make))

    shapes = [(257, 263, 269), (300, 100, 200), (129, 513, 3), (7, 5, 1000), (2, 2, 2),
              (1031, 997, 1109), (1, 300, 513), (513, 300, 1), (1, 77, 1)]
    for m, k, n in shapes:
        what = "1-row " if m == 1 else "1-column " if n == 1 else ""
        # 1 x k @ k x 1 is a dot product (sdot)
        add(f"{what}a @ b {m}x{k} @ {k}x{n}", m > 1 or n > 1,
            lambda o, m=m, k=k, n=n: (o.f32(f"a{m}.{k}", (m, k)), o.f32(f"b{k}.{n}", (k, n)), "@"))
    # k = 1: an outer product, which matmul computes itself
    add("a @ b 333x1 @ 1x257 (k = 1)", False, lambda o: (o.f32("a333.1", (333, 1)), o.f32("b1.257", (1, 257)), "@"))

    m, k, n = 257, 263, 269
    a = lambda o, m=m, k=k: o.f32("a257.263", (m, k))
    b = lambda o, k=k, n=n: o.f32("b263.269", (k, n))
    at = lambda o, m=m, k=k: o.f32("at263.257", (k, m))  # a stored transposed: at.T is an m x k view
    bt = lambda o, k=k, n=n: o.f32("bt269.263", (n, k))
    add("np.dot(a, b) 257x263 @ 263x269", True, lambda o: (a(o), b(o), "dot"))
    add("a.T @ b (transposed view)", True, lambda o: (at(o).T, b(o), "@"))
    add("a @ b.T (transposed view)", True, lambda o: (a(o), bt(o).T, "@"))
    add("a.T @ b.T (transposed views)", True, lambda o: (at(o).T, bt(o).T, "@"))
    add("np.dot(a.T, b.T)", True, lambda o: (at(o).T, bt(o).T, "dot"))
    add("Fortran-ordered a @ b", True, lambda o: (np.asfortranarray(a(o)), np.asfortranarray(b(o)), "@"))
    add("C-ordered a @ Fortran-ordered b", True, lambda o: (a(o), np.asfortranarray(b(o)), "@"))
    # one buffer and its transpose: NumPy calls ssyrk, which stays with its own BLAS
    add("a @ a.T (one buffer: ssyrk)", False, lambda o: (a(o), a(o).T, "@"))
    add("np.dot(Fortran a, Fortran b)", True,
        lambda o: (np.asfortranarray(a(o)), np.asfortranarray(b(o)), "dot"))

    big_a = lambda o: o.f32("A600.700", (600, 700))
    big_b = lambda o: o.f32("B800.500", (800, 500))
    # no unit stride in either operand: matmul's own loop (NumPy 2.1), np.dot copies first
    add("a[::2, 1::3] @ b[1::3, ::2] (no unit stride)", False,
        lambda o: (big_a(o)[::2, 1::3], big_b(o)[1:700:3, ::2], "@"))
    add("np.dot(a[::2, 1::3], b[1::3, ::2])", False,
        lambda o: (big_a(o)[::2, 1::3], big_b(o)[1:700:3, ::2], "dot"))
    # unit stride inside rows, leading dimensions larger than the rows
    add("a[::2] @ b[:700] (every other row: lda = 2 rows)", True,
        lambda o: (big_a(o)[::2], big_b(o)[:700], "@"))
    add("a[3:-4, 5:-2] @ b[2:695, 1:-6] (sub-blocks)", True,
        lambda o: (big_a(o)[3:-4, 5:-2], big_b(o)[2:695, 1:-6], "@"))
    add("a[::-1] @ b (negative stride)", False, lambda o: (big_a(o)[::-1, :300], big_b(o)[:300, :400], "@"))

    am = lambda o: o.f32("M500.301", (500, 301))
    add("matrix @ vector 500x301", True, lambda o: (am(o), o.f32("x301", (301,)), "@"))
    add("vector @ matrix 500 @ 500x301", True, lambda o: (o.f32("z500", (500,)), am(o), "@"))
    add("np.dot(matrix, vector)", True, lambda o: (am(o), o.f32("x301", (301,)), "dot"))
    add("np.dot(vector, matrix)", True, lambda o: (o.f32("z500", (500,)), am(o), "dot"))
    add("matrix.T @ vector (transposed view)", True, lambda o: (am(o).T, o.f32("z500", (500,)), "@"))
    add("Fortran-ordered matrix @ vector", True,
        lambda o: (np.asfortranarray(am(o)), o.f32("x301", (301,)), "@"))
    add("matrix @ vector[::3] (strided vector)", True, lambda o: (am(o), o.f32("x903", (903,))[::3], "@"))
    add("matrix[::2, 1::3] @ vector (no unit stride)", False,
        lambda o: (am(o)[::2, 1::3], o.f32("x100", (100,)), "@"))

    add("np.matmul 6x67x45 @ 6x45x39 (stacks)", True,
        lambda o: (o.f32("S6.67.45", (6, 67, 45)), o.f32("T6.45.39", (6, 45, 39)), "matmul"))
    add("np.matmul 4x33x20 @ 20x17 (broadcast)", True,
        lambda o: (o.f32("S4.33.20", (4, 33, 20)), o.f32("b20.17", (20, 17)), "matmul"))
    add("np.matmul transposed stacks 6x67x45", True,
        lambda o: (o.f32("U6.45.67", (6, 45, 67)).transpose(0, 2, 1), o.f32("T6.45.39", (6, 45, 39)), "matmul"))
    add("np.matmul 5x40x50 @ vector (stacked matrix-vector)", True,
        lambda o: (o.f32("S5.40.50", (5, 40, 50)), o.f32("x50", (50,)), "matmul"))
    add("np.matmul 3x2x130x70 @ 3x2x70x90 (4-D stacks)", True,
        lambda o: (o.f32("S3.2.130.70", (3, 2, 130, 70)), o.f32("T3.2.70.90", (3, 2, 70, 90)), "matmul"))
    return cases


def float64_cases():
    return [
        ("float64 a @ b 300x250 @ 250x200",
         lambda o: (o.f64("d300.250", (300, 250)), o.f64("d250.200", (250, 200)), "@")),
        ("float64 np.dot(a, b.T)",
         lambda o: (o.f64("d300.250", (300, 250)), o.f64("d200.250", (200, 250)).T, "dot")),
        ("float64 matrix @ vector 300x250",
         lambda o: (o.f64("d300.250", (300, 250)), o.f64("y250", (250,)), "@")),
        ("float64 np.matmul 4x30x20 @ 4x20x10",
         lambda o: (o.f64("D4.30.20", (4, 30, 20)), o.f64("E4.20.10", (4, 20, 10)), "matmul")),
    ]


# --- SciPy's BLAS wrappers (its wheel bundles an LP64 OpenBLAS: scipy_sgemm_, scipy_sgemv_) ----
# Each case: (name, make) with make(o) -> (result, bound): the result of scipy.linalg.blas and the
# elementwise error bound 4 (k + 2) eps (|alpha| |op(a)| |op(b)| + |beta| |c|). Every one is a
# BLAS call and must be counted. Run only when the python has SciPy (the GPU host's may not).
def scipy_cases():
    from scipy.linalg import blas
    eps = np.finfo(np.float32).eps

    def bound(alpha, x, y, beta=0.0, c=None):
        b = abs(alpha) * (np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64)))
        if c is not None:
            b = b + abs(beta) * np.abs(c.astype(np.float64))
        return 4 * (x.shape[-1] + 2) * eps * b

    a = lambda o: o.f32("a257.263", (257, 263))
    b = lambda o: o.f32("b263.269", (263, 269))
    at = lambda o: o.f32("at263.257", (263, 257))
    bt = lambda o: o.f32("bt269.263", (269, 263))
    c = lambda o: o.f32("c257.269", (257, 269))
    m = lambda o: o.f32("M500.301", (500, 301))
    x = lambda o: o.f32("x301", (301,))
    z = lambda o: o.f32("z500", (500,))
    return [
        ("scipy sgemm(1.5, a, b, 0.5, c)",
         lambda o: (blas.sgemm(1.5, a(o), b(o), 0.5, c(o)), bound(1.5, a(o), b(o), 0.5, c(o)))),
        ("scipy sgemm(1, at, b, trans_a=1)",
         lambda o: (blas.sgemm(1.0, at(o), b(o), trans_a=1), bound(1.0, at(o).T, b(o)))),
        ("scipy sgemm(-2, a, bt, trans_b=1)",
         lambda o: (blas.sgemm(-2.0, a(o), bt(o), trans_b=1), bound(-2.0, a(o), bt(o).T))),
        ("scipy sgemv(1.5, M, x, 0.5, y)",
         lambda o: (blas.sgemv(1.5, m(o), x(o), 0.5, z(o)), bound(1.5, m(o), x(o), 0.5, z(o)))),
        ("scipy sgemv(1, M, z, trans=1)",
         lambda o: (blas.sgemv(1.0, m(o), z(o), trans=1), bound(1.0, m(o).T, z(o)))),
    ]


def have_scipy():
    try:
        import scipy.linalg.blas  # noqa: F401
        return True
    except ImportError:
        return False


class Operands:
    """The arrays the cases take views of: drawn in the reference process, saved, and loaded in
    the one with the shim, so both compute on exactly the same data."""

    def __init__(self, seed=None, saved=None):
        self.rng = np.random.default_rng(seed) if seed is not None else None
        self.saved = saved
        self.arrays = {}

    def get(self, name, shape, dtype):
        key = "in:" + name
        if key not in self.arrays:
            if self.saved is not None:
                self.arrays[key] = self.saved[key]
            else:
                self.arrays[key] = self.rng.standard_normal(shape).astype(dtype)
            assert self.arrays[key].shape == shape and self.arrays[key].dtype == dtype, key
        return self.arrays[key]

    def f32(self, name, shape):
        return self.get(name, shape, np.float32)

    def f64(self, name, shape):
        return self.get(name, shape, np.float64)


def compute(x, y, op):
    return np.dot(x, y) if op == "dot" else np.matmul(x, y)


def loaded(fragment):
    """the mapped files whose path contains fragment"""
    with open("/proc/self/maps") as f:
        paths = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    return sorted(p for p in paths if fragment in os.path.basename(p))


def describe_numpy():
    """one line on the NumPy and its BLAS; False when its BLAS is not a wheel's bundled OpenBLAS"""
    blas = "?"
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{deps.get('name')} {deps.get('version')}"
    except Exception:  # older NumPy: no mode="dicts"
        pass
    libs = ", ".join(os.path.basename(p) for p in loaded("blas")) or "none mapped"
    print(f"NumPy {np.__version__} ({np.__file__}), built with {blas}; BLAS libraries in the process: {libs}")
    if not loaded("libscipy_openblas"):
        print("FAIL: this NumPy does not use a wheel's bundled OpenBLAS (numpy.libs/libscipy_openblas*): "
              "not a NumPy from PyPI")
        return False
    return True


def shim_mapped(lib=None):
    """the libshimblas files mapped in the process; with lib, only that one (by its real path)"""
    mapped = loaded("libshimblas")
    return [p for p in mapped if os.path.realpath(p) == os.path.realpath(lib)] if lib else mapped


# --- the process without the shim ---------------------------------------------------------------
def reference(path, seed):
    if shim_mapped():
        print(f"FAIL: the reference process has libshimblas mapped ({', '.join(shim_mapped())}): LD_PRELOAD not cleared?")
        return 1
    if not describe_numpy():
        return 1
    ops = Operands(seed=seed)
    results = {}
    failures = 0
    for name, _, make in float32_cases():
        x, y, op = make(ops)
        got = compute(x, y, op)
        results["out:" + name] = got
        # the reference itself against float64: a broken NumPy would make the comparison meaningless
        exact = compute(x.astype(np.float64), y.astype(np.float64), op)
        bound = error_bound(x, y, op)
        if got.dtype != np.float32 or got.shape != exact.shape or not np.all(np.abs(got - exact) <= bound):
            print(f"FAIL {name}: NumPy's own float32 result is off from float64 without the shim")
            failures += 1
    for name, make in float64_cases():
        x, y, op = make(ops)
        results["out:" + name] = compute(x, y, op)
    if have_scipy():
        for name, make in scipy_cases():
            results["out:" + name] = make(ops)[0]
    np.savez(path, **ops.arrays, **results)
    print(f"reference: {len(results)} products computed without the shim, saved")
    return failures != 0


def error_bound(x, y, op):
    k = x.shape[-1]
    ax, ay = np.abs(x.astype(np.float64)), np.abs(y.astype(np.float64))
    return 4 * (k + 2) * np.finfo(np.float32).eps * compute(ax, ay, op)


# --- the process with the shim ------------------------------------------------------------------
def with_shim(path):
    lib_path = os.environ["SHIMBLAS_LIB"]
    if not shim_mapped(lib_path):
        print(f"FAIL: libshimblas ({lib_path}) is not mapped in the process: LD_PRELOAD={os.environ.get('LD_PRELOAD')}")
        return 1
    lib = ctypes.CDLL(lib_path)  # the preloaded one: the same handle
    if not describe_numpy():
        return 1
    expect = os.environ.get("SHIMBLAS_TEST_EXPECT", "")
    if expect == "gpu" and not lib.shimblas_gpu_available():
        print("SKIP: SHIMBLAS_TEST_EXPECT=gpu but no usable GPU")
        return 77
    saved = np.load(path)
    ops = Operands(saved=saved)
    failures = 0

    def fail(msg):
        nonlocal failures
        print("FAIL: " + msg)
        failures += 1

    def stats():
        st = Stats()
        lib.shimblas_get_stats(ctypes.byref(st))
        return st

    lib.shimblas_reset_stats()
    counted_cases, missed = 0, []
    for name, blas, make in float32_cases():
        x, y, op = make(ops)
        before = stats()
        got = compute(x, y, op)
        after = stats()
        ref = saved["out:" + name]
        gemm = after.sgemm.calls - before.sgemm.calls
        gemv = after.sgemv.calls - before.sgemv.calls
        calls = f"shim: sgemm +{gemm}, sgemv +{gemv}"
        if got.dtype != np.float32 or got.shape != ref.shape:
            fail(f"{name}: {got.dtype} {got.shape}, without the shim {ref.dtype} {ref.shape}")
            continue
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        bound = error_bound(x, y, op)
        ok = bool(np.all(diff <= bound))
        worst = float(np.max(diff / np.where(bound > 0, bound, 1))) if diff.size else 0.0
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max |diff| {diff.max():.3g} ({worst:.2g} of the bound); {calls}"
              f"{'' if blas else ' (need not reach the shim)'}")
        failures += not ok
        counted_cases += gemm + gemv > 0
        if blas and gemm + gemv == 0:
            missed.append(name)

    st = stats()
    computed_gpu = st.sgemm.gpu + st.sgemv.gpu
    computed_cpu = st.sgemm.cpu + st.sgemv.cpu
    print(f"shimblas served sgemm {st.sgemm.calls} (gpu {st.sgemm.gpu}, cpu {st.sgemm.cpu}, trivial {st.sgemm.trivial}, "
          f"errors {st.sgemm.errors}, gpu_failed {st.sgemm.gpu_failed}), sgemv {st.sgemv.calls} (gpu {st.sgemv.gpu}, "
          f"cpu {st.sgemv.cpu}, trivial {st.sgemv.trivial}, errors {st.sgemv.errors}, gpu_failed {st.sgemv.gpu_failed}); "
          f"{counted_cases} products reached it")
    if st.sgemm.calls == 0 or st.sgemv.calls == 0:
        exported = ", ".join(f"{n} {'yes' if hasattr(lib, n) else 'no'}" for n in WHEEL_NAMES)
        fail(f"NumPy's float32 products did not go through shimblas (sgemm {st.sgemm.calls}, sgemv {st.sgemv.calls} "
             f"calls); the library exports the wheel's names: {exported}")
    else:
        for name in missed:
            fail(f"{name}: NumPy hands this product to BLAS, but the shim counted no call")
    if st.sgemm.errors or st.sgemv.errors:
        fail(f"the shim rejected {st.sgemm.errors + st.sgemv.errors} of NumPy's calls (argument checks)")
    if (st.sgemm.gpu_failed or st.sgemv.gpu_failed) and not os.environ.get("SHIMBLAS_TEST_FAIL"):
        fail(f"{st.sgemm.gpu_failed + st.sgemv.gpu_failed} calls failed on the GPU (recomputed on the CPU)")
    if expect == "gpu" and computed_cpu:
        fail(f"SHIMBLAS_TEST_EXPECT=gpu, but {computed_cpu} calls ran on the CPU ({computed_gpu} on the GPU)")
    if expect == "cpu" and computed_gpu:
        fail(f"SHIMBLAS_TEST_EXPECT=cpu, but {computed_gpu} calls ran on the GPU ({computed_cpu} on the CPU)")

    # SciPy's wrappers: each a call of the SciPy wheel's LP64 names, counted and within the bound
    if have_scipy():
        import scipy
        print(f"SciPy {scipy.__version__}; its BLAS in the process: "
              f"{', '.join(os.path.basename(p) for p in loaded('libscipy_openblas-')) or 'not mapped'}")
        for name, make in scipy_cases():
            before = stats()
            got, bound = make(ops)
            after = stats()
            calls = (after.sgemm.calls - before.sgemm.calls) + (after.sgemv.calls - before.sgemv.calls)
            ref = saved["out:" + name]
            diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
            ok = got.dtype == np.float32 and got.shape == ref.shape and bool(np.all(diff <= bound))
            print(f"{'ok  ' if ok else 'FAIL'} {name}: max |diff| {diff.max():.3g}; shim calls +{calls}")
            failures += not ok
            if calls != 1:
                fail(f"{name}: one BLAS call expected through the shim, counted {calls}")
        st = stats()
    else:
        print("SciPy not installed in this python: scipy.linalg.blas not checked")

    # float64: NumPy's own OpenBLAS, bit for bit, and not a single call counted by the shim
    for name, make in float64_cases():
        x, y, op = make(ops)
        got = compute(x, y, op)
        ref = saved["out:" + name]
        same = got.dtype == ref.dtype and got.shape == ref.shape and got.tobytes() == ref.tobytes()
        print(f"{'ok  ' if same else 'FAIL'} {name}: {'bitwise identical' if same else 'differs'} without the shim")
        failures += not same
    after = stats()
    if (after.sgemm.calls, after.sgemv.calls) != (st.sgemm.calls, st.sgemv.calls):
        fail(f"the float64 products changed the shim's counters (sgemm {st.sgemm.calls} -> {after.sgemm.calls}, "
             f"sgemv {st.sgemv.calls} -> {after.sgemv.calls})")
    print(f"numpy_pip_client: {failures} failures")
    return failures != 0


# --- the driver: both processes -----------------------------------------------------------------
def driver(python):
    lib = os.environ.get("SHIMBLAS_LIB")
    if not lib:
        print("numpy_pip_client.py: SHIMBLAS_LIB must name libshimblas.so", file=sys.stderr)
        return 2
    # absolute (the phases run in a folder of their own), but not resolved: a virtual environment's
    # python is a link to the system's, and only its own path selects the environment
    python = os.path.abspath(python) if os.sep in python else (shutil.which(python) or python)
    if not os.path.isfile(python) or not os.access(python, os.X_OK):
        print(f"SKIP: no pip NumPy's python at {python} (.ci/run creates the virtual environment; "
              f"or configure -Dpip_python=PATH)")
        return 77
    lib = os.path.realpath(lib)
    seed = int(os.environ.get("SHIMBLAS_TEST_SEED", "0") or 0) or int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed} (set SHIMBLAS_TEST_SEED to repeat); python {python}")
    me = os.path.abspath(__file__)
    base = dict(os.environ, SHIMBLAS_LIB=lib, PYTHONUNBUFFERED="1")
    base.pop("LD_PRELOAD", None)
    preload = " ".join(p for p in (os.environ.get("SHIMBLAS_TEST_PRELOAD", ""), lib) if p)
    with tempfile.TemporaryDirectory() as work:
        ref = os.path.join(work, "reference.npz")
        for phase, env, args in (("without the shim", base, ["--reference", ref, str(seed)]),
                                 ("with the shim", dict(base, LD_PRELOAD=preload), ["--with-shim", ref])):
            print(f"--- {phase}", flush=True)
            rc = subprocess.run([python, me] + args, env=env, cwd=work).returncode
            if rc == 77:
                return 77
            if rc != 0:
                print(f"FAIL: the run {phase} exited with {rc}")
                return 1
    return 0


def phase_main(argv):
    global np
    try:
        import numpy as np
    except ImportError:
        print(f"SKIP: {sys.executable} has no NumPy (pip install -r test/clients/requirements-pip.txt)")
        return 77
    if argv[0] == "--reference":
        return reference(argv[1], int(argv[2]))
    return with_shim(argv[1])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("--reference", "--with-shim"):
        sys.exit(phase_main(sys.argv[1:]))
    sys.exit(driver(sys.argv[1] if len(sys.argv) > 1 else sys.executable))
