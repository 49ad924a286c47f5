"""Deterministic input data for the benchmarks: JSON-lines files of company events, and Nexmark's
person, auction and bid streams (the Nexmark generator's field names, our own generator).

Every file gets a fixed, increasing modification time, so both engines' file sources take the
files in the same order; the same seed and sizes always give the same bytes."""

import json
import os
import random
from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
MTIME0 = 1_767_225_600  # 2026-01-01: the first file's modification time
EVENT_SCHEMA = "event_id BIGINT, company_id STRING, amount DOUBLE, event_ts TIMESTAMP"

PERSON_SCHEMA = ("id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
                 "state STRING, dateTime TIMESTAMP, extra STRING")
AUCTION_SCHEMA = ("id BIGINT, itemName STRING, description STRING, initialBid BIGINT, "
                  "reserve BIGINT, dateTime TIMESTAMP, expires TIMESTAMP, seller BIGINT, "
                  "category BIGINT, extra STRING")
BID_SCHEMA = ("auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
              "dateTime TIMESTAMP, extra STRING")

# The sizes of each mode: quick fits a few minutes on 2 cores, full is for the published figures.
SIZES = {
    "quick": dict(ingest=(10, 5_000), windows=(4, 5_000), keys=(2, 50_000, 20_000),
                  dedup=(4, 10_000), tiny=(200, 10), nexmark=(4, 30_000)),
    "full": dict(ingest=(40, 50_000), windows=(20, 50_000), keys=(4, 1_000_000, 1_000_000),
                 dedup=(10, 100_000), tiny=(1_000, 10), nexmark=(20, 2_000_000)),
}


def ts(t):
    """Spark's default JSON timestamp format, in UTC, to the millisecond."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}"


def write_files(directory, chunks):
    """Writes each chunk of rows as one JSON-lines file, in order, one second apart."""
    os.makedirs(directory, exist_ok=True)
    for i, rows in enumerate(chunks):
        path = os.path.join(directory, f"part-{i:05d}.json")
        with open(path, "w") as out:
            out.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)
        os.utime(path, (MTIME0 + i, MTIME0 + i))
    return sum(len(rows) for rows in chunks)


def events(rng, first_id, count, keys, start, step_ms, late=0.0, dup=0.0):
    """Company events in event-time order; a `late` share arrives 30 minutes behind, and a `dup`
    share repeats an earlier event of this chunk (same id and time)."""
    rows = []
    for i in range(first_id, first_id + count):
        if rows and rng.random() < dup:
            rows.append(dict(rng.choice(rows[-100:])))
            continue
        t = start + timedelta(milliseconds=(i - first_id) * step_ms)
        if rng.random() < late:
            t -= timedelta(minutes=30)
        # Amounts are multiples of 1/4, so sums are exact whatever order an engine adds them in.
        rows.append({"event_id": i, "company_id": f"c{rng.randrange(keys):07d}",
                     "amount": rng.randrange(400_000) / 4, "event_ts": ts(t)})
    return rows


def event_files(directory, seed, files, per_file, keys, minutes_per_file=10, **kinds):
    rng = random.Random(seed)
    step = minutes_per_file * 60_000 / per_file
    return write_files(directory, [
        events(rng, f * per_file, per_file, keys, T0 + timedelta(minutes=f * minutes_per_file),
               step, **kinds) for f in range(files)])


FIRST_NAMES = ["Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Walter"]
LAST_NAMES = ["Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones"]
PLACES = [("Phoenix", "AZ"), ("Los Angeles", "CA"), ("San Francisco", "CA"), ("Boise", "ID"),
          ("Portland", "OR"), ("Bend", "OR"), ("Redmond", "WA"), ("Seattle", "WA"),
          ("Kent", "WA"), ("Cheyenne", "WY")]
CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]


def nexmark(directory, seed, files, count, step_ms=2):
    """Nexmark's event mix: of every 50 events, 1 person, 3 auctions and 46 bids, at a fixed
    event-time rate. Bids mostly go to recent auctions, from recent persons (hot items)."""
    rng = random.Random(seed)
    people, auctions, bids = [], [], []
    for i in range(count):
        t = T0 + timedelta(milliseconds=i * step_ms)
        kind = i % 50
        if kind == 0 or not people:
            pid = 1000 + len(people)
            city, state = rng.choice(PLACES)
            name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
            people.append({"id": pid, "name": name,
                           "emailAddress": f"{name.replace(' ', '.').lower()}{pid}@example.com",
                           "creditCard": " ".join(f"{rng.randrange(10000):04d}" for _ in range(4)),
                           "city": city, "state": state, "dateTime": ts(t), "extra": ""})
        elif kind <= 3 or not auctions:
            aid = 1000 + len(auctions)
            initial = rng.randrange(1, 1000)
            auctions.append({"id": aid, "itemName": f"item-{aid}", "description": f"lot {aid}",
                             "initialBid": initial, "reserve": initial + rng.randrange(1, 1000),
                             "dateTime": ts(t),
                             "expires": ts(t + timedelta(seconds=rng.randrange(10, 60))),
                             "seller": people[-1 - rng.randrange(min(len(people), 20))]["id"],
                             "category": 10 + rng.randrange(5), "extra": ""})
        else:
            # Hot auctions and bidders: nine bids in ten go to the 20 newest.
            pool = 20 if rng.random() < 0.9 else 10**9
            auction = auctions[-1 - rng.randrange(min(len(auctions), pool))]["id"]
            bidder = people[-1 - rng.randrange(min(len(people), pool))]["id"]
            channel = rng.choice(CHANNELS)
            bids.append({"auction": auction, "bidder": bidder, "price": rng.randrange(100, 100_000),
                         "channel": channel, "url": f"https://{channel.lower()}.example/{auction}",
                         "dateTime": ts(t), "extra": ""})
    for name, rows in (("person", people), ("auction", auctions), ("bid", bids)):
        n = -(-len(rows) // files)
        write_files(os.path.join(directory, name), [rows[k:k + n] for k in range(0, len(rows), n)])
    return {"person": len(people), "auction": len(auctions), "bid": len(bids)}


def generate(directory, mode):
    """All inputs of a mode; returns the number of input events of each workload."""
    s = SIZES[mode]
    d = lambda name: os.path.join(directory, name)  # noqa: E731
    files, per_file, keys = s["keys"]
    counts = {
        "ingest": event_files(d("ingest"), 1, *s["ingest"], keys=1000),
        "windows": event_files(d("windows"), 2, *s["windows"], keys=50, late=0.02),
        "keys": event_files(d("keys"), 3, files, per_file, keys),
        "dedup": event_files(d("dedup"), 4, *s["dedup"], keys=1000, dup=0.1),
        "tiny": event_files(d("tiny"), 5, *s["tiny"], keys=10, minutes_per_file=1),
    }
    counts["nexmark"] = nexmark(d("nexmark"), 6, *s["nexmark"])
    with open(d("counts.json"), "w") as out:
        json.dump(counts, out)
    return counts
