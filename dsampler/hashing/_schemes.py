"""Hash schemes: :data:`SCHEMES` is the one table, a :class:`HashScheme` record each holding
every fact any layer reads. Every scheme samples iff ``key(hi, lo) < bound(rate)`` in exact
integers; rate 0's bound is 0, rate 1's above every key the scheme makes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from dsampler._validate import check_rate, show
from dsampler.errors import ConfigError
from dsampler.hashing import _reference as ref

TWO64: Final = 18446744073709551616.0  # 2.0**64, a float so that rate * TWO64 stays exact
TWO63: Final = 9223372036854775808.0
TWO56: Final = 72057594037927936.0

KeyFn = Callable[[int, int], int]
BytesFn = Callable[[bytes], int]
MASK128: Final = (1 << 128) - 1


def _floor(rate: float) -> int:
    return int(rate * TWO64)


def _round(rate: float) -> int:
    return round(rate * TWO64)


def _ceil(rate: float) -> int:
    return math.ceil(rate * TWO64)


def _go(rate: float) -> int:
    return int(rate * TWO63) + 1 if rate > 0.0 else 0


def _java(rate: float) -> int:
    # Java's (long)(rate * Long.MAX_VALUE), plus 2**63; rate 1: 2**64.
    return 1 << 64 if rate >= 1.0 else int(rate * TWO63) + (1 << 63)


def _js(rate: float) -> int:
    # JS's Math.floor(rate * 0xffffffff) on the double product; rate 1: above 2**32.
    return (1 << 32) + 1 if rate >= 1.0 else math.floor(rate * 4294967295.0)


def _consistent(rate: float) -> int:
    # 2**56 - T with OpenTelemetry Python's T = 2**56 - round(rate * 2**56): Python's
    # round is half to even, and rate * 2**56 is exact.
    return round(rate * TWO56)


class HashScheme:
    """One hash scheme: every fact about it that any part of dsampler reads.

    Args:
        reference: its pure-Python definition ``reference(hi, lo)`` over the trace ID's
            two 64-bit halves.
        bound_of: the exact integer bound of a rate in (0, 1].
        kernel: the name of its batch loop.
        jit: numba's kernels serve its batches and, unless a C entry is bound, its
            request path.
        mask: nonzero when the key is ``trace_id & mask``.
        uniform: ``(offset, bits past 56)`` when its key has at least 56 uniform bits
            above ``offset``: a sampled span can state ``th`` with an ``rv`` of its key.
        by_trace: its key is ``2**56 - 1 - R`` of the trace's randomness ``R``.
        bias: why non-random trace IDs bias it, if they do.
        bind: binds its C entry (``of_bytes``, over the 16 big-endian bytes) on first use.

    ``key`` is the request path's: the reference until the loader swaps a kernel in.
    """

    __slots__ = (
        "_bind",
        "bias",
        "bound_of",
        "by_trace",
        "compiled",
        "jit",
        "kernel",
        "key",
        "mask",
        "name",
        "of_bytes",
        "reference",
        "uniform",
    )

    def __init__(
        self,
        name: str,
        reference: KeyFn,
        bound_of: Callable[[float], int],
        kernel: str,
        *,
        jit: bool = False,
        mask: int = 0,
        uniform: tuple[int, int] | None = None,
        by_trace: bool = False,
        bias: str | None = None,
        bind: Callable[[HashScheme], None] | None = None,
    ) -> None:
        self.name = name
        self.reference: KeyFn = reference
        self.key: KeyFn = reference
        self.bound_of = bound_of
        self.kernel = kernel
        self.jit = jit
        self.mask = mask
        self.uniform = uniform
        self.by_trace = by_trace
        self.bias = bias
        self.of_bytes: BytesFn | None = None
        self.compiled = False
        self._bind = bind

    def bind(self) -> HashScheme:
        """Bind the scheme's C entry once, on first use; returns the scheme."""
        bind, self._bind = self._bind, None
        if bind is not None:
            bind(self)
        return self

    @property
    def needs_kernel(self) -> bool:
        """True if the numba kernel would make the request path faster."""
        return self.jit and self.of_bytes is None

    def bound(self, rate: float) -> int:
        """Integer bound of a validated rate: sample iff ``key < bound``."""
        return self.bound_of(rate) if rate > 0.0 else 0

    def __repr__(self) -> str:
        return f"HashScheme({self.name!r}, compiled={self.compiled}, native={self.of_bytes is not None})"


