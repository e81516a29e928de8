"""Token counting: the estimate against tiktoken on the real data (error by content class, printed),
the offline exact counter, and calibration from reported usage."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
from compile_helpers import words

from context_journal.errors import MissingExtraError
from context_journal.formats import read_transcript
from context_journal.manager import ContextManager
from context_journal.tokens import (
    Calibration,
    EstimatingCounter,
    TiktokenCounter,
    TokenCounter,
    TokenizerUnavailableError,
    estimate_text_tokens,
    load_offline_encoding,
    text_class,
)


def _exact() -> TiktokenCounter:
    try:
        return TiktokenCounter("cl100k_base")
    except (MissingExtraError, TokenizerUnavailableError) as exc:
        pytest.skip(f"no offline cl100k_base ranks: {exc}")


def _samples(data_dir: Path) -> Iterator[tuple[str, str]]:
    """``(class, text)`` from every data set: text blocks by content class, tool calls, results, thinking."""
    sources = [(p, "claude-code") for p in sorted((data_dir / "claude-code-sessions").glob("*.jsonl"))] + [
        (data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json", "tau-bench"),
        (data_dir / "locomo" / "locomo-dev7.json", "locomo"),
    ]
    irc = sorted((data_dir / "ubuntu-irc-disentanglement" / "dev").glob("*.raw.txt"))[:4]
    for path, fmt in sources:
        for conv in read_transcript(path, format=fmt).conversations:
            for m in conv.messages:
                for b in m.content if isinstance(m.content, list) else []:
                    b = b if isinstance(b, dict) else b.model_dump()
                    kind = b.get("type")
                    if kind == "text" and b["text"].strip():
                        yield f"text/{text_class(b['text'])}", b["text"]
                    elif kind == "thinking":
                        yield "thinking", b["thinking"]
                    elif kind == "tool_use":
                        yield "tool_use input", json.dumps(b["input"], separators=(",", ":"), ensure_ascii=False)
                    elif kind == "tool_result" and isinstance(b.get("content"), str) and b["content"].strip():
                        yield "tool_result", b["content"]
    for path in irc:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.strip():
                yield "irc line", line
    # The data sets are English; these classes are measured on fixed samples.
    yield (
        "cjk (sample)",
        "今天天气很好，我们去公园散步吧。这个项目的目标是构建一个持久的日志系统。日本語のテキストも含まれています。"
        * 3,
    )
    yield "emoji (sample)", "Great job 🎉🎉 ship it 🚀 — tests are green ✅ 😀👍🔥 " * 3
    yield (
        "accented (sample)",
        "Ça va très bien, merci! Größe, Straße, über, naïve café. Привет, как дела? Γειά σου κόσμε." * 3,
    )


@pytest.mark.slow
def test_estimate_error_by_content_class_against_tiktoken(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    exact = _exact()
    by_class: dict[str, list[tuple[int, int]]] = {}
    for cls, text in _samples(data_dir):
        by_class.setdefault(cls, []).append((estimate_text_tokens(text), exact.text_tokens(text)))
    lines = [f"{'class':<22}{'blocks':>8}{'tiktoken':>11}{'estimate':>11}{'total err':>11}{'median |err|':>14}"]
    worst = 0.0
    for cls in sorted(by_class):
        pairs = by_class[cls]
        est = sum(e for e, _ in pairs)
        real = sum(r for _, r in pairs)
        rel = [abs(e - r) / r for e, r in pairs if r >= 20] or [abs(est - real) / max(1, real)]
        median = statistics.median(rel)
        worst = max(worst, abs(est / real - 1))
        lines.append(f"{cls:<22}{len(pairs):>8}{real:>11,}{est:>11,}{est / real - 1:>+11.1%}{median:>14.1%}")
    with capsys.disabled():
        print("\ntoken estimate vs tiktoken cl100k_base, by content class (blocks of >= 20 tokens for the median)")
        print("\n".join(lines))
    assert worst < 0.35  # a sanity bound; the figures are reported, calibration corrects the rest


def test_estimate_prices_blocks_by_kind() -> None:
    c = EstimatingCounter(image_tokens=1234, document_tokens=99)
    big = "A" * 2_000_000
    assert (
        c.count_block({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": big}}) == 1235
    )
    assert c.count_block({"type": "document", "source": {"type": "base64", "media_type": "x", "data": big}}) == 100
    assert c.count_block({"type": "document", "source": {"type": "text", "data": words(100)}}) > 100
    use = {"type": "tool_use", "id": "t", "name": "bash", "input": {"cmd": "ls -la /tmp && cat x.json"}}
    assert c.count_block(use) > c.tool_use_overhead
    signed = {"type": "thinking", "thinking": "hmm " * 50, "signature": "s" * 400}
    assert c.count_block(signed) >= c.count_block({"type": "thinking", "thinking": "hmm " * 50}) + 100
    assert estimate_text_tokens("") == 0 and estimate_text_tokens("a") == 1
    assert isinstance(c, TokenCounter)
    assert c.count_message("x", []) == c.message_overhead


def test_exact_counter_from_a_local_rank_file_matches_the_bundled_one(tmp_path: Path) -> None:
    """A ``.tiktoken`` rank file given by path (written here from the bundled, sha256-checked ranks, in
    tiktoken's own format: base64 token and rank per line) counts exactly as the bundled encoding."""
    import base64

    exact = _exact()
    ranks = load_offline_encoding("cl100k_base")._mergeable_ranks
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(tok) + b" " + str(rank).encode() + b"\n" for tok, rank in ranks.items()))
    from_file = TiktokenCounter(rank_file=path)
    for text in ("hello world", words(300), "def f(x):\n    return {'a': [1, 2, 3]}\n", "日本語 😀"):
        assert from_file.text_tokens(text) == exact.text_tokens(text)


