"""The rules of a snapshot, indexed: a span evaluates only the rules that can match it.

A rule is a bit (its rank: bit 0 is the first rule). For a span, the index ORs the bits
of the rules its name can match (exact names by one dict lookup, prefixes by one lookup
per distinct prefix length, rules without a name part or with a glob always), ANDs the
rules its kind allows and the rules whose first attribute key it carries (or that need
no attribute), and evaluates the full predicate of each remaining candidate, lowest bit
first, until one matches: the first match in rule order, exactly as a walk over the list
would find it, at the cost of a few lookups when nothing matches, whatever the number of
rules. Built once per rules tuple, reused by every snapshot that keeps the same rules.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Final, Generic, TypeVar

from opentelemetry.trace import SpanKind
from opentelemetry.util.types import Attributes

from dsampler.config._rule import Match
from dsampler.engine._match import Predicate

__all__ = ["RuleIndex"]

D = TypeVar("D")
_KINDS: Final = {kind.name.lower(): kind for kind in SpanKind}


class RuleIndex(Generic[D]):
    """``first(name, kind, attributes)``: the decider of the first rule that matches.

    Args:
        rules: ``(match, predicate, decider)`` in rule order (rules ruled out by the
            process's resource are left out before).
    """

    __slots__ = (
        "_always",
        "_any_attributes",
        "_by_key",
        "_exact",
        "_kinds",
        "_no_kind",
        "_prefixes",
        "rules",
    )

    def __init__(self, rules: Sequence[tuple[Match, Predicate, D]]) -> None:
        self.rules: tuple[tuple[Predicate, D], ...] = tuple((p, d) for _, p, d in rules)
        exact: dict[str, int] = defaultdict(int)
        prefixes: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        by_key: dict[str, int] = defaultdict(int)
        kinds = dict.fromkeys((*SpanKind, None), 0)
        self._always = self._any_attributes = self._no_kind = 0
        for rank, (match, _, _) in enumerate(rules):
            bit = 1 << rank
            self._index_name(match, bit, exact, prefixes)
            for kind in kinds:
                if _kind_allows(match, kind):
                    kinds[kind] |= bit
            if not match.span_kind:
                self._no_kind |= bit
            if match.attributes:
                by_key[match.attributes[0].key] |= bit
            else:
                self._any_attributes |= bit
        self._exact = dict(exact)
        self._prefixes = tuple((length, dict(values)) for length, values in sorted(prefixes.items()))
        self._by_key = dict(by_key)
        self._kinds = kinds

    def _index_name(
        self, match: Match, bit: int, exact: dict[str, int], prefixes: dict[int, dict[str, int]]
    ) -> None:
        patterns = match.span_name
        if not patterns or any(p.kind == "glob" for p in patterns):
            self._always |= bit  # its predicate decides the name
            return
        for pattern in patterns:
            if pattern.kind == "exact":
                exact[pattern.value] |= bit
            else:
                prefixes[len(pattern.value)][pattern.value] |= bit

    def candidates(self, name: str, kind: SpanKind | None, attributes: Attributes) -> int:
        """The bits of the rules ``(name, kind, attributes)`` may match."""
        mask = self._always | self._exact.get(name, 0)
        for length, values in self._prefixes:
            mask |= values.get(name[:length], 0)
        mask &= self._kinds.get(kind, self._no_kind)  # not a SpanKind: only rules without a kind
        if mask and self._by_key:
            present = self._any_attributes
            if attributes:
                by_key = self._by_key
                if len(by_key) <= len(attributes):
                    for key, bits in by_key.items():
                        if key in attributes:
                            present |= bits
                else:
                    for key in attributes:
                        present |= by_key.get(key, 0)
            mask &= present
        return mask

    def first(self, name: str, kind: SpanKind | None, attributes: Attributes) -> D | None:
        """The decider of the first rule that matches, None if none does."""
        mask = self.candidates(name, kind, attributes)
        rules = self.rules
        while mask:
            low = mask & -mask
            predicate, decider = rules[low.bit_length() - 1]
            if predicate(name, kind, attributes):
                return decider
            mask ^= low
        return None

    def __len__(self) -> int:
        return len(self.rules)


def _kind_allows(match: Match, kind: SpanKind | None) -> bool:
    """Whether a span of ``kind`` passes the rule's kind part (no kind counts as internal,
    as the predicates read it)."""
    if not match.span_kind:
        return True
    wanted = {_KINDS[k] for k in match.span_kind}
    return (kind if kind is not None else SpanKind.INTERNAL) in wanted
