"""The async API (``context_journal.aio``): the synchronous API's tests run through it, many
tasks on one store, a loop never blocked by store work, compression interleaved with other calls, and
closing, cancelling and sharing a store thread.

* The message tests of ``test_manager.py`` and the branch tests of ``branches/test_branch_api.py`` run
  unchanged through :class:`SyncOverAsync`, a synchronous facade whose every call is an ``await`` of
  :class:`AsyncContextManager` on an event loop of its own (same results, same exceptions).
* 100 tasks write and compile concurrently on one store; no store or manager method runs on the caller's
  loop thread meanwhile (how late the loop wakes is a benchmark figure: ``benchmarks/bench_loop_lag.py``).
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager, MemoryStore, MessageNotFoundError, SQLiteStore, Store, StoreClosedError
from context_journal.aio import AsyncContextManager
from context_journal.messages import MessageInput
from context_journal.testing import ScriptedProvider
from tests.loop_workloads import manager_tasks, warm_messages
from tests.thread_probe import ThreadProbe


class _Gate:
    """A summarizer answer that holds each model call until the test lets it go: the test awaits
    :meth:`asked` (a request is with the model), acts while the call is open, then calls :meth:`release`.
    Deterministic where a fixed sleep raced a loaded machine (CI once found no request after 0.1 s).
    The call runs on the store thread's loop, the test on its own: the gate is two thread-safe events,
    each side polling on its own loop."""

    def __init__(self, answer: Callable[[Any], str] | str) -> None:
        self.answer = answer
        self._asked = threading.Event()
        self._released = threading.Event()

    async def __call__(self, request: Any) -> str:
        self._asked.set()
        while not self._released.is_set():
            await asyncio.sleep(0.005)
        return self.answer(request) if callable(self.answer) else self.answer

    async def asked(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self._asked.is_set():
            assert time.monotonic() < deadline, "no model call began"
            await asyncio.sleep(0.005)

    def release(self) -> None:
        self._released.set()


class _Loop:
    """An event loop on a thread of its own: the caller's loop of :class:`SyncOverAsync`."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


_LOOP: _Loop | None = None


def _loop() -> _Loop:
    global _LOOP
    if _LOOP is None:
        _LOOP = _Loop()
    return _LOOP


class SyncOverAsync:
    """``ContextManager``'s synchronous API where every method is an ``await`` of the async manager."""

    def __init__(self, acm: AsyncContextManager) -> None:
        self._acm = acm

    @classmethod
    def open(cls, *args: Any, **kwargs: Any) -> SyncOverAsync:
        return cls(_loop().run(AsyncContextManager.open(*args, **kwargs)))

    @classmethod
    def reopen_derived(cls, *args: Any, **kwargs: Any) -> SyncOverAsync:
        return cls(AsyncContextManager.wrap(ContextManager.reopen_derived(*args, **kwargs)))

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._acm, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            out = _loop().run(attr(*args, **kwargs))
            return SyncOverAsync(out) if isinstance(out, AsyncContextManager) else out

        return call

    def close(self) -> None:
        _loop().run(self._acm.aclose())

    def __enter__(self) -> SyncOverAsync:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _sync_tests(module_name: str) -> list[tuple[str, Callable[..., Any]]]:
    """The module's tests that take only ``store`` and ``tmp_path``, each named ``<module>::<test>`` (the module's
    last name, as in ``tests/core/test_manager.py``'s ``test_manager``)."""
    module = importlib.import_module(module_name)
    label = module_name.rpartition(".")[2]
    out: list[tuple[str, Callable[..., Any]]] = []
    for name, fn in vars(module).items():
        if not name.startswith("test_") or not inspect.isfunction(fn):
            continue
        params = set(inspect.signature(fn).parameters)
        if params <= {"store", "tmp_path"} and not hasattr(fn, "pytestmark"):
            out.append((f"{label}::{name}", fn))
    return out


SYNC_TESTS = _sync_tests("tests.core.test_manager") + _sync_tests("tests.branches.test_branch_api")


