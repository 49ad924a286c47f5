"""Kills a job at random instants while it runs, for the exactly-once tests."""

import random
import signal
import subprocess
import time


def kill_at_random_instants(args, seed, kills=3, attempts=20):
    """Starts `args` repeatedly and SIGKILLs each run after a random delay, until `kills` runs
    were killed while still running. A run that ends by itself must succeed."""
    rng = random.Random(seed)
    killed = 0
    for _ in range(attempts):
        process = subprocess.Popen(args, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.05, 0.6))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            killed += 1
            if killed == kills:
                break
        else:
            assert process.returncode == 0, process.stderr.read().decode()[-3000:]
    process.stderr.close()
    return killed
