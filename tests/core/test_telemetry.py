"""OpenTelemetry spans and metrics (context_journal.telemetry): a compile, a summary call (inline and in a
worker) and store writes report what they did to the SDK's in-memory exporter and reader; without
``opentelemetry-api`` nothing is reported and nothing fails."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from context_journal import ContextManager, telemetry
from context_journal.llm.errors import ProviderRequestError
from context_journal.llm.types import Usage
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker

CONFIG: dict[str, Any] = {
    "head_window_tokens": 40,
    "recent_window_tokens": 80,
    "target_chunk_tokens": 100,
    "retry_base_seconds": 0,
}


class Otel:
    """An SDK tracer and meter provider with in-memory export, given to :func:`telemetry.configure`."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.latest: dict[tuple[str, frozenset[tuple[str, Any]]], Any] = {}
        self.units: dict[str, str] = {}

    def spans(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if s.name == name]

    def _collect(self) -> None:
        """Fold a collection into :attr:`latest` (older SDKs report a cumulative point only when it changed)."""
        data = self.reader.get_metrics_data()
        for rm in data.resource_metrics if data is not None else ():
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    self.units[m.name] = str(m.unit)
                    for p in m.data.data_points:
                        self.latest[m.name, frozenset(dict(p.attributes or {}).items())] = p

    def points(self, metric: str) -> list[Any]:
        """The data points of ``metric`` (collected now), or [] when it has none."""
        self._collect()
        return [p for (name, _), p in self.latest.items() if name == metric]

    def total(self, metric: str, **attributes: Any) -> float:
        """Sum of a counter's points (or count of a histogram's) whose attributes include ``attributes``."""
        total = 0.0
        for p in self.points(metric):
            attrs = dict(p.attributes)
            if all(attrs.get(k) == v for k, v in attributes.items()):
                total += p.count if hasattr(p, "count") else p.value
        return total

    def unit(self, metric: str) -> str | None:
        self._collect()
        return self.units.get(metric)


@pytest.fixture
def otel() -> Iterator[Otel]:
    o = Otel()
    telemetry.configure(tracer_provider=o.tracer_provider, meter_provider=o.meter_provider)
    try:
        yield o
    finally:
        telemetry.configure()
        o.tracer_provider.shutdown()
        o.meter_provider.shutdown()


def _talk(cm: ContextManager, turns: int = 20) -> None:
    for i in range(turns):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: " + "the quick brown fox jumps " * 5)


def test_a_compile_emits_one_span_with_its_figures(otel: Otel) -> None:
    cm = ContextManager.open("memory:")
    _talk(cm)
    otel.exporter.clear()
    result = cm.compile(300, reserve_for_response=50)
    (span,) = otel.spans("context_journal.compile")
    attrs = dict(span.attributes or {})
    assert attrs["context_journal.compile.strategy"] == result.strategy == "passthrough"
    assert attrs["context_journal.compile.budget_tokens"] == result.budget == 250
    assert attrs["context_journal.compile.max_tokens"] == 300
    assert attrs["context_journal.compile.tokens"] == result.tokens
    assert attrs["context_journal.compile.messages"] == len(result.messages) < 20
    assert attrs["context_journal.compile.dropped"] == result.dropped > 0
    assert attrs["context_journal.namespace"] == "default" and attrs["context_journal.branch"] == "main"
    assert span.end_time is not None and span.start_time is not None and span.end_time > span.start_time
    assert span.status.status_code is StatusCode.UNSET
    assert otel.total("context_journal.compile.duration", **{"context_journal.compile.strategy": "passthrough"}) == 1
    assert otel.unit("context_journal.compile.duration") == "s"
    assert otel.total("context_journal.compile.tokens") == result.tokens
    assert otel.unit("context_journal.compile.tokens") == "{token}"
    cm.close()


def test_a_failed_compile_marks_its_span(otel: Otel) -> None:
    cm = ContextManager.open("memory:")
    _talk(cm, 2)
    with pytest.raises(ValueError):
        cm.compile(100, reserve_for_response=200)
    (span,) = otel.spans("context_journal.compile")
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "ValueError"
    assert otel.total("context_journal.compile.duration", **{"error.type": "ValueError"}) == 1
    cm.close()


