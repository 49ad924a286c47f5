"""The cost of one INSERT into an Iceberg table as its history grows: the process's CPU time per
commit (median over each window), at 100, 1,000 and 2,000 snapshots, with Iceberg's manifest merging
(the default) and without it (commit.manifest-merge.enabled=false: one more manifest in every
manifest list per commit, as Ember wrote them before merging), and with snapshots expired every
100 commits (CALL ... expire_snapshots, retain_last => 10).

    TZ=UTC .venv/bin/python bench/iceberg_commits.py --commits 2000
"""

import argparse
import statistics
import tempfile
import time

from ember.sql import SparkSession

CASES = {
    "merged": "",
    "unmerged": "TBLPROPERTIES ('commit.manifest-merge.enabled'='false')",
    "expired": "",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--at", default="100,1000,2000")
    parser.add_argument("--window", type=int, default=20)
    args = parser.parse_args()
    at = [int(n) for n in args.at.split(",")]
    warehouse = tempfile.mkdtemp(prefix="ember-commits-")
    spark = (SparkSession.builder
             .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.local.type", "hadoop")
             .config("spark.sql.catalog.local.warehouse", warehouse).getOrCreate())
    spark.sql("CREATE NAMESPACE local.db")
    for name, props in CASES.items():
        spark.sql(f"CREATE TABLE local.db.{name} (id BIGINT, s STRING) USING iceberg {props}")
    cpu = {name: [] for name in CASES}
    print(f"{'commits':>8} " + " ".join(f"{n + ' cpu ms':>18}" for n in CASES), flush=True)
    for i in range(1, args.commits + 1):
        for name in CASES:
            began = time.process_time()
            spark.sql(f"INSERT INTO local.db.{name} VALUES ({i}, 'row {i}')")
            cpu[name].append((time.process_time() - began) * 1000)
            if name == "expired" and i % 100 == 0:
                spark.sql("CALL local.system.expire_snapshots(table => 'db.expired', "
                          "older_than => current_timestamp(), retain_last => 10)").collect()
        if i in at:
            print(f"{i:8} " + " ".join(f"{statistics.median(cpu[n][-args.window:]):18.1f}" for n in CASES),
                  flush=True)


if __name__ == "__main__":
    main()
