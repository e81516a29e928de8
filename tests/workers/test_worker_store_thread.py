"""A running worker does its store work on the store's thread, never on its event loop: the
claims, the managers' reads and the summaries' writes of every concurrent item run there, while the
loop only awaits the model calls (so one item's store work never delays another's model answer)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from context_journal import ContextManager
from context_journal.stores import SQLiteStore
from context_journal.stores.queue import WorkClaim
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker
from tests.workers._work import strategy


def test_store_work_runs_on_the_store_thread_and_every_item_is_summarised(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "w.db")
    for k in range(3):
        cm = ContextManager.open(
            store=store, namespace=f"ns{k}", isolate=True, strategy=strategy(), compression="workers"
        )
        for i in range(30):
            cm.add_message("user" if i % 2 == 0 else "assistant", f"ns{k} turn {i}: " + "words and more words " * 6)
        cm.close()
    seen: dict[str, set[str]] = {"claim": set(), "write": set()}
    claim, transaction = store.queue_claim, store.transaction

    def spy_claim(owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        seen["claim"].add(threading.current_thread().name)
        return claim(owner, lease_seconds, now)

    def spy_transaction(*args: Any, **kwargs: Any) -> Any:
        seen["write"].add(threading.current_thread().name)
        return transaction(*args, **kwargs)

    store.queue_claim = spy_claim  # type: ignore[method-assign]
    store.transaction = spy_transaction  # type: ignore[method-assign]
    worker = CompressionWorker(store, ScriptedProvider(default="A summary.", latency=0.02), concurrency=3)
    loop_thread = threading.current_thread().name  # run() runs the loop on this thread
    report = worker.run()
    assert report.summaries >= 3 and not report.errors
    assert seen["claim"] and all(name.startswith("context-journal-store-") for name in seen["claim"])
    assert seen["write"] and loop_thread not in seen["write"]
    assert worker._thread is None  # released when the run ended
    for k in range(3):
        with ContextManager.open(store=store, namespace=f"ns{k}", isolate=True, strategy=strategy()) as cm:
            assert cm.pending_work().ready == ()
    store.close()