@pytest.fixture(params=["memory", "sqlite"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    st: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "a.db")
    yield st
    st.close()


@pytest.mark.parametrize(("name", "fn"), SYNC_TESTS, ids=[n for n, _ in SYNC_TESTS])
def test_the_sync_tests_pass_through_the_async_api(
    name: str, fn: Callable[..., Any], any_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(SYNC_TESTS) >= 20  # both modules were found
    module = sys.modules[fn.__module__]
    monkeypatch.setattr(module, "ContextManager", SyncOverAsync)
    params = inspect.signature(fn).parameters
    kwargs = {k: v for k, v in (("store", any_store), ("tmp_path", tmp_path)) if k in params}
    if "store" not in params and any_store.backend != "memory":
        pytest.skip("opens its own stores: run once")
    fn(**kwargs)


def test_results_and_errors_are_the_sync_ones(tmp_path: Path) -> None:
    async def main() -> None:
        async with await AsyncContextManager.open(tmp_path / "e.db") as cm:
            first = await cm.add_message("user", "hello there")
            await cm.add_message("assistant", [{"type": "text", "text": "hi"}])
            assert (await cm.get_all_messages())[0].id == first
            assert (await cm.get_message(first)).content_dicts() == [{"type": "text", "text": "hello there"}]
            assert await cm.message_count() == 2
            result = await cm.compile(max_tokens=1000)
            assert [m.role for m in result.messages] == ["user", "assistant"]
            with pytest.raises(MessageNotFoundError, match="'nope'"):
                await cm.get_message("nope")
            with pytest.raises(ValueError):
                await cm.search_messages("   ")
            hits = await cm.search_messages("hello")
            assert [h.message_id for h in hits] == [first]
            assert cm.current_branch() == "main"
            assert await cm.run(lambda m: m.message_count()) == 2
        with pytest.raises(StoreClosedError):
            await cm.add_message("user", "after close")

    asyncio.run(main())


def test_many_tasks_on_one_store_and_no_store_work_on_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """100 tasks, each writing 10 messages and compiling after every third, on one SQLite store of 1,000
    messages: every write lands once, each task's in its order, and no method of the manager or the store
    runs on the caller's loop thread (every one of them on the store's thread). How late the loop wakes
    meanwhile depends on the machine: ``benchmarks/bench_loop_lag.py`` measures it."""
    probe = ThreadProbe(monkeypatch)

    async def main() -> tuple[list[list[str]], dict[str, int]]:
        async with await AsyncContextManager.open(tmp_path / "many.db") as cm:
            await cm.add_messages(warm_messages(1000))
            probe.watch(ContextManager, SQLiteStore)
            results = await manager_tasks(cm, 100)
            where = {m.id: n for n, m in enumerate(await cm.get_all_messages())}
            return results, where

    loop_thread = threading.get_ident()  # asyncio.run runs the loop on this thread
    results, where = asyncio.run(main())
    assert sum(len(r) for r in results) == len({i for r in results for i in r}) == 1000
    assert len(where) == 2000
    assert all([where[i] for i in r] == sorted(where[i] for i in r) for r in results)
    assert probe.on(loop_thread) == {}
    assert probe.elsewhere(loop_thread) >= 1400  # 1,000 writes and 400 compiles, each at least one call


def test_calls_run_while_compression_awaits_the_model(tmp_path: Path) -> None:
    gate = _Gate("A summary of the chunk.")
    slow = ScriptedProvider(default=gate)

    async def main() -> tuple[bool, int]:
        async with await AsyncContextManager.open(
            tmp_path / "c.db", strategy="autobiographical", summarizer=slow
        ) as cm:
            await cm.add_messages(
                [MessageInput("user" if i % 2 else "assistant", f"line {i} " * 60) for i in range(200)]
            )
            draining = asyncio.create_task(cm.tick())
            await gate.asked()  # the tick is awaiting the model now
            await cm.add_message("user", "written during the model call")
            open_call = not draining.done()  # the write did not wait for the model call to end
            gate.release()
            result = await draining
            assert result.status == "done", result
            return open_call, await cm.message_count()

    open_call, count = asyncio.run(main())
    assert slow.calls == 1 and count == 201
    assert open_call  # the write did not wait for the model call to end


def test_a_cancelled_call_that_has_not_started_never_runs(tmp_path: Path) -> None:
    async def main() -> int:
        async with await AsyncContextManager.open(tmp_path / "x.db") as cm:
            gate = threading.Event()
            blocker = asyncio.create_task(cm.run(lambda m: gate.wait(5)))  # holds the store thread
            await asyncio.sleep(0.05)
            queued = asyncio.create_task(cm.add_message("user", "never written"))
            await asyncio.sleep(0.05)
            queued.cancel()
            with pytest.raises(asyncio.CancelledError):
                await queued
            gate.set()
            await blocker
            return await cm.message_count()

    assert asyncio.run(main()) == 0


def test_managers_on_one_store_share_its_thread_until_the_last_closes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")

    async def main() -> None:
        a = await AsyncContextManager.open(store=store)
        b = await AsyncContextManager.open(store=store, namespace="other")
        assert a._thread is b._thread
        thread = a._thread.thread
        await a.add_message("user", "from a")
        child = await a.derive("kid")
        assert child._thread is a._thread
        await child.add_message("user", "on the child branch")
        assert await a.message_count() == 1 and await child.message_count() == 2
        await a.aclose()
        await child.aclose()
        assert thread.is_alive()
        assert await b.message_count() == 1  # namespaces share the message slot unless isolated
        await b.aclose()
        thread.join(5)
        assert not thread.is_alive()

    asyncio.run(main())
    store.close()


def test_postgres_through_the_async_api(store: Store) -> None:
    """The conformance backends (memory, SQLite, PostgreSQL when reachable) through the async API."""

    async def main() -> None:
        cm = await AsyncContextManager.open(store=store, namespace="async")
        ids = await asyncio.gather(*(cm.add_message("user", f"message {k}") for k in range(50)))
        assert [m.id for m in await cm.get_all_messages()] == list(ids)  # queued in call order
        await cm.fork("side")
        await cm.switch_branch("side")
        await cm.add_message("user", "side only")
        assert await cm.message_count() == 51
        await cm.switch_branch("main")
        assert await cm.message_count() == 50
        await cm.aclose()

    asyncio.run(main())


def _autobiographical(summarizer: ScriptedProvider) -> Coroutine[Any, Any, AsyncContextManager]:
    return AsyncContextManager.open(store=MemoryStore(), strategy="autobiographical", summarizer=summarizer)


def _line(i: int, text: str) -> MessageInput:
    return MessageInput("user" if i % 2 else "assistant", f"line {i} {text}")


def _echo_secrets(request: Any) -> str:
    """A summarizer that repeats every SECRET<n>X marker its request carried (what a model may do)."""
    import re as _re

    text = " ".join(str(b.get("text", "")) for m in request.messages for b in m.content if isinstance(b, dict))
    return "Summary: " + " ".join(sorted(set(_re.findall(r"SECRET\d+X", text)))) + " and the rest."


def test_a_redaction_during_a_summary_call_drops_its_result() -> None:
    """A review found: a summary answered after a redaction committed during its call would bring the
    erased text back; it is dropped and the work asked again, without the erased text."""
    gate = _Gate(_echo_secrets)
    slow = ScriptedProvider(default=gate)

    async def main() -> tuple[Any, list[Any], bool]:
        async with await AsyncContextManager.open(
            store=MemoryStore(), strategy="autobiographical", summarizer=slow
        ) as cm:
            lines = [
                MessageInput("user" if i % 2 else "assistant", f"line {i} SECRET{i}X " + "words " * 60)
                for i in range(200)
            ]
            ids = await cm.add_messages(lines)
            tick = asyncio.create_task(cm.tick())
            await gate.asked()  # the request (holding SECRET1X) is with the model
            assert "SECRET1X" in str(slow.requests[-1].messages)
            await cm.redact(ids[1], reason="pii")
            gate.release()
            dropped = await tick
            await cm.drain()
            leaked = "SECRET1X" in str((await cm.compile(max_tokens=4000)).to_anthropic())
            return dropped, await cm.search_summaries("SECRET1X"), leaked

    dropped, hits, leaked = asyncio.run(main())
    assert dropped.status == "failed" and "redaction" in (dropped.error or "")
    assert hits == [] and not leaked


def test_a_branch_switch_during_a_summary_call_drops_its_result_without_an_error() -> None:
    gate = _Gate("A summary.")
    slow = ScriptedProvider(default=gate)

    async def main() -> tuple[Any, Any]:
        async with await AsyncContextManager.open(
            store=MemoryStore(), strategy="autobiographical", summarizer=slow
        ) as cm:
            ids = await cm.add_messages(
                [MessageInput("user" if i % 2 else "assistant", f"line {i} " * 60) for i in range(200)]
            )
            await cm.fork("side", at=ids[50])
            tick = asyncio.create_task(cm.tick())
            await gate.asked()
            await cm.switch_branch("side")
            gate.release()
            first = await tick
            await cm.switch_branch("main")
            second = await cm.tick()  # the work was left pending: asked again
            return first, second

    first, second = asyncio.run(main())
    assert first.status == "failed" and "switched branch" in (first.error or "")
    assert second.status == "done" and second.summary_id is not None


def test_closing_during_a_summary_call_ends_the_call_with_the_closed_store_error(tmp_path: Path) -> None:
    gate = _Gate("A summary.")
    slow = ScriptedProvider(default=gate)

    async def main() -> BaseException | Any:
        cm = await AsyncContextManager.open(tmp_path / "c.db", strategy="autobiographical", summarizer=slow)
        await cm.add_messages([MessageInput("user" if i % 2 else "assistant", f"line {i} " * 60) for i in range(200)])
        tick = asyncio.create_task(cm.tick())
        await gate.asked()
        await cm.aclose()
        gate.release()
        done, _ = await asyncio.wait({tick}, timeout=5)
        assert done, "the tick never ended"
        return tick.exception()

    assert isinstance(asyncio.run(main()), StoreClosedError)


def test_run_awaits_a_coroutine_function_on_the_store_thread() -> None:
    async def main() -> tuple[Any, Any]:
        async with await AsyncContextManager.open(store=MemoryStore(), strategy="autobiographical") as cm:
            await cm.add_message("user", "hello")

            async def count(m: ContextManager) -> tuple[int, str]:
                await asyncio.sleep(0)
                return m.message_count(), threading.current_thread().name

            return await cm.run(count), cm.compression_stats

    (n, thread), stats = asyncio.run(main())
    assert n == 1 and thread.startswith("context-journal-store-") and stats.calls == 0


def test_closing_ends_a_summary_call_whose_model_never_answers(tmp_path: Path) -> None:
    """A second review found: aclose() left a tick pending for as long as its provider did not answer."""

    never = _Gate("unreachable")  # never released

    async def main() -> BaseException | None:
        silent = ScriptedProvider(default=never)
        cm = await AsyncContextManager.open(tmp_path / "n.db", strategy="autobiographical", summarizer=silent)
        await cm.add_messages([_line(i, "words " * 60) for i in range(200)])
        tick = asyncio.create_task(cm.tick())
        await never.asked()
        await cm.aclose()
        done, _ = await asyncio.wait({tick}, timeout=5)
        assert done, "the tick never ended"
        return tick.exception()

    assert isinstance(asyncio.run(main()), StoreClosedError)


def test_the_store_thread_hands_the_gil_over_only_after_running_calls_back_to_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Calls queued back to back that run for 2 ms release the GIL (time.sleep(0)) before the next, so the
    caller's loop is not starved (``benchmarks/bench_loop_lag.py`` measures its lag); a caller awaiting each
    result, one call at a time, never waits for a release (the thread was idle between its calls)."""
    from context_journal import _store_thread

    thread = _store_thread.StoreThread()
    sleeps: list[float] = []
    real_sleep = time.sleep

    def counted(seconds: float) -> None:
        if threading.current_thread() is thread.thread:
            sleeps.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", counted)  # the module _store_thread calls time.sleep on

    def busy(ms: float) -> None:
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            pass

    async def main() -> None:
        for _ in range(5):  # one at a time: each awaited before the next is queued
            await thread.call(busy, 3)
            await asyncio.sleep(0.001)
        assert sleeps == []
        await asyncio.gather(*(thread.call(busy, 1) for _ in range(12)))  # queued together: 12 ms back to back
        assert 1 <= len(sleeps) <= 6 and set(sleeps) == {0}  # about one per 2 ms (fewer if the OS paused the thread)

    try:
        asyncio.run(main())
    finally:
        thread.stop()
