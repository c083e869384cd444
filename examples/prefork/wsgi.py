"""A WSGI application for prefork servers (gunicorn, uwsgi): docs/user-guide.md.

The sampler is built once, when the server imports this module: in the master with
gunicorn's ``preload_app`` or uwsgi's default, in each worker otherwise. Either way
every worker decides with its own copy, polls the file itself and reloads it on change.
Each request answers which worker served it and the configuration that worker runs.
"""

import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from dsampler import DSampler

sampler = DSampler.from_file(os.environ.get("DSAMPLER_CONFIG", "sampling.yaml"))
trace.set_tracer_provider(TracerProvider(sampler=sampler))
tracer = trace.get_tracer("wsgi")


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    with tracer.start_as_current_span(environ.get("PATH_INFO", "/")) as span:
        sampled = span.get_span_context().trace_flags.sampled
    watcher = sampler.watcher
    body = json.dumps(
        {
            "pid": os.getpid(),
            "version": sampler.config.version,
            "rate": sampler.config.rate,
            "watching": watcher is not None and watcher.running,
            "sampled": sampled,
        }
    ).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
