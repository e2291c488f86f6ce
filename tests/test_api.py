"""The HTTP API through FastAPI's TestClient (snippets run in-process here; the sandbox has its own tests)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.config import Settings


@pytest.fixture(scope="module")
def client() -> TestClient:
    with TestClient(create_app(Settings.from_env(sandbox=False))) as c:
        yield c


def test_health(client: TestClient) -> None:
    assert client.get("/api/v1/health").json() == {"status": "ok"}


def test_trace_returns_the_graph(client: TestClient, seed_code: str) -> None:
    response = client.post("/api/v1/trace", json={"code": seed_code})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["error"] is None
    assert {n["name"] for n in body["nodes"]} == {"MulBackward0", "SinBackward0", "AddBackward0", "AccumulateGrad"}


def test_user_error_is_200_with_status_error(client: TestClient) -> None:
    response = client.post("/api/v1/trace", json={"code": "import torch\nx = torch.tensor(1.0)\nx.backward()\n"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "error"
    assert body["error"]["message"] == "element 0 of tensors does not require grad and does not have a grad_fn"
    assert body["error"]["line"] == 3


@pytest.mark.parametrize("payload", [{}, {"code": 5}, {"source": "x"}, [], "code"])
def test_malformed_requests_are_422(client: TestClient, payload: object) -> None:
    assert client.post("/api/v1/trace", json=payload).status_code == 422


def test_source_over_64_kib_is_413_naming_the_limit(client: TestClient) -> None:
    response = client.post("/api/v1/trace", json={"code": "#" * (64 * 1024 + 1)})
    assert response.status_code == 413
    assert "64 KiB" in response.json()["detail"]


def test_ops_lists_the_op_table(client: TestClient) -> None:
    ops = {op["grad_fn"]: op for op in client.get("/api/v1/ops").json()}
    assert ops["MulBackward0"]["formulas"] == ["grad * other", "grad * self"]
    assert ops["SinBackward0"]["saved"] == ["self"]


def test_examples_gallery(client: TestClient) -> None:
    examples = client.get("/api/v1/examples").json()
    assert len(examples) >= 14
    assert all(e["code"].startswith("import torch") for e in examples)


def test_openapi_documents_the_trace_endpoint(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/api/v1/trace" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_chunked_body_over_the_limit_is_413(client: TestClient) -> None:
    chunks = (b"#" * 65536 for _ in range(32))  # no Content-Length: the server counts what arrives
    response = client.post("/api/v1/trace", content=chunks, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert "request body limit (1024 KiB) exceeded" in response.json()["detail"]


def test_chunked_body_within_the_limit_runs(client: TestClient, seed_code: str) -> None:
    body = json.dumps({"code": seed_code}).encode()
    response = client.post("/api/v1/trace", content=iter([body[:10], body[10:]]),
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 200 and response.json()["status"] == "ok"
