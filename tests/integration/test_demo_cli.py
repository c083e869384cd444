"""``dsampler demo`` through the real entry point, in subprocesses whose stdout is a pipe:
a 5 s run to the end with its PNG, runs interrupted by SIGINT (Ctrl-C) or SIGTERM with
and without matplotlib, and bad options. What is checked is what the run printed and
left behind, never how fast it was.
"""

from __future__ import annotations

import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dsampler.cli._main import main
from dsampler.cli._plotting import MISSING
from dsampler.cli.demo._table import HEADER
from tests.conftest import REPO

pytestmark = pytest.mark.slow

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Runs the command with some modules made unimportable (as without the extra), then
# names the threads still alive once they had 5 s to end: the demo must stop all of its
# own (a server thread may still be closing a connection the client just closed). The
# numba loader's daemon thread is dsampler's background compiler, not the demo's.
WRAPPER = """import sys, threading, time
for name in filter(None, sys.argv[1].split(",")):
    sys.modules[name] = None
from dsampler.cli import main
code = main(sys.argv[2:])
def alive():
    others = (t for t in threading.enumerate() if t is not threading.main_thread())
    return sorted(t.name for t in others if t.name != "dsampler-jit")
deadline = time.monotonic() + 5.0
while alive() and time.monotonic() < deadline:
    time.sleep(0.05)
print("threads left: " + ",".join(alive()), file=sys.stderr)
sys.exit(code)
"""
ROW = re.compile(r"^\s*(\d+)/(\d+)s\s+\S.*?\s(checkout|search)\s+[\d,]+\s+[\d,]+\s+[\d.e-]+\s+\S+\s+\d+$")


def command(*args: str, hide: str = "") -> list[str]:
    return [sys.executable, "-c", WRAPPER, hide, "demo", *args]


def relay(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line)


def assert_stopped(stdout: str, stderr: str) -> None:
    """No thread of the demo is alive, its port is closed, its folder is gone."""
    assert "threads left: \n" in stderr, stderr
    url = re.search(r"http://127\.0\.0\.1:(\d+)", stdout)
    assert url is not None, stdout
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", int(url[1])))
    folder = re.search(r"(/\S+/dsampler-demo-\w+)/strategies\.json", stdout)
    assert folder is not None, stdout
    assert not Path(folder[1]).exists()


