"""Fixtures of the LLM-layer tests: a mock HTTP transport for the SDK adapters and a fake sleep."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest


def sdk_httpx(package: str) -> ModuleType:
    """The SDK (skipped when not installed) and the httpx flavour it was built on (``httpx2`` for
    the 2026 SDKs, ``httpx`` before)."""
    pytest.importorskip(package)
    # The SDK's own client module names the flavour it imported (another package may have loaded the
    # other one: mcp and openai load httpx2 beside an older anthropic built on httpx).
    client = sys.modules.get(f"{package}._base_client")
    if client is None:
        client = importlib.import_module(f"{package}._base_client")
    flavour = getattr(client, "httpx", None)
    if isinstance(flavour, ModuleType):
        return flavour
    for name in ("httpx2", "httpx"):
        if name in sys.modules:
            return sys.modules[name]
    raise RuntimeError(f"{package} loaded no httpx module")


@dataclass
class MockServer:
    """Answers the SDK's HTTP requests from a script and records each request's JSON body.

    Each scripted item is ``(status, json_body)``, ``(status, json_body, headers)``, or an
    exception instance to raise from the transport (a connection error).
    """

    httpx: ModuleType
    script: list[Any] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def handler(self, request: Any) -> Any:
        self.urls.append(str(request.url))
        self.bodies.append(json.loads(request.content) if request.content else {})
        self.headers.append(dict(request.headers))
        if not self.script:
            raise AssertionError(f"unexpected HTTP request to {request.url}")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        status, body, *rest = item
        return self.httpx.Response(status, json=body, headers=rest[0] if rest else None)

    def client(self) -> Any:
        return self.httpx.AsyncClient(transport=self.httpx.MockTransport(self.handler))


@dataclass
class FakeSleep:
    """An injectable ``sleep`` that records the waits instead of waiting."""

    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def mock_server_factory() -> Callable[[str], MockServer]:
    def make(package: str) -> MockServer:
        return MockServer(sdk_httpx(package))

    return make
