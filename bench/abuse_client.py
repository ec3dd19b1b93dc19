#!/usr/bin/env python3
"""Abusive clients for bench_server_abuse.sh, on loopback only. Each prints one line of key=value.

  abuse_client.py chunked PORT TOKEN TOTAL_MIB
      one chunked POST of TOTAL_MIB to /api/v1/results in 64 KiB chunks, stopping at the first
      byte of an answer: status, MiB sent before it, seconds.
  abuse_client.py slowloris PORT TOKEN UPLOAD_FILE CONNECTIONS
      opens CONNECTIONS connections (250 per source address 127.0.0.2...), half idle, half
      trickling a header byte per second each; meanwhile times /healthz and uploads on fresh
      connections (medians of 20 and 10; 'none' when no answer came within 10 s).
  abuse_client.py pages PORT PATH VIEWS
      VIEWS concurrent GETs of PATH: wall seconds, bytes of one page, failures.
  abuse_client.py bodies PORT METHOD PATH CONNECTIONS MIB HOLD_S [TOKEN]
      CONNECTIONS connections each send METHOD PATH with a chunked body of up to MIB MiB that
      never ends (stopping at an answer), hold it HOLD_S seconds, then close: how many were
      answered before their body was sent, with which statuses, MiB sent in all.
  abuse_client.py views PORT PATH [PATH...]
      one GET of each PATH, all at once, while /healthz is timed every 50 ms on fresh
      connections from another process: wall seconds, p99 of the views, slowest /healthz, failures.
"""
import http.client
import multiprocessing
import os
import resource
import socket
import statistics
import sys
import threading
import time


def timed_get(port, path, headers=None, timeout=10.0):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        c.close()
        return time.monotonic() - t0, r.status, len(body)
    except Exception:
        return None, 0, 0


def timed_upload(port, token, body, timeout=10.0):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("POST", "/f/client.php", body=body,
                  headers={"Authorization": "Bearer " + token, "Content-Type": "application/x-www-form-urlencoded"})
        r = c.getresponse()
        r.read()
        c.close()
        return (time.monotonic() - t0) if r.status == 200 else None
    except Exception:
        return None


def chunked(port, token, total_mib):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(("POST /api/v1/results HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer %s\r\n"
               "Content-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n" % token).encode())
    chunk = b"10000\r\n" + b"a" * 65536 + b"\r\n"
    sent = 0
    t0 = time.monotonic()
    s.setblocking(False)
    answered = b""
    import select
    while sent < total_mib << 20:
        r, w, _ = select.select([s], [s], [], 30)
        if r:
            try:
                answered = s.recv(4096)
            except OSError:
                answered = b""
            break
        if w:
            try:
                n = s.send(chunk)
            except OSError:
                break
            if n < len(chunk):  # finish this chunk before checking again
                s.setblocking(True)
                try:
                    s.sendall(chunk[n:])
                except OSError:
                    break
                s.setblocking(False)
            sent += 65536
    if not answered:
        s.setblocking(True)
        s.settimeout(600)
        try:
            s.sendall(b"0\r\n\r\n")
            answered = s.recv(4096)
        except OSError:
            pass
    took = time.monotonic() - t0
    status = answered.split(b" ")[1].decode() if answered.startswith(b"HTTP/") else "none"
    print("status=%s sent_mib=%.1f seconds=%.2f" % (status, sent / 1048576, took))


def slowloris(port, token, upload_file, connections):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    body = open(upload_file, "rb").read()
    socks = []
    t0 = time.monotonic()
    for i in range(connections):
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + i // 250), 0))
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        socks.append(s)
    opened = time.monotonic() - t0
    stop = threading.Event()
    line = b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 1000

    def trickle():
        k = 0
        while not stop.is_set():
            for s in socks[::2]:
                try:
                    s.send(line[k % len(line):k % len(line) + 1])
                except OSError:
                    pass
            k += 1
            stop.wait(1.0)

    th = threading.Thread(target=trickle)
    th.start()
    time.sleep(3)
    def probe(fn, n):  # n tries; three unanswered in a row end it (each waited 10 s)
        out = []
        for _ in range(n):
            out.append(fn())
            if len(out) >= 3 and out[-3:] == [None, None, None]:
                break
        return out + [None] * (n - len(out))
    health = probe(lambda: timed_get(port, "/healthz")[0], 20)
    uploads = probe(lambda: timed_upload(port, token, body), 10)
    alive = 0
    for s in socks:
        try:
            alive += s.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    stop.set()
    th.join()
    for s in socks:
        s.close()

    def med(xs):
        ok = [x for x in xs if x is not None]
        if len(ok) < len(xs):
            return "none(%d/%d answered)" % (len(ok), len(xs))
        return "%.1f" % (statistics.median(ok) * 1000)
    print("connections=%d open_after=%d opened_s=%.1f healthz_ms=%s upload_ms=%s" %
          (connections, alive, opened, med(health), med(uploads)))


