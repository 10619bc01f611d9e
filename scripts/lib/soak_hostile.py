#!/usr/bin/env python3
"""The soak's hostile client: while the load runs, sends the providers' ports (binary protocol
and HTTP alike) the inputs the server's limits exist for, each bounded in size and a few
connections at a time, with a pause between rounds, so that it stays a small share of the
machine. It sends nothing that could buy anything: its HTTP requests are refused before any
handler runs, and its only served calls are Echo and the public GetActivity.

  soak_hostile.py --deadline EPOCH --summary FILE [--pause S] NAME=PORT:KIND...
      KIND is echo or seckill (which service's gateway route and method to aim at). Runs until
      EPOCH or SIGTERM, then writes FILE: per input, how many it sent and how each ended, and a
      last `key=value ...` line. Exits 0, or 1 when a provider accepted what it must refuse or
      kept open a connection it must close, or an input failed on its own (`UNEXPECTED` lines).

How an input ends: an HTTP status and whether the server then closed (`431/closed`), `closed`
or `reset` (closed before any answer: closing with our bytes unread resets the connection, which
may lose the answer), `answered` (a binary answer came), `open` (still open when we gave
up waiting), `refused` (the provider was down: the chaos).
"""
import argparse
import random
import select
import signal
import socket
import struct
import sys
import threading
import time
from collections import Counter, defaultdict

STOP = threading.Event()
LOCK = threading.Lock()
SENT = Counter()  # input -> connections (or frames / requests, as counted by the input)
OUTCOMES = defaultdict(Counter)  # input -> outcome -> count
REACHED = defaultdict(set)  # target name -> inputs that got through connect
UNEXPECTED = []  # "input target: outcome" lines

MIB = 1 << 20
# What the server is configured to do with them (docs/http.md, Limits; docs/configuration.md,
# server.limits), plus slack for a loaded 2-core machine: the waits before `open` is a finding.
FIRST_BYTE_TIMEOUT_S = 10
FRAME_TIMEOUT_S = 30
REQUEST_TIMEOUT_S = 10
SLACK_S = 15

# Routes per KIND: a gateway POST whose body never parses (or never arrives), and a binary
# method that is a read.
GATEWAY = {"echo": "/ferry.demo.EchoService/Echo",
           "seckill": "/ferry.seckill.SeckillService/GetActivity"}
METHOD = {"echo": (b"ferry.demo.EchoService", b"Echo"),
          "seckill": (b"ferry.seckill.SeckillService", b"GetActivity")}
REPEATED_KEY = {"echo": b'"payload":"aGk=",', "seckill": b'"activityId":"1",'}


def record(name, target, outcome, unexpected=False):
    with LOCK:
        OUTCOMES[name][outcome] += 1
        if unexpected:
            UNEXPECTED.append(f"{name} {target[0]}: {outcome}")


