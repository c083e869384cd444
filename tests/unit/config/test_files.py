"""The configuration file reader refuses bad input on purpose, each time with a
ConfigError that says what is wrong."""

from __future__ import annotations

import json
import os
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import dsampler
from dsampler import ConfigError
from dsampler._validate import LongInteger
from dsampler.config import _files
from dsampler.config._files import (
    MAX_FILE_BYTES,
    load_document,
    parse_config_bytes,
    parse_document,
    read_bytes,
)
from dsampler.config._parse import parse_config
from dsampler.config._rule import Pattern
from dsampler.hashing._schemes import SCHEMES

#: A valid configuration using every part of the format, with a two-byte character.
VALID_YAML = """\
# sampling for the checkout service (café)
rate: 0.05
hash: fnv1a-mix
parent_based: true
record_version: false
max_operations: 100
traces_per_second: 200
default_lower_bound_per_second: 0.5
operations:
  "GET /checkout": 0.5
  "POST /payments": {rate: 0.2, lower_bound_per_second: 1}
rules:
  - name: health checks
    match:
      span_name: ["GET /healthz", {prefix: "GET /health/"}, {glob: "GET /*/ready"}]
      span_kind: [server, client]
    action: drop
  - match: {attributes: {tenant: [acme, {glob: "beta-*"}], http.status_code: 500, retry: true}}
    action: {sample: 1.0}
  - match: {resource: {cloud.region: eu-west-1}}
    action: {rate_limit: 20}
  - match: {span_name: {exact: "café"}}
    action:
      rollout:
        start: 2026-12-01T09:00:00Z
        steps:
          - {after: 0s, rate: 0.01}
          - {after: 1h30m, rate: 0.1}
  - match: {}
    action:
      rollout:
        steps:
          - {at: "2026-12-01T09:00:00+01:00", rate: 0.5}
          - {at: 2026-12-02T09:00:00Z, rate: 1.0}
""".encode()


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_valid_document_loads() -> None:
    """The reference document is valid, so the refusals below are about what they change."""
    config = parse_config(parse_document(VALID_YAML))
    assert len(config.rules) == 5
    assert config.operations["POST /payments"].lower_bound_per_second == 1.0


