"""The FastAPI application: the API under /api/v1 and the built frontend at /."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from server.api import meta, trace
from server.config import Settings
from server.headers import GuardAndHeaders
from server.runner import Runner, make_runner
from server.scheduler import FairScheduler
from server.trace_cache import TraceCache

API = "/api/v1"


def create_app(settings: Settings | None = None, runner: Runner | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.runner = runner or make_runner(settings)
        app.state.scheduler = FairScheduler(app.state.runner, settings.workers, settings.queue,
                                            retry_after=settings.timeout_s)
        app.state.trace_cache = TraceCache(settings.cache_mb * 1024 * 1024)
        try:
            yield
        finally:
            if runner is None:  # a runner handed in belongs to the caller, who closes it
                app.state.runner.close()

    app = FastAPI(title="gradstep", version="0.1.0", lifespan=lifespan,
                  description="Run a PyTorch snippet on gradstep's engine and get its autograd trace.")
    app.state.settings = settings
    frame_ancestors = frame_ancestors_value(settings.frame_ancestors)
    app.include_router(trace.router, prefix=API, tags=["trace"])
    app.include_router(meta.router, prefix=API, tags=["meta"])

    app.add_middleware(GuardAndHeaders, max_body_bytes=settings.max_body_bytes,
                       frame_ancestors=frame_ancestors)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # FastAPI answers 400 when a body is not even text; to clients that is a malformed request too.
        if exc.status_code == 400:
            detail = [{"loc": ["body"], "msg": "the request body is not valid UTF-8 JSON", "type": "json_invalid"}]
            return JSONResponse(status_code=422, content={"detail": detail})
        return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail}, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                  for e in exc.errors()]
        return JSONResponse(status_code=422, content={"detail": errors})

    _mount_frontend(app, Path(settings.static_dir))
    return app


_SOURCE = re.compile(r"^(\*|'self'|'none'|[a-z][a-z0-9+.-]*:|(?:[a-z][a-z0-9+.-]*://)?(?:\*\.)?"
                     r"[a-z0-9.-]+(?::(?:\d+|\*))?(?:/[^\s;,']*)?)$", re.IGNORECASE)


def frame_ancestors_value(setting: str) -> str:
    """GRADSTEP_FRAME_ANCESTORS (sources separated by spaces or commas) as a CSP frame-ancestors list.

    A source that is not a valid CSP host source is refused at start-up, so nothing can smuggle another
    directive into the header. Empty means no site may frame the embed.
    """
    sources = [s for s in re.split(r"[\s,]+", setting.strip()) if s]
    bad = [s for s in sources if not _SOURCE.match(s)]
    if bad:
        raise ValueError(f"GRADSTEP_FRAME_ANCESTORS: not a valid frame-ancestors source: {', '.join(bad)}")
    if not sources:
        return "'none'"
    if "'none'" in sources and len(sources) > 1:
        raise ValueError("GRADSTEP_FRAME_ANCESTORS: 'none' cannot be combined with other sources")
    return " ".join(sources)


def _mount_frontend(app: FastAPI, static: Path) -> None:
    index = static / "index.html"
    if not index.exists():
        return
    if (static / "assets").is_dir():
        app.mount("/assets", StaticFiles(directory=static / "assets"), name="assets")

    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return FileResponse(index)

    @app.get("/embed", include_in_schema=False)
    async def embed() -> FileResponse:
        return FileResponse(index)

    offline = static / "offline.html"

    @app.get("/offline.html", include_in_schema=False)
    async def offline_template() -> FileResponse:
        # The single-file player that the Download button fills with the current trace.
        return FileResponse(offline)
