"""The decision engine: a configuration store compiled into snapshots, and the
request path that decides under one whole snapshot. It knows nothing of its owners (the
adaptive controller, a remote endpoint, telemetry): they drive it through its public
methods."""
