#!/usr/bin/env python3
"""The figures of a drag (or of single changes) in `mercurial edit`, measured as the page makes it.

Starts `MERCURIAL_BINARY edit` (give a release build) on a scene of WxH (1920x1080 unless
--size says otherwise), connects to its WebSocket as the page does (/api/socket, the token
in the query, a same-origin Origin), and sends N radius changes one after another, each
the way editor.js sends a drag's batch: `{"id": I, "changes": [{"key": "radius", "value":
V}], "tag": T}`, the next one only once the frame showing this one has come (the page waits
for its frame too). Every frame is acknowledged with `{"have": F}`, as the page does.

Prints the median and p90 of
  answer  the change sent -> its answer on the socket (the session's apply and the socket)
  frame   the change sent -> the frame showing it
  render  the render time the server reports for that frame (its `ms`)
and the editor's peak RSS (from /usr/bin/time -v).

--key KEY changes another control (shininess, light1.hue, layers[0].size…) through a range that
suits it; --first V and --step S set that range (the page's radius drag: --first 60 --step 4); --scene FILE edits a copy of that scene (its folder's files alongside) instead of the
two-line title; --pause MS waits that long between changes: single changes, not a drag.

Usage: editor-drag-figures.py MERCURIAL_BINARY [--changes 30] [--size 1920x1080] [--key radius]
                              [--scene FILE] [--pause MS] [--first V] [--step S]
Needs only Python 3's standard library. Every wait has a deadline; the editor is ended
(SIGINT, then SIGKILL after 10 s) and its folder removed however the script ends.
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

DEADLINE = 60.0   # seconds for any one answer or frame


class Socket:
    """A minimal WebSocket client (RFC 6455): masked text frames out; text and binary messages in."""

    def __init__(self, port, path, origin):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
        # As a browser's: without it, a change sent right after a `have` waited for that one's
        # delayed ACK (Nagle), and every answer took 40 ms more.
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        request = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n") % (path, port, key, origin)
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            sys.exit("error: the editor refused the WebSocket: %s" % head.decode(errors="replace"))

    def _recv(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            sys.exit("error: the editor closed the WebSocket")
        return chunk

    def _take(self, n):
        while len(self.buffer) < n:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, obj):
        self._frame(0x1, json.dumps(obj).encode())

    def receive(self):
        """The next message: (is_text, bytes); pings are answered on the way."""
        message, kind = b"", None
        while True:
            b0, b1 = self._take(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._take(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._take(8))[0]
            payload = self._take(n)
            if opcode == 0x9:
                self._frame(0xA, payload)
                continue
            if opcode == 0x8:
                sys.exit("error: the editor closed the WebSocket")
            if opcode in (0x1, 0x2):
                kind = opcode
            message += payload
            if b0 & 0x80:
                return kind == 0x1, message


def percentile90(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]


def figures(name, values):
    return "%-7s median %6.1f ms  p90 %6.1f ms  min %6.1f  max %6.1f" % (
        name, statistics.median(values), percentile90(values), min(values), max(values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--key", default="radius")
    parser.add_argument("--scene")
    parser.add_argument("--pause", type=float, default=0, help="ms between changes (0: a drag)")
    parser.add_argument("--first", type=float, help="the first value (the key's own start otherwise)")
    parser.add_argument("--step", type=float, help="the step between values (the key's own otherwise)")
    args = parser.parse_args()
    # Each key's values: from FIRST by STEP, cycling over 20 steps (every value differs from the last).
    ranges = {"radius": (6.25, 0.5), "shininess": (0.02, 0.005), "scale": (5, 0.5), "size": (60, 2)}
    name = args.key.split(".")[-1]
    first, step = (0.0, 0.05) if name == "hue" else ranges.get(name, ranges["radius"])
    first = first if args.first is None else args.first
    step = step if args.step is None else args.step
    if args.changes < 1:
        sys.exit("error: --changes %d sends nothing; give 1 or more" % args.changes)
    match = re.fullmatch(r"(\d+)x(\d+)", args.size.lower())
    if not match:
        sys.exit("error: --size '%s' is not WxH; give e.g. 1920x1080" % args.size)
    width, height = int(match.group(1)), int(match.group(2))
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("error: '%s' is not an executable; give the mercurial binary (swift build -c release)" % args.binary)

    work = tempfile.mkdtemp(prefix="mercurial-drag-")
    scene = os.path.join(work, "scene.json")
    if args.scene:
        for entry in os.listdir(os.path.dirname(os.path.abspath(args.scene))):
            source = os.path.join(os.path.dirname(os.path.abspath(args.scene)), entry)
            if os.path.isfile(source):
                shutil.copy(source, work)
        shutil.copy(args.scene, scene)
    else:
        with open(scene, "w") as f:
            json.dump({"text": "Flex Monkey\nMercurial Text", "width": width, "height": height, "radius": 6}, f)
    timing = os.path.join(work, "time.txt")
    editor = subprocess.Popen(["/usr/bin/time", "-v", "-o", timing, binary, "edit", scene, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = editor.stdout.readline()
        if "http://" not in line:
            sys.exit("error: no URL line from mercurial edit: %r" % line)
        url = urllib.parse.urlparse(line.split()[-1])
        token = urllib.parse.parse_qs(url.query)["token"][0]
        ws = Socket(url.port, "/api/socket?token=" + token, "http://127.0.0.1:%d" % url.port)

        def frame_info(message):
            length = struct.unpack("<I", message[:4])[0]
            return json.loads(message[4:4 + length])

        # The first frame (the scene as loaded), acknowledged as the page does.
        start = time.monotonic()
        while True:
            is_text, message = ws.receive()
            if not is_text:
                info = frame_info(message)
                ws.send({"have": info["n"]})
                break
            if time.monotonic() - start > DEADLINE:
                sys.exit("error: no first frame within %d s" % DEADLINE)

        answers, frames, renders = [], [], []
        for i in range(args.changes):
            value = "%g" % (first + (i % 20) * step)
            tag = "drag:%d" % i
            if args.pause:
                time.sleep(args.pause / 1000)
            sent = time.monotonic()
            ws.send({"id": i + 1, "changes": [{"key": args.key, "value": value}], "tag": tag})
            answered = None
            while True:
                if time.monotonic() - sent > DEADLINE:
                    sys.exit("error: change %d had no answer and frame within %d s" % (i, DEADLINE))
                is_text, message = ws.receive()
                now = time.monotonic()
                if is_text:
                    reply = json.loads(message)
                    if reply.get("answer") == i + 1:
                        if reply.get("status") != 200:
                            sys.exit("error: change %d was refused: %s" % (i, reply))
                        answered = now
                        answers.append((now - sent) * 1000)
                        if not reply.get("changed"):
                            break
                    continue
                info = frame_info(message)
                ws.send({"have": info["n"]})
                if info.get("tag") == tag:
                    frames.append((now - sent) * 1000)
                    renders.append(info["ms"])
                    if answered is not None:
                        break
        what = "scene %s" % os.path.basename(args.scene) if args.scene else "%dx%d" % (width, height)
        print("%d %s changes on %s, each sent %s:" % (args.changes, args.key, what,
              "%g ms after the last one's frame came" % args.pause if args.pause else "once the last one's frame came"))
        print(figures("answer", answers))
        if frames:
            print(figures("frame", frames))
            print(figures("render", renders))
    finally:
        if editor.poll() is None:
            os.killpg(editor.pid, signal.SIGINT)
            try:
                editor.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(editor.pid, signal.SIGKILL)
                editor.wait()
        if os.path.exists(timing):
            peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(timing).read())
            if peak:
                print("editor peak RSS %.1f MB" % (int(peak.group(1)) / 1024))
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
