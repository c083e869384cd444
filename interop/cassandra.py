"""Apache Cassandra for the adaptive scenario: one node on 127.0.0.1 (its jars copied from
Maven Central by ``interop/build.py``), on free ports, its data and configuration in a
directory the scenario gives, stopped by whoever started it.

Jaeger v2 keeps its adaptive sampling state (throughput, probabilities, the leader lease)
in Cassandra the way it does in production: the one storage of Jaeger v2 whose lock two
Jaeger processes can share, so that one leads and one follows.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from interop.engines import free_port, lifeline, log_tail, stop_process

START_TIMEOUT_S: Final = 90.0
MAIN: Final = "org.apache.cassandra.service.CassandraDaemon"
# What Cassandra 5.0's own jvm17-server.options opens on Java 17.
_OPENS: Final = (
    *(
        f"--add-exports={name}=ALL-UNNAMED"
        for name in (
            "java.base/jdk.internal.misc", "java.base/jdk.internal.ref", "java.base/sun.nio.ch",
            "java.management.rmi/com.sun.jmx.remote.internal.rmi", "java.rmi/sun.rmi.registry",
            "java.rmi/sun.rmi.server", "java.sql/java.sql",
        )
    ),
    *(
        f"--add-opens={name}=ALL-UNNAMED"
        for name in (
            "java.base/java.lang.module", "java.base/jdk.internal.loader", "java.base/jdk.internal.ref",
            "java.base/jdk.internal.reflect", "java.base/jdk.internal.math", "java.base/jdk.internal.module",
            "java.base/jdk.internal.util.jar", "jdk.management/com.sun.management.internal",
            "java.base/java.io", "java.base/java.nio", "java.base/sun.nio.ch", "java.base/java.lang",
            "java.base/java.util", "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
            "java.base/java.net",
        )
    ),
)  # fmt: skip
_LOGBACK: Final = """<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
</configuration>
"""


def _config(data: Path, port: int, storage_port: int) -> str:
    """cassandra.yaml: a single node on loopback, its directories under ``data``."""
    dirs = {name: data / name for name in ("data", "commitlog", "saved_caches", "hints", "cdc_raw")}
    return f"""cluster_name: dsampler-interop
num_tokens: 1
initial_token: 0
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:{storage_port}"
listen_address: 127.0.0.1
storage_port: {storage_port}
rpc_address: 127.0.0.1
start_native_transport: true
native_transport_port: {port}
data_file_directories: [{dirs["data"]}]
commitlog_directory: {dirs["commitlog"]}
saved_caches_directory: {dirs["saved_caches"]}
hints_directory: {dirs["hints"]}
cdc_raw_directory: {dirs["cdc_raw"]}
"""


@dataclass
class Cassandra:
    """One Cassandra node (not started): ``port`` is its CQL port."""

    lib: Path  # the jars
    home: Path  # configuration, data and log
    port: int = field(default_factory=free_port)
    storage_port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def log(self) -> Path:
        return self.home / "cassandra.log"

    def command(self) -> list[str]:
        config, logback = self.home / "cassandra.yaml", self.home / "logback.xml"
        config.write_text(_config(self.home / "data", self.port, self.storage_port))
        logback.write_text(_LOGBACK)
        return [
            "java", "-Xms512m", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-Djava.net.preferIPv4Stack=true",
            # the JIT's first tier and one GC thread: it starts in 9 s instead of 15 on 2 cores
            # (it stores a few rows every interval here)
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            *_OPENS,
            f"-Dcassandra.config={config.as_uri()}", f"-Dlogback.configurationFile={logback}",
            f"-Dcassandra.storagedir={self.home / 'data'}", "-Dcassandra-foreground=yes",
            "-Dcassandra.skip_wait_for_gossip_to_settle=0", "-Dcassandra.ring_delay_ms=0",
            "-Dcassandra.load_ring_state=false",
            "-cp", str(self.lib / "*"), MAIN,
        ]  # fmt: skip

    def start(self) -> Cassandra:
        """Start it and wait until its CQL port accepts connections (the last step of its start)."""
        self.home.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(lifeline(self.command()), stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cassandra exited {self.proc.returncode}:\n{self.tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1.0).close()
                return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"cassandra did not listen on 127.0.0.1:{self.port}:\n{self.tail()}")

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after 20 s); idempotent."""
        proc, self.proc = self.proc, None
        stop_process(proc, grace_s=20)

    def tail(self, lines: int = 30) -> str:
        return log_tail(self.log, lines)
