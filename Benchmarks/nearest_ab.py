"""nearest over the 54 markers, two libraries each through its own package, alternately, by CPU time.

    OMP_NUM_THREADS=1 python3 Benchmarks/nearest_ab.py ROUNDS BEFORE.so BEFORE_PYTHON_FOLDER AFTER.so AFTER_PYTHON_FOLDER

Both answers (k = 1 on 1M points, k = 3 on 20,001) are compared bit for bit before timing.
"""
import importlib, os, sys, time
import numpy as np
def load(lib, pkg):
    os.environ["NEWSATLAS_LIBRARY"] = lib
    for name in [k for k in sys.modules if k.startswith("newsatlas")]: del sys.modules[name]
    sys.path.insert(0, pkg); m = importlib.import_module("newsatlas"); sys.path.remove(pkg); return m
reps = int(sys.argv[1])
A, B = load(sys.argv[2], sys.argv[3]), load(sys.argv[4], sys.argv[5])
rng = np.random.default_rng(2)  # the points of python_ab.py's nearest rows
n = 1_000_000
lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n))); lon = rng.uniform(-180, 180, n)
for k, m in ((1, n), (3, 20001)):
    ra, rb = A.nearest(lat[:m], lon[:m], k=k, threads=1), B.nearest(lat[:m], lon[:m], k=k, threads=1)
    assert ra.codes.dtype == rb.codes.dtype and ra.codes.shape == rb.codes.shape
    for x, y in zip(ra, rb): assert np.array_equal(np.asarray(x).view(np.uint8), np.asarray(y).view(np.uint8)), f"k={k} differs"
ta, tb = [], []
for _ in range(reps):
    for m, t in ((A, ta), (B, tb)):
        c = time.process_time(); m.nearest(lat, lon, threads=1); t.append(time.process_time() - c)
ta.sort(); tb.sort()
f = lambda t: f"min {t[0]*1e3:.1f} med {t[len(t)//2]*1e3:.1f} ms ({n/t[0]/1e6:.2f} M/s by min)"
print("A", f(ta)); print("B", f(tb)); print(f"ratio of mins {ta[0]/tb[0]:.3f}  load {os.getloadavg()}")
