"""Vectorised numpy keys of the hash schemes by ``HashScheme.kernel``, bit-identical to
the reference: the batch path until (or unless) the kernels serve."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dsampler.hashing import _reference as ref

_U = np.uint64


def _fnv1a(hi: Any, lo: Any) -> Any:
    h = np.full(hi.shape, _U(ref.FNV_OFFSET_BASIS), dtype=np.uint64)
    prime, byte = _U(ref.FNV_PRIME), _U(0xFF)
    for half in (hi, lo):
        for shift in range(56, -8, -8):
            h ^= (half >> _U(shift)) & byte
            h *= prime
    return h


def _fmix64(k: Any) -> Any:
    k = k ^ (k >> _U(33))
    k *= _U(ref.FMIX1)
    k ^= k >> _U(33)
    k *= _U(ref.FMIX2)
    k ^= k >> _U(33)
    return k


def _mul128_fold64(a: Any, b: Any) -> Any:
    m32, s32 = _U(0xFFFFFFFF), _U(32)
    lo_lo = (a & m32) * (b & m32)
    hi_lo = (a >> s32) * (b & m32)
    lo_hi = (a & m32) * (b >> s32)
    hi_hi = (a >> s32) * (b >> s32)
    cross = (lo_lo >> s32) + (hi_lo & m32) + lo_hi
    upper = (hi_lo >> s32) + (cross >> s32) + hi_hi
    lower = (cross << s32) | (lo_lo & m32)
    return lower ^ upper


def _xxh3(hi: Any, lo: Any) -> Any:
    input_lo = hi.byteswap() ^ _U(ref.XXH3_BITFLIP1)
    input_hi = lo.byteswap() ^ _U(ref.XXH3_BITFLIP2)
    acc = _U(16) + input_lo.byteswap() + input_hi + _mul128_fold64(input_lo, input_hi)
    acc ^= acc >> _U(37)
    acc *= _U(ref.XXH3_AVALANCHE)
    return acc ^ (acc >> _U(32))


def _java_abs(lo: Any) -> Any:
    sign = _U(ref.SIGN64)
    magnitude = np.where(lo < sign, lo, ~lo + _U(1))  # Math.abs, two's complement
    return magnitude ^ sign


def _xor32(hi: Any, lo: Any) -> Any:
    s32 = _U(32)
    out = (hi ^ (hi >> s32) ^ lo ^ (lo >> s32)) & _U(ref.MASK32)
    out[(hi | lo) == _U(0)] = _U(1 << 32)  # the invalid all-zero trace ID
    return out


_BY_KERNEL: dict[str, Callable[[Any, Any], Any]] = {
    "fnv1a": _fnv1a,
    "fnv1a-mix": lambda hi, lo: _fmix64(_fnv1a(hi, lo)),
    "xxh3": _xxh3,
    "low64": lambda hi, lo: lo.copy(),
    "low63": lambda hi, lo: lo & _U(ref.MASK63),
    "low56": lambda hi, lo: _U(ref.MASK56) - (lo & _U(ref.MASK56)),
    "java-abs": lambda hi, lo: _java_abs(lo),
    "xor32": _xor32,
}


def keys(kernel: str, hi: Any, lo: Any) -> Any:
    """The 64-bit keys of the scheme whose ``kernel`` this is."""
    return _BY_KERNEL[kernel](hi, lo)