def pages(port, path, views):
    results = [None] * views

    def one(i):
        results[i] = timed_get(port, path, timeout=120)

    t0 = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(views)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    failed = sum(1 for r in results if r[0] is None or r[1] != 200)
    size = max(r[2] for r in results)
    print("views=%d wall_s=%.2f page_mb=%.1f failed=%d" % (views, took, size / 1e6, failed))


def bodies(port, method, path, connections, mib, hold, token=""):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    head = "%s %s HTTP/1.1\r\nHost: b\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n" % (method, path)
    if token:
        head += "Authorization: Bearer %s\r\n" % token
    head = (head + "\r\n").encode()
    chunk = b"10000\r\n" + b"a" * 65536 + b"\r\n"
    statuses, sent = {}, [0]
    lock = threading.Lock()
    socks = []

    def one(i):  # 127.0.0.x: 100 connections per source address, under the per-address cap
        import select
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + i // 100), 0))
        s.settimeout(60)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(head)
            status = "none"
            for _ in range(mib * 16):
                r, _, _ = select.select([s], [], [], 0)
                if r:
                    break
                s.sendall(chunk)
                with lock:
                    sent[0] += 65536
            r, _, _ = select.select([s], [], [], 0.2)
            if r:
                answer = s.recv(4096)
                status = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "closed"
        except OSError:
            status = "error"
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            socks.append(s)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(hold)
    for s in socks:
        s.close()
    answered = ",".join("%s:%d" % kv for kv in sorted(statuses.items()))
    print("connections=%d statuses=%s sent_mib=%.0f" % (connections, answered, sent[0] / 1048576))


def probe_healthz(port, stop, out):
    """/healthz every 50 ms until `stop`: seconds per answer, None for a failed one."""
    # A health checker is another machine. Here it shares a core with the 20 readers, and at their
    # priority it waited for them (40-150 ms of the slowest answer was the prober's own wait): it
    # takes the CPU first (SCHED_FIFO, as root). PROBE_FIFO=0: at the readers' priority.
    if os.environ.get("PROBE_FIFO", "1") != "0":
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
        except PermissionError:
            pass
    health = []
    while not stop.is_set():
        took, status, _ = timed_get(port, "/healthz")
        health.append(took if status in (200, 503) else None)
        stop.wait(0.05)
    out.put(health)


def views(port, paths):
    # The prober is a process of its own: as a thread it shared the GIL with the 20 readers of
    # multi-megabyte answers, and timed their Python, not the server (up to 470 ms before).
    stop = multiprocessing.Event()
    answers = multiprocessing.Queue()

    results = [None] * len(paths)

    def one(i):
        results[i] = timed_get(port, paths[i], timeout=300)

    prober = multiprocessing.Process(target=probe_healthz, args=(port, stop, answers))
    prober.start()
    t0 = time.monotonic()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    stop.set()
    health = answers.get()
    prober.join()
    ok = sorted(r[0] for r in results if r[0] is not None and r[1] == 200)
    failed = len(paths) - len(ok)
    p99 = ok[min(len(ok) - 1, int(len(ok) * 0.99))] * 1000 if ok else float("nan")
    worst = max((h for h in health if h is not None), default=float("nan")) * 1000
    lost = sum(1 for h in health if h is None)
    print("views=%d wall_s=%.2f p99_ms=%.0f healthz_max_ms=%.0f healthz_failed=%d failed=%d" %
          (len(paths), took, p99, worst, lost, failed))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "chunked":
        chunked(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif mode == "slowloris":
        slowloris(int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif mode == "pages":
        pages(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif mode == "bodies":
        bodies(int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7]),
               sys.argv[8] if len(sys.argv) > 8 else "")
    elif mode == "views":
        views(int(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(__doc__)