def test_a_summary_call_emits_its_span_with_token_figures(otel: Otel) -> None:
    provider = ScriptedProvider(
        [
            ScriptedProvider.text("I remember it.", usage=Usage(input_tokens=1234, output_tokens=56)),
            RuntimeError("overloaded"),
            ScriptedProvider.text("I remember more.", usage=Usage(input_tokens=999, output_tokens=44)),
        ]
    )
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CONFIG), summarizer=provider)
    _talk(cm, 30)
    first = cm.tick()
    assert first.status == "done"
    (span,) = otel.spans("context_journal.compression.call")
    attrs = dict(span.attributes or {})
    assert attrs["context_journal.compression.input_tokens"] == first.input_tokens == 1234
    assert attrs["context_journal.compression.output_tokens"] == first.output_tokens == 56
    assert attrs["context_journal.compression.outcome"] == "ok"
    assert attrs["context_journal.compression.work"] == first.work
    assert attrs["context_journal.compression.kind"] == "chunk" and attrs["context_journal.compression.level"] == 1
    assert attrs["context_journal.compression.attempt"] == 1 and attrs["context_journal.compression.retries"] == 0
    assert attrs["context_journal.compression.model"] == "scripted"
    assert otel.total("context_journal.compression.tokens", **{"context_journal.token.type": "input"}) == 1234
    assert otel.total("context_journal.compression.tokens", **{"context_journal.token.type": "output"}) == 56
    assert otel.unit("context_journal.compression.duration") == "s"

    failed = cm.tick()  # the next chunk's call fails: recorded as a failed attempt
    assert failed.status == "failed"
    retried = cm.tick()  # retried at once (no backoff in this configuration)
    assert retried.status == "done" and retried.work == failed.work
    _, bad, good = otel.spans("context_journal.compression.call")
    bad_attrs, good_attrs = dict(bad.attributes or {}), dict(good.attributes or {})
    assert bad_attrs["context_journal.compression.outcome"] == "failed"
    assert bad_attrs["error.type"] == "RuntimeError"  # the README: failures set error.type
    assert bad.status.status_code is StatusCode.ERROR
    # The compiles that lay out summary requests are part of the calls, not reported as compiles.
    assert otel.spans("context_journal.compile") == []
    assert otel.total("context_journal.compile.tokens") == 0
    assert good_attrs["context_journal.compression.attempt"] == 2
    assert good_attrs["context_journal.compression.retries"] == 1
    assert good_attrs["context_journal.compression.input_tokens"] == 999
    assert otel.total("context_journal.compression.retries") == 1
    assert otel.total("context_journal.compression.duration", **{"context_journal.compression.outcome": "ok"}) == 2
    assert otel.total("context_journal.compression.duration", **{"context_journal.compression.outcome": "failed"}) == 1
    assert otel.total("context_journal.compression.tokens", **{"context_journal.token.type": "input"}) == 1234 + 999 + (
        failed.input_tokens
    )
    cm.close()


def test_a_refused_summary_call_is_an_error_span(otel: Otel) -> None:
    provider = ScriptedProvider([ProviderRequestError("bad model", provider="scripted")])
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CONFIG), summarizer=provider)
    _talk(cm, 30)
    with pytest.raises(ProviderRequestError):
        cm.tick()
    (span,) = otel.spans("context_journal.compression.call")
    assert dict(span.attributes or {})["context_journal.compression.outcome"] == "refused"
    assert dict(span.attributes or {})["error.type"] == "ProviderRequestError"
    assert span.status.status_code is StatusCode.ERROR and span.events  # the exception is recorded
    cm.close()


def test_a_worker_reports_each_summary_call(otel: Otel, tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    cm = ContextManager.open(path, namespace="a", strategy=AutobiographicalStrategy(**CONFIG), compression="workers")
    _talk(cm, 30)
    provider = ScriptedProvider(default="I remember it well.")
    with CompressionWorker(str(path), provider, retention_seconds=None) as worker:
        report = worker.run(until_idle=True)
    spans = otel.spans("context_journal.compression.call")
    assert report.units > 0 and len(spans) == report.units == provider.calls
    assert all(dict(s.attributes or {})["context_journal.compression.outcome"] == "ok" for s in spans)
    cm.close()


def test_store_writes_report_committed_transactions(otel: Otel, store: Any) -> None:
    backend = {"context_journal.store.backend": store.backend}
    before = otel.total("context_journal.store.transaction.duration", **backend)
    branch = store.get_branch("main").id
    with store.transaction() as tx:
        for i in range(3):
            tx.append(branch, "messages", f"m{i}", {"n": i})
    with pytest.raises(RuntimeError), store.transaction() as tx:  # rolled back: not reported
        tx.append(branch, "messages", "gone", {"n": 9})
        raise RuntimeError("roll back")
    assert otel.total("context_journal.store.transaction.duration", **backend) == before + 1
    assert otel.total("context_journal.store.records", **backend) == 3
    assert otel.unit("context_journal.store.records") == "{record}"


def test_without_opentelemetry_nothing_is_reported_and_nothing_fails(
    otel: Otel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("opentelemetry", "opentelemetry.trace", "opentelemetry.metrics"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails
    importlib.reload(telemetry)
    try:
        assert not telemetry.enabled()
        telemetry.configure(tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider)
        provider = ScriptedProvider(default="I remember it.")
        cm = ContextManager.open(tmp_path / "n.db", strategy=AutobiographicalStrategy(**CONFIG), summarizer=provider)
        _talk(cm, 30)
        assert cm.tick().status == "done"
        assert cm.compile(300).messages
        cm.close()
        assert provider.calls == 1
        assert otel.exporter.get_finished_spans() == ()
        assert otel.points("context_journal.store.records") == []
    finally:
        monkeypatch.undo()
        importlib.reload(telemetry)
    assert telemetry.enabled()
