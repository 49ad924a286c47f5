"""Deterministic input data for the benchmarks: JSON-lines files of company events, and Nexmark's
person, auction and bid streams (the Nexmark generator's field names, our own generator).

Every file gets a fixed, increasing modification time, so both engines' file sources take the
files in the same order; the same seed and sizes always give the same bytes."""

import json
import os
import random
from datetime import datetime, timedelta, timezone

from schemas import AUCTION_SCHEMA, BID_SCHEMA, EVENT_SCHEMA, PERSON_SCHEMA  # noqa: F401

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
MTIME0 = 1_767_225_600  # 2026-01-01: the first file's modification time
# The sizes of each mode: quick fits a few minutes on 2 cores, full is for the published figures.
SIZES = {
    "quick": dict(ingest=(10, 5_000), windows=(4, 5_000), keys=(2, 50_000, 20_000),
                  dedup=(4, 10_000), tiny=(200, 10), nexmark=(4, 30_000), rate=(10, 20_000)),
    "full": dict(ingest=(40, 50_000), windows=(20, 50_000), keys=(4, 1_000_000, 1_000_000),
                 dedup=(10, 100_000), tiny=(1_000, 10), nexmark=(20, 2_000_000),
                 rate=(20, 500_000)),
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


# The --big workloads (bench/run.py --big): (files, events per file, keys, event-time ms per event).
BIG = {"big_keys": (10, 1_000_000, 1_000_000, 1), "big_windows": (25, 200_000, 10_000, 3)}


def _digits(lines, column, values, width, pad=b"0"):
    """Writes `values` (non-negative integers) right-aligned into columns `column` to
    `column + width - 1` of the lines (`lines[c]` is column c of every line); leading zeros become
    `pad` (a space keeps the JSON valid)."""
    import numpy as np

    for i in range(width - 1, -1, -1):
        lines[column + i] = 48 + values % 10
        if pad != b"0" and i < width - 1:
            lines[column + i] = np.where(values == 0, pad[0], lines[column + i])
        values = values // 10


def big_event_files(directory, seed, files, per_file, keys, ms_per_event, late=0.0):
    """Company events as fixed-width JSON lines built with numpy (tens of millions in seconds):
    numbers right-aligned after spaces, times to the millisecond, event time advancing
    `ms_per_event` per event, a `late` share 30 minutes behind; amounts are multiples of 1/4."""
    # numpy only here: bench/workloads.py imports this module, and start-up (W6) is measured.
    import numpy as np


    template = (b'{"event_id":         ,"company_id":"c0000000","amount":      .  ,'
                b'"event_ts":"0000-00-00T00:00:00.000"}\n')
    width = len(template)
    at = {name: template.index(name) + len(name) for name in
          (b'"event_id":', b'"company_id":"c', b'"amount":', b'"event_ts":"')}
    rng = np.random.default_rng(seed)
    t0 = int(T0.timestamp() * 1000)
    os.makedirs(directory, exist_ok=True)
    for f in range(files):
        n = per_file
        first = f * per_file
        ids = np.arange(first, first + n, dtype=np.int64)
        company = rng.integers(0, keys, n)
        cents = rng.integers(0, 400_000, n) * 25  # amount * 100
        ms = t0 + ids * ms_per_event
        if late:
            ms -= np.where(rng.random(n) < late, 30 * 60_000, 0)
        lines = np.empty((width, n), dtype=np.uint8)
        lines[:] = np.frombuffer(template, dtype=np.uint8)[:, None]
        _digits(lines, at[b'"event_id":'], ids, 9, pad=b" ")
        _digits(lines, at[b'"company_id":"c'], company, 7)
        _digits(lines, at[b'"amount":'], cents // 100, 6, pad=b" ")
        _digits(lines, at[b'"amount":'] + 7, cents % 100, 2)
        # The civil date of a day number (days since 1970-01-01), Howard Hinnant's algorithm.
        days, tod = ms // 86_400_000, ms % 86_400_000
        z = days + 719_468
        era = z // 146_097
        doe = z - era * 146_097
        yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
        doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
        mp = (5 * doy + 2) // 153
        month = np.where(mp < 10, mp + 3, mp - 9)
        year = yoe + era * 400 + (month <= 2)
        ts = at[b'"event_ts":"']
        for offset, values, w in ((0, year, 4), (5, month, 2), (8, doy - (153 * mp + 2) // 5 + 1, 2),
                                  (11, tod // 3_600_000, 2), (14, tod // 60_000 % 60, 2),
                                  (17, tod // 1000 % 60, 2), (20, tod % 1000, 3)):
            _digits(lines, ts + offset, values, w)
        path = os.path.join(directory, f"part-{f:05d}.json")
        with open(path, "wb") as out:
            out.write(np.ascontiguousarray(lines.T).tobytes())
        os.utime(path, (MTIME0 + f, MTIME0 + f))
    return files * per_file


def generate_big(directory):
    """The inputs of the --big workloads, made once (kept in `directory` for later runs)."""
    stamp = os.path.join(directory, "counts.json")
    wanted = {name: list(size) for name, size in BIG.items()}
    if os.path.exists(stamp):
        with open(stamp) as f:
            done = json.load(f)
        if done.get("sizes") == wanted:
            return done["counts"]
    counts = {"big_keys": big_event_files(os.path.join(directory, "big_keys"), 7, *BIG["big_keys"]),
              "big_windows": big_event_files(os.path.join(directory, "big_windows"), 8,
                                             *BIG["big_windows"], late=0.02)}
    os.makedirs(directory, exist_ok=True)
    with open(stamp, "w") as out:
        json.dump({"sizes": wanted, "counts": counts}, out)
    return counts


def rate_size(directory, batches, rows_per_batch):
    """W7 reads no files (the rate-micro-batch source makes its rows): its size, for the workload."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "size.json"), "w") as out:
        json.dump({"batches": batches, "rows_per_batch": rows_per_batch}, out)
    return batches * rows_per_batch


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
    counts["rate"] = rate_size(d("rate"), *s["rate"])
    with open(d("counts.json"), "w") as out:
        json.dump(counts, out)
    return counts