# -- line numbers ------------------------------------------------------------------------


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[object]:
    """Record each call of ``_files.<name>`` (the real function still runs)."""
    calls: list[object] = []
    real = getattr(_files, name)

    def spied(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(_files, name, spied)
    return calls


@pytest.mark.parametrize(
    ("name", "data", "lines", "composed"),
    [
        ("ok.yaml", VALID_YAML, 0, 0),
        ("ok.json", json.dumps(parse_document(VALID_YAML), default=str).encode(), 0, 0),
        ("bad.yaml", b"rate: 0.1\nhash: md5\n", 1, 0),  # the reader's own composed document
        ("bad.json", b'{"rate": 0.1,\n "hash": "md5"}', 1, 1),  # composed once, for the lines
    ],
)
def test_lines_are_found_on_the_error_path_only_and_once(
    monkeypatch: pytest.MonkeyPatch, name: str, data: bytes, lines: int, composed: int
) -> None:
    """A valid file costs no line lookup; a refused one one lookup, in the document the
    YAML reader composed (JSON is composed for it once)."""
    looked_up, composes = _spy(monkeypatch, "with_lines"), _spy(monkeypatch, "compose_yaml")
    refused = None
    try:
        _files.parse_config_bytes(data, name)
    except ConfigError as exc:
        refused = str(exc)
    assert refused == (None if name.startswith("ok") else f"hash: {HASH_PROBLEM} (line 2)")
    assert (len(looked_up), len(composes)) == (lines, composed)


HASH_PROBLEM = f"expected one of {', '.join(SCHEMES)}, got 'md5'"  # every scheme, in the table's order


@pytest.mark.parametrize(("suffix", "line"), [(".yaml", 2), (".json", 3)])
def test_twenty_thousand_operations_over_max_operations_are_refused_in_one_line(
    suffix: str, line: int
) -> None:
    """A file of 20,000 operations and the default max_operations (2,000) is refused with
    its one problem and the line of its section."""
    operations = {f"GET /items/{i}": 0.5 for i in range(20_000)}
    if suffix == ".yaml":
        data = ("rate: 0.1\noperations:\n" + "".join(f"  {k}: {v}\n" for k, v in operations.items())).encode()
    else:
        data = json.dumps({"rate": 0.1, "operations": operations}, indent=1).encode()
    with pytest.raises(ConfigError) as info:
        _files.parse_config_bytes(data, "big" + suffix)
    assert (
        str(info.value)
        == f"operations: expected at most max_operations (2000) entries, got 20000 (line {line})"
    )


# -- size --------------------------------------------------------------------------------


def test_huge_file_is_refused_by_size_without_reading_it(tmp_path: Path) -> None:
    """A 100 MB file is refused by its size, quickly, reading no more than the limit."""
    path = tmp_path / "huge.yaml"
    path.touch()
    os.truncate(path, 100 * 2**20)  # sparse: nothing is written
    for read in (read_bytes, load_document, dsampler.load_config):
        tracemalloc.start()
        started = time.perf_counter()
        try:
            with pytest.raises(ConfigError, match=f"larger than {MAX_FILE_BYTES} bytes") as info:
                read(path)
            elapsed = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert info.value.field == str(path)
        assert elapsed < 1.0
        assert peak < 4 * MAX_FILE_BYTES  # reading it all would take 100 MB


def test_file_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    """The limit is exact: MAX_FILE_BYTES + 1 bytes is refused, as bytes or as a file."""
    data = b"#" * (MAX_FILE_BYTES + 1)
    with pytest.raises(ConfigError, match=f"larger than {MAX_FILE_BYTES} bytes"):
        parse_document(data)
    with pytest.raises(ConfigError, match=f"larger than {MAX_FILE_BYTES} bytes"):
        load_document(_write(tmp_path, "big.yaml", data))


# -- expansion and nesting ---------------------------------------------------------------


def test_billion_laughs_is_refused_quickly(tmp_path: Path) -> None:
    """Anchors and aliases nested nine levels deep are refused before anything expands."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    path = _write(tmp_path, "laughs.yaml", "\n".join(lines).encode())
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="anchors and aliases are not allowed"):
        dsampler.load_config(path)
    assert time.perf_counter() - started < 1.0


def test_single_alias_is_refused() -> None:
    """Even one harmless-looking alias is refused, with its line."""
    with pytest.raises(ConfigError, match=r"anchors and aliases are not allowed \(line 2\)"):
        parse_document(b"rate: &r 0.5\nx: *r\n")


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("deep.json", b"[" * 100_000),
        ("deep.yaml", b"[" * 100_000),
        ("deep-map.yaml", b"a: " + b"{a: " * 100_000),
        ("deep-block.yaml", b"".join(b"  " * i + b"a:\n" for i in range(700))),
        ("deep-closed.json", b'{"rules": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"),
    ],
)
def test_deeply_nested_document_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    """Deep nesting gives a ConfigError about nesting; no RecursionError escapes."""
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="nested") as info:
        load_document(_write(tmp_path, name, data))
    assert time.perf_counter() - started < 3.0
    assert info.value.field == str(tmp_path / name)


def _nested(levels: int) -> bytes:
    """A configuration whose innermost list is ``levels`` deep (the top mapping is 0)."""
    value: list[object] = []
    for _ in range(levels - 1):
        value = [value]
    return json.dumps({"rules": value}).encode()


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_nesting_past_32_levels_is_refused(tmp_path: Path, suffix: str) -> None:
    """At 33 levels, well within the parsers' recursion, a document is refused by its depth."""
    with pytest.raises(ConfigError, match="nested deeper than 32 levels"):
        load_document(_write(tmp_path, "deep" + suffix, _nested(33)))


@pytest.mark.parametrize("json_only", [False, True], ids=["yaml", "json"])
def test_nesting_of_32_levels_is_read(json_only: bool) -> None:
    """The depth limit is inclusive: 32 levels are read (the parser then judges the content)."""
    assert parse_document(_nested(32), json_only=json_only)["rules"]


# -- duplicates and YAML 1.2 booleans ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "key"),
    [
        ("top.yaml", b"rate: 0.1\nhash: otel\nrate: 0.2\n", "rate"),
        ("nested.yaml", b"operations:\n  GET /a: 0.1\n  GET /a: 0.9\n", "GET /a"),
        ("flow.yaml", b"rules: [{action: drop, action: {sample: 1}}]\n", "action"),
        ("top.json", b'{"rate": 0.1, "rate": 0.2}', "rate"),
        ("nested.json", b'{"operations": {"GET /a": 0.1, "GET /a": 0.9}}', "GET /a"),
    ],
)
def test_duplicate_key_is_refused(tmp_path: Path, name: str, data: bytes, key: str) -> None:
    """A key given twice, at any level, in YAML or JSON, is an error naming the key."""
    with pytest.raises(ConfigError, match=f"key '{key}' appears twice"):
        dsampler.load_config(_write(tmp_path, name, data))


