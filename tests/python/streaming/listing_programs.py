"""Which files a file stream over a directory with subdirectories reads, run unchanged on Ember
and on the real Spark (`python listing_programs.py NAME WORKDIR ENGINE`), for
test_file_listing.py. Prints one JSON document on its last line."""

import json
import os
import re
import sys

from programs import ENGINE, session  # noqa: F401  (activates Ember for ENGINE ember)

# (directory under the root, file name, lines)
PLAIN = [("", "top.txt", ["t1", "t2"]), ("time", "x.txt", ["time1"]),
         ("apply/random_failure/input", "y.txt", ["deep1"]), ("_hidden", "h.txt", ["hidden"]),
         (".dot", "d.txt", ["dot"]), ("", "_u.txt", ["underscore"]), ("", ".d.txt", ["dotfile"]),
         ("", "c.txt._COPYING_", ["copying"])]
LAYOUTS = {
    # Spark's python/test_support/sql/streaming: files at the top and in plain subdirectories.
    "plain": (PLAIN, {}),
    "recursive": (PLAIN, {"recursiveFileLookup": "true"}),
    # Partition directories: their files, at any depth below them; the root's own are not read.
    "partitioned": ([("p=1", "a.txt", ["p1"]), ("p=2", "b.txt", ["p2"]), ("p=1/sub", "c.txt", ["p1sub"]),
                     ("", "top.txt", ["top"]), ("_hidden", "h.txt", ["hidden"])], {}),
    # '_' with '=' is a partition directory, not a hidden one.
    "column_names": ([("p=1", "a.txt", ["p1"]), ("_q=2", "b.txt", ["q2"])], {}),
    "nested": ([("p=1/q=a", "a.txt", ["p1a"]), ("p=2/q=b", "b.txt", ["p2b"])], {}),
    "conflicting": ([("p=1", "a.txt", ["p1"]), ("Other", "b.txt", ["other"])], {}),
}


def layouts(workdir):
    spark = session()
    out = {}
    for name, (files, options) in LAYOUTS.items():
        root = os.path.join(workdir, name)
        for directory, file_name, lines in files:
            os.makedirs(os.path.join(root, directory), exist_ok=True)
            with open(os.path.join(root, directory, file_name), "w") as f:
                f.write("".join(line + "\n" for line in lines))
        rows = []
        try:
            reader = spark.readStream.format("text")
            for key, value in options.items():
                reader = reader.option(key, value)
            query = (reader.load(root).writeStream
                     .foreachBatch(lambda df, batch_id: rows.extend(r.value for r in df.collect()))
                     .trigger(availableNow=True).start())
            query.awaitTermination()
            out[name] = sorted(rows)
        except Exception as e:  # noqa: BLE001 - the condition and message are compared
            message = str(e)
            for path in (os.path.realpath(workdir), str(workdir)):
                message = message.replace(path, "<workdir>").replace(path.lower(), "<workdir>")
            # Spark lists the directories in its hash maps' order: compared as sets.
            message = message.split("SQLSTATE")[0].strip().split("\n")
            message = [line for line in message if not line.startswith("\t")] + sorted(
                re.sub(r"#[0-9]+", "#", line) for line in message if line.startswith("\t"))
            condition = getattr(e, "getCondition", lambda: None)()
            out[name] = {"class": type(e).__name__, "condition": condition, "message": message}
    print(json.dumps(out))


if __name__ == "__main__":
    globals()[sys.argv[1]](sys.argv[2])
