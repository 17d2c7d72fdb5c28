"""The local review server (standard library only), bound to 127.0.0.1 and nothing else.

Routes: ``/`` the page; ``GET /api/queue?annotator=NAME&token=T`` the items and that
annotator's votes; ``POST /api/vote`` one vote (with the annotator's token);
``/media/<key>/<n>`` an item's n-th image and ``/media/<key>/document`` its PDF. Media
URLs carry opaque keys, never dataset paths (a path names the transform), and only files
inside ``DIR/assets`` are ever served.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import signal
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from .auth import annotator_token, review_secret, token_matches
from .page import render_page
from .queue import Queue, QueueItem, ReviewError, open_queue, read_records
from .votes import VOTES, AnnotatorError, append_vote, check_annotator, latest_votes

HOST = "127.0.0.1"
MAX_BODY = 16 * 1024


def safe_asset(root: Path, relative: Any) -> Path | None:
    """The file ``relative`` names under ``root/assets``, or None for anything else (absolute
    paths, ``..``, symlinks leading out, folders, missing files)."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        return None
    assets = (root / "assets").resolve()
    try:
        candidate = (root / relative).resolve()
    except (OSError, RuntimeError):
        return None
    if not candidate.is_relative_to(assets) or not candidate.is_file():
        return None
    return candidate


class ReviewSession:
    """What the server shows: the fixed queue and its records, read once at start."""

    def __init__(self, root: Path, queue: Queue, annotator: str | None = None) -> None:
        self.root = root
        self.queue = queue
        self.annotator = annotator
        self.secret = review_secret(root)
        wanted = {item.id for item in queue.items}
        self.records = {r["id"]: r for r in read_records(root) if r.get("id") in wanted}
        missing = sorted(wanted - set(self.records))
        if missing:
            raise ReviewError(
                f"{len(missing)} queued item(s) are not in data.jsonl (e.g. {missing[0]}):"
                " was the dataset rebuilt? Delete review/ to start a new review"
            )

    def item_json(self, item: QueueItem) -> dict[str, Any]:
        """Only what an annotator may see: question, options, images (and the PDF)."""
        record = self.records[item.id]
        images = record.get("images") or []
        pages = record.get("evidence_pages") or []
        if record.get("document") and len(pages) == len(images):
            labels = [f"Page {page}" for page in pages]
        elif record.get("document"):
            labels = [f"Page {n}" for n in range(1, len(images) + 1)]
        else:
            labels = [f"Image {n}" for n in range(1, len(images) + 1)]
        return {
            "key": item.key,
            "question": record.get("question") or "",
            "options": [str(option) for option in record.get("options") or []],
            "media": [
                {"url": f"/media/{item.key}/{n}", "label": label} for n, label in enumerate(labels)
            ],
            "document": f"/media/{item.key}/document" if record.get("document") else None,
        }

    def token(self, annotator: str) -> str:
        return annotator_token(check_annotator(annotator), self.secret)

    def authorize(self, annotator: Any, token: Any) -> str:
        """The checked name: AnnotatorError for a bad one, PermissionError unless ``token``
        is its token."""
        name = check_annotator(annotator)
        if not token_matches(name, token, self.secret):
            raise PermissionError(
                f"no valid token for annotator {name!r}: open the link that"
                f" `abstain-build review DIR -a {name}` prints"
            )
        return name

    def queue_json(self, annotator: str) -> dict[str, Any]:
        latest = latest_votes(self.root, annotator)
        keys = {item.id: item.key for item in self.queue.items}
        return {
            "annotator": annotator,
            "total": len(self.queue.items),
            "items": [self.item_json(item) for item in self.queue.items],
            "votes": {keys[i]: vote for i, vote in latest.items() if i in keys},
            "history": [keys[i] for i in latest if i in keys],
        }

    def media(self, key: str, which: str) -> Path | None:
        item = self.queue.by_key.get(key)
        if item is None:
            return None
        record = self.records[item.id]
        if which == "document":
            return safe_asset(self.root, record.get("document"))
        images = record.get("images") or []
        if not which.isdigit() or int(which) >= len(images):
            return None
        return safe_asset(self.root, images[int(which)])

    def vote(self, annotator: str, key: Any, vote: Any) -> dict[str, Any]:
        item = self.queue.by_key.get(key) if isinstance(key, str) else None
        if item is None:
            raise ValueError(f"unknown item {key!r}")
        if vote is not None and vote not in VOTES:
            raise ValueError(f"vote {vote!r}: expected one of {', '.join(VOTES)} or null")
        append_vote(self.root, annotator, item.id, vote)
        latest = latest_votes(self.root, annotator)
        voted = sum(1 for i in self.queue.items if i.id in latest)
        return {"ok": True, "voted": voted, "total": len(self.queue.items)}


