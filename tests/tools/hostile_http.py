#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Hostile HTTP clients for serve's tests and bench (tests/integration/
test_serve_hostile.sh, bench/serve_hostile.sh). Bounded in count and time.

  slow HOST PORT --count N [--sources A,B,...] [--tls] [--every S] [--for S]
      N connections (spread over the source addresses), each sending
      "GET /metrics HTTP/1.1", a Host line, and then one more header line
      every S seconds (default 2), never the blank line that ends them.
      Runs --for seconds (default 12), then prints JSON: opened, refused
      (closed or reset before any header line went), closed_by_server
      (of those opened, closed while still sending), first_close_s and
      last_close_s (after its connect), open_at_end. --reconnect: each
      client connects again once closed or refused, until the end.
  early HOST PORT [--tls] [--auth USER:PASS] -- METHOD PATH HEADER...
      Send the request line and headers, and no byte of the body the
      headers announce; print the status line serve answers within 3 s
      (or "none") and how long it took.
  raw_auth HOST PORT B64 [--tls]
      GET /metrics with "Authorization: Basic B64" as given; print the
      status code.
  flood HOST PORT --count N --clients C [--tls] --auth USER:PASS
        [--sources A,B,...]
      N requests with that (wrong) password from C clients at once (spread
      over the source addresses), each its own connection; print JSON: the
      status codes seen and their counts ("error": refused or reset).
"""
import argparse
import asyncio
import json
import socket
import ssl
import sys
import time


def tls_context():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


async def connect(host, port, src, tls):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    if src:
        sock.bind((src, 0))
    loop = asyncio.get_running_loop()
    await asyncio.wait_for(loop.sock_connect(sock, (host, port)), 5)
    return await asyncio.wait_for(
        asyncio.open_connection(sock=sock, ssl=tls_context() if tls else None,
                                server_hostname=host if tls else None), 5)


async def slow_one(a, src, i, res):
    t0 = time.monotonic()
    try:
        reader, writer = await connect(a.host, a.port, src, a.tls)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        await writer.drain()
    except (OSError, asyncio.TimeoutError, ssl.SSLError):
        res["refused"] += 1
        return
    # Closed at once after the connect (a limit): no answer to the first line.
    try:
        data = await asyncio.wait_for(reader.read(1), 0.2)
        if not data:
            res["refused"] += 1
            writer.close()
            return
    except asyncio.TimeoutError:
        pass
    except (OSError, ssl.SSLError):
        res["refused"] += 1
        return
    res["opened"] += 1
    n = 0
    while time.monotonic() - res["t_start"] < a.duration:
        try:
            data = await asyncio.wait_for(reader.read(4096), a.every)
            if not data:  # the server closed it
                res["closed_by_server"] += 1
                res["close_s"].append(time.monotonic() - t0)
                writer.close()
                return
        except asyncio.TimeoutError:
            pass
        except (OSError, ssl.SSLError):
            res["closed_by_server"] += 1
            res["close_s"].append(time.monotonic() - t0)
            return
        n += 1
        try:
            writer.write(b"X-Slow-%d: %d\r\n" % (n, i))
            await writer.drain()
        except (OSError, ssl.SSLError):
            res["closed_by_server"] += 1
            res["close_s"].append(time.monotonic() - t0)
            return
    res["open_at_end"] += 1
    writer.close()


async def slow_loop(a, src, i, res):
    await slow_one(a, src, i, res)
    while a.reconnect and time.monotonic() - res["t_start"] < a.duration - 0.5:
        await asyncio.sleep(0.5)  # a refused one does not spin
        await slow_one(a, src, i, res)


async def slow(a):
    srcs = a.sources.split(",") if a.sources else [None]
    res = {"opened": 0, "refused": 0, "closed_by_server": 0, "open_at_end": 0,
           "close_s": [], "t_start": time.monotonic()}
    tasks = [asyncio.create_task(slow_loop(a, srcs[i % len(srcs)], i, res))
             for i in range(a.count)]
    await asyncio.gather(*tasks)
    cs = sorted(res.pop("close_s"))
    res.pop("t_start")
    res["first_close_s"] = round(cs[0], 2) if cs else None
    res["last_close_s"] = round(cs[-1], 2) if cs else None
    print(json.dumps(res))


async def early(a):
    t0 = time.monotonic()
    reader, writer = await connect(a.host, a.port, None, a.tls)
    lines = ["%s %s HTTP/1.1" % (a.method, a.path), "Host: x"] + a.headers
    if a.auth:
        import base64
        lines.append("Authorization: Basic " + base64.b64encode(a.auth.encode()).decode())
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    try:
        line = await asyncio.wait_for(reader.readline(), 3)
        status = line.decode(errors="replace").strip() or "none"
    except (asyncio.TimeoutError, OSError, ssl.SSLError):
        status = "none"
    print("%s | %.2f s" % (status, time.monotonic() - t0))
    writer.close()


async def raw_auth(a):
    reader, writer = await connect(a.host, a.port, None, a.tls)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " +
                 a.b64.encode() + b"\r\nConnection: close\r\n\r\n")
    await writer.drain()
    try:
        line = await asyncio.wait_for(reader.readline(), 10)
        print(line.decode(errors="replace").split(" ")[1] if line else "none")
    except (asyncio.TimeoutError, IndexError, OSError, ssl.SSLError):
        print("none")
    writer.close()


async def flood(a):
    import base64
    auth = base64.b64encode(a.auth.encode())
    codes = {}
    queue = list(range(a.count))
    srcs = a.sources.split(",") if a.sources else [None]
    asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: None)

    async def client(src):
        while queue:
            queue.pop()
            try:
                reader, writer = await connect(a.host, a.port, src, a.tls)
                writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " +
                             auth + b"\r\nConnection: close\r\n\r\n")
                await writer.drain()
                line = await asyncio.wait_for(reader.readline(), a.timeout)
                code = line.decode(errors="replace").split(" ")[1] if line else "closed"
                writer.close()
            except asyncio.TimeoutError:
                code = "timeout"
            except (OSError, ssl.SSLError, IndexError):
                code = "error"
            codes[code] = codes.get(code, 0) + 1

    await asyncio.gather(*[client(srcs[i % len(srcs)]) for i in range(a.clients)])
    print(json.dumps(codes, sort_keys=True))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("slow", "early", "raw_auth", "flood"):
        s = sub.add_parser(name)
        s.add_argument("host")
        s.add_argument("port", type=int)
        s.add_argument("--tls", action="store_true")
        if name == "slow":
            s.add_argument("--count", type=int, required=True)
            s.add_argument("--sources", default="")
            s.add_argument("--every", type=float, default=2)
            s.add_argument("--for", dest="duration", type=float, default=12)
            s.add_argument("--reconnect", action="store_true")
        elif name == "early":
            s.add_argument("--auth", default="")
            s.add_argument("method")
            s.add_argument("path")
            s.add_argument("headers", nargs="*")
        elif name == "raw_auth":
            s.add_argument("b64")
        else:
            s.add_argument("--count", type=int, required=True)
            s.add_argument("--clients", type=int, required=True)
            s.add_argument("--auth", required=True)
            s.add_argument("--sources", default="")
            s.add_argument("--timeout", type=float, default=30)
    a = p.parse_args()
    if a.cmd == "slow" and (a.count > 2000 or a.duration > 120):
        sys.exit("slow: at most 2000 connections for 120 s")
    if a.cmd == "flood" and (a.count > 2000 or a.clients > 256):
        sys.exit("flood: at most 2000 requests from 256 clients")
    asyncio.run(globals()[a.cmd](a))


if __name__ == "__main__":
    main()