@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "No", "YES", "On", "OFF", "y", "n"])
def test_yaml_11_booleans_stay_strings(tmp_path: Path, word: str) -> None:
    """`country: no` matches the string "no" (Norway): only true and false are booleans."""
    text = f"rules:\n  - match: {{attributes: {{country: {word}}}}}\n    action: drop\n"
    config = dsampler.load_config(_write(tmp_path, "country.yaml", text.encode()))
    assert config.rules[0].match.attributes[0].values == (Pattern("exact", word),)


@pytest.mark.parametrize(
    ("word", "value"), [("true", True), ("false", False), ("True", True), ("FALSE", False)]
)
def test_true_and_false_are_booleans(word: str, value: bool) -> None:
    """true and false (in any of YAML's three spellings) are booleans."""
    document = parse_document(
        f"parent_based: {word}\nrules: [{{match: {{attributes: {{a: {word}}}}}, action: drop}}]".encode()
    )
    config = parse_config(document)
    assert config.parent_based is value
    assert config.rules[0].match.attributes[0].values == (value,)


@pytest.mark.parametrize("word", ["yes", "no", "on", "off"])
def test_yaml_11_boolean_for_a_boolean_field_is_refused(word: str) -> None:
    """`parent_based: yes` is the string "yes", refused by the field's own check."""
    with pytest.raises(ConfigError, match=f"parent_based: expected true or false, got str '{word}'"):
        parse_config(parse_document(f"parent_based: {word}\n".encode()))


# -- encoding, emptiness, truncation, shape ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("latin1.yaml", "rate: 0.1\nrules: [{match: {span_name: café}, action: drop}]\n".encode("latin-1")),
        ("utf16.yaml", "rate: 0.1\n".encode("utf-16")),
        ("invalid.json", b'{"rate": 0.1, "hash": "\xff"}'),
        ("surrogate.yaml", b"rate: 0.1 # \xed\xa0\x80\n"),
    ],
)
def test_not_utf8_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    """Bytes that are not UTF-8 are refused with the offset of the first bad byte."""
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte \d+\)"):
        dsampler.load_config(_write(tmp_path, name, data))


def test_utf8_byte_order_mark_is_accepted() -> None:
    """A UTF-8 byte order mark, as some editors write, is not an error."""
    assert parse_config(parse_document(b"\xef\xbb\xbfrate: 0.25\n")).rate == 0.25


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("empty.yaml", b""),
        ("empty.json", b""),
        ("blank.yaml", b"  \n\t\n\r\n   "),
        ("bom-only.yaml", b"\xef\xbb\xbf"),
        ("blank.json", b"\n\n"),
    ],
)
def test_empty_file_is_refused(tmp_path: Path, name: str, data: bytes) -> None:
    """An empty or whitespace-only file says the file is empty."""
    with pytest.raises(ConfigError, match="the file is empty"):
        dsampler.load_config(_write(tmp_path, name, data))


def test_comment_only_file_is_not_a_mapping(tmp_path: Path) -> None:
    """A file with only comments is a null document, refused as not a mapping."""
    with pytest.raises(ConfigError, match="expected a mapping at the top level, got NoneType None"):
        dsampler.load_config(_write(tmp_path, "comments.yaml", b"# rate: 0.1\n# nothing else\n"))


