"""numba kernels of the schemes that hash, bit-identical to the reference; only the loader
imports this module. Every signature and constant is explicit ``uint64``: a Python int
above 2**63 would be typed float64, and a uint64 mixed with an int promotes to float.
"""

from __future__ import annotations

import time
from typing import Any, Final

import numpy as np
from numba import boolean, njit, uint64

from dsampler.hashing import _fnv_blocks as blocks
from dsampler.hashing import _reference as ref
from dsampler.hashing._fnv_blocks import WIDE_MULTIPLY, fnv1a_decide, fnv1a_keys

# The constants and options of the block kernels, defined there once.
_OFFSET, _PRIME, _BYTE, _M32 = blocks._OFFSET, blocks._PRIME, blocks._BYTE, blocks._M32
_S8, _S32, _S33, _FMIX1, _FMIX2 = blocks._S8, blocks._S32, blocks._S33, blocks._FMIX1, blocks._FMIX2
_OPTS, _BATCH_OPTS = blocks._OPTS, blocks._BATCH_OPTS
_S37 = np.uint64(37)
_XXH3_BITFLIP1 = np.uint64(ref.XXH3_BITFLIP1)
_XXH3_BITFLIP2 = np.uint64(ref.XXH3_BITFLIP2)
_XXH3_AVALANCHE = np.uint64(ref.XXH3_AVALANCHE)
_SIXTEEN = np.uint64(16)

_SCALAR = uint64(uint64, uint64)
_KEYS_SIG = uint64[::1](uint64[::1], uint64[::1], boolean)
_DECIDE_SIG = boolean[::1](uint64[::1], uint64[::1], uint64, boolean)


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


#: Scalar kernels by scheme name: what the loader swaps in on the request path.
SCALAR: Final = {"fnv1a": fnv1a, "fnv1a-mix": fnv1a_mix, "xxh3": xxh3}


@njit(_KEYS_SIG, **_BATCH_OPTS)
def _plain_keys(hi: Any, lo: Any, mix: bool) -> Any:
    out = np.empty(hi.shape[0], dtype=np.uint64)
    for i in range(hi.shape[0]):
        out[i] = fnv1a(hi[i], lo[i])
    if mix:
        for i in range(hi.shape[0]):
            out[i] = _fmix64(out[i])
    return out


@njit(_DECIDE_SIG, **_BATCH_OPTS)
def _plain_decide(hi: Any, lo: Any, bound: int, mix: bool) -> Any:
    out = np.empty(hi.shape[0], dtype=np.bool_)
    if mix:
        for i in range(hi.shape[0]):
            out[i] = _fmix64(fnv1a(hi[i], lo[i])) < bound
    else:
        for i in range(hi.shape[0]):
            out[i] = fnv1a(hi[i], lo[i]) < bound
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


#: The ``fnv1a`` batch kernels, by form: ``(keys, decide)`` of each.
FNV_FORMS: Final = {
    "blocks, wide multiply" if WIDE_MULTIPLY else "blocks, split multiply": (fnv1a_keys, fnv1a_decide),
    "plain": (_plain_keys, _plain_decide),
}
_TRIAL_IDS: Final = 1 << 16  # IDs each form decides in a trial (1 MiB of input)
_TRIALS: Final = 5
_chosen: list[str] = []  # the faster form, once timed (a race times it twice, harmlessly)


def fnv_batch_form() -> str:
    """The ``fnv1a`` batch kernel form this process uses: the faster here, timed on first use."""
    if not _chosen:
        rng = np.random.default_rng(0)
        hi, lo = (rng.integers(0, 1 << 64, size=_TRIAL_IDS, dtype=np.uint64) for _ in range(2))
        best = dict.fromkeys(FNV_FORMS, float("inf"))
        for _ in range(_TRIALS):  # interleaved: both see the same machine
            for form, (_, decide) in FNV_FORMS.items():
                started = time.perf_counter()
                decide(hi, lo, _FMIX1, False)
                best[form] = min(best[form], time.perf_counter() - started)
        _chosen.append(min(best, key=best.__getitem__))
    return _chosen[0]


def batch_keys(hi: Any, lo: Any, name: str) -> Any:
    """The keys of scheme ``name`` (``jit``) for contiguous ``uint64`` halves."""
    if name == "xxh3":
        return _xxh3_keys(hi, lo)
    return FNV_FORMS[fnv_batch_form()][0](hi, lo, name == "fnv1a-mix")


def batch_decide(hi: Any, lo: Any, bound: Any, name: str) -> Any:
    """``key < bound`` for every ID under scheme ``name`` (``jit``; ``bound`` a
    ``numpy.uint64``)."""
    if name == "xxh3":
        return _xxh3_decide(hi, lo, bound)
    return FNV_FORMS[fnv_batch_form()][1](hi, lo, bound, name == "fnv1a-mix")
