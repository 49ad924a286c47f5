"""The two Spark Connect servers the suites run against, each a process of its own on 127.0.0.1.

- ember: `python -m ember.connect --port P` (the interpreter and PYTHONPATH given, so a worktree's
  build can be tested), with the suites' packages importable as in the suites' own process: the
  server runs the client's Python functions (foreach, foreachBatch) in its own interpreter, where
  Spark's server runs them in Python workers that have Spark's `python/` on their path.
- spark: Spark's own `SparkConnectServer` from the pinned pyspark's jars (spark-submit in
  pyspark/bin, `spark-connect_2.13-*.jar` in pyspark/jars), local[2], an in-memory catalog and a
  warehouse in the run's output folder, Python workers on the same interpreter as the client.

Both run with their working directory at Spark's repository root, where the suites' relative
paths (`python/test_support/...`) are read by the server.
"""

import glob
import os
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _nice():
    os.setsid()  # its own process group: stopping the server stops what it started
    os.nice(10)


class Server:
    def __init__(self, engine, python, spark_python, workdir):
        spark_root = os.path.dirname(os.path.abspath(spark_python))
        self.engine = engine
        self.port = free_port()
        os.makedirs(workdir, exist_ok=True)
        self.log_path = os.path.join(workdir, "server.log")
        env = dict(os.environ)
        if engine == "ember":
            command = [python, os.path.join(os.path.dirname(__file__), "ember_server.py"),
                       spark_python, "--port", str(self.port)]
        elif engine == "spark":
            command = spark_command(self.port, os.path.join(workdir, "warehouse"))
            env["PYSPARK_PYTHON"] = python
            env["PYSPARK_DRIVER_PYTHON"] = python
            env.pop("SPARK_REMOTE", None)
            env.pop("SPARK_CONNECT_MODE_ENABLED", None)
        else:
            raise ValueError(f"unknown engine {engine!r}: ember or spark")
        self.command = command
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(command, cwd=spark_root, env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        preexec_fn=_nice)

    @property
    def url(self):
        return f"sc://127.0.0.1:{self.port}"

    def wait_ready(self, timeout=180):
        """Until the port accepts connections; raises with the log's tail if the server exits."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.engine} server exited with {self.process.returncode}:"
                                   f"\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"{self.engine} server not ready in {timeout} s:\n{self.log_tail()}")

    def alive(self):
        return self.process.poll() is None

    def log_tail(self, lines=30):
        self._log.flush()
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def stop(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
        self._log.close()


def spark_command(port, warehouse):
    import pyspark

    home = os.path.dirname(pyspark.__file__)
    jars = glob.glob(os.path.join(home, "jars", "spark-connect_*.jar"))
    if not jars:
        raise RuntimeError(f"no spark-connect jar in {home}/jars")
    return [os.path.join(home, "bin", "spark-submit"),
            "--master", "local[2]",
            "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
            "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf", f"spark.connect.grpc.binding.port={port}",
            "--conf", "spark.sql.catalogImplementation=in-memory",
            "--conf", f"spark.sql.warehouse.dir={warehouse}",
            "--conf", "spark.ui.enabled=false",
            jars[0]]
