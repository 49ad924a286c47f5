"""The benchmark's generated inputs are the same bytes every time, and Nexmark's bids and
auctions refer to auctions and persons that exist."""

import filecmp
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import data  # noqa: E402


def same_tree(a, b):
    compared = filecmp.dircmp(a, b)
    return (not compared.left_only and not compared.right_only and not compared.diff_files
            and all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in compared.common_dirs))


def generate(directory):
    data.event_files(os.path.join(directory, "events"), 7, 3, 100, keys=10, late=0.1, dup=0.1)
    return data.nexmark(os.path.join(directory, "nexmark"), 8, 2, 2_000)


def rows(directory):
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            yield from (json.loads(line) for line in f)


def test_same_seed_same_bytes(tmp_path):
    counts = generate(tmp_path / "a")
    assert generate(tmp_path / "b") == counts
    assert same_tree(tmp_path / "a", tmp_path / "b")
    mtimes = [os.path.getmtime(tmp_path / "a" / "events" / f)
              for f in sorted(os.listdir(tmp_path / "a" / "events"))]
    assert mtimes == sorted(set(mtimes))  # one order for every engine's file source


def test_nexmark_references(tmp_path):
    counts = generate(tmp_path)
    people = {p["id"] for p in rows(tmp_path / "nexmark" / "person")}
    auctions = list(rows(tmp_path / "nexmark" / "auction"))
    bids = list(rows(tmp_path / "nexmark" / "bid"))
    assert (len(people), len(auctions), len(bids)) == (counts["person"], counts["auction"],
                                                       counts["bid"])
    assert {a["seller"] for a in auctions} <= people
    assert {b["auction"] for b in bids} <= {a["id"] for a in auctions}
    assert {b["bidder"] for b in bids} <= people
