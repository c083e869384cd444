"""numba kernels for the hash schemes, bit-identical to :mod:`dsampler.hashing._reference`.

Importing this module compiles (or loads from the on-disk cache) every kernel, which
takes seconds on a cold cache: only :mod:`dsampler.hashing._loader` imports it, off the
request path. Every signature is explicit ``uint64``: untyped, a Python int above
2**63 would be typed as float64 and silently lose bits. Constants are ``np.uint64`` for
the same reason; mixing a uint64 with a plain int literal promotes to float in numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import boolean, int64, njit, uint64

from dsampler.hashing import _reference as ref
from dsampler.hashing._fnv_blocks import fnv1a_decide, fnv1a_keys

__all__ = ["SCALAR_BY_CODE", "batch_decide", "batch_keys"]

_OFFSET = np.uint64(ref.FNV_OFFSET_BASIS)
_PRIME = np.uint64(ref.FNV_PRIME)
_BYTE = np.uint64(0xFF)
_M32 = np.uint64(0xFFFFFFFF)
_M63 = np.uint64(ref.MASK63)
_M56 = np.uint64(ref.MASK56)
_SIGN = np.uint64(ref.SIGN64)
_ZERO = np.uint64(0)
_TWO32 = np.uint64(1 << 32)
_S8 = np.uint64(8)
_S32 = np.uint64(32)
_S33 = np.uint64(33)
_S37 = np.uint64(37)
_FMIX1 = np.uint64(ref.FMIX1)
_FMIX2 = np.uint64(ref.FMIX2)
_XXH3_BITFLIP1 = np.uint64(ref.XXH3_BITFLIP1)
_XXH3_BITFLIP2 = np.uint64(ref.XXH3_BITFLIP2)
_XXH3_AVALANCHE = np.uint64(ref.XXH3_AVALANCHE)
_SIXTEEN = np.uint64(16)

_SCALAR = uint64(uint64, uint64)
# Scalar kernels keep the GIL: releasing and retaking it costs more (40 ns) than the hash,
# and under contention turns every decision into a thread switch. Batch kernels release
# it, so a long batch does not stall the request threads.
_OPTS: dict[str, Any] = {"cache": True}
_BATCH_OPTS: dict[str, Any] = {"cache": True, "nogil": True}


@njit(_SCALAR, **_OPTS)
def fnv1a(hi: int, lo: int) -> int:
    h = _OFFSET
    for i in range(8):
        h = (h ^ ((hi >> np.uint64(56 - 8 * i)) & _BYTE)) * _PRIME
    for i in range(8):
        h = (h ^ ((lo >> np.uint64(56 - 8 * i)) & _BYTE)) * _PRIME
    return h


@njit(uint64(uint64), **_OPTS)
def _fmix64(k: int) -> int:
    k ^= k >> _S33
    k *= _FMIX1
    k ^= k >> _S33
    k *= _FMIX2
    k ^= k >> _S33
    return k


@njit(_SCALAR, **_OPTS)
def fnv1a_mix(hi: int, lo: int) -> int:
    return _fmix64(fnv1a(hi, lo))


@njit(uint64(uint64), **_OPTS)
def _bswap64(x: int) -> int:
    out = np.uint64(0)
    for _ in range(8):
        out = (out << _S8) | (x & _BYTE)
        x >>= _S8
    return out


@njit(_SCALAR, **_OPTS)
def _mul128_fold64(a: int, b: int) -> int:
    # Portable 64x64->128 multiply (xxhash's XXH_mult64to128 scalar path).
    lo_lo = (a & _M32) * (b & _M32)
    hi_lo = (a >> _S32) * (b & _M32)
    lo_hi = (a & _M32) * (b >> _S32)
    hi_hi = (a >> _S32) * (b >> _S32)
    cross = (lo_lo >> _S32) + (hi_lo & _M32) + lo_hi
    upper = (hi_lo >> _S32) + (cross >> _S32) + hi_hi
    lower = (cross << _S32) | (lo_lo & _M32)
    return lower ^ upper


@njit(_SCALAR, **_OPTS)
def xxh3(hi: int, lo: int) -> int:
    input_lo = _bswap64(hi) ^ _XXH3_BITFLIP1
    input_hi = _bswap64(lo) ^ _XXH3_BITFLIP2
    acc = _SIXTEEN + _bswap64(input_lo) + input_hi + _mul128_fold64(input_lo, input_hi)
    acc ^= acc >> _S37
    acc *= _XXH3_AVALANCHE
    return acc ^ (acc >> _S32)


@njit(_SCALAR, **_OPTS)
def low64(hi: int, lo: int) -> int:
    return lo


@njit(_SCALAR, **_OPTS)
def low63(hi: int, lo: int) -> int:
    return lo & _M63


@njit(_SCALAR, **_OPTS)
def consistent56(hi: int, lo: int) -> int:
    return _M56 - (lo & _M56)


@njit(_SCALAR, **_OPTS)
def java_abs(hi: int, lo: int) -> int:
    magnitude = lo if lo < _SIGN else _ZERO - lo  # Math.abs, two's complement
    return magnitude ^ _SIGN


@njit(_SCALAR, **_OPTS)
def xor32(hi: int, lo: int) -> int:
    if (hi | lo) == _ZERO:
        return _TWO32
    return (hi ^ (hi >> _S32) ^ lo ^ (lo >> _S32)) & _M32


# The batch entries take a scheme's code (``HashScheme.code``, the order of
# SCALAR_BY_CODE) and call a kernel with one loop per code, chosen before the loop so
# that LLVM vectorises each loop on its own (a switch inside the loop halved
# throughput); closures, one kernel per scheme, cannot be cached by numba reliably.
# ``fnv1a`` and ``fnv1a-mix`` hash block by block (:mod:`dsampler.hashing._fnv_blocks`);
# the choice is made in Python, so that no kernel here embeds that module's code (numba's
# cache would not see it change).


@njit(uint64[::1](uint64[::1], uint64[::1], int64), **_BATCH_OPTS)
def _unhashed_keys(hi: Any, lo: Any, code: int) -> Any:
    n = hi.shape[0]
    out = np.empty(n, dtype=np.uint64)
    if code == 3:
        for i in range(n):
            out[i] = lo[i]
    elif code == 4:
        for i in range(n):
            out[i] = lo[i] & _M63
    elif code == 5:
        for i in range(n):
            out[i] = _M56 - (lo[i] & _M56)
    elif code == 6:
        for i in range(n):
            out[i] = java_abs(hi[i], lo[i])
    else:
        for i in range(n):
            out[i] = xor32(hi[i], lo[i])
    return out


@njit(boolean[::1](uint64[::1], uint64[::1], uint64, int64), **_BATCH_OPTS)
def _unhashed_decide(hi: Any, lo: Any, bound: int, code: int) -> Any:
    n = hi.shape[0]
    out = np.empty(n, dtype=np.bool_)
    if code == 3:
        for i in range(n):
            out[i] = lo[i] < bound
    elif code == 4:
        for i in range(n):
            out[i] = (lo[i] & _M63) < bound
    elif code == 5:
        for i in range(n):
            out[i] = (_M56 - (lo[i] & _M56)) < bound
    elif code == 6:
        for i in range(n):
            out[i] = java_abs(hi[i], lo[i]) < bound
    else:
        for i in range(n):
            out[i] = xor32(hi[i], lo[i]) < bound
    return out


@njit(uint64[::1](uint64[::1], uint64[::1]), **_BATCH_OPTS)
def _xxh3_keys(hi: Any, lo: Any) -> Any:
    out = np.empty(hi.shape[0], dtype=np.uint64)
    for i in range(hi.shape[0]):
        out[i] = xxh3(hi[i], lo[i])
    return out


@njit(boolean[::1](uint64[::1], uint64[::1], uint64), **_BATCH_OPTS)
def _xxh3_decide(hi: Any, lo: Any, bound: int) -> Any:
    out = np.empty(hi.shape[0], dtype=np.bool_)
    for i in range(hi.shape[0]):
        out[i] = xxh3(hi[i], lo[i]) < bound
    return out


def batch_keys(hi: Any, lo: Any, code: int) -> Any:
    """The keys of the scheme with kernel ``code`` for contiguous ``uint64`` halves."""
    if code <= 1:
        return fnv1a_keys(hi, lo, code == 1)
    return _xxh3_keys(hi, lo) if code == 2 else _unhashed_keys(hi, lo, code)


def batch_decide(hi: Any, lo: Any, bound: Any, code: int) -> Any:
    """``key < bound`` for every ID under the scheme with kernel ``code`` (``bound`` a
    ``numpy.uint64``)."""
    if code <= 1:
        return fnv1a_decide(hi, lo, bound, code == 1)
    return _xxh3_decide(hi, lo, bound) if code == 2 else _unhashed_decide(hi, lo, bound, code)


#: Scalar kernels by scheme code (dsampler.hashing._schemes: FNV1A, FNV1A_MIX, XXH3, LOW64, LOW63,
#: LOW56, JAVA_ABS, XOR32).
SCALAR_BY_CODE = (fnv1a, fnv1a_mix, xxh3, low64, low63, consistent56, java_abs, xor32)
