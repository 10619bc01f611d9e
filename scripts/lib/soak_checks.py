#!/usr/bin/env python3
"""The end-of-run checks of scripts/soak.sh, over the files it collected. Each command prints
one line per finding and a last `key=value ...` summary line, and exits 1 when a check fails.

  soak_checks.py rss SAMPLES START END [HOSTILE_START HOSTILE_END]
      SAMPLES: "epoch_s name pid rss_kib" lines. For every name that kept one pid for the whole
      run (never restarted): after the warm-up (the first 20% of [START, END]), the median RSS
      of the last third may exceed that of the first third by at most 10% + 8 MiB. With the
      hostile client's run: it must have run over all of that (from the warm-up's end to END,
      less one sample), and no sample while it ran may exceed the same bound either, so that
      what a hostile input holds for a while is caught too, not only what stays.
  soak_checks.py orders ACTIVITIES ORDERS ACCEPTED...
      ACTIVITIES: "activity_id initial_stock remaining" (MariaDB's seckill_activity and
      seckill_stock); ORDERS: "activity_id request_id user_id state" (seckill_order);
      ACCEPTED: ferry-bench seckill --accepted-out files. No activity with more orders than
      stock or with remaining + live orders != stock; every accepted request an order of its
      user in its activity, exactly once.
  soak_checks.py reconcile ACTIVITY JSON
      A Reconcile answer of the JSON gateway: its invariants hold, nothing left unwritten or
      queued, and the cache's stock is the database's.
"""
import json
import statistics
import sys
from collections import defaultdict

RSS_GROWTH_RATIO = 0.10
RSS_GROWTH_SLACK_KIB = 8 * 1024
WARM_UP_SHARE = 0.2
SAMPLE_GAP_S = 5  # the sampler's 2 s, and what a loaded machine adds


def rss(samples_path, start, end, hostile_start=None, hostile_end=None):
    start, end = float(start), float(end)
    warm_end = start + WARM_UP_SHARE * (end - start)
    third = (end - warm_end) / 3
    failed = False
    hostile = hostile_start is not None
    if hostile:
        hostile_start, hostile_end = float(hostile_start), float(hostile_end)
        if hostile_start > warm_end or hostile_end < end - SAMPLE_GAP_S:
            # A client that stopped early would leave part of the run unmeasured under it.
            print(f"rss: the hostile client ran from +{hostile_start - start:.0f} s to "
                  f"+{hostile_end - start:.0f} s, not over the measured +{warm_end - start:.0f} s "
                  f"to +{end - start:.0f} s")
            failed = True
    series = defaultdict(list)  # (name, pid) -> [(t, kib)]
    pids = defaultdict(set)
    with open(samples_path) as f:
        for line in f:
            t, name, pid, kib = line.split()
            pids[name].add(pid)
            series[(name, pid)].append((float(t), int(kib)))
    checked = 0
    worst = 0.0
    for (name, pid), points in sorted(series.items()):
        if len(pids[name]) != 1:
            continue  # restarted: its memory starts over
        first = [kib for t, kib in points if warm_end <= t < warm_end + third]
        last = [kib for t, kib in points if t >= end - third]
        if len(first) < 2 or len(last) < 2:
            print(f"rss {name}: too few samples after the warm-up ({len(first)}, {len(last)})")
            failed = True
            continue
        a, b = statistics.median(first), statistics.median(last)
        growth = (b - a) / a * 100
        bound = a * (1 + RSS_GROWTH_RATIO) + RSS_GROWTH_SLACK_KIB
        verdict = "ok" if b <= bound else "GREW"
        peak_text = ""
        if hostile:
            peak = max((kib for t, kib in points
                        if max(warm_end, hostile_start) <= t <= hostile_end), default=0)
            peak_text = f", peak while hostile {peak / 1024:.1f} MiB"
            if peak > bound and verdict == "ok":
                verdict = "PEAKED"
        checked += 1
        worst = max(worst, growth)
        print(f"rss {name} (pid {pid}): {a / 1024:.1f} MiB -> {b / 1024:.1f} MiB "
              f"({growth:+.1f}%{peak_text}, bound {bound / 1024:.1f} MiB) {verdict}")
        failed |= verdict != "ok"
    print(f"rss_checked={checked} rss_growth_max={worst:.1f}%")
    return 1 if failed or checked == 0 else 0


def orders(activities_path, orders_path, accepted_paths):
    stock = {}
    remaining = {}
    with open(activities_path) as f:
        for line in f:
            activity, initial, left = line.split()
            stock[activity] = int(initial)
            remaining[activity] = int(left)
    live = defaultdict(int)
    total = defaultdict(int)
    # The idempotency key is (user, activity, sku, request id): buyers may share an id.
    orders_of = defaultdict(int)  # (activity, request_id, user) -> orders
    with open(orders_path) as f:
        for line in f:
            activity, request, user, state = line.split()
            total[activity] += 1
            if state in ("UNPAID", "PAID"):
                live[activity] += 1
            orders_of[(activity, request, user)] += 1
    oversell = 0
    for activity, initial in sorted(stock.items(), key=lambda kv: int(kv[0])):
        if total[activity] > initial:
            oversell += total[activity] - initial
            print(f"oversell: activity {activity}: {total[activity]} orders, stock {initial}")
        if remaining[activity] + live[activity] != initial:
            oversell += max(0, live[activity] + remaining[activity] - initial)
            print(f"stock: activity {activity}: remaining {remaining[activity]} + live orders "
                  f"{live[activity]} != stock {initial}")
    accepted = 0
    lost = 0
    for path in accepted_paths:
        with open(path) as f:
            for line in f:
                activity, request, user = line.split()
                accepted += 1
                found = orders_of.get((activity, request, user), 0)
                if found != 1:
                    lost += 1
                    if lost <= 20:
                        print(f"lost: accepted request {request} of {user} in activity "
                              f"{activity}: orders {found}")
    broken_stock = any(remaining[a] + live[a] != stock[a] for a in stock)
    print(f"activities={len(stock)} orders={sum(total.values())} accepted={accepted} "
          f"oversell={oversell} lost={lost}")
    return 1 if oversell or lost or broken_stock else 0


def reconcile(activity, text):
    try:
        r = json.loads(text)
    except ValueError:
        print(f"reconcile: activity {activity}: not a Reconcile answer: {text[:200]!r}")
        return 1
    # Protobuf's JSON mapping leaves out zeros and false, and writes 64-bit integers as strings.
    def get(key):
        return int(r.get(key, 0))
    if get("cacheStock") == -1 and not get("reservations") and \
            get("databaseStock") == get("initialStock"):
        return 0  # never opened: its Preheat failed while Redis was down
    problems = []
    if not r.get("invariantsHold", False):
        problems.append("invariants broken: " + "; ".join(r.get("violations", [])))
    if get("reservationsWithoutOrder"):
        problems.append(f"{get('reservationsWithoutOrder')} reservations without an order")
    if get("queueBacklog"):
        problems.append(f"queue backlog {get('queueBacklog')}")
    if get("cacheStock") != get("databaseStock"):
        problems.append(f"cache stock {get('cacheStock')} != database stock "
                        f"{get('databaseStock')}")
    for p in problems:
        print(f"reconcile: activity {activity}: {p}")
    return 1 if problems else 0


def main(argv):
    if len(argv) in (4, 6) and argv[0] == "rss":
        return rss(*argv[1:])
    if len(argv) >= 3 and argv[0] == "orders":
        return orders(argv[1], argv[2], argv[3:])
    if len(argv) == 3 and argv[0] == "reconcile":
        return reconcile(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
