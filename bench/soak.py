"""A soak run: many tiny micro-batches into an Iceberg table sink and a parquet file sink, one
query each, sampling per-batch time, resident memory and the checkpoint's and table's sizes.

Outside CI (it runs for hours at 10,000 batches). Each batch is one new JSON file of a few rows
picked up by a file source (cleanSource=delete keeps the input directory small); the batch time is
the wall time from writing the file to processAllAvailable() returning, and the process's CPU time
over it (all threads: what the batch cost, whatever else runs on the machine). Prints a table of
samples and writes them as JSON lines to --out.

    TZ=UTC .venv/bin/python bench/soak.py --batches 10000 --every 500 --out /tmp/soak.jsonl
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from ember.sql import SparkSession

SCHEMA = "id BIGINT, k STRING, v DOUBLE"


def resident_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def tree(path):
    """(files, bytes) under path."""
    files = size = 0
    for root, _, names in os.walk(path):
        for name in names:
            try:
                size += os.path.getsize(os.path.join(root, name))
                files += 1
            except OSError:
                pass
    return files, size


def start(spark, sink, source, checkpoint, output):
    stream = (spark.readStream.schema(SCHEMA).option("cleanSource", "delete")
              .option("maxFilesPerTrigger", 1).json(source)
              .writeStream.option("checkpointLocation", checkpoint))
    if sink == "iceberg":
        return stream.toTable("local.db.soak")
    return stream.format("parquet").option("path", output).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=10000)
    parser.add_argument("--every", type=int, default=500, help="batches per sample")
    parser.add_argument("--sinks", default="iceberg,parquet")
    parser.add_argument("--dir", default=None, help="work directory (default: a temporary one)")
    parser.add_argument("--out", default=None, help="JSON lines of the samples")
    parser.add_argument("--table-property", action="append", default=[],
                        help="key=value set on the Iceberg table (e.g. commit.manifest-merge.enabled=false)")
    args = parser.parse_args()
    root = args.dir or tempfile.mkdtemp(prefix="ember-soak-")
    warehouse = os.path.join(root, "wh")
    os.makedirs(os.path.join(warehouse, "db"), exist_ok=True)
    spark = (SparkSession.builder
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse)
             .getOrCreate())
    props = dict(p.split("=", 1) for p in args.table_property)
    tblprops = ("TBLPROPERTIES (" + ", ".join(f"'{k}'='{v}'" for k, v in props.items()) + ")"
                if props else "")
    spark.sql(f"CREATE TABLE local.db.soak (id BIGINT, k STRING, v DOUBLE) USING iceberg {tblprops}")
    out = open(args.out, "w") if args.out else None
    print(f"{'sink':8} {'batch':>6} {'ms p50':>7} {'ms max':>7} {'cpu ms':>7} {'RSS MB':>7} "
          f"{'ckpt files':>10} {'ckpt MB':>8} {'out files':>9} {'out MB':>7}", flush=True)
    for sink in args.sinks.split(","):
        source = os.path.join(root, sink, "in")
        checkpoint = os.path.join(root, sink, "cp")
        output = (os.path.join(warehouse, "db", "soak") if sink == "iceberg"
                  else os.path.join(root, sink, "out"))
        os.makedirs(source, exist_ok=True)
        query = start(spark, sink, source, checkpoint, os.path.join(root, sink, "out"))
        times, cpu = [], []
        for batch in range(1, args.batches + 1):
            rows = "".join(json.dumps({"id": batch * 10 + i, "k": f"k{i}", "v": i * 0.5}) + "\n"
                           for i in range(3))
            tmp = os.path.join(root, sink, f".{batch}.json")
            with open(tmp, "w") as f:
                f.write(rows)
            began, began_cpu = time.perf_counter(), time.process_time()
            os.rename(tmp, os.path.join(source, f"{batch:06d}.json"))
            query.processAllAvailable()
            times.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
            if batch % args.every == 0 or batch == args.batches:
                ckpt_files, ckpt_bytes = tree(checkpoint)
                out_files, out_bytes = tree(output)
                sample = {"sink": sink, "batch": batch,
                          "ms_p50": round(statistics.median(times), 1),
                          "ms_max": round(max(times), 1),
                          "cpu_ms": round(statistics.median(cpu), 1), "rss_mb": round(resident_mb(), 1),
                          "checkpoint_files": ckpt_files, "checkpoint_mb": round(ckpt_bytes / 2**20, 2),
                          "output_files": out_files, "output_mb": round(out_bytes / 2**20, 2)}
                print(f"{sink:8} {batch:6} {sample['ms_p50']:7} {sample['ms_max']:7} {sample['cpu_ms']:7} "
                      f"{sample['rss_mb']:7} {ckpt_files:10} {sample['checkpoint_mb']:8} "
                      f"{out_files:9} {sample['output_mb']:7}", flush=True)
                if out:
                    out.write(json.dumps(sample) + "\n")
                    out.flush()
                times, cpu = [], []
        query.stop()
        if query.exception():
            print(query.exception(), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
