"""Customer attribute changes as a CRM system exports them: one JSON file per export, one line
per change (customer_id, name, city, updated_at). Shared by the SCD examples."""

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

SCHEMA = "customer_id INT, name STRING, city STRING, updated_at TIMESTAMP"

FIRST_NAMES = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken"]
LAST_NAMES = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson"]
CITIES = ["Lisbon", "Oslo", "Austin", "Kyoto", "Nairobi", "Lima", "Perth", "Quebec"]


def make_exports(seed: int = 7, exports: int = 6, customers: int = 6) -> list:
    """Exports moving forward in time. Every change really changes the customer (a new city or a
    new first name), and an export may hold several changes of one customer."""
    rng = random.Random(seed)
    state: dict = {}
    clock = datetime(2024, 1, 1, 9, 0)
    out = []
    for _ in range(exports):
        changes = []
        for _ in range(rng.randint(3, 6)):
            customer = rng.randrange(1, customers + 1)
            old = state.get(customer)
            while True:
                new = {"name": f"{rng.choice(FIRST_NAMES)} {LAST_NAMES[customer % len(LAST_NAMES)]}",
                       "city": rng.choice(CITIES)}
                if new != old:
                    break
            state[customer] = new
            clock += timedelta(minutes=rng.randint(1, 90))
            changes.append({"customer_id": customer, **new, "updated_at": clock.isoformat()})
        rng.shuffle(changes)  # an export is not sorted by time
        out.append(changes)
    return out


def write_export(directory: Path, number: int, changes: list) -> None:
    with open(Path(directory) / f"export-{number:03d}.json", "w") as f:
        for change in changes:
            f.write(json.dumps(change) + "\n")
