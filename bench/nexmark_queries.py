"""The Nexmark queries of bench/workloads.py (its `nexmark` workload), as DataFrame programs over
the person (p), auction (a) and bid (b) streams."""

from pyspark.sql import functions as F


def q0(p, a, b):  # pass-through
    return b.select("auction", "bidder", "price", "dateTime", "extra")


def q1(p, a, b):  # currency conversion
    return b.select("auction", "bidder", (F.col("price") * 0.908).alias("price"), "dateTime")


def q2(p, a, b):  # selection
    return b.where(F.col("auction") % 123 == 0).select("auction", "price")


def q3(p, a, b):  # local item suggestion: a stream-stream join
    sellers = p.where(F.col("state").isin("OR", "ID", "CA")).alias("P")
    return (a.where("category = 10").alias("A").join(sellers, F.col("A.seller") == F.col("P.id"))
            .select("P.name", "P.city", "P.state", F.col("A.id").alias("auction")))


def q4(p, a, b):  # average closing price per category: two aggregations after a join
    won = (a.alias("A").join(b.alias("B"), (F.col("A.id") == F.col("B.auction"))
                             & F.col("B.dateTime").between(F.col("A.dateTime"), F.col("A.expires")))
           .select(F.col("A.id").alias("id"), F.col("A.category").alias("category"),
                   F.col("B.price").alias("price"))
           .groupBy("id", "category").agg(F.max("price").alias("final")))
    return won.groupBy("category").agg(F.avg("final").alias("avg_final"))


def q5(p, a, b):  # hot items: the most-bid auctions of each sliding window
    counts = (b.withWatermark("dateTime", "10 seconds")
              .groupBy(F.window("dateTime", "10 seconds", "2 seconds").alias("w"), "auction")
              .count())
    top = counts.groupBy("w").agg(F.max("count").alias("top"))
    return (counts.alias("C").join(top.alias("T"), (F.col("C.w") == F.col("T.w"))
                                   & (F.col("C.count") == F.col("T.top")))
            .select(F.col("C.w.start").alias("starttime"), "C.auction", "C.count"))


def q7(p, a, b):  # highest bid of each 10-second window
    b = b.withWatermark("dateTime", "10 seconds")
    top = (b.groupBy(F.window("dateTime", "10 seconds").alias("w"))
           .agg(F.max("price").alias("top")).alias("T"))
    # A time-range join: a window column on the bids too would be a second event-time column.
    in_window = ((F.col("B.dateTime") >= F.col("T.w.start"))
                 & (F.col("B.dateTime") < F.col("T.w.end")))
    return (b.alias("B").join(top, (F.col("B.price") == F.col("T.top")) & in_window)
            .select("B.auction", "B.price", "B.bidder", "B.dateTime"))


def q8(p, a, b):  # new users: persons who opened an auction in the window they joined
    people = p.select("id", "name", F.window("dateTime", "10 seconds").start.alias("starttime"))
    sellers = a.select("seller", F.window("dateTime", "10 seconds").start.alias("astart"))
    return (people.join(sellers, (F.col("id") == F.col("seller"))
                        & (F.col("starttime") == F.col("astart")))
            .select("id", "name", "starttime"))


def q11(p, a, b):  # user sessions: bids per bidder per session with a 10-second gap
    return (b.withWatermark("dateTime", "10 seconds")
            .groupBy("bidder", F.session_window("dateTime", "10 seconds")).count()
            .select("bidder", F.col("session_window.start").alias("starttime"),
                    F.col("session_window.end").alias("endtime"), "count"))


# All run as streaming queries but q4: its aggregations group by auction, not by event time, so
# append mode cannot finalize them, and Spark allows a stream-stream join in append mode only.
# It runs as a batch query on both engines. q5 and q7 stream only thanks to their watermarks.
NEXMARK = {"q0": "stream", "q1": "stream", "q2": "stream", "q3": "stream", "q4": "batch",
           "q5": "stream", "q7": "stream", "q8": "stream", "q11": "stream"}
