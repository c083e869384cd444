"""FNV-1a 64 of many trace IDs, in blocks of :data:`BLOCK` taken byte-major, so that
consecutive iterations are independent IDs. The multiply by ``2**40 + 0x1b3`` is *wide*
where the target has AVX-512DQ, else *split* into 32-bit halves,
``x * PRIME = x_lo * 0x1b3 + ((x_hi * 0x1b3 + (x_lo << 8)) << 32)`` modulo ``2**64``
(the carry of ``x_lo * 0x1b3`` is left above bit 32: the next multiply reads only the low 32).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numba import boolean, int64, njit, types, uint64
from numba.core import codegen, config

from dsampler.hashing import _reference as ref

#: IDs per block: the scratch state (16 KB) stays in the first-level cache.
BLOCK: Final = 1024
_OFFSET = np.uint64(ref.FNV_OFFSET_BASIS)
_OFFSET_LO = np.uint64(ref.FNV_OFFSET_BASIS & 0xFFFFFFFF)
_OFFSET_HI = np.uint64(ref.FNV_OFFSET_BASIS >> 32)
_PRIME = np.uint64(ref.FNV_PRIME)
_PRIME_LO = np.uint64(ref.FNV_PRIME & 0xFFFFFFFF)  # 0x1b3; the prime's high half is 1 << 8
_BYTE = np.uint64(0xFF)
_M32 = np.uint64(0xFFFFFFFF)
_S8 = np.uint64(8)
_S32 = np.uint64(32)
_S33 = np.uint64(33)
_FMIX1 = np.uint64(ref.FMIX1)
_FMIX2 = np.uint64(ref.FMIX2)
# Scalar kernels keep the GIL (releasing it costs more than the hash); batch kernels
# release it, so a long batch does not stall the request threads.
_OPTS: dict[str, Any] = {"cache": True}
_BATCH_OPTS: dict[str, Any] = {"cache": True, "nogil": True}
_INLINED: dict[str, Any] = {"cache": True, "inline": "always"}
_PAIR_SIG = types.UniTuple(uint64, 2)(uint64, uint64, uint64, uint64, uint64)  # type: ignore[no-untyped-call]
_FRONT_SIG = types.void(uint64[::1], uint64[::1], uint64[::1], uint64[::1])
_FINISH_SIG = uint64(uint64[::1], uint64[::1], int64, uint64)


def target_features() -> str:
    """The CPU features numba compiles for: ``NUMBA_CPU_FEATURES`` if set, else the host's."""
    features = config.CPU_FEATURES  # type: ignore[attr-defined]
    return str(features) if features is not None else str(codegen.get_host_cpu_features())  # type: ignore[no-untyped-call]


#: The wide form where the target has AVX-512DQ's 64-bit multiply, else the split form.
WIDE_MULTIPLY: Final = "+avx512dq" in target_features().split(",")


@njit(uint64(uint64, uint64, uint64, uint64), **_INLINED)
def _wide_pair(s: int, w: int, a: int, b: int) -> int:
    """Two FNV-1a steps of the 64-bit state ``s``, bytes ``w >> a`` and ``w >> b``."""
    s = (s ^ ((w >> a) & _BYTE)) * _PRIME
    return (s ^ ((w >> b) & _BYTE)) * _PRIME


@njit(_PAIR_SIG, **_INLINED)
def _split_pair(lo: int, hi: int, w: int, a: int, b: int) -> tuple[int, int]:
    """The same two steps on the split state ``(lo, hi)`` (module docstring)."""
    x = lo ^ ((w >> a) & _BYTE)
    t = (x & _M32) * _PRIME_LO
    hi = (hi & _M32) * _PRIME_LO + (x << _S8) + (t >> _S32)
    x = t ^ ((w >> b) & _BYTE)
    t = (x & _M32) * _PRIME_LO
    return t, (hi & _M32) * _PRIME_LO + (x << _S8) + (t >> _S32)


