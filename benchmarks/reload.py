"""A configuration reload of 2,000 and 20,000 entries, against PyYAML's own C loader
reading the same bytes, in the same run.

    python benchmarks/reload.py                       # 2,000 and 20,000 entries, 9 rounds
    python benchmarks/reload.py --entries 20000 --rounds 15 --formats yaml

Each case is one file, YAML (block style, as people write it) or JSON, of N entries:

- ``operations``: N operations (a quarter of them with a lower bound), ``max_operations: N``:
  applied;
- ``operations + rules``: 90% operations, 10% rules (span-name prefixes, names with a
  kind, attributes; sample, drop and rate-limit actions): applied;
- each again without ``max_operations`` (the default is 2,000), so a 20,000-entry file is
  refused with its one-line error (the 2,000-entry ones are then applied all the same).

The reload timed is ``DSampler.from_file(path).watcher.poll_once()`` on content it has
seen once already (a new content is applied at the second poll that sees it unchanged):
read, hash, parse, validate, line numbers for a refusal, compile and publish. Each round
writes a content whose operation names all differ from the previous round's, so nothing
is reused from the snapshot before. The peer is ``yaml.load(data, Loader=yaml.CSafeLoader)``
of the very same bytes (JSON is YAML), timed in the same round right before.

The stages are timed apart on the same bytes in the same round: ``read`` (the file's bytes),
``parse`` (bytes -> plain mapping, refusing aliases and duplicate keys), ``validate``
(mapping -> the frozen configuration, or its refusal), ``lines`` (a refusal's line
numbers) and ``compile`` (``DSampler.publish``: the owners' plan, the store, the compiled
snapshot, on a second sampler that holds the previous round's configuration, as the
watched one did); ``rest`` is what they leave of the reload's median (hashing the bytes,
the watcher's bookkeeping, its log line, and the noise between medians).

Times are CPU seconds of the calling thread (``time.thread_time``), so other processes on
a shared machine move them less than wall time would; the garbage collector runs as usual,
but each timed call starts from a collected, frozen heap (``gc.freeze``), as in a fresh
process: a call pays for collecting its own garbage, not for the heap the other cases
left (the samplers here hold 16 configurations and their histories). Rounds are interleaved
(every case once per round, the order reversed every other round), and the tables give
medians with the range over rounds, and the ratio reload / CSafeLoader as the median
(and range) of each round's own ratio.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from dsampler import DSampler
from dsampler.config._files import _read_document, read_bytes, with_lines
from dsampler.config._parse import parse_config
from dsampler.config._yaml import compose_yaml
from dsampler.errors import ConfigError

BAR = 3.0  # reload <= 3x CSafeLoader's load of the same bytes
SHAPES = ("operations", "operations + rules")


def operations(n: int, salt: int) -> dict[str, Any]:
    """``n`` operations; every fourth with a lower bound, the others a bare rate."""
    out: dict[str, Any] = {}
    for i in range(n):
        name = f"GET /v{salt}/items/{i}"
        out[name] = (
            {"rate": 0.1, "lower_bound_per_second": 0.5} if i % 4 == 0 else round(0.001 * (i % 997), 4)
        )
    return out


def rules(n: int, salt: int) -> list[dict[str, Any]]:
    """``n`` rules of three kinds in turn."""
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 3 == 0:
            out.append({"match": {"span_name": {"prefix": f"/s{salt}/{i}/"}}, "action": {"sample": 0.5}})
        elif i % 3 == 1:
            out.append({"match": {"span_name": f"op{salt}.{i}", "span_kind": "server"}, "action": "drop"})
        else:
            out.append(
                {"name": f"r{i}", "match": {"attributes": {"tenant": f"t{i}"}}, "action": {"rate_limit": 10}}
            )
    return out


def document(entries: int, shape: str, within: bool, salt: int) -> dict[str, Any]:
    n_rules = entries // 10 if shape == "operations + rules" else 0
    n_ops = entries - n_rules
    doc: dict[str, Any] = {"rate": 0.01}
    if within:
        doc["max_operations"] = n_ops
    doc["operations"] = operations(n_ops, salt)
    if n_rules:
        doc["rules"] = rules(n_rules, salt)
    return doc


def as_yaml(doc: dict[str, Any]) -> bytes:
    """Block style, as people write it: plain operation names, one rule item per entry."""
    lines = [
        f"{key}: {json.dumps(value)}" for key, value in doc.items() if key not in ("operations", "rules")
    ]
    lines.append("operations:")
    for name, strategy in doc["operations"].items():
        if isinstance(strategy, dict):
            lines.append(f"  {name}:")
            lines.extend(f"    {key}: {value}" for key, value in strategy.items())
        else:
            lines.append(f"  {name}: {strategy}")
    if "rules" in doc:
        lines.append("rules:")
        for rule in doc["rules"]:
            first = True
            for key, value in rule.items():
                lines.append(f"  {'- ' if first else '  '}{key}: {_flow(value)}")
                first = False
    return ("\n".join(lines) + "\n").encode()


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    return str(value)


def as_json(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, indent=1).encode()


class Case:
    """One file: its two contents (alternated every round), its watcher, its timings."""

    def __init__(self, directory: Path, entries: int, shape: str, within: bool, fmt: str) -> None:
        self.entries, self.shape, self.within, self.fmt = entries, shape, within, fmt
        encode = as_yaml if fmt == "yaml" else as_json
        self.contents = [encode(document(entries, shape, within, salt)) for salt in (1, 2)]
        self.path = directory / f"{entries}-{shape.replace(' + ', '-')}-{within}.{fmt}"
        self.path.write_bytes(b"rate: 0.5\n" if fmt == "yaml" else b'{"rate": 0.5}')
        self.sampler = DSampler.from_file(self.path, poll_interval_s=86400, resource={})
        self.shadow = DSampler(resource={})  # compiles what the reload compiled, from where it did
        self.times: dict[str, list[float]] = {}
        self.applied: bool | None = None
        self.refusal = ""

    @property
    def label(self) -> str:
        limit = "max_operations = entries" if self.within else "default max_operations"
        return f"{self.entries:,} {self.shape}, {limit}"

    def round(self, i: int) -> None:
        data = self.contents[i % 2]
        self.path.write_bytes(data)
        watcher = self.sampler.watcher
        assert watcher is not None
        self._time("CSafeLoader", lambda: yaml.load(data, Loader=yaml.CSafeLoader))
        assert watcher.poll_once() is False  # seen once: not applied yet
        applied = self._time("reload", watcher.poll_once)
        assert self.applied in (None, applied)
        self.applied = applied
        self._stages(data)

    def _stages(self, data: bytes) -> None:
        name = str(self.path)
        self._time("read", lambda: read_bytes(name))
        doc, composed = self._time("parse", lambda: _read_document(data, name, self.fmt == "json"))
        config = self._time("validate", lambda: _refused(lambda: parse_config(doc)))
        if isinstance(config, ConfigError):
            text = data.decode()
            located = self._time("lines", lambda: with_lines(config, composed or compose_yaml(text)))
            self.refusal = str(located)
        else:
            self._time("compile", lambda: self.shadow.publish(config))

    def _time(self, stage: str, run: Callable[[], Any]) -> Any:
        gc.collect()
        gc.freeze()  # as in a fresh process: the run collects its own garbage, not the other cases'
        start = time.thread_time()
        out = run()
        self.times.setdefault(stage, []).append(time.thread_time() - start)
        return out


def _refused(run: Callable[[], Any]) -> Any:
    """What ``run`` returns, or its refusal."""
    try:
        return run()
    except ConfigError as exc:
        return exc


def _median_range(values: list[float], scale: float = 1e3, digits: int = 0) -> str:
    low, mid, high = (
        f"{v * scale:.{digits}f}" for v in (min(values), statistics.median(values), max(values))
    )
    return f"{mid} ({low}-{high})"


def table(cases: list[Case]) -> str:
    """Both sides and their ratio, per case."""
    rows = [
        "| file | format | bytes | outcome | CSafeLoader ms | reload ms | reload / CSafeLoader |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    for case in cases:
        t = case.times
        ratios = [r / c for r, c in zip(t["reload"], t["CSafeLoader"], strict=True)]
        over = "" if statistics.median(ratios) <= BAR else " **over the bar**"
        rows.append(
            f"| {case.label} | {case.fmt} | {len(case.contents[0]):,} | "
            f"{'applied' if case.applied else 'refused'} | {_median_range(t['CSafeLoader'])} | "
            f"{_median_range(t['reload'])} | {_median_range(ratios, 1, 2)}{over} |"
        )
    return "\n".join(rows)


STAGES = ("read", "parse", "validate", "lines", "compile")


def stage_table(cases: list[Case]) -> str:
    """Each stage's median in ms and its share of the reload's median; ``rest`` is what
    the stages leave of it (the hash of the bytes, the watcher's bookkeeping, the log)."""
    rows = [
        "| file | format | " + " | ".join(STAGES) + " | rest |",
        "|---|---|" + "---:|" * (len(STAGES) + 1),
    ]
    for case in cases:
        whole = statistics.median(case.times["reload"])
        medians = {s: statistics.median(case.times[s]) for s in STAGES if s in case.times}
        cells = [
            f"{medians[s] * 1e3:.1f} ({medians[s] / whole:.0%})" if s in medians else "-" for s in STAGES
        ]
        rest = whole - sum(medians.values())
        rows.append(
            f"| {case.label} | {case.fmt} | {' | '.join(cells)} | {rest * 1e3:.1f} ({rest / whole:.0%}) |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--formats", nargs="+", choices=("yaml", "json"), default=["yaml", "json"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            Case(Path(tmp), n, shape, within, fmt)
            for n in args.entries
            for shape in SHAPES
            for within in (True, False)
            for fmt in args.formats
        ]
        for i in range(args.rounds):
            for case in cases if i % 2 == 0 else reversed(cases):
                case.round(i)
        for case in cases:
            case.sampler.close()
            case.shadow.close()
    load = os.getloadavg()[0]
    print(f"{args.rounds} rounds, CPU time of the thread; load average {load:.1f}; ", end="")
    print(f"Python {sys.version.split()[0]}, PyYAML {yaml.__version__}")
    print()
    print(table(cases))
    print()
    print(stage_table(cases))
    refusals = sorted({c.refusal.replace(str(c.path), "FILE") for c in cases if c.refusal})
    if refusals:
        print()
        print("Refusals: " + "; ".join(refusals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
