"""GET /api/v1/health, /api/v1/ops (the op table) and /api/v1/examples (the gallery)."""

from __future__ import annotations

from functools import lru_cache

from fastapi import APIRouter
from pydantic import BaseModel

from server.examples import Example, load_examples

router = APIRouter()


class Health(BaseModel):
    status: str


class OpInfo(BaseModel):
    name: str
    grad_fn: str
    inputs: list[str]
    saved: list[str]
    formulas: list[str | None]
    elementwise: bool


@router.get("/health", response_model=Health, summary="Liveness check")
async def health() -> Health:
    return Health(status="ok")


@lru_cache(maxsize=1)
def _ops() -> list[OpInfo]:
    from engine.ops import TABLE

    return [
        OpInfo(name=r.name, grad_fn=r.node_name, inputs=list(r.inputs), saved=list(r.saves),
               formulas=list(r.formulas), elementwise=r.elementwise)
        for r in TABLE.values()
    ]


@router.get("/ops", response_model=list[OpInfo], summary="The op table: grad_fn names, saved slots, formulas")
async def ops() -> list[OpInfo]:
    return _ops()


@router.get("/examples", response_model=list[Example], summary="The example gallery")
async def examples() -> list[Example]:
    return load_examples()