def test_a_short_run_prints_its_table_and_summary_writes_the_png_and_stops_everything(
    tmp_path: Path,
) -> None:
    """Five seconds: exit 0, the header once, both services every second, the summary with
    measured figures, a real PNG; nothing left running."""
    png = tmp_path / "out.png"
    proc = subprocess.run(
        command("--duration", "5", "--plot", str(png)),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines.count(HEADER) == 1
    rows = [m.groups() for m in map(ROW.match, lines) if m]
    assert sorted(rows) == sorted((str(s), "5", name) for s in range(1, 6) for name in ("checkout", "search"))
    assert "\x1b[" not in proc.stdout  # not a terminal: appended lines, no redrawing
    summary = " ".join(proc.stdout.split("\n\n", 1)[1].split())  # unwrapped
    assert "two services in this process started" in summary
    assert "search held its budget of 50 traces/s" in summary
    assert re.search(
        r"checkout 0\.1 -> 0\.5\); checkout decided under the new rate \d\.\d\d s later", summary
    )
    assert f"Timeline: {png}" in proc.stdout
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert_stopped(proc.stdout, proc.stderr)
    assert_metrics_agree(proc.stdout)


def metric(stdout: str, label: str) -> list[str]:
    """The (checkout, search) cells of the metrics block's row ``label``."""
    (line,) = [ln for ln in stdout.splitlines() if ln.strip().startswith(label)]
    return line.strip()[len(label) :].split()


def assert_metrics_agree(stdout: str) -> None:
    """The metrics block, read through the OpenTelemetry metrics API: each service's
    sampled decisions are exactly the spans its provider recorded (counted apart), the
    remote service's fetches applied its first strategy and the hot update, and only
    the adaptive service has a controller window."""
    assert "Metrics, as a MeterProvider's reader collected them at the end:" in stdout
    sampled = metric(stdout, "dsampler.decisions, sampled")
    assert sampled == metric(stdout, "spans the provider recorded")
    assert all(int(n.replace(",", "")) > 0 for n in sampled), sampled
    applied, _, failed = (
        int(n) for n in metric(stdout, "dsampler.remote.fetches (applied/unchanged/failed)")[0].split("/")
    )
    assert applied >= 2, stdout  # the first strategy and the rewritten file
    assert failed == 0, stdout
    assert metric(stdout, "dsampler.remote.fetches (applied/unchanged/failed)")[1] == "-"
    window = metric(stdout, "dsampler.controller.window")
    assert window[0] == "-", window
    assert 3 <= float(window[1]) <= 30, window
    assert metric(stdout, "dsampler.config.version")[0] == "3", stdout  # 1, the first fetch, the update
    assert metric(stdout, "dsampler.faults") == ["0", "0"]


def interrupted(png: Path, signum: signal.Signals, hide: str = "") -> tuple[int, str, str]:
    """A 60 s run sent ``signum`` once its first row is out: (exit status, stdout, stderr)."""
    proc = subprocess.Popen(
        command("--duration", "60", "--plot", str(png), hide=hide),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=relay, args=(proc, lines), daemon=True)
    reader.start()
    seen = []
    try:
        while not ROW.match(line := lines.get(timeout=60).rstrip("\n")):
            seen.append(line)
        seen.append(line)
        proc.send_signal(signum)
        proc.wait(timeout=60)
    finally:
        proc.kill()
    reader.join(10)
    assert proc.stderr is not None
    return proc.returncode, "\n".join(seen) + "\n" + "".join(list(lines.queue)), proc.stderr.read()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_without_matplotlib_an_interrupted_run_ends_with_the_summary_and_no_png(
    signum: signal.Signals, tmp_path: Path
) -> None:
    """matplotlib hidden: said at once, the demo runs anyway; a SIGINT (Ctrl-C) or SIGTERM
    after the first row ends it early with exit 0, the summary and the reason there is no PNG."""
    png = tmp_path / "out.png"
    code, stdout, stderr = interrupted(png, signum, hide="matplotlib")
    assert code == 0, stderr
    assert f"--plot {MISSING}; the demo runs without its PNG" in stderr
    assert "Interrupted after" in stdout
    assert f"No PNG written: --plot {MISSING}." in stdout
    assert not png.exists()
    assert_stopped(stdout, stderr)


def test_an_interrupted_run_still_writes_its_png(tmp_path: Path) -> None:
    """Ctrl-C with matplotlib there: the summary of what ran, and its timeline, written
    at the path given even without a .png suffix (matplotlib would add one)."""
    png = tmp_path / "timeline"
    code, stdout, stderr = interrupted(png, signal.SIGINT)
    assert code == 0, stderr
    assert "Interrupted after" in stdout
    assert f"Timeline: {png}" in stdout
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert not (tmp_path / "timeline.png").exists()
    assert_stopped(stdout, stderr)


def test_a_second_ctrl_c_while_the_run_ends_still_gives_the_summary() -> None:
    """Ctrl-C, then Ctrl-C again once the run has said it was interrupted (the metrics
    collected, the server and services being stopped): the summary of what ran, never
    "interrupted while starting" (which it said, exit 130 and no summary, when the
    second signal found the demo stopping)."""
    proc = subprocess.Popen(
        command("--duration", "60"), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=relay, args=(proc, lines), daemon=True)
    reader.start()
    try:
        while not ROW.match(lines.get(timeout=60).rstrip("\n")):
            pass
        proc.send_signal(signal.SIGINT)
        while "-- interrupted (Ctrl-C or SIGTERM)" not in lines.get(timeout=60):
            pass
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        proc.kill()
    reader.join(10)
    assert proc.stderr is not None
    stdout, stderr = "".join(list(lines.queue)), proc.stderr.read()
    assert "while starting" not in stderr
    assert proc.returncode == 0, stderr
    assert "Interrupted after" in stdout
    assert "threads left: \n" in stderr, stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--duration", "4.9"), "--duration: expected seconds in [5, 600], got '4.9'"),
        (("--duration", "601"), "--duration: expected seconds in [5, 600], got '601'"),
        (("--duration", "soon"), "--duration: expected seconds in [5, 600], got 'soon'"),
        (("--duration", "nan"), "--duration: expected seconds in [5, 600], got NaN"),
        (("--duration", "inf"), "--duration: expected seconds in [5, 600], got 'inf'"),
        (("--seed", "-1"), "--seed: expected an integer in [0, 9223372036854775807], got -1"),
        (("--seed", "1.5"), "--seed: expected an integer in [0, 9223372036854775807], got '1.5'"),
        (
            ("--seed", str(2**63)),
            "--seed: expected an integer in [0, 9223372036854775807], got 9223372036854775808",
        ),
        (("--seed", "9" * 5000), "--seed: expected an integer in [0, 9223372036854775807], got "),
    ],
)
def test_bad_options_exit_2_naming_the_option(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad --duration or --seed is refused before anything starts, with its name."""
    assert main(["demo", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"dsampler demo: {message}"), captured.err
    assert len(captured.err) < 200  # a hostile value is described, not echoed
    assert captured.out == ""


def test_a_plot_path_that_cannot_be_written_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--plot into a missing folder, or onto a folder, is refused before the run."""
    assert main(["demo", "--plot", str(tmp_path / "missing" / "x.png")]) == 2
    assert main(["demo", "--plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("dsampler demo: --plot: no such directory")
    assert err[1].startswith("dsampler demo: --plot: expected the path of a PNG file to write")
