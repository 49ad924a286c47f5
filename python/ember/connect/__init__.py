"""Ember as a Spark Connect server: any Spark Connect client (PySpark's
``SparkSession.builder.remote("sc://localhost:15002")``, Scala, Go, ...) runs its programs on
Ember. The server itself is C++ (src/ember/connect); this module only starts and stops it.

    python -m ember.connect [--host 127.0.0.1] [--port 15002]
    ember-connect [--port 15002]
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

DEFAULT_PORT = 15002  # Spark Connect's default port


class Server:
    """A running Spark Connect server; `port` is the one it listens on."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT):
        from ember import _core
        from ember.connect._functions import Runner

        functions = Runner()
        self._server = _core.ConnectServer.start(f"{host}:{port}", functions)
        self.host = host
        self.port = self._server.port
        functions.url = self.url
        # Stopped at exit, while the interpreter still runs: stopping ends the sessions' queries,
        # whose foreachBatch functions may be waiting for the GIL.
        import atexit

        atexit.register(self.stop)

    @property
    def url(self) -> str:
        """The address a client connects to, e.g. sc://127.0.0.1:15002."""
        return f"sc://{self.host}:{self.port}"

    def stop(self) -> None:
        """Stops serving: calls in progress are cancelled."""
        self._server.shutdown()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> Server:
    """Starts serving on host:port (port 0: any free port) and returns the running server."""
    return Server(host, port)


def activate(port: int = 0) -> Server:
    """Serves Spark Connect inside this process (on 127.0.0.1, a free port unless `port` says
    otherwise) and points PySpark's client at it: SPARK_REMOTE is set, so
    ``SparkSession.builder.appName(...).config(...).getOrCreate()`` of the real pyspark builds a
    Connect session on Ember, with no JVM. Returns the server; stopping it ends the sessions."""
    import os

    server = start("127.0.0.1", port)
    os.environ["SPARK_REMOTE"] = f"sc://localhost:{server.port}"
    return server


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    import time

    parser = argparse.ArgumentParser(prog="ember-connect", description="Ember's Spark Connect server")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (default 15002)")
    args = parser.parse_args(argv)
    server = start(args.host, args.port)
    print(f"Ember serves Spark Connect on {server.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
