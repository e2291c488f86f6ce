"""POST /api/v1/trace: run a snippet and return its trace."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from server.runner import RunnerBusy
from server.schema import Trace

router = APIRouter()


class TraceRequest(BaseModel):
    code: str = Field(description="A PyTorch snippet; `import torch` runs it on gradstep's engine.")


@router.post(
    "/trace",
    response_model=Trace,
    responses={413: {"description": "The source is over the size limit"},
               429: {"description": "Too many runs queued; retry after the Retry-After seconds"}},
    summary="Run a snippet and return its trace",
)
async def trace(body: TraceRequest, request: Request) -> Response:
    settings = request.app.state.settings
    size = len(body.code.encode("utf-8", "surrogatepass"))  # JSON may carry lone surrogates ("\\ud800")
    if size > settings.max_source_bytes:
        raise HTTPException(
            status_code=413,
            detail=f"source size limit ({settings.max_source_bytes // 1024} KiB) exceeded: {size} bytes",
        )
    cache = request.app.state.trace_cache
    cached = cache.get(body.code)
    if cached is not None:
        return Response(content=cached, media_type="application/json")
    client = request.client.host if request.client else "unknown"
    run = asyncio.ensure_future(request.app.state.scheduler.run(client, body.code))
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((run, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if not run.done():  # nobody is waiting for this trace any more: a queued run gives up its place
        run.cancel()
        return Response(status_code=499)
    try:
        payload = run.result()
    except RunnerBusy as busy:
        raise HTTPException(status_code=429, detail=str(busy),
                            headers={"Retry-After": str(max(1, round(busy.retry_after)))}) from None
    cache.put(body.code, payload)
    return Response(content=payload, media_type="application/json")


async def _disconnected(request: Request) -> None:
    """Returns once the client has closed the connection (the body has been read by now)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