class ReviewHandler(BaseHTTPRequestHandler):
    server: ReviewServer
    server_version = "abstain-build-review"
    timeout = 30  # an idle connection does not hold its thread forever

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL, not every image request."""

    # -- helpers ---------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
            " img-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
        )
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_file(self, path: Path) -> None:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(size))
            self.send_header("Cache-Control", "private, max-age=3600")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Disposition", "inline")
            self.end_headers()
            if self.command != "HEAD":
                shutil.copyfileobj(handle, self.wfile)

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _trusted(self) -> bool:
        """Requests must name this server as their host (no DNS rebinding) and, when they
        say where they come from, come from its own page (no cross-site votes)."""
        port = self.server.server_address[1]
        allowed = {f"{HOST}:{port}", f"localhost:{port}"}
        if self.headers.get("Host") not in allowed:
            self._error(HTTPStatus.FORBIDDEN, "unexpected Host header")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin not in {f"http://{host}" for host in allowed}:
            self._error(HTTPStatus.FORBIDDEN, "cross-origin request")
            return False
        return True

    # -- routes ----------------------------------------------------------------------------
    def do_GET(self) -> None:
        if not self._trusted():
            return
        url = urlsplit(self.path)
        parts = url.path.split("/")[1:]
        session = self.server.session
        if url.path in ("/", "/index.html"):
            page = render_page(session.annotator).encode("utf-8")
            self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
        elif url.path == "/api/queue":
            query = parse_qs(url.query)
            name = (query.get("annotator") or [""])[0]
            token = (query.get("token") or [""])[0]
            try:
                self._json(HTTPStatus.OK, session.queue_json(session.authorize(name, token)))
            except AnnotatorError as exc:
                self._error(HTTPStatus.BAD_REQUEST, str(exc))
            except PermissionError as exc:
                self._error(HTTPStatus.FORBIDDEN, str(exc))
        elif len(parts) == 3 and parts[0] == "media":
            path = session.media(parts[1], parts[2])
            if path is None:
                self._error(HTTPStatus.NOT_FOUND, "not found")
                return
            self._send_file(path)
        else:
            self._error(HTTPStatus.NOT_FOUND, "not found")

    do_HEAD = do_GET

    def do_POST(self) -> None:
        if not self._trusted():
            return
        if urlsplit(self.path).path != "/api/vote":
            self._error(HTTPStatus.NOT_FOUND, "not found")
            return
        if self.headers.get_content_type() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 < length <= MAX_BODY:
            self._error(HTTPStatus.BAD_REQUEST, "missing or oversized body")
            return
        try:
            body = json.loads(self.rfile.read(length))
            if not isinstance(body, dict):
                raise ValueError("expected a JSON object")
            session = self.server.session
            annotator = session.authorize(body.get("annotator"), body.get("token"))
            result = session.vote(annotator, body.get("item"), body.get("vote"))
        except ValueError as exc:  # AnnotatorError and bad JSON included
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        except PermissionError as exc:
            self._error(HTTPStatus.FORBIDDEN, str(exc))
            return
        self._json(HTTPStatus.OK, result)


class ReviewServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that refuses any address but 127.0.0.1."""

    daemon_threads = True

    def __init__(self, session: ReviewSession, port: int = 0, host: str = HOST) -> None:
        if host != HOST:
            raise ValueError(f"the review server binds {HOST} only, not {host!r}")
        self.session = session
        super().__init__((host, port), ReviewHandler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, annotator: str | None = None) -> str:
        """The page; with ``annotator``, their own link (name and token)."""
        if not annotator:
            return f"http://{HOST}:{self.port}/"
        query = urlencode({"annotator": annotator, "token": self.session.token(annotator)})
        return f"http://{HOST}:{self.port}/?{query}"


def open_server(
    root: Path | str,
    port: int = 0,
    annotator: str | None = None,
    audit: int | None = None,
    seed: int | None = None,
) -> ReviewServer:
    """A bound (not yet serving) server for DIR, creating its queue on first use."""
    root = Path(root)
    if annotator is not None:
        check_annotator(annotator)
    queue = open_queue(root, audit=audit, seed=seed)
    return ReviewServer(ReviewSession(root, queue, annotator), port)


class RunningServer:
    """A review server answering in a background thread; ``close()`` stops it."""

    def __init__(self, server: ReviewServer) -> None:
        self.server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="abstain-build-review", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return self.server.port

    def url(self, annotator: str | None = None) -> str:
        return self.server.url(annotator)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_server(
    root: Path | str,
    port: int = 0,
    annotator: str | None = None,
    audit: int | None = None,
    seed: int | None = None,
) -> RunningServer:
    """Serve DIR's review in a background thread (``port=0``: any free port)."""
    return RunningServer(open_server(root, port, annotator, audit, seed))


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def serve(server: ReviewServer) -> None:
    """Serve until Ctrl-C (or SIGTERM), then close the socket. Each vote was fsync'd when
    it was acknowledged, so stopping loses nothing the page reported as saved. The handlers
    are set explicitly: a shell starting us in the background may have set SIGINT to
    ignored, and Python keeps an inherited "ignore"."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, _interrupt)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        for number, handler in previous.items():
            signal.signal(number, handler)
