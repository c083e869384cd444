"""Hash schemes: scheme name -> a 64-bit key of the trace ID and an exact integer bound.

This table is the one list of schemes: the config's ``hash:`` values, the kernels'
batch loops (by ``code``), the numpy twin and the docs all follow it. Every scheme
decides ``sample iff key(hi, lo) < bound(rate)`` in exact integers. The rate is taken
as its IEEE-754 double, and ``rate * 2**64`` is then exact (a power-of-two scaling), so
each bound below is an exact function of the double (``otel-js``'s too: the double
product JS computes, floored):

==========  ==========================  ===============================================
scheme      key                         bound
==========  ==========================  ===============================================
fnv1a       FNV-1a 64 of the 16 bytes   ``floor(rate * 2**64)`` (canonical)
fnv1a-mix   fmix64(FNV-1a 64)           ``floor(rate * 2**64)``
xxh3        XXH3-64, seed 0             ``floor(rate * 2**64)``
otel        low 64 bits                 ``round(rate * 2**64)``: OTel ``TraceIdRatioBased``
jaeger      low 64 bits                 ``ceil(rate * 2**64)``: jaeger-client-python's
                                        ``id < rate * 2**64`` compared as a float
jaeger-go   low 63 bits                 ``trunc(rate * 2**63) + 1``: jaeger-client-go's
                                        ``boundary >= id`` turned into ``<``
consistent  ``2**56 - 1 - R``, ``R``    ``round(rate * 2**56)`` (half to even), which is
            the low 56 bits             ``2**56 - T``: OpenTelemetry's consistent
                                        probability sampling, ``R >= T``
otel-java   ``abs(s) + 2**63`` (mod     ``trunc(rate * 2**63) + 2**63``: OpenTelemetry
            ``2**64``), ``s`` the low   Java's ``abs(s) < (long)(rate *
            64 bits as a signed long    Long.MAX_VALUE)``, its signed order made unsigned
otel-js     XOR of the four 32-bit      ``floor(rate * 0xffffffff)``, the product a
            words (``2**32`` for the    double: OpenTelemetry JS's ``xor < bound``
            all-zero ID)
==========  ==========================  ===============================================

``otel-java``, derived: OpenTelemetry Java's ``TraceIdRatioBased`` samples iff
``Math.abs(s) < B`` in signed 64-bit arithmetic, with ``B = (long)(rate *
Long.MAX_VALUE)``; the long as a double is ``2**63``, so the product is exact and the
cast truncates it; ``B`` is ``Long.MIN_VALUE`` at rate 0 and ``Long.MAX_VALUE`` at rate
1. Adding ``2**63`` to both sides, modulo ``2**64``, maps the signed order onto the
unsigned one: ``key = abs(s) + 2**63`` and ``bound = B + 2**63``, which is 0 at rate 0.
``Math.abs(Long.MIN_VALUE)`` is ``Long.MIN_VALUE`` itself, so the low half ``2**63`` has
key 0 and is sampled at every rate above 0, as Java samples it.

``otel-js``, derived: OpenTelemetry JS (``@opentelemetry/sdk-trace`` 2.x) XORs the four
32-bit words of the trace ID and samples iff the XOR is below ``floor(rate *
0xffffffff)``, the product a double rounded to nearest before the floor (Python's
``math.floor(rate * 4294967295.0)`` is the same arithmetic; at some rates it is one
above the exact floor, e.g. 0.6 and 1/3), and ``2**32`` at rate 1. It never
samples the all-zero trace ID (invalid), whose key here is ``2**32``. Before the fix of
opentelemetry-js#6879 (in the 2.11.0 that ``@opentelemetry/sampler-jaeger-remote``
0.222.0 uses) rate 1's bound was ``floor(0xffffffff)`` too, which leaves out the IDs
whose XOR is ``0xffffffff``.

``consistent`` is the one scheme whose decision a span can state in its tracestate
(``ot=th:T``): :mod:`dsampler.consistent` holds the threshold ``T``, the ``ot`` entry
and the explicit randomness ``rv`` that, when a parent carries it, replaces the trace
ID's bits (``key_of_randomness``).

Rate 0 never samples under every scheme (bound 0). jaeger-client-go would still sample
trace IDs whose low 63 bits are all zero at rate 0 (1 in 2**63); dsampler does not.
Rate 1 gives a bound above every key the scheme makes (``2**56`` for ``consistent``,
whose keys are below it; ``2**32 + 1`` for ``otel-js``; at least ``2**63 + 1`` for the
others), so every key passes. At ratio 1 OpenTelemetry Java still leaves out the two
low halves whose absolute value is ``2**63 - 1`` (its bound is ``Long.MAX_VALUE``), and
JS the all-zero trace ID; dsampler does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from dsampler._validate import check_rate, show
from dsampler.errors import ConfigError
from dsampler.hashing import _reference as reference

__all__ = ["DEFAULT_SCHEME", "SCHEMES", "HashScheme", "get_scheme", "rate_to_bound"]

TWO64: Final = 18446744073709551616.0  # 2.0**64, a float so that rate * TWO64 stays exact
TWO63: Final = 9223372036854775808.0
TWO56: Final = 72057594037927936.0

KeyFn = Callable[[int, int], int]
BytesFn = Callable[[bytes], int]
MASK128: Final = (1 << 128) - 1


def _floor_bound(rate: float) -> int:
    return int(rate * TWO64)


def _round_bound(rate: float) -> int:
    return round(rate * TWO64)


def _ceil_bound(rate: float) -> int:
    return math.ceil(rate * TWO64)


def _go_bound(rate: float) -> int:
    return int(rate * TWO63) + 1 if rate > 0.0 else 0


def _java_bound(rate: float) -> int:
    # Java's (long)(rate * Long.MAX_VALUE), plus 2**63 (module docstring); rate 1: 2**64.
    return 1 << 64 if rate >= 1.0 else int(rate * TWO63) + (1 << 63)


def _js_bound(rate: float) -> int:
    # JS's Math.floor(rate * 0xffffffff) on the double product; rate 1: above 2**32.
    return (1 << 32) + 1 if rate >= 1.0 else math.floor(rate * 4294967295.0)


def _consistent_bound(rate: float) -> int:
    # 2**56 - T with OpenTelemetry Python's T = 2**56 - round(rate * 2**56): Python's
    # round is half to even, and rate * 2**56 is exact.
    return round(rate * TWO56)


class HashScheme:
    """A named hash scheme.

    ``key`` is the scalar entry used on the request path: ``key(hi, lo)`` over the two
    64-bit halves. ``of_bytes``, where a scheme has it, is a C function of the 16
    big-endian trace-ID bytes (``xxh3``: xxhash's ``xxh3_64_intdigest``): a caller that
    calls it inline, on ``(trace_id & MASK128).to_bytes(16, "big")``, skips both the split
    into halves and a Python frame.

    For the schemes that hash in Python (``hashes`` and not ``native``),
    :mod:`dsampler.hashing._loader` replaces ``key`` with the compiled kernel once that is
    ready (one attribute assignment, so a concurrent reader sees the old or the new
    function, both bit-identical). ``native`` schemes already hash in C (``xxh3`` through
    the xxhash library) and never need numba on the request path. The masking schemes
    only mask the low bits, which plain Python does faster (40 ns) than a call into
    compiled code (110 ns); ``otel-java`` and ``otel-js`` are a few operations more, about
    as fast in Python as through a compiled entry (118 and 183 ns against 93 and 183 ns,
    measured on a loaded machine where the mask took 69 ns), which is not worth loading
    numba for. ``code`` selects the scheme's loop in the batch kernels and the numpy twin.
    """

    __slots__ = (
        "_bind",
        "_bound_of",
        "code",
        "compiled",
        "hashes",
        "key",
        "name",
        "native",
        "of_bytes",
        "reference",
    )

    def __init__(
        self,
        name: str,
        key: KeyFn,
        bound_of: Callable[[float], int],
        *,
        code: int,
        hashes: bool,
        bind: Callable[[HashScheme], None] | None = None,
    ) -> None:
        self.name = name
        self.reference: KeyFn = key
        self.key: KeyFn = key
        self.of_bytes: BytesFn | None = None
        self.code = code
        self.hashes = hashes
        self.native = False
        self.compiled = False
        self._bound_of = bound_of
        self._bind = bind

    def bind(self) -> HashScheme:
        """Bind the scheme's C entry once (imported on first use, not at ``import
        dsampler``); returns the scheme."""
        bind, self._bind = self._bind, None
        if bind is not None:
            bind(self)
        return self

    @property
    def needs_kernel(self) -> bool:
        """True if the numba kernel would make the request path faster."""
        return self.hashes and not self.native

    def bound(self, rate: float) -> int:
        """Integer bound of a validated rate: sample iff ``key < bound``."""
        return self._bound_of(rate) if rate > 0.0 else 0

    def __repr__(self) -> str:
        return f"HashScheme({self.name!r}, compiled={self.compiled}, native={self.native})"


def _bind_xxhash(scheme: HashScheme) -> None:
    """The xxhash library's XXH3-64 over the 16 big-endian bytes: C, no JIT, and 2x
    faster than numba's scalar entry once the split into halves is saved."""
    try:
        from xxhash import xxh3_64_intdigest
    except ImportError:  # a core dependency; without it the numba kernel or Python serves
        return

    def key(hi: int, lo: int) -> int:
        return xxh3_64_intdigest(((hi << 64) | lo).to_bytes(16, "big"))

    scheme.of_bytes = xxh3_64_intdigest
    scheme.key = key
    scheme.native = True
    scheme.compiled = False  # a numba kernel swapped in before is replaced: C serves


