#!/usr/bin/env python3
# fake_debuginfod.py PORTFILE MODE [ARG...] - a debuginfod server that
# cannot be trusted, on a free loopback port (written to PORTFILE once
# listening), for tests/integration/symbols.sh:
#   hang          read the request and never answer
#   lie FILE ID   answer /buildid/ID/debuginfo with FILE (another program's
#                 debug file: the wrong build-id), any other build-id's with
#                 64 KiB of random bytes
#   endless       a chunked body of zeros (no Content-Length) that never ends
#   chunked N     a chunked body of N zero bytes (no Content-Length)
#   gzip N        N zero bytes gzipped, sent with Content-Encoding: gzip
#                 whatever the client asked for (a gzip bomb)
# Each connection accepted adds "accepted" to PORTFILE.log, each request
# read "GET <path> accept-encoding=<what the client asked for>".
import os
import socket
import sys
import threading
import zlib

portfile, mode = sys.argv[1], sys.argv[2]
lie, lie_id, garbage, size, gz = b"", b"", os.urandom(65536), 0, b""
if mode == "lie":
    with open(sys.argv[3], "rb") as f:
        lie = f.read()
    lie_id = sys.argv[4].encode()
elif mode in ("chunked", "gzip"):
    size = int(sys.argv[3])
elif mode not in ("hang", "endless"):
    sys.exit("unknown mode " + mode)
if mode == "gzip":
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = b"\0" * (1 << 20)
    parts = [z.compress(zeros) for _ in range(size >> 20)]
    gz = b"".join(parts) + z.compress(b"\0" * (size & ((1 << 20) - 1))) + z.flush()

log_lock = threading.Lock()


def log(line):
    with log_lock, open(portfile + ".log", "a") as f:
        f.write(line + "\n")


srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
held = []


def chunks(conn, total):
    """Send total zero bytes (None: forever) as HTTP chunks."""
    block = b"\0" * 65536
    sent = 0
    while total is None or sent < total:
        n = len(block) if total is None else min(len(block), total - sent)
        conn.sendall(b"%x\r\n" % n + block[:n] + b"\r\n")
        sent += n
    conn.sendall(b"0\r\n\r\n")


def answer(conn):
    req = b""
    while b"\r\n\r\n" not in req:
        chunk = conn.recv(4096)
        if not chunk:
            return
        req += chunk
    path = req.split(b" ")[1] if b" " in req else b""
    enc = b"-"
    for line in req.split(b"\r\n")[1:]:
        if line.lower().startswith(b"accept-encoding:"):
            enc = line.split(b":", 1)[1].strip()
    log("GET %s accept-encoding=%s" % (path.decode(errors="replace"), enc.decode(errors="replace")))
    if mode == "hang":
        held.append(conn)
        return
    if not (path.startswith(b"/buildid/") and path.endswith(b"/debuginfo")):
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    elif mode == "lie":
        body = lie if path == b"/buildid/" + lie_id + b"/debuginfo" else garbage
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        head += b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
        conn.sendall(head + body)
    elif mode == "gzip":
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        head += b"Content-Encoding: gzip\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(gz)
        conn.sendall(head + gz)
    else:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        chunks(conn, None if mode == "endless" else size)
    conn.close()


def serve(conn):
    try:
        answer(conn)
    except OSError:
        pass  # the client hung up: what a bounded client does


while True:
    conn, _ = srv.accept()
    log("accepted")
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