def connect(name, target, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        # Before connect, so the kernel does not grow it: the server's answers pile up on its
        # side of the connection instead of in ours.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", target[1]))
    except OSError:
        s.close()
        record(name, target, "refused")
        return None
    with LOCK:
        SENT[name] += 1
        REACHED[target[0]].add(name)
    s.setblocking(False)
    return s


def send(s, data, seconds=5.0):
    """Sends what the server takes within `seconds`; returns the bytes sent, or -1 when the
    server closed or reset the connection first (the defence kicking in, or the chaos)."""
    view, sent, until = memoryview(data), 0, time.monotonic() + seconds
    while sent < len(view) and time.monotonic() < until and not STOP.is_set():
        try:
            sent += s.send(view[sent:sent + 65536])
        except BlockingIOError:
            select.select([], [s], [], 0.2)
        except OSError:
            return -1
    return sent


def state(s):
    """Without waiting: open, closed or reset (what the server did so far)."""
    try:
        return "closed" if s.recv(1, socket.MSG_PEEK) == b"" else "open"
    except BlockingIOError:
        return "open"
    except OSError:
        return "reset"


def await_end(s, seconds, enough=None):
    """Reads (and drops) what the server sends until it closes, `enough(first bytes)` holds,
    `seconds` pass or STOP. Returns (the first bytes it sent, how it ended: closed, reset, open
    or stopped)."""
    head, until = b"", time.monotonic() + seconds
    while not STOP.is_set():
        if enough and enough(head):
            return head, "open"
        left = until - time.monotonic()
        if left <= 0:
            return head, "open"
        select.select([s], [], [], min(left, 0.5))
        try:
            chunk = s.recv(65536)
        except BlockingIOError:
            continue
        except OSError:
            return head, "reset"
        if not chunk:
            return head, "closed"
        if len(head) < 4096:
            head += chunk[:4096 - len(head)]
    return head, "stopped"


def http_status(head):
    if head.startswith(b"HTTP/1.1 ") and len(head) >= 12:
        return head[9:12].decode("ascii", "replace")
    return None


def http_refused(name, target, request, expect, seconds=REQUEST_TIMEOUT_S + SLACK_S,
                 then=b"", must_close=True):
    """Sends `request` (then `then`, to the extent the server takes it) and waits for the
    answer: one of `expect`, and, when `must_close`, the connection closed after it. A 503
    (the provider draining) is the chaos, not a finding."""
    s = connect(name, target)
    if s is None:
        return
    try:
        if send(s, request) >= 0 and then:
            # Bit by bit, reading as we go, so that the answer is read before the reset that
            # a close with our bytes unread causes.
            view = memoryview(then)
            for at in range(0, len(view), 16384):
                if STOP.is_set() or select.select([s], [], [], 0)[0]:
                    break
                if send(s, view[at:at + 16384], 2) < 0:
                    break
        # Refused and closed: wait for the close. Refused and served on: for the status line.
        head, how = await_end(s, seconds, None if must_close else lambda h: b"\r\n" in h)
        status = http_status(head)
        outcome = f"{status or '-'}/{how}"
        bad = (status is not None and status not in expect and status != "503") or \
            (how == "open" and (must_close or status is None))
        record(name, target, outcome, bad)
    finally:
        s.close()


# --- HTTP --------------------------------------------------------------------------------------
def pipeline(target):
    """2,000 GET /metrics on each of 3 connections that never read their answers: the server
    must answer them one at a time, holding an answer or two per connection, not hundreds."""
    request = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    socks = [s for s in (connect("pipeline", target, rcvbuf=4096) for _ in range(3)) if s]
    try:
        for s in socks:
            sent = send(s, request * 2000, 1)
            with LOCK:
                SENT["pipeline.requests"] += max(sent, 0) // len(request)
        STOP.wait(4)
        for s in socks:
            # Open, the server holding their answers, unless the chaos took the provider.
            record("pipeline", target, state(s))
    finally:
        for s in socks:
            s.close()


HEAD_POST = "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def chunk_extension(target):
    """A chunk-size line whose extension never ends: refused at max_header_bytes (16 KiB)."""
    head = (HEAD_POST.format(path=GATEWAY[target[2]]) + "Transfer-Encoding: chunked\r\n\r\n")
    http_refused("chunk_extension", target, head.encode() + b"1;e=", {"431", "400"},
                 then=b"a" * MIB)


def chunk_trailer(target):
    """A last chunk whose trailer never ends: refused at max_header_bytes too."""
    head = (HEAD_POST.format(path=GATEWAY[target[2]]) + "Transfer-Encoding: chunked\r\n\r\n")
    http_refused("chunk_trailer", target, head.encode() + b"1\r\n{\r\n0\r\n", {"431", "400"},
                 then=b"x-pad: aaaaaaaa\r\n" * (MIB // 17))


def json_post(path, body):
    return (HEAD_POST.format(path=path) + f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def json_deep(target):
    """100,000 nested arrays: refused at the 101st, at the cost of its first hundred bytes; the
    connection serves on (keep-alive)."""
    http_refused("json_deep", target, json_post(GATEWAY[target[2]], b"[" * 100000), {"400"},
                 must_close=False)


def json_repeated_key(target):
    """One key 10,000 times in one object: refused at the second."""
    body = b"{" + REPEATED_KEY[target[2]] * 10000 + REPEATED_KEY[target[2]].rstrip(b",") + b"}"
    http_refused("json_repeated_key", target, json_post(GATEWAY[target[2]], body), {"400"},
                 must_close=False)


def te_gzip(target):
    """Transfer-Encoding gzip without chunked: the body's length is unknown (RFC 9112 6.3)."""
    head = HEAD_POST.format(path=GATEWAY[target[2]]) + "Transfer-Encoding: gzip\r\n\r\n"
    http_refused("te_gzip", target, head.encode() + b"\x1f\x8b" + b"\0" * 64, {"400"})


def header_cr(target):
    """A CR alone inside a header value, the makings of a split request."""
    http_refused("header_cr", target,
                 b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Split: a\rb\r\n\r\n", {"400"})


def header_huge(target):
    """One header of 256 KiB, past max_header_bytes (16 KiB)."""
    http_refused("header_huge", target,
                 b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ", {"431"},
                 then=b"a" * (256 << 10) + b"\r\n\r\n")


# --- binary frames (docs/protocol.md) --------------------------------------------------------
REQUEST, HEARTBEAT, CANCEL = 0, 2, 3


def frame(kind, request_id=0, meta=b"", body=b"", body_length=None):
    header = struct.pack(">HBBBBBBHHQII", 0xFE52, 1, 2, kind, 0, 0, 0, 0, 0, request_id,
                         len(meta), len(body) if body_length is None else body_length)
    return header + meta + body


def field(number, value):  # a protobuf length-delimited field
    key, length, out = (number << 3) | 2, len(value), b""
    for v in (key, length):
        while v >= 0x80:
            out += bytes([(v & 0x7F) | 0x80])
            v >>= 7
        out += bytes([v])
    return out + value


def request_meta(target, trace_id=b""):
    service, method = METHOD[target[2]]
    return field(1, service) + field(2, method) + (field(4, trace_id) if trace_id else b"")


def binary(name, target, data, expect, seconds):
    """Sends `data` and waits `seconds` for how the server ends it: `expect` is `closed` (a
    reset too) or `answered` (a frame came back, the connection serving on). False when the
    provider was down."""
    s = connect(name, target)
    if s is None:
        return False
    try:
        if send(s, data) < 0:
            record(name, target, "reset")
            return True
        whole_header = (lambda h: len(h) >= 28) if expect == "answered" else None
        head, how = await_end(s, seconds, whole_header)
        if expect == "answered":
            how = "answered" if head[:2] == b"\xfe\x52" else how
        record(name, target, how, how == "open")
        return True
    finally:
        s.close()


def frame_stall(target):
    """A header claiming a body of 16 MiB less a KiB (within max_frame_bytes), 10 bytes of it,
    then silence: the buffer holds what came, and frame_timeout_ms (30 s) closes it."""
    meta = request_meta(target)
    data = frame(REQUEST, 1, meta, body_length=16 * MIB - 1024) + b"\0" * 10
    binary("frame_stall", target, data, "closed", FRAME_TIMEOUT_S + SLACK_S)


def frame_huge(target):
    """A header claiming a 4 GiB body: closed as soon as the 28 header bytes are in."""
    binary("frame_huge", target, frame(REQUEST, 1, b"", b"", body_length=0xFFFFFFFF), "closed",
           SLACK_S)


GARBAGE = random.Random(7).randbytes(4096)


def frame_garbage(target):
    """The magic, then noise (version, lengths and all)."""
    binary("frame_garbage", target, b"\xfe\x52" + GARBAGE, "closed", SLACK_S)


def trace_id_64k(target):
    """A served call whose trace id is 64 KiB less 64 bytes (the meta within its 64 KiB limit):
    answered under a fresh trace id, which is what keeps it out of the logs."""
    service, method = METHOD[target[2]]
    pad = 65536 - 64 - len(field(1, service) + field(2, method))
    binary("trace_id_64k", target, frame(REQUEST, 1, request_meta(target, b"f" * pad)),
           "answered", SLACK_S)


def meta_over(target):
    """The same with a trace id of a whole 64 KiB: the meta is past its limit, closed."""
    binary("meta_over", target, frame(REQUEST, 1, request_meta(target, b"f" * 65536)), "closed",
           SLACK_S)


def cancels(target):
    """5,000 cancels of calls that were never sent, then a heartbeat, which must be answered:
    the connection serves on, and nothing is kept for the unknown ids."""
    ids = random.Random(target[1]).sample(range(1, 1 << 62), 5000)
    data = b"".join(frame(CANCEL, i) for i in ids) + frame(HEARTBEAT, 1)
    if binary("cancels", target, data, "answered", SLACK_S):
        with LOCK:
            SENT["cancels.frames"] += len(ids)


def silent(target):
    """Two connections that say nothing: first_byte_timeout_ms (10 s) closes them."""
    socks = [s for s in (connect("silent", target) for _ in range(2)) if s]
    began = time.monotonic()
    try:
        for s in socks:
            _, how = await_end(s, FIRST_BYTE_TIMEOUT_S + SLACK_S - (time.monotonic() - began))
            record("silent", target, how, how == "open")
            if how == "closed":
                with LOCK:
                    OUTCOMES["silent.seconds"][f"{time.monotonic() - began:.0f}"] += 1
    finally:
        for s in socks:
            s.close()


INPUTS = [pipeline, chunk_extension, chunk_trailer, json_deep, json_repeated_key, te_gzip,
          header_cr, header_huge, frame_stall, frame_huge, frame_garbage, trace_id_64k, meta_over,
          cancels, silent]
# These hold their connections 10 s and 30 s: a thread per target, so that each target has
# them from the start however short the run, rather than one target every 30 s in turn.
SLOW = {frame_stall, silent}


def worker(fn, targets, pause):
    # One thread per input (per target for SLOW), each over its targets in turn: a slow input
    # does not hold back the others.
    i = 0
    while not STOP.is_set():
        target = targets[i % len(targets)]
        i += 1
        try:
            fn(target)
        except Exception as e:  # a bug here must not end the run unseen
            record(fn.__name__, target, f"error {type(e).__name__}: {e}", True)
        STOP.wait(pause)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadline", type=float, required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--pause", type=float, default=1.0)
    parser.add_argument("targets", nargs="+")
    args = parser.parse_args()
    targets = []
    for t in args.targets:
        name, rest = t.split("=")
        port, kind = rest.split(":")
        targets.append((name, int(port), kind))
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    started = time.time()
    threads = [threading.Thread(target=worker, args=(fn, group, args.pause), daemon=True)
               for fn in INPUTS
               for group in ([[t] for t in targets] if fn in SLOW else [targets])]
    for t in threads:
        t.start()
    while not STOP.is_set() and time.time() < args.deadline:
        STOP.wait(min(0.5, max(0.0, args.deadline - time.time())))
    STOP.set()
    stopped = time.time()
    for t in threads:  # every wait checks STOP at least every 0.5 s; 5 s for them all
        t.join(max(0.0, stopped + 5 - time.time()))
    with LOCK, open(args.summary, "w") as out:
        out.write(f"hostile client: {stopped - started:.0f} s against "
                  + ", ".join(f"{n} :{p}" for n, p, _ in targets) + "\n")
        for fn in INPUTS:
            name = fn.__name__
            extra = "".join(f", {SENT[k]} {k.split('.')[1]}" for k in SENT
                            if k.startswith(name + "."))
            ends = ", ".join(f"{o} {c}" for o, c in sorted(OUTCOMES[name].items()))
            out.write(f"  {name}: {SENT[name]} connections{extra}; {ends or 'none'}\n")
        if OUTCOMES["silent.seconds"]:
            out.write("  silent connections closed after (s): " + ", ".join(
                f"{s} x{c}" for s, c in sorted(OUTCOMES["silent.seconds"].items())) + "\n")
        for line in UNEXPECTED[:20]:
            out.write(f"  UNEXPECTED {line}\n")
        closed = sum(c for fn in INPUTS for o, c in OUTCOMES[fn.__name__].items()
                     if o.endswith(("closed", "reset")))
        reached = ",".join(f"{n}:{len(REACHED[n])}" for n, _, _ in targets)
        out.write(f"hostile_start={started:.3f} hostile_end={stopped:.3f} "
                  f"connections={sum(SENT[fn.__name__] for fn in INPUTS)} "
                  f"server_closed={closed} unexpected={len(UNEXPECTED)} "
                  f"inputs={len(INPUTS)} reached={reached}\n")
    return 1 if UNEXPECTED else 0


if __name__ == "__main__":
    sys.exit(main())
