"""The rules of a snapshot, indexed with one bit per rule (bit 0 the first): a span
evaluates only the rules its name, kind and attributes (a rule's first key) can match,
lowest bit first, so the first match is in rule order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final, Generic, TypeVar

from opentelemetry.trace import SpanKind
from opentelemetry.util.types import Attributes

from dsampler._validate import MAX_TEXT
from dsampler.config import AttributeMatch, Match, Pattern
from dsampler.decision import Predicate

D = TypeVar("D")
_KINDS: Final = {kind.name.lower(): kind for kind in SpanKind}
MAX_NAMES: Final = 4096  # span names whose name bits are kept (each at most MAX_TEXT long)
FEW_KEYS: Final = 8  # up to this many attribute keys in the rules, each is looked up in a span's
#: key -> (bits of the rules any value of it may satisfy, value -> bits (or, typed,
#: value -> type -> bits), typed)
Keyed = dict[str, tuple[int, dict[Hashable, Any], bool]]


class RuleIndex(Generic[D]):
    """``first(name, kind, attributes)``: the decider of the first rule that matches.

    Args:
        rules: ``(match, predicate, decider)`` in rule order (rules ruled out by the
            process's resource are left out before).
    """

    __slots__ = (
        "_always",
        "_exact",
        "_few_keys",
        "_free",
        "_keyed",
        "_keyed_rules",
        "_keys",
        "_kinds",
        "_names",
        "_no_kind",
        "_prefixes",
        "rules",
        "size",
    )

    def __init__(self, rules: Sequence[tuple[Match, Predicate, D]]) -> None:
        self.rules: tuple[tuple[Predicate, D], ...] = tuple((p, d) for _, p, d in rules)
        self.size = len(self.rules)
        exact: dict[str, int] = defaultdict(int)
        prefixes: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._kinds = {id(kind): 0 for kind in (*SpanKind, None)}  # by id: an Enum member hashes in Python
        self._always = self._free = self._no_kind = self._keyed_rules = 0
        self._keyed: Keyed = {}
        for rank, (match, _, _) in enumerate(rules):
            bit = 1 << rank
            self._index_name(match, bit, exact, prefixes)
            self._index_kind(match, bit)
            if match.attributes:
                self._index_attribute(match.attributes[0], bit)
                self._keyed_rules |= bit
            else:
                self._free |= bit  # needs no attribute
        self._exact = dict(exact)
        self._prefixes = tuple((length, dict(values)) for length, values in sorted(prefixes.items()))
        self._names: dict[str, int] = {}  # span name -> the bits its name can match
        self._keys = tuple((key, *entry) for key, entry in self._keyed.items())
        self._few_keys = len(self._keys) <= FEW_KEYS

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

    def _index_kind(self, match: Match, bit: int) -> None:
        """The kinds whose spans pass the rule's kind part (no kind counts as internal; a
        value that is no SpanKind passes only rules without one)."""
        wanted = {_KINDS[k] for k in match.span_kind}
        for kind in (*SpanKind, None):
            if not wanted or (kind if kind is not None else SpanKind.INTERNAL) in wanted:
                self._kinds[id(kind)] |= bit
        if not wanted:
            self._no_kind |= bit

    def _index_attribute(self, first: AttributeMatch, bit: int) -> None:
        """Under the rule's first attribute key: by value (and type, once a key has a value
        that is not a string) when it accepts exact values only, else as a rule any
        value of the key may satisfy."""
        loose, values, typed = self._keyed.get(first.key, (0, {}, False))
        if first.text or any(isinstance(v, Pattern) and v.kind != "exact" for v in first.values):
            self._keyed[first.key] = (loose | bit, values, typed)
            return
        scalars = [v for v in first.values if not isinstance(v, Pattern)]
        if scalars and not typed:  # from now on by value and type: True is not 1
            values, typed = {value: {str: bits} for value, bits in values.items()}, True
        for v in first.values:
            value = v.value if isinstance(v, Pattern) else v
            if typed:
                by_type = values.setdefault(value, {})
                kind = str if isinstance(v, Pattern) else type(v)
                by_type[kind] = by_type.get(kind, 0) | bit
            else:
                values[value] = values.get(value, 0) | bit
        self._keyed[first.key] = (loose, values, typed)

    def first(self, name: str, kind: SpanKind | None, attributes: Attributes) -> D | None:
        """The decider of the first rule that matches, None if none does (written out:
        a call costs as much as a dozen lookups)."""
        mask = self._names.get(name)
        if mask is None:
            mask = self._name_mask(name)
        mask &= self._kinds.get(id(kind), self._no_kind)
        rules = self.rules
        low = mask & -mask
        if low and not low & self._keyed_rules:  # the first candidate needs no attribute: try it now
            predicate, decider = rules[low.bit_length() - 1]
            if predicate(name, kind, attributes):
                return decider
            mask ^= low
        if mask & self._keyed_rules:  # a candidate needs an attribute: which can the span give?
            present = self._free
            if attributes and self._few_keys:  # each rule key looked up in the span's attributes
                for key, loose, values, typed in self._keys:
                    if key in attributes:
                        value = attributes[key]
                        present |= loose
                        if typed:
                            present |= _typed(values, value)
                        elif isinstance(value, str):
                            present |= values.get(value, 0)
            elif attributes:
                present |= self._present(attributes)
            mask &= present
        while mask:
            low = mask & -mask
            predicate, decider = rules[low.bit_length() - 1]
            if predicate(name, kind, attributes):
                return decider
            mask ^= low
        return None

    def _present(self, attributes: Mapping[str, Any]) -> int:
        """The keyed rules the span's attributes can satisfy, by the span's keys."""
        present = 0
        keyed = self._keyed
        for key, value in attributes.items():
            entry = keyed.get(key)
            if entry is not None:
                loose, values, typed = entry
                present |= loose | (_typed(values, value) if typed else _text(values, value))
        return present

    def _name_mask(self, name: str) -> int:
        """The rules ``name`` can match, kept for the next span of that name (up to
        :data:`MAX_NAMES` names)."""
        mask = self._always | self._exact.get(name, 0)
        for length, values in self._prefixes:
            mask |= values.get(name[:length], 0)
        if len(self._names) < MAX_NAMES and type(name) is str and len(name) <= MAX_TEXT:
            self._names[name] = mask
        return mask

    def __len__(self) -> int:
        return self.size


def _text(values: Mapping[Hashable, Any], value: object) -> int:
    """The rules that accept exactly the string ``value`` (their values are all strings)."""
    return values.get(value, 0) if isinstance(value, str) else 0


def _typed(values: Mapping[Hashable, Any], value: object) -> int:
    """The rules that accept exactly ``value``, of the very same type (``True`` is not ``1``)."""
    try:
        by_type = values.get(value)
    except TypeError:  # unhashable (a sequence attribute): no exact value matches it
        return 0
    if by_type is None:
        return 0
    return by_type.get(str if isinstance(value, str) else type(value), 0)  # type: ignore[no-any-return]
