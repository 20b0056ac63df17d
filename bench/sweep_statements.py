#!/usr/bin/env python3
"""The feed statements a sweep runs per page, timed natively on Python's SQLite with a large
feed: 100,000 dead letters of 20,000 entities (the largest `keep`), 25,000 entity objects
reporting dead rows, and a registry of 100,000 entities; and the registry's upsert per batch
of notes. Statements are read from edge/src/store/feed/statements.rs as the object runs them.

    python3 bench/sweep_statements.py
"""
import json
import re
import sqlite3
import time
from pathlib import Path

SRC = (Path(__file__).resolve().parent.parent / "edge/src/store/feed/statements.rs").read_text()


def const(name):
    return re.search(r"pub const " + name + r': &str =\s*"(.*?)";', SRC, re.S).group(1)


def timed(c, sql, args, n=20):
    start = time.perf_counter()
    for _ in range(n):
        rows = c.execute(sql, args).fetchall()
    return (time.perf_counter() - start) / n * 1e3, len(rows)


c = sqlite3.connect(":memory:")
c.executescript(const("SCHEMA"))
dest = lambda i: "billing" if i % 3 else "audit"
c.executemany(const("DEAD"), [(f"cus_{i % 20000:06d}", f"evt_{i}", dest(i), 5, "503", i) for i in range(100000)])
c.executemany(const("KEEP_OUTBOX"), [(f"s/e/cus_{i:06d}", "billing", 0, None, 3) for i in range(0, 50000, 2)])
for b in range(0, 100000, 1000):
    c.execute(const("SEEN"), (json.dumps([[f"cus_{i:06d}", i] for i in range(b, b + 1000)]),))
c.commit()
print(f"SQLite {sqlite3.sqlite_version}")
dead = const("DEAD_CANDIDATES")
for label, args in [
    ("dead, first page of 101", ("billing", None, None, None, 101, "s/e/")),
    ("dead, a middle page", ("billing", None, None, "cus_025000", 101, "s/e/")),
    ("dead, died since", ("billing", 90000, None, "cus_010000", 101, "s/e/")),
    ("dead, a rare destination", ("audit", None, 50, None, 10, "s/e/")),
]:
    ms, n = timed(c, dead, args)
    print(f"{label:28} {ms:7.2f} ms  {n} entities")
for label, args in [("recorded, every one since", (0, None, 101)), ("recorded, few since", (99000, None, 101))]:
    ms, n = timed(c, const("RECORDED_CANDIDATES"), args)
    print(f"{label:28} {ms:7.2f} ms  {n} entities")
n = 2000
start = time.perf_counter()
for k in range(n):
    c.execute(const("SEEN"), (json.dumps([[f"cus_{(k * 37 + j) % 150000:06d}", 200000 + k] for j in range(20)]),))
    c.execute(const("FORGET_ENTITIES"), (k,))
print(f"{'registry, a batch of 20':28} {(time.perf_counter() - start) / n * 1e6:7.0f} us  (SEEN + FORGET_ENTITIES)")
