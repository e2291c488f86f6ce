"""schemathesis against our OpenAPI spec: generated requests never get a 500 or a reply off the schema."""

from __future__ import annotations

import asyncio

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from server.app import create_app
from server.config import Settings
from server.runner import SandboxRunner
from server.scheduler import FairScheduler

SETTINGS = Settings.from_env(sandbox=True, workers=2, timeout_s=2.0)
RUNNER = SandboxRunner(SETTINGS)  # the real sandbox: generated code is untrusted input
APP = create_app(SETTINGS, runner=RUNNER)
APP.state.runner = RUNNER
APP.state.scheduler = FairScheduler(RUNNER, SETTINGS.workers, SETTINGS.queue, retry_after=SETTINGS.timeout_s)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def _close_sandbox() -> None:
    yield
    RUNNER.close()


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: schemathesis.Case) -> None:
    case.call_and_validate()
