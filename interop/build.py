"""Builds the real engines and clients into a cache outside the clone, keyed by what pins them.

Each component is built from the registries by its ordinary client (``go build`` of
pinned modules, ``mvn`` with a pinned ``pom.xml``, ``npm ci`` with a lock file) into
``${XDG_CACHE_HOME:-~/.cache}/dsampler-interop/<component>-<key>``, where the key hashes
the component's pinned files and sources and the toolchain's version. A later run, a
fresh clone's included, finds the directory and builds nothing; Go's, Maven's and npm's
own caches (beside it) keep a rebuild after an edit short.

``python -m interop.build`` builds every component whose toolchain is present and prints
one line for each; the scenarios call :func:`ensure` for the ones they need.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent


class MissingError(Exception):
    """The component's toolchain is not on this machine (its scenarios are skipped)."""


class BuildFailedError(Exception):
    """The toolchain is here but the build failed (its scenarios fail)."""


@dataclass(frozen=True)
class Component:
    name: str
    source: Path  # the directory its inputs live in
    inputs: tuple[str, ...]  # glob patterns under source
    tools: tuple[str, ...]  # commands that must be on PATH
    version_of: tuple[str, ...]  # the command whose output names the toolchain
    build: Callable[[Path, Path, Path], None]  # (source, output dir, log file)


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dsampler-interop"


def _run(args: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(args)}  (in {cwd})\n")
        out.flush()
        done = subprocess.run(
            args,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            check=False,
        )
    if done.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        raise BuildFailedError(f"{' '.join(args[:3])} exited {done.returncode}:\n" + "\n".join(tail))


_GO_ENV: Final = {"GOFLAGS": "-mod=readonly -trimpath", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}


def _go_engines(source: Path, out: Path, log: Path) -> None:
    bin_dir = out / "bin"
    flags = ["-ldflags=-s -w"]
    _run(
        ["go", "build", *flags, "-o", str(bin_dir / "jaeger"), "github.com/jaegertracing/jaeger/cmd/jaeger"],
        source,
        log,
        _GO_ENV,
    )
    _run(["go", "build", *flags, "-o", str(bin_dir / "otelcol"), "./otelcol"], source, log, _GO_ENV)


def _go_clients(source: Path, out: Path, log: Path) -> None:
    _run(
        ["go", "build", "-ldflags=-s -w", "-o", str(out / "bin") + "/", "./otelgo", "./jaegergo"],
        source,
        log,
        _GO_ENV,
    )


def _copy_tree(source: Path, out: Path, names: tuple[str, ...]) -> None:
    for name in names:
        for path in source.glob(name):
            target = out / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)


def _java(source: Path, out: Path, log: Path) -> None:
    _copy_tree(source, out, JAVA.inputs)
    _run(
        [
            "mvn",
            "-B",
            "-q",
            "-ntp",
            "compile",
            "dependency:copy-dependencies",
            "-DoutputDirectory=lib",
            "-DincludeScope=runtime",
        ],
        out,
        log,
    )


def _cassandra(source: Path, out: Path, log: Path) -> None:
    _copy_tree(source, out, CASSANDRA.inputs)
    _run(["mvn", "-B", "-q", "-ntp", "dependency:copy-dependencies", "-DoutputDirectory=lib"], out, log)


def _js(source: Path, out: Path, log: Path) -> None:
    _copy_tree(source, out, JS.inputs)
    _run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], out, log)


GO_ENGINES: Final = Component(
    "go-engines",
    HERE / "go" / "engines",
    ("go.mod", "go.sum", "otelcol/*.go"),
    ("go",),
    ("go", "version"),
    _go_engines,
)
GO_CLIENTS: Final = Component(
    "go-clients",
    HERE / "go" / "clients",
    ("go.mod", "go.sum", "**/*.go"),
    ("go",),
    ("go", "version"),
    _go_clients,
)
JAVA: Final = Component(
    "java",
    HERE / "java",
    ("pom.xml", "src/main/java/**/*.java"),
    ("java", "mvn"),
    ("java", "-version"),
    _java,
)
CASSANDRA: Final = Component(
    "cassandra",
    HERE / "cassandra",
    ("pom.xml",),
    ("java", "mvn"),
    ("java", "-version"),
    _cassandra,
)
JS: Final = Component(
    "js",
    HERE / "js",
    ("package.json", "package-lock.json", "*.mjs"),
    ("node", "npm"),
    ("node", "--version"),
    _js,
)
COMPONENTS: Final = {c.name: c for c in (GO_ENGINES, GO_CLIENTS, JAVA, CASSANDRA, JS)}


def missing_tools(component: Component) -> list[str]:
    return [tool for tool in component.tools if shutil.which(tool) is None]


def key(component: Component) -> str:
    """The hash of what pins the component: its inputs and the toolchain's version."""
    digest = hashlib.sha256(component.name.encode())
    version = subprocess.run(component.version_of, capture_output=True, text=True, check=False)
    digest.update((version.stdout + version.stderr).encode())
    for pattern in component.inputs:
        for path in sorted(component.source.glob(pattern)):
            digest.update(str(path.relative_to(component.source)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def ensure(name: str) -> Path:
    """The component's build directory, built now unless the cache has it.

    Raises:
        MissingError: its toolchain is not installed.
        BuildFailedError: the build failed (its log is kept beside the cache directory).
    """
    component = COMPONENTS[name]
    lacking = missing_tools(component)
    if lacking:
        raise MissingError(f"{', '.join(lacking)} not on PATH")
    out = cache_root() / f"{name}-{key(component)}"
    if (out / ".built").is_file():
        return out
    scratch = out.with_name(out.name + ".partial")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    log = out.with_name(out.name + ".log")
    log.write_text("")
    component.build(component.source, scratch, log)
    (scratch / ".built").write_text(time.strftime("%Y-%m-%dT%H:%M:%S\n"))
    shutil.rmtree(out, ignore_errors=True)
    scratch.rename(out)
    for stale in out.parent.glob(f"{name}-*"):  # earlier keys of this component
        if stale.name not in (out.name, log.name):
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink()
    return out


def _report(name: str) -> tuple[str, bool]:
    started = time.monotonic()
    cached = False
    try:
        component = COMPONENTS[name]
        cached = (
            not missing_tools(component) and (cache_root() / f"{name}-{key(component)}" / ".built").is_file()
        )
        out = ensure(name)
    except MissingError as exc:
        return f"SKIP  build {name}: {exc}", True
    except BuildFailedError as exc:
        return f"FAIL  build {name}: {exc}", False
    took = time.monotonic() - started
    how = "cached" if cached else f"built in {took:.0f} s"
    return f"OK    build {name}: {how} ({out})", True


def main() -> int:
    """Build every component (Go first, the JVM and npm ones beside it); one line each."""
    print(f"interop: cache {cache_root()}", flush=True)
    with ThreadPoolExecutor(max_workers=3) as pool:
        go = pool.submit(lambda: [_report("go-engines"), _report("go-clients")])
        others = [pool.submit(_report, name) for name in ("java", "cassandra", "js")]
        results = [*go.result(), *(f.result() for f in others)]
    for line, _ in results:
        print(line, flush=True)
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
