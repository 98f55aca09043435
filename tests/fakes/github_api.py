#!/usr/bin/env python3
"""A fake GitHub REST API for ptxgate's tests: listens on 127.0.0.1 (an ephemeral port written
to --port-file), answers the calls `ptxgate publish` makes like GitHub does, and records every
request as one JSON line in --log (method, path, query, status, header checks, JSON body; never
the token itself). It exits on its own after --lifetime seconds, or on POST /__shutdown.

Behaviour (seeded by --state, a JSON file):
  tokens    {"TOKEN": "login"} user tokens; {"TOKEN": null} an installation token (GET /user
            answers 403, comments are by github-actions[bot]); any other token gets 401.
  comments  {"PR": [{"user": "login", "body": "..."}]} comments present at start.
  pulls     {"PR": {"head_sha": "..."}} for GET /repos/o/r/pulls/PR.
  rules     faults, matched in order, each used `times` times: {"method", "path" (prefix of the
            path after --prefix), "status", "headers": {...}, "body": {...}, "apply": true to
            perform the request before answering with the fault (a create that happened although
            the client saw an error)}. A "reset_in" field sets x-ratelimit-reset to now + N.
  per_page_max  largest page size (default 100), to force pagination in tests.
Requests sent with an absolute URI (the fake used as an HTTP proxy) are answered as if for this
API and recorded with "proxied_host". GitHub's rules it enforces: a User-Agent is required (403 without), comment bodies over 65 536
characters are 422, check runs take at most 50 annotations per request (422), PATCH appends
annotations, Link headers with rel="next" and rel="last" paginate lists.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOCK = threading.Lock()
STATE = {"tokens": {}, "comments": {}, "pulls": {}, "rules": [], "check_runs": [], "next_id": 1000,
         "per_page_max": 100}


def log(entry):
    with open(ARGS.log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, sort_keys=True) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):  # quiet
        pass

    def base(self):
        return "http://%s%s" % (self.headers.get("Host", "127.0.0.1"), ARGS.prefix)

    def reply(self, status, obj=None, headers=None):
        body = b"" if obj is None else json.dumps(obj).encode()
        # Logged before answering, so a client that saw the answer always finds it in the log.
        self.entry["status"] = status
        log(self.entry)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def handle_any(self, method):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, urllib.parse.parse_qs(url.query)
        # An absolute URI in the request line: the client came through this server as its proxy.
        proxied_host = url.netloc if url.scheme else None
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = "<not json>"
        auth = self.headers.get("Authorization", "")
        token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
        self.token = token
        self.entry = {
            "method": method, "path": path, "query": {k: v[0] for k, v in query.items()},
            "user_agent": self.headers.get("User-Agent", ""),
            "accept": self.headers.get("Accept", ""),
            "api_version": self.headers.get("X-GitHub-Api-Version", ""),
            "auth": "none" if token is None else ("valid" if token in STATE["tokens"] else "invalid"),
            "body": body, "time": time.time(), "proxied_host": proxied_host,
        }
        if path == "/__shutdown":
            self.reply(200, {})
            threading.Thread(target=self.server.shutdown, daemon=True).start()
            return
        if not path.startswith(ARGS.prefix + "/"):
            return self.reply(404, {"message": "Not Found"})
        path = path[len(ARGS.prefix):]
        self.entry["api_path"] = path
        if not self.entry["user_agent"]:
            return self.reply(403, {"message": "Request forbidden by administrative rules. "
                                               "Please make sure your request has a User-Agent header"})
        with LOCK:
            rule = self.match_rule(method, path)
            if rule is not None:
                if rule.get("apply"):
                    self.route(method, path, query, body)
                headers = dict(rule.get("headers", {}))
                if "reset_in" in rule:
                    headers["x-ratelimit-reset"] = int(time.time() + rule["reset_in"])
                return self.reply(rule["status"], rule.get("body", {"message": "fault injected"}),
                                  headers)
            if token not in STATE["tokens"]:
                return self.reply(401, {"message": "Bad credentials"})
            status, obj, headers = self.route(method, path, query, body)
        self.reply(status, obj, headers)

    def match_rule(self, method, path):
        for r in STATE["rules"]:
            if r.get("times", 1) > 0 and r.get("method", method) == method and \
                    path.startswith(r.get("path", "")):
                r["times"] = r.get("times", 1) - 1
                return r
        return None

    def login(self):
        who = STATE["tokens"].get(self.token)
        return who if who else "github-actions[bot]"

    def page(self, items, query, path):
        per = min(int(query.get("per_page", ["30"])[0]), STATE["per_page_max"])
        page = int(query.get("page", ["1"])[0])
        last = max(1, (len(items) + per - 1) // per)
        chunk = items[(page - 1) * per: page * per]
        links = []
        q = {k: v[0] for k, v in query.items()}
        if page < last:
            links.append('<%s%s?%s>; rel="next"' % (self.base(), path,
                                                    urllib.parse.urlencode({**q, "page": page + 1})))
        links.append('<%s%s?%s>; rel="last"' % (self.base(), path,
                                                urllib.parse.urlencode({**q, "page": last})))
        return chunk, {"Link": ", ".join(links)}

    def new_id(self):
        STATE["next_id"] += 1
        return STATE["next_id"]

    def route(self, method, path, query, body):
        parts = path.strip("/").split("/")
        # /user
        if parts == ["user"] and method == "GET":
            who = STATE["tokens"].get(self.token)
            if who is None:
                return 403, {"message": "Resource not accessible by integration"}, {}
            return 200, {"login": who, "id": 1}, {}
        if len(parts) < 3 or parts[0] != "repos":
            return 404, {"message": "Not Found"}, {}
        repo, rest = parts[1] + "/" + parts[2], parts[3:]
        # /repos/o/r/issues/N/comments
        if len(rest) == 3 and rest[0] == "issues" and rest[2] == "comments":
            comments = STATE["comments"].setdefault(rest[1], [])
            if method == "GET":
                chunk, headers = self.page(comments, query, path)
                return 200, chunk, headers
            if method == "POST":
                err = self.check_body(body)
                if err:
                    return err
                c = {"id": self.new_id(), "body": body["body"], "user": {"login": self.login()},
                     "html_url": "https://github.example/%s/pull/%s#issuecomment-%d"
                                 % (repo, rest[1], STATE["next_id"])}
                comments.append(c)
                return 201, c, {}
        # /repos/o/r/issues/comments/ID
        if len(rest) == 3 and rest[0] == "issues" and rest[1] == "comments" and method == "PATCH":
            for comments in STATE["comments"].values():
                for c in comments:
                    if str(c["id"]) == rest[2]:
                        err = self.check_body(body)
                        if err:
                            return err
                        c["body"] = body["body"]
                        return 200, c, {}
            return 404, {"message": "Not Found"}, {}
        # /repos/o/r/pulls/N
        if len(rest) == 2 and rest[0] == "pulls" and method == "GET":
            p = STATE["pulls"].get(rest[1])
            if not p:
                return 404, {"message": "Not Found"}, {}
            return 200, {"number": int(rest[1]), "head": {"sha": p["head_sha"]}}, {}
        # /repos/o/r/check-runs[/ID]
        if rest and rest[0] == "check-runs":
            out = (body or {}).get("output") or {}
            ann = out.get("annotations") or []
            if len(ann) > 50:
                return 422, {"message": "Validation Failed",
                             "errors": ["Only 50 annotations are allowed per request"]}, {}
            for a in ann:
                if not all(k in a for k in ("path", "start_line", "end_line", "annotation_level",
                                            "message")):
                    return 422, {"message": "Validation Failed",
                                 "errors": ["annotation is missing a required field"]}, {}
            if len(rest) == 1 and method == "POST":
                if not body.get("name") or not body.get("head_sha"):
                    return 422, {"message": "Invalid request.",
                                 "errors": ["name and head_sha are required"]}, {}
                cr = {"id": self.new_id(), "name": body["name"], "head_sha": body["head_sha"],
                      "status": body.get("status"), "conclusion": body.get("conclusion"),
                      "external_id": body.get("external_id"), "output": out,
                      "annotations": list(ann),
                      "html_url": "https://github.example/%s/runs/%d" % (repo, STATE["next_id"])}
                STATE["check_runs"].append(cr)
                return 201, {k: v for k, v in cr.items() if k != "annotations"}, {}
            if len(rest) == 2 and method == "PATCH":
                for cr in STATE["check_runs"]:
                    if str(cr["id"]) == rest[1]:
                        cr["annotations"].extend(ann)
                        cr["output"] = out
                        return 200, {k: v for k, v in cr.items() if k != "annotations"}, {}
                return 404, {"message": "Not Found"}, {}
        # /repos/o/r/commits/SHA/check-runs
        if len(rest) == 3 and rest[0] == "commits" and rest[2] == "check-runs" and method == "GET":
            name = query.get("check_name", [None])[0]
            runs = [{k: v for k, v in c.items() if k != "annotations"} for c in STATE["check_runs"]
                    if c["head_sha"] == rest[1] and (name is None or c["name"] == name)]
            chunk, headers = self.page(runs, query, path)
            return 200, {"total_count": len(runs), "check_runs": chunk}, headers
        # test inspection: the server's state
        return 404, {"message": "Not Found"}, {}

    def check_body(self, body):
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            return 422, {"message": "Invalid request.", "errors": ["body is required"]}, {}
        if len(body["body"]) > 65536:
            return 422, {"message": "Validation Failed", "errors": [{
                "resource": "IssueComment", "code": "custom", "field": "body",
                "message": "body is too long (maximum is 65536 characters)"}]}, {}
        return None


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--state")
    ap.add_argument("--dump", help="write the final state (comments, check runs) here on exit")
    ap.add_argument("--prefix", default="", help="API path prefix, e.g. /api/v3 (GHES)")
    ap.add_argument("--lifetime", type=float, default=120)
    ARGS = ap.parse_args()
    if ARGS.state:
        with open(ARGS.state, encoding="utf-8") as f:
            STATE.update(json.load(f))
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    stopper = threading.Timer(ARGS.lifetime, srv.shutdown)
    stopper.daemon = True
    stopper.start()
    signal.signal(signal.SIGTERM,
                  lambda *_: threading.Thread(target=srv.shutdown, daemon=True).start())
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    finally:
        if ARGS.dump:
            with open(ARGS.dump, "w", encoding="utf-8") as f:
                json.dump({"comments": STATE["comments"], "check_runs": STATE["check_runs"]}, f,
                          indent=1, sort_keys=True)
        os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
