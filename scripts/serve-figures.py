#!/usr/bin/env python3
"""Figures for docs/serve.md: `mercurial serve` under load on loopback.

    python3 scripts/serve-figures.py [.build/release/mercurial] [--quick]

Starts the server (release build) and measures, in one run:
  1. cold cards at low load: one client, every request a new 1200x630 card;
  2. cached cards at low load: one client, the same card again (memory cache);
  3. throughput with wrk: cold (every request new) and cached, 2 threads;
  4. overload: wrk with 200 connections of new cards, far past the workers and the
     queue: the share of 429s, the server's peak memory (VmHWM), and how soon a
     request goes through after the load stops.
Client-side latencies are from Python's http.client on one keep-alive connection;
wrk reports its own. Prints a Markdown table of medians and 99th percentiles.
"""
import http.client
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
QUICK = "--quick" in sys.argv
BIN = os.path.abspath(args[0]) if args else os.path.join(ROOT, ".build/release/mercurial")
N_COLD = 60 if QUICK else 300
N_CACHED = 300 if QUICK else 2000
WRK_SECONDS = 4 if QUICK else 10
CARD = "/v1/render?width=1200&height=630&size=120&background=%2320283a&format={fmt}&text={text}"


def start(extra=()):
    process = subprocess.Popen([BIN, "serve", "--port", "0", *extra], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    line = ""
    while time.time() < deadline:
        line = process.stdout.readline()
        if line:
            break
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        process.kill()
        sys.exit(f"error: the server printed no URL line: {line!r}")
    return process, int(m.group(1))


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        return None


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


last_size = 0


def timed_gets(port, paths):
    """Latencies (ms) of GETs on one keep-alive connection, and their Server-Timing durations."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    client, server = [], []
    global last_size
    for path in paths:
        t = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        client.append((time.perf_counter() - t) * 1000)
        last_size = len(body)
        if r.status != 200 or not body:
            sys.exit(f"error: {path} answered {r.status}: {body[:200]!r}")
        timing = r.getheader("Server-Timing") or ""
        m = re.search(r"dur=([0-9.]+)", timing)
        if m:
            server.append(float(m.group(1)))
    conn.close()
    return client, server


WRK_NEW_CARDS = r"""
local counter = 0
local id = 0
function setup(thread) id = id + 1; thread:set("id", id) end
function init(args) counter = 0 end
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/render?width=1200&height=630&size=120&background=%2320283a&format=FMT&text=W" .. id .. "-" .. counter .. "-RUN")
end
"""


def wrk(port, connections, seconds, script=None, path="/"):
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    if script:
        command += ["-s", script]
    command.append(f"http://127.0.0.1:{port}{path}")
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60).stdout
    def grab(pattern, cast=float, default=0.0):
        m = re.search(pattern, out)
        return cast(m.group(1)) if m else default
    def ms(text):
        value, unit = re.match(r"([0-9.]+)(us|ms|s)", text).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    return {
        "rps": grab(r"Requests/sec:\s+([0-9.]+)"),
        "requests": grab(r"(\d+) requests in", int, 0),
        "non2xx": grab(r"Non-2xx or 3xx responses: (\d+)", int, 0),
        "errors": out.count("Socket errors"),
        "p50": ms(p50.group(1)) if p50 else 0,
        "p99": ms(p99.group(1)) if p99 else 0,
        "raw": out,
    }


async def open_loop(port, rate, seconds, tag):
    """Requests for new cards sent at `rate` a second whatever the answers (an open
    loop, as visitors arrive), each on its own connection; returns (status, ms) pairs."""
    import asyncio
    results = []

    async def one(i):
        t = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            path = CARD.format(fmt="jpg", text=f"Open{tag}-{i}")
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            head = await asyncio.wait_for(reader.readline(), 30)
            await reader.read()
            writer.close()
            results.append((int(head.split()[1]), (time.perf_counter() - t) * 1000))
        except Exception:
            results.append((0, (time.perf_counter() - t) * 1000))

    tasks = []
    start = time.perf_counter()
    for i in range(int(rate * seconds)):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(i)))
    await asyncio.gather(*tasks)
    return results


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"error: no mercurial binary at {BIN}; build it with 'swift build -c release --product mercurial --product mercurial-serve-server'")
    if shutil.which("wrk") is None:
        sys.exit("error: wrk is not installed (the load figures need it); install it with 'apt-get install wrk'")
    cores = os.cpu_count()
    rows = []
    run = str(int(time.time()))
    with tempfile.TemporaryDirectory() as scratch:
        for fmt in ("png", "jpg", "webp"):
            process, port = start()
            try:
                # Warm the process (fonts, material, shading) with one card, then measure.
                timed_gets(port, [CARD.format(fmt=fmt, text="Warm")])
                cold, cold_server = timed_gets(port, [CARD.format(fmt=fmt, text=f"Cold{run}-{i}") for i in range(N_COLD)])
                cached, _ = timed_gets(port, [CARD.format(fmt=fmt, text=f"Cold{run}-0")] * N_CACHED)
                rows.append((fmt, cold, cold_server, cached, last_size))
            finally:
                stop(process)

        print(f"Loopback, {cores} cores, release build; one client, one keep-alive connection; ms.\n")
        print("| format | card size | cold p50 | cold p99 | server-timing p50 | cached p50 | cached p99 |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for fmt, cold, cold_server, cached, size in rows:
            print(f"| {fmt} | {size / 1024:.0f} KB | {percentile(cold, 50):.1f} | {percentile(cold, 99):.1f} | "
                  f"{percentile(cold_server, 50):.1f} | {percentile(cached, 50):.2f} | {percentile(cached, 99):.2f} |")

        script = os.path.join(scratch, "new-cards.lua")
        with open(script, "w") as f:
            f.write(WRK_NEW_CARDS.replace("FMT", "jpg").replace("RUN", run))
        process, port = start()
        try:
            timed_gets(port, [CARD.format(fmt="jpg", text="Warm")])
            cold = wrk(port, 4, WRK_SECONDS, script=script)
            cached = wrk(port, 50, WRK_SECONDS, path=CARD.format(fmt="jpg", text="Warm"))
            rss_before = peak_rss_mb(process.pid)
            with open(script, "w") as f:
                f.write(WRK_NEW_CARDS.replace("FMT", "jpg").replace("RUN", run + "x"))
            overload = wrk(port, 200, WRK_SECONDS, script=script)
            rss_connections = peak_rss_mb(process.pid)
            import asyncio
            rate = 2 * cold["rps"]
            doubled = asyncio.run(open_loop(port, rate, WRK_SECONDS, run))
            # The first card after the load: asked for again every 10 ms while refused.
            t = time.perf_counter()
            refused = 0
            while True:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", CARD.format(fmt="jpg", text=f"After{run}"))
                status = conn.getresponse().status
                conn.close()
                if status == 200 or time.perf_counter() - t > 10:
                    break
                refused += 1
                time.sleep(0.01)
            recovery = (time.perf_counter() - t) * 1000
            rss = peak_rss_mb(process.pid)
            code = stop(process)
        finally:
            if process.poll() is None:
                process.kill()
        print(f"\nwrk, 2 threads, {WRK_SECONDS} s each, JPEG cards (q90) 1200x630:\n")
        print("| load | requests/s | per core | p50 ms | p99 ms | non-2xx |")
        print("|---|---:|---:|---:|---:|---:|")
        print(f"| cold, 4 connections | {cold['rps']:.0f} | {cold['rps'] / cores:.0f} | {cold['p50']:.1f} | {cold['p99']:.1f} | {cold['non2xx']} |")
        print(f"| cached, 50 connections | {cached['rps']:.0f} | {cached['rps'] / cores:.0f} | {cached['p50']:.2f} | {cached['p99']:.2f} | {cached['non2xx']} |")
        share = overload['non2xx'] / max(overload['requests'], 1) * 100
        print(f"| overload: cold, 200 connections | {overload['rps']:.0f} | {overload['rps'] / cores:.0f} | {overload['p50']:.1f} | {overload['p99']:.1f} | {overload['non2xx']} ({share:.0f} %, 429) |")
        ok = [ms for status, ms in doubled if status == 200]
        busy = [ms for status, ms in doubled if status == 429]
        other = len(doubled) - len(ok) - len(busy)
        print(f"\nOpen loop at twice the cold capacity ({rate:.0f} new cards a second for {WRK_SECONDS} s, a connection each): "
              f"{len(ok)} answered 200 (p50 {percentile(ok, 50) if ok else 0:.1f} ms, p99 {percentile(ok, 99) if ok else 0:.1f} ms), "
              f"{len(busy)} answered 429 (p50 {percentile(busy, 50) if busy else 0:.2f} ms), {other} other.")
        print(f"\nPeak memory (VmHWM): {rss_before:.0f} MB before the overloads, {rss_connections:.0f} MB after 200 connections, {rss:.0f} MB at the end; "
              f"the first card after it: {status} in {recovery:.1f} ms ({refused} refusals before it); SIGTERM: exit {code}.")


if __name__ == "__main__":
    main()
