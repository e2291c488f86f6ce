"""The HTTP API with the real sandbox behind it: isolation limits and back-pressure as a client sees them."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import Settings


@pytest.fixture(scope="module")
def client() -> TestClient:
    settings = Settings.from_env(sandbox=True, workers=1, queue=1, timeout_s=2.0)
    with TestClient(create_app(settings)) as c:
        yield c


def test_seed_snippet_through_the_sandbox(client: TestClient, seed_code: str) -> None:
    body = client.post("/api/v1/trace", json={"code": seed_code}).json()
    assert body["status"] == "ok"
    assert body["events"][-2]["kind"] == "accumulate"


def test_infinite_loop_times_out_and_the_server_keeps_serving(client: TestClient, seed_code: str) -> None:
    body = client.post("/api/v1/trace", json={"code": "while True:\n    pass\n"}).json()
    assert body["status"] == "timeout"
    assert "time limit" in body["error"]["message"]
    after = seed_code + "# a new source text: a run, not the trace cache\n"
    assert client.post("/api/v1/trace", json={"code": after}).json()["status"] == "ok"


def test_a_refused_construct_is_an_error_with_position(client: TestClient) -> None:
    body = client.post("/api/v1/trace", json={"code": "import torch\nx = torch.ones(2)\ny = x.__dict__\n"}).json()
    assert body["status"] == "error"
    assert body["error"]["line"] == 3
    assert "not allowed" in body["error"]["message"]


def test_full_queue_answers_429_with_retry_after(client: TestClient) -> None:
    # One worker and a queue of one: a slow run holds the worker, a second run waits, a third is refused.
    statuses: list[int] = []

    def post(code: str) -> None:
        statuses.append(client.post("/api/v1/trace", json={"code": code}).status_code)

    slow = threading.Thread(target=post, args=("while True:\n    pass\n",))
    slow.start()
    time.sleep(0.5)
    waiting = threading.Thread(target=post, args=("x = 1\n",))
    waiting.start()
    time.sleep(0.3)
    response = client.post("/api/v1/trace", json={"code": "x = 2\n"})
    slow.join()
    waiting.join()
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert statuses == [200, 200]


def test_lone_surrogates_in_the_json_code_get_a_trace_not_a_500(client: TestClient) -> None:
    # JSON can spell a lone surrogate ("\ud800"); the size check must count it, not fail on it
    for raw in ('{"code": "print(1)\\n# \\ud800"}', '{"code": "x = \'\\udfff\'\\nprint(len(x))"}'):
        response = client.post("/api/v1/trace", content=raw, headers={"content-type": "application/json"})
        assert response.status_code == 200, response.text
        error = response.json()["error"]
        assert error["type"] == "SnippetSyntaxError" and "cannot be parsed" in error["message"]
    body = client.post("/api/v1/trace", json={"code": "print(2)\n"}).json()
    assert body["stdout"] == "2\n"
