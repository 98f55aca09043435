#!/usr/bin/env python3
"""A static file server for tests: serves --root on 127.0.0.1 (ephemeral port written to
--port-file), GET only, and exits on its own after --lifetime seconds or on SIGTERM. Used to
stand in for a GitHub release's download URLs."""
import argparse
import functools
import os
import signal
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=120)
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=a.root))
    srv.daemon_threads = True
    t = threading.Timer(a.lifetime, srv.shutdown)
    t.daemon = True
    t.start()
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown, daemon=True).start())
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()
    os._exit(0)


if __name__ == "__main__":
    main()
