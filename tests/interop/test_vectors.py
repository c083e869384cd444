"""Golden FNV-1a 64 vectors from Go, the FNV reference code and computed trace IDs."""

from __future__ import annotations

import numpy as np
import pytest

from dsampler import fnv1a64, fnv1a64_batch
from dsampler.hashing import _numpy_twin
from dsampler.hashing import _reference as reference
from dsampler.hashing._loader import LOADER
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import SCHEMES
from tests.conftest import data_json

VECTORS = data_json("vectors/fnv1a64.json")
# Every 16-byte input is a trace ID to the hash: the 28 computed trace-ID entries and
# 5 published strings that happen to be 16 bytes long.
TRACE_ID_VECTORS = [v for v in VECTORS if len(v["input_hex"]) == 32]


def test_vector_file_has_the_expected_families() -> None:
    """The vector file holds 235 vectors, 28 of them computed over 16-byte trace IDs."""
    assert len(VECTORS) == 235
    assert sum(v["source"].startswith("computed") for v in TRACE_ID_VECTORS) == 28


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["source"][-40:])
def test_reference_bytes_hash_matches_every_published_vector(vector: dict[str, str]) -> None:
    """The pure-Python FNV-1a 64 reproduces Go's and the FNV authors' published values."""
    assert reference.fnv1a64_bytes(bytes.fromhex(vector["input_hex"])) == int(vector["fnv1a64_hex"], 16)


def _ids() -> list[tuple[int, int]]:
    return [(int(v["input_hex"], 16), int(v["fnv1a64_hex"], 16)) for v in TRACE_ID_VECTORS]


@pytest.mark.parametrize(
    ("trace_id", "expected"), _ids(), ids=lambda x: f"{x:x}" if isinstance(x, int) else x
)
def test_trace_id_vectors_on_the_pure_python_path(trace_id: int, expected: int) -> None:
    """The reference rule over (hi, lo) gives the vector's hash of the 16 big-endian bytes."""
    assert reference.fnv1a64_key(trace_id >> 64, trace_id & MASK64) == expected


@pytest.mark.usefixtures("jit")
@pytest.mark.parametrize(
    ("trace_id", "expected"), _ids(), ids=lambda x: f"{x:x}" if isinstance(x, int) else x
)
def test_trace_id_vectors_on_the_jitted_scalar_path(trace_id: int, expected: int) -> None:
    """The compiled scalar kernel and the public fnv1a64 agree with every trace-ID vector."""
    assert LOADER.kernels is not None
    assert LOADER.kernels.fnv1a(trace_id >> 64, trace_id & MASK64) == expected
    assert fnv1a64(trace_id) == expected


def _halves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = _ids()
    hi = np.array([t >> 64 for t, _ in ids], dtype=np.uint64)
    lo = np.array([t & MASK64 for t, _ in ids], dtype=np.uint64)
    expected = np.array([e for _, e in ids], dtype=np.uint64)
    return hi, lo, expected


@pytest.mark.usefixtures("jit")
def test_trace_id_vectors_on_the_jitted_batch_path() -> None:
    """The compiled batch kernel reproduces all trace-ID vectors in one call."""
    hi, lo, expected = _halves()
    np.testing.assert_array_equal(fnv1a64_batch(hi, lo), expected)


def test_trace_id_vectors_on_the_numpy_fallback() -> None:
    """The numpy twin (batch path without numba) reproduces all trace-ID vectors."""
    hi, lo, expected = _halves()
    np.testing.assert_array_equal(_numpy_twin.keys(SCHEMES["fnv1a"].kernel, hi, lo), expected)


def test_jaeger_64_bit_id_is_the_zero_extended_w3c_id() -> None:
    """A 64-bit Jaeger ID hashes as the W3C zero-padded ID from the vector file."""
    padded = next(v for v in TRACE_ID_VECTORS if v["input_hex"] == "000000000000000053ce929d0e0e4736")
    assert fnv1a64(0x53CE929D0E0E4736) == int(padded["fnv1a64_hex"], 16)