def _wide_front(hb: Any, lb: Any, state: Any, spare: Any) -> None:
    """Bytes 0-13 of the block's IDs into ``state``, two a pass (the shift of the first)."""
    for k in range(hb.shape[0]):
        state[k] = _wide_pair(_OFFSET, hb[k], 56, 48)
    for word, a in ((hb, 40), (hb, 24), (hb, 8), (lb, 56), (lb, 40), (lb, 24)):
        for k in range(hb.shape[0]):
            state[k] = _wide_pair(state[k], word[k], a, a - 8)


def _wide_finish(state: Any, spare: Any, k: int, lo: int) -> int:
    """Bytes 14 and 15 of ID ``k`` (``lo`` its low half): its key."""
    return _wide_pair(state[k], lo, 8, 0)


def _split_front(hb: Any, lb: Any, lo: Any, hi: Any) -> None:
    """Bytes 0-13 of the block's IDs into the split state ``lo``, ``hi``, as the wide form."""
    for k in range(hb.shape[0]):
        lo[k], hi[k] = _split_pair(_OFFSET_LO, _OFFSET_HI, hb[k], 56, 48)
    for word, a in ((hb, 40), (hb, 24), (hb, 8), (lb, 56), (lb, 40), (lb, 24)):
        for k in range(hb.shape[0]):
            lo[k], hi[k] = _split_pair(lo[k], hi[k], word[k], a, a - 8)


def _split_finish(lo: Any, hi: Any, k: int, w: int) -> int:
    """Bytes 14 and 15 of ID ``k`` (``w`` its low half): its key."""
    t, h = _split_pair(lo[k], hi[k], w, 8, 0)
    return (h << _S32) | (t & _M32)


# ``_front``: bytes 0-13 of one block's IDs; ``_finish(state_a, state_b, k, lo[k])``: the
# key of its ``k``-th ID. Every kernel that calls them lives in this module: numba's disk
# cache keys a function by its own file alone, so code inlined from another would go stale.
_front = njit(_FRONT_SIG, **_OPTS)(_wide_front if WIDE_MULTIPLY else _split_front)
_finish = njit(_FINISH_SIG, **_INLINED)(_wide_finish if WIDE_MULTIPLY else _split_finish)


@njit(uint64(uint64), **_INLINED)
def _fmix64(k: int) -> int:
    k ^= k >> _S33
    k *= _FMIX1
    k ^= k >> _S33
    k *= _FMIX2
    k ^= k >> _S33
    return k


@njit(uint64[::1](uint64[::1], uint64[::1], boolean), **_BATCH_OPTS)
def fnv1a_keys(hi: Any, lo: Any, mix: bool) -> Any:
    """FNV-1a 64 of every ID (``fmix64`` of it if ``mix``: ``fnv1a-mix``)."""
    n = hi.shape[0]
    out = np.empty(n, dtype=np.uint64)
    state_a, state_b = np.empty(BLOCK, dtype=np.uint64), np.empty(BLOCK, dtype=np.uint64)
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        lows, keys = lo[start:stop], out[start:stop]
        _front(hi[start:stop], lows, state_a, state_b)
        for k in range(stop - start):
            keys[k] = _finish(state_a, state_b, k, lows[k])
        if mix:
            for k in range(stop - start):
                keys[k] = _fmix64(keys[k])
    return out


@njit(boolean[::1](uint64[::1], uint64[::1], uint64, boolean), **_BATCH_OPTS)
def fnv1a_decide(hi: Any, lo: Any, bound: int, mix: bool) -> Any:
    """``key < bound`` for every ID, the key FNV-1a 64 (``fmix64`` of it if ``mix``)."""
    n = hi.shape[0]
    out = np.empty(n, dtype=np.bool_)
    state_a, state_b = np.empty(BLOCK, dtype=np.uint64), np.empty(BLOCK, dtype=np.uint64)
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        lows, sampled = lo[start:stop], out[start:stop]
        _front(hi[start:stop], lows, state_a, state_b)
        if mix:
            for k in range(stop - start):
                sampled[k] = _fmix64(_finish(state_a, state_b, k, lows[k])) < bound
        else:
            for k in range(stop - start):
                sampled[k] = _finish(state_a, state_b, k, lows[k]) < bound
    return out
