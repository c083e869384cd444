"""Scalar and batch entry points of the decision core. Batches (two ``uint64`` arrays of
halves) run the numba kernels when ready, else a bit-identical numpy twin in chunks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from dsampler._validate import check_rate
from dsampler.hashing._loader import LOAD_AT_PER_SECOND, LOADER, TYPICAL_LOAD_S, JitStatus, mode
from dsampler.hashing._reference import MASK64
from dsampler.hashing._schemes import DEFAULT_SCHEME, SCHEMES, HashScheme, get_scheme

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


_MAX_ID = (1 << 128) - 1
CHUNK = 1 << 20
_TWIN_IDS_PER_S = 30e6  # first guess of the twin's speed, measured on each chunk
_twin_s = [0.0]  # the twin's time in this process (a lost update under a race is harmless)


def fnv1a64(trace_id: int) -> int:
    """FNV-1a 64 of a trace ID's 16 big-endian bytes (dsampler's canonical hash).

    Strict, unlike the samplers (which reduce any int modulo 2**128): a caller asking
    for a hash of ``-1`` has a bug.

    Raises:
        TypeError: ``trace_id`` is not an int.
        ValueError: ``trace_id`` is outside [0, 2**128).
    """
    if isinstance(trace_id, bool) or not isinstance(trace_id, int):
        raise TypeError(f"trace_id: expected an int, got {type(trace_id).__name__}")
    if not 0 <= trace_id <= _MAX_ID:
        raise ValueError(f"trace_id: expected an int in [0, 2**128), got {trace_id}")
    return SCHEMES["fnv1a"].key(trace_id >> 64, trace_id & MASK64)


def jit_status() -> JitStatus:
    """Which path hashes, and why."""
    return LOADER.status()


def hashing_path(hash: str) -> str:
    """Which path hashes the scheme ``hash`` in this process, and why.

    Raises:
        ConfigError: ``hash`` is unknown.
    """
    scheme = get_scheme(hash)
    if scheme.of_bytes is not None:
        return "C (the xxhash library), no JIT"
    if not scheme.jit:
        return "Python integer operations, no JIT needed"
    status = LOADER.status()
    if status.state == "ready":
        return "numba kernels"
    if status.state == "unavailable":
        return f"pure Python: {status.reason}"
    if mode() == "eager":
        return "numba kernels, loaded in the background with the first sampler; pure Python until then"
    return f"pure Python, then numba kernels past {LOAD_AT_PER_SECOND:,} hashed decisions a second"


def wait_for_jit(timeout: float | None = None) -> bool:
    """Start the kernel load if needed and wait for it; True once compiled kernels serve."""
    return LOADER.wait(timeout)


def _numpy(entry: str) -> Any:
    """numpy, or an ImportError that says which extra brings it."""
    try:
        import numpy
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{entry} takes numpy arrays: pip install 'dsampler[jit]' (numpy and numba's kernels)",
            name="numpy",
        ) from exc
    return numpy


def _as_u64(name: str, values: Any) -> np.ndarray[Any, np.dtype[np.uint64]]:
    import numpy as np

    array = np.asarray(values)
    if array.size == 0 and array.dtype.kind == "f":  # [] is float64 to numpy: no IDs, none refused
        array = array.astype(np.uint64)
    if array.dtype.kind == "u":
        out = np.ascontiguousarray(array, dtype=np.uint64)
    elif array.dtype.kind == "i":
        # Two's complement, as Jaeger's Thrift i64 halves are stored.
        out = np.ascontiguousarray(array, dtype=np.int64).view(np.uint64)
    else:
        raise TypeError(f"{name}: expected an array of integers, got dtype {array.dtype}")
    # The kernels' signatures take writeable arrays (np.frombuffer's are not).
    return out if out.flags.writeable else out.copy()


def _halves(hi: Any, lo: Any) -> tuple[Any, Any, tuple[int, ...]]:
    hi_a, lo_a = _as_u64("hi", hi), _as_u64("lo", lo)
    if hi_a.shape != lo_a.shape:
        raise ValueError(f"hi, lo: expected arrays of one shape, got {hi_a.shape} and {lo_a.shape}")
    return hi_a.ravel(), lo_a.ravel(), hi_a.shape


def fnv1a64_batch(hi: npt.ArrayLike, lo: npt.ArrayLike) -> np.ndarray[Any, np.dtype[np.uint64]]:
    """FNV-1a 64 of many trace IDs given as high and low ``uint64`` halves (any shape).

    Raises:
        ModuleNotFoundError: numpy is not installed.
    """
    _numpy("fnv1a64_batch")
    from dsampler.hashing import _numpy_twin

    scheme = SCHEMES["fnv1a"]
    flat_hi, flat_lo, shape = _halves(hi, lo)
    out = _by_chunks(
        scheme,
        flat_hi.shape[0],
        lambda kernels, a, b: kernels.batch_keys(flat_hi[a:b], flat_lo[a:b], scheme.kernel),
        lambda a, b: _numpy_twin.keys(scheme.kernel, flat_hi[a:b], flat_lo[a:b]),
    )
    return cast("np.ndarray[Any, np.dtype[np.uint64]]", out.reshape(shape))


def _by_chunks(
    scheme: HashScheme,
    n: int,
    by_kernel: Callable[[Any, int, int], Any],
    by_twin: Callable[[int, int], Any],
) -> Any:
    """IDs ``[0, n)`` by the kernel when it serves, else by the twin chunk by chunk."""
    import numpy as np

    if not scheme.jit:
        return by_twin(0, n)
    kernels = LOADER.kernels
    if kernels is not None:
        return by_kernel(kernels, 0, n)
    if n == 0:  # nothing to hash: the twin's empty answer (concatenate needs a part)
        return by_twin(0, 0)
    parts: list[Any] = []
    pos, ids_per_s = 0, _TWIN_IDS_PER_S
    while pos < n:
        twin_s = (n - pos) / ids_per_s
        if LOADER.state == "idle" and max(twin_s, _twin_s[0]) > TYPICAL_LOAD_S:
            LOADER.start("a batch the numpy twin would take long over")
        expected = LOADER.expected_wait_s()
        if expected is not None and expected < twin_s and LOADER.wait(twin_s):
            kernels = LOADER.kernels
        if kernels is not None:
            parts.append(by_kernel(kernels, pos, n))
            break
        end = min(pos + CHUNK, n)
        started = time.perf_counter()
        parts.append(by_twin(pos, end))
        spent = max(time.perf_counter() - started, 1e-6)
        _twin_s[0] += spent
        pos, ids_per_s, kernels = end, (end - pos) / spent, LOADER.kernels
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def decide_batch(
    hi: npt.ArrayLike, lo: npt.ArrayLike, rate: float, hash: str = DEFAULT_SCHEME
) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Decisions for many trace IDs under one rate and hash scheme: exactly those a
    :class:`~dsampler.RatioSampler` with the same ``rate`` and ``hash`` makes one at a time.

    Raises:
        ConfigError: ``rate`` is not a number in [0, 1] or ``hash`` is unknown.
        TypeError, ValueError: the arrays are not integer arrays of one shape.
        ModuleNotFoundError: numpy is not installed.
    """
    numpy = _numpy("decide_batch")
    from dsampler.hashing import _numpy_twin

    scheme = get_scheme(hash)
    bound = scheme.bound(check_rate(rate))
    flat_hi, flat_lo, shape = _halves(hi, lo)
    if bound > MASK64:  # rate 1 under a 64-bit key: 2**64 does not fit a uint64
        return cast("np.ndarray[Any, np.dtype[np.bool_]]", numpy.ones(shape, dtype=numpy.bool_))
    u_bound = numpy.uint64(bound)
    out = _by_chunks(
        scheme,
        flat_hi.shape[0],
        lambda kernels, a, b: kernels.batch_decide(flat_hi[a:b], flat_lo[a:b], u_bound, scheme.kernel),
        lambda a, b: _numpy_twin.keys(scheme.kernel, flat_hi[a:b], flat_lo[a:b]) < u_bound,
    )
    return cast("np.ndarray[Any, np.dtype[np.bool_]]", out.reshape(shape))
