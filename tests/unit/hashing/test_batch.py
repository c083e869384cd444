"""Public scalar and batch entry points: input validation, shapes, dtypes, edges."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from dsampler import ConfigError, decide_batch, fnv1a64, fnv1a64_batch, rate_to_bound
from dsampler.hashing._reference import fnv1a64_bytes


@pytest.mark.parametrize(
    ("bad", "error"),
    [(-1, ValueError), (2**128, ValueError), (1.0, TypeError), ("1", TypeError), (True, TypeError)],
)
def test_fnv1a64_is_strict(bad: Any, error: type[Exception]) -> None:
    """The public hash refuses what is not a 128-bit unsigned int, naming trace_id."""
    with pytest.raises(error, match=r"^trace_id: "):
        fnv1a64(bad)


def test_fnv1a64_hashes_the_w3c_bytes() -> None:
    """fnv1a64(x) is FNV-1a 64 of x as 16 big-endian bytes."""
    x = 0x0AF7651916CD43DD8448EB211C80319C
    assert fnv1a64(x) == fnv1a64_bytes(x.to_bytes(16, "big"))


def test_batch_accepts_lists_and_any_shape() -> None:
    """Array-likes of any shape come back in the same shape."""
    hi = [[0, 1], [2, 3]]
    lo = [[4, 5], [6, 7]]
    keys = fnv1a64_batch(hi, lo)
    assert keys.shape == (2, 2)
    assert keys.dtype == np.uint64
    assert keys[1, 0] == fnv1a64((2 << 64) | 6)
    assert decide_batch(hi, lo, 1.0).shape == (2, 2)


def test_signed_halves_are_read_as_twos_complement() -> None:
    """int64 halves (Jaeger Thrift's i64 IDs) hash as their unsigned bit patterns."""
    signed = fnv1a64_batch(np.array([-1], dtype=np.int64), np.array([-2], dtype=np.int64))
    assert signed[0] == fnv1a64(((2**64 - 1) << 64) | (2**64 - 2))


@pytest.mark.parametrize(
    ("hi", "lo", "error", "match"),
    [
        (np.array([1.0]), np.array([1], dtype=np.uint64), TypeError, "^hi: expected an array of integers"),
        (np.array([1], dtype=np.uint64), np.array(["x"]), TypeError, "^lo: expected an array of integers"),
        (
            np.zeros(3, dtype=np.uint64),
            np.zeros(4, dtype=np.uint64),
            ValueError,
            "^hi, lo: expected arrays of one shape",
        ),
    ],
)
def test_batch_rejects_bad_arrays_naming_them(hi: Any, lo: Any, error: type[Exception], match: str) -> None:
    """Float, string and mismatched arrays are refused with the argument named."""
    with pytest.raises(error, match=match):
        decide_batch(hi, lo, 0.5)
    with pytest.raises(error, match=match):
        fnv1a64_batch(hi, lo)


@pytest.mark.parametrize(("rate", "hash"), [(1.5, "fnv1a"), (float("nan"), "fnv1a"), (0.5, "sha1")])
def test_decide_batch_validates_rate_and_rule(rate: float, hash: str) -> None:
    """decide_batch validates like RatioSampler: ConfigError naming rate or hash."""
    with pytest.raises(ConfigError):
        decide_batch(np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.uint64), rate, hash=hash)


def test_rate_zero_and_one_in_batch_including_the_maximum_key() -> None:
    """Rate 1 keeps even IDs whose key is 2**64 - 1; rate 0 keeps nothing."""
    ones = np.full(4, 2**64 - 1, dtype=np.uint64)
    for rule in ("fnv1a", "otel", "jaeger", "jaeger-go", "consistent"):
        assert decide_batch(ones, ones, 1.0, hash=rule).all()
        assert not decide_batch(ones, ones, 0.0, hash=rule).any()


def test_empty_batch() -> None:
    """An empty batch is a valid empty answer, empty lists too (numpy reads [] as float64)."""
    empty = np.array([], dtype=np.uint64)
    assert decide_batch(empty, empty, 0.5).shape == (0,)
    assert decide_batch([], [], 0.5).shape == (0,)
    assert fnv1a64_batch([], []).dtype == np.uint64


def test_empty_batch_before_the_kernels_serve() -> None:
    """Without the compiled kernels (DSAMPLER_JIT=off: the numpy twin serves, as before
    the kernels load) an empty batch is an empty answer too, not a failed concatenate."""
    code = (
        "import numpy as np, dsampler\n"
        "e = np.array([], dtype=np.uint64)\n"
        "print(dsampler.decide_batch(e, e, 0.5).shape, dsampler.fnv1a64_batch(e, e).shape)"
    )
    env = {**os.environ, "DSAMPLER_JIT": "off"}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(0,) (0,)"), proc.stdout


def test_batches_without_numpy_name_the_extra_that_brings_it() -> None:
    """Where numpy is not installed, the batch entries say which extra brings it; the
    scalar entries work without it."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import dsampler\n"
        "for entry in (dsampler.decide_batch, dsampler.fnv1a64_batch):\n"
        "    args = ([1], [2], 0.5) if entry is dsampler.decide_batch else ([1], [2])\n"
        "    try:\n"
        "        entry(*args)\n"
        "    except ModuleNotFoundError as exc:\n"
        "        print(exc.name, '|', exc)\n"
        "print(dsampler.fnv1a64(5) == dsampler.fnv1a64(5))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("numpy | decide_batch takes numpy arrays: pip install 'dsampler[jit]'")
    assert lines[1].startswith("numpy | fnv1a64_batch takes numpy arrays: pip install 'dsampler[jit]'")
    assert lines[2] == "True"


@pytest.mark.parametrize("bad", [-0.5, 2, "0.5", None])
def test_rate_to_bound_validates(bad: Any) -> None:
    """rate_to_bound raises ConfigError for what RatioSampler refuses."""
    with pytest.raises(ConfigError, match=r"^rate: "):
        rate_to_bound(bad)


def test_read_only_arrays_are_accepted_by_both_paths() -> None:
    """Arrays over read-only memory (``np.frombuffer`` of bytes) decide like writeable ones."""
    data = bytes(range(256)) * 64
    hi = np.frombuffer(data, dtype=np.uint64)
    lo = np.frombuffer(data[::-1], dtype=np.uint64)
    assert not hi.flags.writeable
    bound = rate_to_bound(0.3)
    expected = [fnv1a64((int(h) << 64) | int(x)) < bound for h, x in zip(hi, lo, strict=True)]
    assert decide_batch(hi, lo, 0.3).tolist() == expected