#: Kernel codes (the loops of ``_kernels.batch_keys`` and ``_numpy_twin.keys``).
FNV1A, FNV1A_MIX, XXH3, LOW64, LOW63, LOW56, JAVA_ABS, XOR32 = range(8)

SCHEMES: Final[dict[str, HashScheme]] = {
    scheme.name: scheme
    for scheme in (
        HashScheme("fnv1a", reference.fnv1a64_key, _floor_bound, code=FNV1A, hashes=True),
        HashScheme("fnv1a-mix", reference.fnv1a_mix_key, _floor_bound, code=FNV1A_MIX, hashes=True),
        HashScheme("xxh3", reference.xxh3_key, _floor_bound, code=XXH3, hashes=True, bind=_bind_xxhash),
        HashScheme("otel", reference.low64_key, _round_bound, code=LOW64, hashes=False),
        HashScheme("jaeger", reference.low64_key, _ceil_bound, code=LOW64, hashes=False),
        HashScheme("jaeger-go", reference.jaeger_go_key, _go_bound, code=LOW63, hashes=False),
        HashScheme("consistent", reference.consistent_key, _consistent_bound, code=LOW56, hashes=False),
        HashScheme("otel-java", reference.otel_java_key, _java_bound, code=JAVA_ABS, hashes=False),
        HashScheme("otel-js", reference.otel_js_key, _js_bound, code=XOR32, hashes=False),
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
    return _floor_bound(check_rate(rate))