OFFSETS = sorted({len(VALID_YAML) * i // 50 for i in range(50)} | {len(VALID_YAML) - 1})


@pytest.mark.parametrize("offset", OFFSETS)
def test_truncated_document_is_a_config_or_a_config_error(offset: int) -> None:
    """A document cut at any byte gives a valid config or a ConfigError, nothing else."""
    try:
        result: dsampler.SamplingConfig | ConfigError = parse_config(parse_document(VALID_YAML[:offset]))
    except ConfigError as exc:
        result = exc
    if isinstance(result, ConfigError):
        assert result.field
        assert result.problem
    else:
        assert isinstance(result, dsampler.SamplingConfig)


def test_document_truncated_mid_character_is_not_utf8() -> None:
    """A cut inside a two-byte character is reported as not UTF-8, at that byte."""
    cut = VALID_YAML.index("é".encode()) + 1
    with pytest.raises(ConfigError, match=f"not UTF-8 text \\(byte {cut - 1}\\)"):
        parse_document(VALID_YAML[:cut])


def test_document_truncated_mid_flow_is_invalid_yaml(tmp_path: Path) -> None:
    """A cut inside a flow collection is invalid YAML, with the line and column."""
    data = VALID_YAML[: VALID_YAML.index(b"{prefix")]
    with pytest.raises(ConfigError, match=r"invalid YAML at line \d+ column \d+"):
        dsampler.load_config(_write(tmp_path, "cut.yaml", data))


@pytest.mark.parametrize(
    ("name", "data", "got"),
    [
        ("list.yaml", b"- rate: 0.1\n", "list of 1"),
        ("scalar.yaml", b"0.5\n", "float 0.5"),
        ("string.yaml", b"rate\n", "str 'rate'"),
        ("list.json", b"[1, 2]", "list of 2"),
        ("null.json", b"null", "NoneType None"),
        ("string.json", b'"rate: 0.1"', "str 'rate: 0.1'"),
    ],
)
def test_top_level_not_a_mapping_is_refused(tmp_path: Path, name: str, data: bytes, got: str) -> None:
    """A top-level list or scalar is refused, saying what was found."""
    with pytest.raises(ConfigError, match=f"expected a mapping at the top level, got {got}"):
        dsampler.load_config(_write(tmp_path, name, data))


def test_yaml_in_a_json_file_is_invalid_json(tmp_path: Path) -> None:
    """A .json file is read as JSON only: YAML in it is invalid JSON, with line and column."""
    with pytest.raises(ConfigError, match="invalid JSON at line 1 column 1"):
        dsampler.load_config(_write(tmp_path, "config.json", b"rate: 0.1\n"))


# -- the file itself ---------------------------------------------------------------------


def test_missing_file_is_refused(tmp_path: Path) -> None:
    """A path that does not exist says the file cannot be read, and why."""
    path = tmp_path / "nowhere.yaml"
    for read in (read_bytes, load_document, dsampler.load_config):
        with pytest.raises(ConfigError, match="cannot read the file: No such file or directory") as info:
            read(path)
        assert info.value.field == str(path)


def test_directory_is_refused(tmp_path: Path) -> None:
    """A directory instead of a file is refused as not a regular file."""
    with pytest.raises(ConfigError, match="not a regular file"):
        dsampler.load_config(tmp_path)


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    """A file without read permission says the file cannot be read, and why."""
    path = _write(tmp_path, "secret.yaml", b"rate: 0.1\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read any file (root)")
        with pytest.raises(ConfigError, match="cannot read the file: Permission denied"):
            dsampler.load_config(path)
    finally:
        path.chmod(0o600)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    """A named pipe instead of a file is refused at once rather than waited on."""
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    outcome: list[BaseException | None] = []

    def load() -> None:
        try:
            dsampler.load_config(path)
        except BaseException as exc:  # reported to the test thread below
            outcome.append(exc)
        else:
            outcome.append(None)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(timeout=1.0)
    try:
        assert not reader.is_alive(), "load_config is still blocked opening the pipe"
        assert isinstance(outcome[0], ConfigError)
    finally:
        if reader.is_alive():  # release it: a writer that closes at once gives end of file
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            reader.join(timeout=5.0)


# -- YAML tags ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        '!!python/object/apply:os.system ["touch {marker}"]\n',
        'rate: !!python/object/apply:os.system ["touch {marker}"]\n',
        'rules: [{{action: drop, name: !!python/object/apply:os.system ["touch {marker}"]}}]\n',
        "rate: !!python/name:os.system\n",
        'rate: !!python/object/new:subprocess.Popen [["touch", "{marker}"]]\n',
    ],
)
def test_object_construction_is_refused_and_nothing_runs(tmp_path: Path, template: str) -> None:
    """Python object tags are refused as invalid YAML and no command runs."""
    marker = tmp_path / "ran"
    path = _write(tmp_path, "evil.yaml", template.format(marker=marker).encode())
    with pytest.raises(ConfigError, match=r"invalid YAML.*could not determine a constructor"):
        dsampler.load_config(path)
    assert not marker.exists()


