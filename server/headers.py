"""Plain ASGI middleware: refuse oversized bodies early and give every response safe headers.

Plain ASGI rather than FastAPI's @app.middleware, which wraps every request in extra tasks and
streams: this costs a fraction of that per request.
"""

from __future__ import annotations

from typing import Any, Callable

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse


class GuardAndHeaders:
    def __init__(self, app: Callable, max_body_bytes: int, frame_ancestors: str) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.frame_ancestors = frame_ancestors

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is None:  # chunked, or no body: count what arrives before the app sees it
            receive = await self._bounded(receive)
            if receive is None:
                await self._too_large(scope, send)
                return
        elif length.isdigit() and int(length) > self.max_body_bytes:
            await self._too_large(scope, send)
            return
        await self.app(scope, receive, self._with_headers(scope, send))

    async def _too_large(self, scope: dict, send: Callable) -> None:
        limit = f"request body limit ({self.max_body_bytes // 1024} KiB) exceeded"
        await JSONResponse(status_code=413, content={"detail": limit})(scope, _no_body, self._with_headers(scope, send))

    async def _bounded(self, receive: Callable) -> Callable | None:
        """Reads a body of unknown length up to the limit; then hands it to the app as one message
        (None when it is over the limit)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: let the app see it
                first = message
                break
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                return None
            if not message.get("more_body"):
                first = {"type": "http.request", "body": bytes(body), "more_body": False}
                break
        pending = [first]

        async def replay() -> dict:
            return pending.pop() if pending else await receive()

        return replay

    def _with_headers(self, scope: dict, send: Callable) -> Callable:
        embed = scope["path"].rstrip("/") == "/embed"

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
                if embed:  # the embed is meant to be framed, by the sites in the allow-list only
                    headers["Content-Security-Policy"] = f"frame-ancestors {self.frame_ancestors}"
                else:
                    headers.setdefault("X-Frame-Options", "DENY")
                    headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
            await send(message)

        return send_with_headers


async def _no_body() -> dict:
    return {"type": "http.request", "body": b"", "more_body": False}
