"""Kills a job at random instants while it runs, for the exactly-once tests."""

import os
import random
import signal
import subprocess
import time

# The kills of a kill test that does not name its own: a hundred, or EMBER_KILLS (the README's
# test command runs 30, to keep within CI's time).
KILLS = int(os.environ.get("EMBER_KILLS", "100"))


def kill_at_random_instants(args, seed, kills=3, attempts=20, window=0.15):
    """Starts `args` repeatedly and SIGKILLs each run at a random instant within `window` seconds
    after it prints "started" (its query runs: the instant does not depend on how long the
    process takes to start, nor on how fast the engine is), until `kills` runs were killed while
    still running. A run that ends by itself must succeed."""
    rng = random.Random(seed)
    killed = 0
    for _ in range(attempts):
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if process.stdout.readline().strip() == b"started":
            time.sleep(rng.uniform(0, window))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            killed += 1
        else:
            process.wait()
            assert process.returncode == 0, process.stderr.read().decode()[-3000:]
        process.stdout.close()
        process.stderr.close()
        if killed == kills:
            break
    return killed


def kill_while_streaming(args, seed, more_input, kills=None, window=0.08, max_runs=600,
                         after_kill=lambda: None):
    """Starts `args` again and again, and SIGKILLs each run at a random instant within `window`
    seconds after it prints "started" (its query is running), until `kills` runs were killed
    while still running. A run that ends by itself must succeed; then `more_input()` adds input,
    so that the killing goes on until the count is reached; `after_kill()` may look at what a
    kill left behind. Returns the number of runs."""
    rng = random.Random(seed)
    kills = KILLS if kills is None else kills
    killed = runs = 0
    while killed < kills:
        runs += 1
        assert runs <= max_runs, f"only {killed} kills in {max_runs} runs"
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        started = process.stdout.readline()
        if started.strip() == b"started":
            time.sleep(rng.uniform(0, window))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            killed += 1
            after_kill()
        else:
            process.wait()
            assert process.returncode == 0, process.stderr.read().decode()[-3000:]
            more_input()
        process.stdout.close()
        process.stderr.close()
    return runs
