"""Pure-Python hash schemes: every scheme's 64-bit key of the trace ID's halves ``hi`` and
``lo`` (16 big-endian bytes; a 64-bit Jaeger ID is ``hi = 0``), the fallback of the kernels."""

from __future__ import annotations

MASK64 = (1 << 64) - 1
MASK63 = (1 << 63) - 1
MASK56 = (1 << 56) - 1
MASK32 = (1 << 32) - 1
SIGN64 = 1 << 63

FNV_OFFSET_BASIS = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3

# XXH3's default secret, bytes 24..55 read little-endian (XXH3_len_9to16_64b's four words).
_XXH3_SECRET_24 = 0x1F67B3B7A4A44072
_XXH3_SECRET_32 = 0x78E5C0CC4EE679CB
_XXH3_SECRET_40 = 0x2172FFCC7DD05A82
_XXH3_SECRET_48 = 0x8E2443F7744608B8
XXH3_BITFLIP1 = _XXH3_SECRET_24 ^ _XXH3_SECRET_32  # + seed (0)
XXH3_BITFLIP2 = _XXH3_SECRET_40 ^ _XXH3_SECRET_48  # - seed (0)
XXH3_AVALANCHE = 0x165667919E3779F9
FMIX1 = 0xFF51AFD7ED558CCD
FMIX2 = 0xC4CEB9FE1A85EC53


def fnv1a64_bytes(data: bytes) -> int:
    """FNV-1a 64 over arbitrary bytes; the golden vectors are stated this way."""
    h = FNV_OFFSET_BASIS
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    return h


def fnv1a64_key(hi: int, lo: int) -> int:
    """FNV-1a 64 over the 16 big-endian bytes of ``hi:lo``, reduced modulo ``2**64`` at the end."""
    h = FNV_OFFSET_BASIS
    for byte in ((hi << 64) | lo).to_bytes(16, "big"):
        h = (h ^ byte) * FNV_PRIME
    return h & MASK64


def fmix64(k: int) -> int:
    """MurmurHash3's 64-bit finalizer: spreads FNV-1a's weak high bits over all 64."""
    k ^= k >> 33
    k = (k * FMIX1) & MASK64
    k ^= k >> 33
    k = (k * FMIX2) & MASK64
    k ^= k >> 33
    return k


def fnv1a_mix_key(hi: int, lo: int) -> int:
    """``fnv1a-mix``: FNV-1a 64 then fmix64, unbiased on sequential trace IDs."""
    return fmix64(fnv1a64_key(hi, lo))


def _bswap64(x: int) -> int:
    return int.from_bytes(x.to_bytes(8, "big"), "little")


def xxh3_key(hi: int, lo: int) -> int:
    """XXH3-64 (seed 0) of the 16 big-endian trace-ID bytes: XXH3_len_9to16_64b of the
    little-endian words ``bswap(hi)``, ``bswap(lo)``, then XXH3_avalanche."""
    input_lo = _bswap64(hi) ^ XXH3_BITFLIP1
    input_hi = _bswap64(lo) ^ XXH3_BITFLIP2
    product = input_lo * input_hi
    fold = (product & MASK64) ^ (product >> 64)
    acc = (16 + _bswap64(input_lo) + input_hi + fold) & MASK64
    acc ^= acc >> 37
    acc = (acc * XXH3_AVALANCHE) & MASK64
    return acc ^ (acc >> 32)


def low64_key(hi: int, lo: int) -> int:
    """``otel`` and ``jaeger`` schemes: the low 64 bits, unhashed (W3C IDs are random)."""
    return lo


def jaeger_go_key(hi: int, lo: int) -> int:
    """``jaeger-go``: the low 63 bits, as jaeger-client-go's ``id.Low & maxRandomNumber``."""
    return lo & MASK63


def consistent_key(hi: int, lo: int) -> int:
    """``consistent``: ``2**56 - 1 - R`` with ``R`` the low 56 bits (OpenTelemetry's
    randomness), so that ``key < 2**56 - T`` is exactly the spec's ``R >= T``."""
    return MASK56 - (lo & MASK56)


def otel_java_key(hi: int, lo: int) -> int:
    """``otel-java``: Java's ``Math.abs`` of the signed low 64 bits plus ``2**63`` modulo
    ``2**64`` (``Math.abs(Long.MIN_VALUE)`` stays negative: key 0). ``2**64 - lo``, not
    ``-lo & MASK64``: a numpy integer then raises instead of warning at every decision."""
    magnitude = lo if lo < SIGN64 else (MASK64 + 1) - lo
    return magnitude ^ SIGN64


def otel_js_key(hi: int, lo: int) -> int:
    """``otel-js``: OpenTelemetry JS's XOR of the trace ID's four 32-bit words; the all-zero
    trace ID, invalid to JS, has key ``2**32``, above every bound but rate 1's."""
    if not hi | lo:
        return 1 << 32
    return (hi ^ (hi >> 32) ^ lo ^ (lo >> 32)) & MASK32