def test_exact_counter_never_downloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tiktoken")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    import context_journal.tokens as tokens_module

    monkeypatch.setattr(tokens_module, "_QUICKTOK_FILES", {})  # no package bundling the ranks either
    with pytest.raises(TokenizerUnavailableError, match="o200k_base"):
        TiktokenCounter("o200k_base")  # no offline ranks for it here: refused, not fetched
    with pytest.raises(TokenizerUnavailableError):
        TiktokenCounter(rank_file=tmp_path / "missing.tiktoken")


def test_calibration_moves_toward_reported_usage_within_bounds() -> None:
    cal = Calibration()
    assert cal.update(1000, 1200) == pytest.approx(1.2)
    for _ in range(50):
        cal.update(1000, 100_000)  # absurd reports cannot push it past the bound
    assert cal.factor == pytest.approx(cal.upper) and cal.factor <= cal.upper
    back = Calibration.from_state(json.loads(json.dumps(cal.to_state())))
    assert back.factor == cal.factor and back.samples == 51
    assert Calibration.from_state("garbage").factor == 1.0
    assert cal.apply(cal.raw_budget(999)) <= 999
    with pytest.raises(ValueError):
        cal.update(0, 10)


def test_report_usage_calibrates_the_namespace_and_later_compiles_fit(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with ContextManager.open(path, namespace="ann") as cm:
        for k in range(200):
            cm.add_message("user" if k % 2 == 0 else "assistant", words(60, k))
        first = cm.compile(5_000)
        factor = cm.report_usage(first.compile_id, int(first.estimated_tokens * 1.5))
        assert factor == pytest.approx(1.5, rel=1e-3)
        second = cm.compile(5_000)
        assert second.calibration == pytest.approx(1.5, rel=1e-3)
        assert second.tokens <= 5_000
        assert second.estimated_tokens < first.estimated_tokens  # fewer estimated tokens fit now
        with pytest.raises(KeyError):
            cm.report_usage("cmp_unknown", 100)
        last = cm.report_usage(second, second.estimated_tokens * 2)  # or the result itself
        assert 1.5 < last <= 2.0  # toward 2.0 by one step (the bound is far higher now)
        # That report had a mix (all prose): the next compile of prose is priced by prose's own factor,
        # which the report moved further than the overall one (issue 13 kind 3: per class).
        now = cm.compile(5_000).calibration
        assert last <= now <= 2.0
    with ContextManager.open(path, namespace="ann") as again:
        assert again.compile(5_000).calibration == now  # stored
    with ContextManager.open(path, namespace="bob") as other:
        assert other.compile(5_000).calibration == 1.0  # per namespace
