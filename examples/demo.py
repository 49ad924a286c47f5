"""Ember's main job: a PySpark program over generated JSON events, run on Ember.

The program below is plain PySpark; `ember.activate()` makes `pyspark` resolve to Ember.
"""

import json
import random
import tempfile
import time
from pathlib import Path

started = time.perf_counter()

import ember

ember.activate()

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

SCHEMA = "event_id INT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP"


def generate_events(directory: Path, files: int = 4, per_file: int = 2500) -> None:
    rng = random.Random(7)
    event_id = 0
    for f in range(files):
        with open(directory / f"events-{f:03d}.json", "w") as out:
            for _ in range(per_file):
                event_id += 1
                minute = rng.randrange(0, 60)
                out.write(json.dumps({
                    "event_id": event_id,
                    "company_id": rng.choice(["acme", "globex", "initech", "umbrella"]),
                    "amount": round(rng.uniform(1, 500), 2),
                    "event_ts": f"2024-03-01T10:{minute:02d}:{rng.randrange(60):02d}",
                }) + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "events"
        source.mkdir()
        generate_events(source)

        spark = SparkSession.builder.appName("ember-demo").getOrCreate()
        events = spark.read.schema(SCHEMA).json(str(source))
        per_window = (
            events.groupBy(F.window("event_ts", "15 minutes"), "company_id")
            .agg(F.count("*").alias("n"), F.sum("amount").alias("total"))
            .select("company_id", F.col("window.start").alias("w_start"), "n", "total")
            .orderBy("w_start", "company_id")
        )
        print(f"{events.count()} events in {len(list(source.iterdir()))} JSON files")
        per_window.show(truncate=False)
        print(f"fresh process to result: {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
