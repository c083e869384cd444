"""The block-wise FNV-1a of the batch kernels: bit-identical to the reference across
block boundaries, in the form this machine compiles and in the other one where it can
run (the split form anywhere; the wide form needs AVX-512DQ)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

pytest.importorskip("numba", reason="the compiled kernels are the jit extra: pip install 'dsampler[jit]'")

from dsampler.hashing import _fnv_blocks
from dsampler.hashing._loader import LOADER
from dsampler.hashing._reference import MASK64, fmix64, fnv1a64_key

BLOCK = _fnv_blocks.BLOCK
EDGES = [0, 1, MASK64, 1 << 63, (1 << 128) - 1, 1 << 64]


def _halves(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    hi = rng.integers(0, 1 << 64, size=n, dtype=np.uint64)
    lo = rng.integers(0, 1 << 64, size=n, dtype=np.uint64)
    for i, trace_id in enumerate(EDGES[:n]):
        hi[i], lo[i] = trace_id >> 64, trace_id & MASK64
    return hi, lo


@pytest.mark.usefixtures("jit")
@pytest.mark.parametrize("n", [0, 1, 7, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 5])
def test_batch_keys_and_decisions_across_block_boundaries(n: int) -> None:
    """Keys and decisions of fnv1a and fnv1a-mix are the reference's for every ID,
    whether a batch ends inside a block, on its boundary or just past it."""
    kernels = LOADER.kernels
    assert kernels is not None
    hi, lo = _halves(n, seed=n)
    keys = [fnv1a64_key(int(h), int(lo_)) for h, lo_ in zip(hi, lo, strict=True)]
    assert kernels.batch_keys(hi, lo, "fnv1a").tolist() == keys
    assert kernels.batch_keys(hi, lo, "fnv1a-mix").tolist() == [fmix64(k) for k in keys]
    for bound in (0, 1 << 63, 1844674407370955264, MASK64):
        expected = [k < bound for k in keys]
        assert kernels.batch_decide(hi, lo, np.uint64(bound), "fnv1a").tolist() == expected
        mixed = [fmix64(k) < bound for k in keys]
        assert kernels.batch_decide(hi, lo, np.uint64(bound), "fnv1a-mix").tolist() == mixed


def test_the_form_follows_the_features_numba_compiles_for() -> None:
    """The wide form where the target has AVX-512DQ, the split form otherwise."""
    features = _fnv_blocks.target_features().split(",")
    assert _fnv_blocks.WIDE_MULTIPLY is ("+avx512dq" in features)


# Compiles only this module's kernels, in a fresh cache, for the features it is given.
_CHILD = """
import json, sys
import numpy as np
from dsampler.hashing import _fnv_blocks as fb
hi = np.array(json.loads(sys.argv[1]), dtype=np.uint64)
lo = np.array(json.loads(sys.argv[2]), dtype=np.uint64)
keys = fb.fnv1a_keys(hi, lo, False).tolist()
print(json.dumps({"wide": fb.WIDE_MULTIPLY, "keys": keys}))
"""


def _other_form_features() -> str | None:
    """Features that select the form this machine does not use, if it can run it."""
    features = _fnv_blocks.target_features().split(",")
    if "+avx512dq" not in features:
        return None  # the wide form would not run here
    return ",".join(
        "-" + f[1:] if f[1:].startswith(("avx512", "avx10", "amx", "evex512")) else f for f in features
    )


def test_the_other_form_is_bit_identical_too() -> None:
    """Compiled without AVX-512 (NUMBA_CPU_FEATURES), the split form hashes 2,050 IDs,
    edge IDs included, exactly as the reference."""
    features = _other_form_features()
    if features is None:
        pytest.skip("this CPU has no AVX-512DQ: the split form is the one the other tests ran")
    hi, lo = _halves(2 * BLOCK + 2, seed=5)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CPU_FEATURES": features, "NUMBA_CACHE_DIR": cache}
        args = [json.dumps([int(v) for v in hi]), json.dumps([int(v) for v in lo])]
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
    report = json.loads(done.stdout)
    assert report["wide"] is False
    assert report["keys"] == [fnv1a64_key(int(h), int(lo_)) for h, lo_ in zip(hi, lo, strict=True)]
