"""Ember's resident memory after each micro-batch of the B2 stream (windowed append under a
10-minute watermark, 200,000 events per file, event time advancing), read by a
StreamingQueryListener: with the state bounded, memory stays flat however long the stream.

    .venv/bin/python bench/state_memory.py 25     # 25 files, 5 million events
"""

import os
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import BIG, big_event_files  # noqa: E402

from ember.sql import SparkSession, functions as F  # noqa: E402
from ember.sql.streaming import StreamingQueryListener  # noqa: E402


class MemoryAfterBatches(StreamingQueryListener):
    def __init__(self):
        self.rss_mb = []

    def onQueryStarted(self, event):
        pass

    def onQueryProgress(self, event):
        with open("/proc/self/statm") as statm:
            self.rss_mb.append(int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20)

    def onQueryIdle(self, event):
        pass

    def onQueryTerminated(self, event):
        pass


def main(files):
    work = tempfile.mkdtemp(prefix="ember-state-memory-")
    _, per_file, keys, ms_per_event = BIG["big_windows"]
    big_event_files(os.path.join(work, "in"), 8, files, per_file, keys, ms_per_event, late=0.02)
    spark = SparkSession.builder.getOrCreate()
    listener = MemoryAfterBatches()
    spark.streams.addListener(listener)
    counts = (spark.readStream.schema("event_id BIGINT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP")
              .option("maxFilesPerTrigger", 1).json(os.path.join(work, "in"))
              .withWatermark("event_ts", "10 minutes")
              .groupBy(F.window("event_ts", "5 minutes"), "company_id").count())
    start = time.time()
    query = (counts.writeStream.outputMode("append").trigger(availableNow=True).format("noop")
             .option("checkpointLocation", os.path.join(work, "cp")).start())
    query.processAllAvailable()
    query.stop()
    time.sleep(0.5)  # the listener thread delivers the last progress events
    state = [p["stateOperators"][0]["numRowsTotal"] for p in query.recentProgress]
    print(f"{files * per_file:,} events in {time.time() - start:.1f} s; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10} MB")
    print("RSS MB after each batch:", listener.rss_mb)
    print("state rows after each batch:", state)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 25)