def _bind_xxhash(scheme: HashScheme) -> None:
    """The xxhash library's XXH3-64 over the 16 big-endian bytes: C, no JIT."""
    try:
        from xxhash import xxh3_64_intdigest
    except ImportError:  # the numba kernel or Python serves
        return

    def key(hi: int, lo: int) -> int:
        return xxh3_64_intdigest(((hi << 64) | lo).to_bytes(16, "big"))

    scheme.of_bytes = xxh3_64_intdigest
    scheme.key = key
    scheme.compiled = False  # C replaces a numba kernel swapped in before


# Why non-random trace IDs bias a scheme (its ``bias``), and a uniform key's part (``uniform``).
_LOW: Final = "this scheme uses the trace ID's low 64 bits unhashed, so non-random trace IDs bias it"
_LOW56: Final = (
    "this scheme uses the trace ID's low 56 bits unhashed (OpenTelemetry presumes them random), so "
    "non-random trace IDs bias it"
)
_XOR: Final = "this scheme XORs the trace ID's four 32-bit words unhashed, so non-random trace IDs bias it"
_FNV: Final = "raw FNV-1a is badly biased on low-entropy trace IDs (sequential, counter or time-prefixed)"
_U64: Final = (0, 8)  # 64 uniform bits from 0, 8 of them past 56

SCHEMES: Final[dict[str, HashScheme]] = {
    scheme.name: scheme
    for scheme in (
        HashScheme("fnv1a", ref.fnv1a64_key, _floor, "fnv1a", jit=True, uniform=_U64, bias=_FNV),
        HashScheme("fnv1a-mix", ref.fnv1a_mix_key, _floor, "fnv1a-mix", jit=True, uniform=_U64),
        HashScheme("xxh3", ref.xxh3_key, _floor, "xxh3", jit=True, uniform=_U64, bind=_bind_xxhash),
        HashScheme("otel", ref.low64_key, _round, "low64", mask=ref.MASK64, uniform=_U64, bias=_LOW),
        HashScheme("jaeger", ref.low64_key, _ceil, "low64", mask=ref.MASK64, uniform=_U64, bias=_LOW),
        HashScheme("jaeger-go", ref.jaeger_go_key, _go, "low63", mask=ref.MASK63, uniform=(0, 7), bias=_LOW),
        HashScheme("consistent", ref.consistent_key, _consistent, "low56", by_trace=True, bias=_LOW56),
        # abs(s) + 2**63: 63 uniform bits above 2**63 (and 2**63 itself at key 0)
        HashScheme("otel-java", ref.otel_java_key, _java, "java-abs", uniform=(1 << 63, 7), bias=_LOW),
        HashScheme("otel-js", ref.otel_js_key, _js, "xor32", bias=_XOR),  # 32 bits: no th to state
    )
}
DEFAULT_SCHEME: Final = "fnv1a"


def get_scheme(name: object, field: str = "hash") -> HashScheme:
    """Look a scheme up by name, or raise :class:`ConfigError` listing the known ones."""
    scheme = SCHEMES.get(name) if isinstance(name, str) else None
    if scheme is None:
        raise ConfigError(field, f"expected one of {', '.join(SCHEMES)}, got {show(name)}")
    return scheme.bind()


def rate_to_bound(rate: float) -> int:
    """Canonical bound ``floor(rate * 2**64)``: 0 never samples, ``2**64`` always does.

    Raises:
        ConfigError: ``rate`` is not a number in [0, 1].
    """
    return _floor(check_rate(rate))
