"""ember.connect.activate(): the real pyspark's builder, unchanged, reaches an Ember server in
the same process. Run in a fresh interpreter: activation sets SPARK_REMOTE for the process."""

import subprocess
import sys
import textwrap


def test_builder_get_or_create_runs_on_ember():
    program = textwrap.dedent("""
        import os
        import ember.connect
        from pyspark.sql import SparkSession

        server = ember.connect.activate()
        assert os.environ["SPARK_REMOTE"] == f"sc://localhost:{server.port}"
        spark = (SparkSession.builder.appName("activated")
                 .config("spark.sql.shuffle.partitions", "3").getOrCreate())
        print(spark.conf.get("spark.sql.shuffle.partitions"), spark.conf.get("spark.app.name"))
        print(spark.sql("SELECT 40 + 2 AS answer").collect())
        spark.stop()
        server.stop()
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=120, env={k: v for k, v in __import__("os").environ.items()
                                           if k != "SPARK_REMOTE"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["3 activated", "[Row(answer=42)]"]
