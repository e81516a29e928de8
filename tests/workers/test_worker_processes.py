"""Compression workers in separate processes, on SQLite and PostgreSQL: every chunk summarised exactly once,
and a worker killed mid-request (SIGKILL) has its work redone by another after its lease expires."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from context_journal import ContextManager
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker
from tests.workers._work import assert_each_once, open_spec, seed

CHILD = str(Path(__file__).parent / "_worker_child.py")


def _spawn(spec: str, worker_id: str, lease: float, latency: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, CHILD, spec, worker_id, str(lease), str(latency)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def test_three_workers_summarise_thirty_conversations_each_chunk_once(spec: str) -> None:
    store = open_spec(spec)
    try:
        names = seed(store, 30, 24)
        reports = []
        with ExitStack() as running:  # on the way out, even after a failure: each killed, reaped, pipes closed
            procs = []
            for i in range(3):
                procs.append(running.enter_context(_spawn(spec, f"w{i}", 30.0, 0.0)))
                running.callback(procs[-1].kill)
            for p in procs:
                out, err = p.communicate(timeout=240)
                assert p.returncode == 0, err
                reports.append(json.loads(out.strip().splitlines()[-1]))
        assert all(r["lost"] == 0 and not r["errors"] for r in reports), reports
        assert sum(1 for r in reports if r["summaries"]) >= 2, reports  # the work was shared
        chunks = sum(assert_each_once(store, ns) for ns in names)
        assert chunks >= 30 * 3
        rows = store.queue_rows()  # type: ignore[attr-defined]
        assert len(rows) == 30 and {r["status"] for r in rows} == {"done"}
        # Summaries stored by the workers reach a workers-mode manager's next compile.
        cm = ContextManager(store, namespace="c07", isolate=True, compression="workers")
        from tests.workers._work import strategy

        cm.set_strategy(strategy())
        result = cm.compile(400)
        assert any("I remember this part" in json.dumps(m, default=str) for m in result.messages)
    finally:
        store.close()


def test_a_worker_killed_mid_request_has_its_work_redone(spec: str) -> None:
    store = open_spec(spec)
    try:
        names = seed(store, 2, 24)
        # leaving the block closes the pipes and reaps the victim (killed in every case, so the wait is short)
        with _spawn(spec, "victim", 3.0, 60.0) as victim:  # its model call sleeps a minute
            try:
                deadline = time.time() + 60
                held: dict[str, object] | None = None
                while time.time() < deadline and held is None:
                    held = next((r for r in store.queue_rows() if str(r["lease_owner"]).startswith("victim")), None)  # type: ignore[attr-defined]
                    time.sleep(0.05)
                if held is None:
                    victim.kill()
                    victim.wait(timeout=30)
                assert held is not None, victim.stderr.read() if victim.stderr else ""
                time.sleep(0.5)  # inside its model call now
            finally:
                victim.send_signal(signal.SIGKILL)
                victim.wait(timeout=30)
        assert victim.returncode == -signal.SIGKILL
        with CompressionWorker(
            open_spec(spec),
            ScriptedProvider(default="I remember this part.", latency=0.0),
            worker_id="rescuer",
            lease_seconds=30.0,
            poll_seconds=0.05,
        ) as rescuer:
            report = rescuer.run(until_idle=True)
            rescuer.store.close()
        assert report.lost == 0 and report.summaries > 0
        rows = {r["key"]: r for r in store.queue_rows()}  # type: ignore[attr-defined]
        assert rows[held["key"]]["attempts"] >= 2  # claimed again after the lease expired
        assert {r["status"] for r in rows.values()} == {"done"}
        for ns in names:
            assert_each_once(store, ns)
    finally:
        store.close()
