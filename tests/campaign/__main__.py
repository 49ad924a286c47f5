"""python -m tests.campaign --scenarios 300 --seed 1 [--out DIR] [--first N] [--small]"""

import argparse
import os

from .campaign import run_campaign, summary


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.campaign",
                                     description="Randomized differential campaign, Ember vs Spark")
    parser.add_argument("--scenarios", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="index of the first scenario")
    parser.add_argument("--small", action="store_true", help="fewer runs, files and rows")
    parser.add_argument("--out", default=None, help="default build/campaign/seed-<seed>")
    args = parser.parse_args()
    out = args.out or os.path.join("build", "campaign", f"seed-{args.seed}")
    records = run_campaign(args.seed, range(args.first, args.first + args.scenarios), out,
                           small=args.small, log=lambda line: print(line, flush=True))
    text = summary(records)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"reproductions of undocumented differences: {os.path.join(out, 'repros')}")


main()
