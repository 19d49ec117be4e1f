#!/usr/bin/env python3
# fake_debuginfod.py PORTFILE MODE [FILE ID] - a debuginfod server that
# cannot be trusted, on a free loopback port (written to PORTFILE once
# listening), for tests/integration/symbols.sh:
#   hang      accept every connection and never answer
#   lie       answer /buildid/ID/debuginfo with FILE (another program's
#             debug file: the wrong build-id), any other build-id's with
#             64 KiB of random bytes
# Each connection accepted adds a line to PORTFILE.log.
import os
import socket
import sys
import threading

portfile, mode = sys.argv[1], sys.argv[2]
lie, lie_id, garbage = b"", b"", os.urandom(65536)
if mode == "lie":
    with open(sys.argv[3], "rb") as f:
        lie = f.read()
    lie_id = sys.argv[4].encode()
elif mode != "hang":
    sys.exit("unknown mode " + mode)

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
held = []


def answer(conn):
    req = b""
    while b"\r\n\r\n" not in req:
        chunk = conn.recv(4096)
        if not chunk:
            return
        req += chunk
    path = req.split(b" ")[1] if b" " in req else b""
    if path.startswith(b"/buildid/") and path.endswith(b"/debuginfo"):
        body = lie if path == b"/buildid/" + lie_id + b"/debuginfo" else garbage
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        head += b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
        conn.sendall(head + body)
    else:
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    conn.close()


while True:
    conn, _ = srv.accept()
    with open(portfile + ".log", "a") as log:
        log.write("accepted\n")
    if mode == "hang":
        held.append(conn)
    else:
        threading.Thread(target=answer, args=(conn,), daemon=True).start()