# -- foreign exceptions that escape the reader (bugs) ------------------------------------


@pytest.mark.parametrize("char", ["\x00", "\x0c", "\x1b", "\x7f", "\ufffe"])
def test_control_character_in_yaml_is_a_config_error(tmp_path: Path, char: str) -> None:
    """A YAML file with a control character gives a ConfigError, not PyYAML's ReaderError."""
    path = _write(tmp_path, "control.yaml", f"rate: 0.1{char}\n".encode())
    with pytest.raises(ConfigError, match="invalid YAML"):
        dsampler.load_config(path)


@pytest.mark.parametrize("scalar", ["2026-13-45", "2026-02-30", "2026-12-01T09:00:00+99:00"])
def test_unconstructible_yaml_scalar_is_a_config_error(scalar: str) -> None:
    """A scalar that looks like a date but is none gives a ConfigError."""
    with pytest.raises(ConfigError, match="invalid YAML"):
        parse_document(f"rules: [{{match: {{attributes: {{a: {scalar}}}}}, action: drop}}]\n".encode())


@pytest.mark.parametrize(
    ("scalar", "problem"),
    [
        ("!!bool maybe", "expected true or false for !!bool, got 'maybe'"),
        ('!!float ""', "expected a number for !!float, got ''"),
        ("!!float", "expected a number for !!float, got ''"),
        ("!!timestamp soon", "expected a date or time for !!timestamp, got 'soon'"),
    ],
)
def test_explicitly_tagged_scalar_its_constructor_cannot_read_is_invalid_yaml(
    scalar: str, problem: str
) -> None:
    """``!!bool maybe``, ``!!float ""`` and ``!!timestamp soon`` are refused as invalid
    YAML at their place; PyYAML's constructors raised KeyError, IndexError and
    AttributeError, which escaped the reader (and a watcher parsed such a file again at
    every poll)."""
    with pytest.raises(ConfigError) as info:
        parse_document(f"rate: {scalar}\n".encode(), "f.yaml")
    assert info.value.problem == f"invalid YAML at line 1 column 7: {problem}"


@pytest.mark.parametrize("scalar", ["0x_", "0b_", "-0x_", "0b101"])
def test_yaml_1_1_number_forms_are_strings(scalar: str) -> None:
    """Forms that only YAML 1.1 reads as numbers (PyYAML crashed on some) stay strings."""
    assert parse_document(f"a: {scalar}\n".encode()) == {"a": scalar}


@pytest.mark.parametrize("json_only", [False, True], ids=["yaml", "json"])
def test_huge_integer_literal_is_a_config_error(json_only: bool) -> None:
    """A 5,000-digit integer literal is read as what it is, in JSON and in YAML, and its
    field refuses it by name."""
    text = b'{"rate": ' + b"1" * 5000 + b"}"
    assert parse_document(text, json_only=json_only) == {"rate": LongInteger(5000)}
    with pytest.raises(
        ConfigError, match=r"^rate: expected a number in \[0, 1\], got an integer of 5000 digits"
    ):
        parse_config_bytes(text, "sampling.json" if json_only else "sampling.yaml")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rate: 1e-3", {"rate": 0.001}),
        ("max_operations: 010", {"max_operations": 10}),
        ("value: 12:30", {"value": "12:30"}),
        ("value: 0x1F", {"value": 31}),
        ("value: 0o17", {"value": 15}),
        ("value: +3", {"value": 3}),
        ("value: -.5", {"value": -0.5}),
        ("value: 1_000", {"value": "1_000"}),
        ("value: yes", {"value": "yes"}),
    ],
)
def test_yaml_numbers_follow_yaml_1_2(text: str, expected: dict[str, Any]) -> None:
    """``1e-3`` is a number (YAML 1.1 wanted a dot), ``010`` is ten, ``12:30`` a string."""
    assert dict(parse_document(text.encode(), "f.yaml")) == expected
