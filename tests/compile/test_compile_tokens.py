"""Token counting: the estimate against tiktoken on the real data (error by content class, printed),
the offline exact counter, and calibration from reported usage."""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest

from context_journal.errors import MissingExtraError
from context_journal.manager import ContextManager
from context_journal.tokens import (
    Calibration,
    EstimatingCounter,
    TiktokenCounter,
    TokenCounter,
    TokenizerUnavailableError,
    estimate_text_tokens,
    load_offline_encoding,
)
from tests.compile.compile_helpers import words
from tests.compile.token_corpus import shared_blocks


def _exact() -> TiktokenCounter:
    try:
        return TiktokenCounter("cl100k_base")
    except (MissingExtraError, TokenizerUnavailableError) as exc:
        pytest.skip(f"no offline cl100k_base ranks: {exc}")


def _samples(data_dir: Path) -> Iterator[tuple[str, str]]:
    """``(class, text)`` from every data set (``token_corpus.shared_blocks``), then fixed samples."""
    yield from shared_blocks(data_dir)
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
    exact = _exact()
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(_rank_file_bytes("cl100k_base"))
    from_file = TiktokenCounter(rank_file=path)
    for text in ("hello world", words(300), "def f(x):\n    return {'a': [1, 2, 3]}\n", "日本語 😀"):
        assert from_file.text_tokens(text) == exact.text_tokens(text)
    # tiktoken's published ids (https://github.com/openai/tiktoken README: cl100k "hello world")
    assert from_file.encoding.encode_ordinary("hello world") == [15339, 1917]


_PUBLISHED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _rank_file_bytes(encoding: str) -> bytes:
    """The published ``.tiktoken`` file of ``encoding``, rebuilt from the ranks ``quicktok-v1`` bundles
    (checked here against the published sha256, so the bytes are the published file's)."""
    import base64
    import hashlib

    try:
        ranks = load_offline_encoding(encoding)._mergeable_ranks
    except (MissingExtraError, TokenizerUnavailableError) as exc:
        pytest.skip(f"no offline {encoding} ranks: {exc}")
    data = b"".join(
        base64.b64encode(tok) + b" " + str(rank).encode() + b"\n"
        for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1])
    )
    assert hashlib.sha256(data).hexdigest() == _PUBLISHED_SHA256[encoding]
    return data


def test_a_rank_file_that_is_not_the_published_one_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A truncated file (tiktoken's Rust core panics with ``pyo3_runtime.PanicException``, a
    BaseException, at the first byte without a rank) and a foreign one (``o200k_base`` ranks given as
    ``cl100k_base``: silently wrong counts) are refused with the typed error naming the file and both
    hashes, before an encoding is built."""
    import hashlib

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    full = _rank_file_bytes("cl100k_base")
    truncated = tmp_path / "truncated.tiktoken"
    truncated.write_bytes(b"".join(full.splitlines(keepends=True)[:100]))  # single bytes 0..99 only
    with pytest.raises(TokenizerUnavailableError) as info:
        TiktokenCounter("cl100k_base", rank_file=truncated)
    err = info.value
    assert err.path == str(truncated) and err.encoding == "cl100k_base"
    assert err.expected_sha256 == _PUBLISHED_SHA256["cl100k_base"]
    assert err.actual_sha256 == hashlib.sha256(truncated.read_bytes()).hexdigest() != err.expected_sha256
    assert str(truncated) in str(err) and err.expected_sha256 in str(err) and err.actual_sha256 in str(err)

    cut = tmp_path / "cut.tiktoken"
    cut.write_bytes(full[:1000])  # cut inside a line: was tiktoken's ValueError "Error parsing line"
    with pytest.raises(TokenizerUnavailableError, match=r"cut\.tiktoken") as cut_error:
        TiktokenCounter("cl100k_base", rank_file=cut)
    # The headline names the file given (it said "no offline rank file ... pass rank_file=": a review).
    assert str(cut_error.value).startswith(f"the rank file {cut} cannot be used for tiktoken encoding 'cl100k_base'")

    foreign = tmp_path / "o200k_base.tiktoken"
    foreign.write_bytes(_rank_file_bytes("o200k_base"))
    with pytest.raises(TokenizerUnavailableError, match="the o200k_base ranks") as info:
        TiktokenCounter("cl100k_base", rank_file=foreign)
    assert info.value.actual_sha256 == _PUBLISHED_SHA256["o200k_base"]
    o200k = TiktokenCounter("o200k_base", rank_file=foreign)  # the same file for its own encoding
    assert o200k.encoding.encode_ordinary("hello world") == [24912, 2375]


def test_no_rank_file_anywhere_names_what_was_looked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review found: the error named neither the folder searched nor the file expected there."""
    pytest.importorskip("tiktoken")
    import sys

    from context_journal import tokens

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "quicktok", None)  # as if quicktok-v1 were not installed
    tokens._read_quicktok.cache_clear()
    try:
        with pytest.raises(TokenizerUnavailableError) as info:
            load_offline_encoding("cl100k_base")
        text = str(info.value)
        assert f"{tmp_path}/9b5ad71b2ce5302211f9c61530b329a4922fc6a4 is missing" in text
        assert "quicktok-v1's vocabulary (not installed)" in text
        with pytest.raises(TokenizerUnavailableError, match="rank_file is empty"):
            load_offline_encoding("cl100k_base", rank_file="")
    finally:
        tokens._read_quicktok.cache_clear()


def test_a_rank_file_replaced_at_the_same_path_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's ``load_tiktoken_bpe`` keeps a copy of any path in its cache (keyed by the path's text)
    and reads the copy back later; the file itself is what is checked and counted with."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(_rank_file_bytes("cl100k_base"))
    assert TiktokenCounter(rank_file=path).text_tokens("hello world") == 2
    path.write_bytes(path.read_bytes()[:5000])
    with pytest.raises(TokenizerUnavailableError, match=r"ranks\.tiktoken"):
        TiktokenCounter(rank_file=path)
    assert not (tmp_path / "cache").exists()  # nothing copied into tiktoken's cache


def test_exact_counter_from_tiktoken_cache_directory_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no bundled ranks, tiktoken's cached file (named after the sha1 of the encoding's URL in
    ``TIKTOKEN_CACHE_DIR``) is used when it is the published one; a damaged one is refused naming it, and
    left in place (tiktoken would delete it and download again)."""
    import hashlib

    import context_journal.tokens as tokens_module

    data = _rank_file_bytes("cl100k_base")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tokens_module, "_QUICKTOK_FILES", {})
    cached = tmp_path / hashlib.sha1(_CL100K_URL.encode()).hexdigest()
    cached.write_bytes(data)
    counter = TiktokenCounter("cl100k_base")
    assert counter.encoding.encode_ordinary("hello world") == [15339, 1917]
    assert counter.text_tokens("日本語 😀") == _exact().text_tokens("日本語 😀")
    cached.write_bytes(data[: len(data) // 2])
    with pytest.raises(TokenizerUnavailableError, match=cached.name) as info:
        TiktokenCounter("cl100k_base")
    assert info.value.path == str(cached) and cached.stat().st_size == len(data) // 2


def test_tiktoken_plugins_are_never_consulted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed ``<encoding>_offline`` plugin (tiktoken_ext namespace) cannot stand in for the
    checked ranks: tiktoken's registry, which imports every plugin and returns its ranks unchecked, is
    never asked."""
    tiktoken = pytest.importorskip("tiktoken")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tiktoken's plugin registry was consulted")

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(_rank_file_bytes("cl100k_base"))
    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    monkeypatch.setattr(tiktoken, "list_encoding_names", refuse)
    monkeypatch.setattr(tiktoken.registry, "get_encoding", refuse)
    monkeypatch.setattr(tiktoken.registry, "list_encoding_names", refuse)
    assert TiktokenCounter("cl100k_base").text_tokens("hello world") == 2
    assert TiktokenCounter("o200k_base").encoding.encode_ordinary("hello world") == [24912, 2375]
    assert TiktokenCounter(rank_file=path).encoding.encode_ordinary("hello world") == [15339, 1917]


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
        # which the report moved further than the overall one (token estimates are calibrated per class).
        now = cm.compile(5_000).calibration
        assert last <= now <= 2.0
    with ContextManager.open(path, namespace="ann") as again:
        assert again.compile(5_000).calibration == now  # stored
    with ContextManager.open(path, namespace="bob") as other:
        assert other.compile(5_000).calibration == 1.0  # per namespace


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"message_overhead": -50}, ValueError),
        ({"message_overhead": "3"}, TypeError),
        ({"block_overhead": True}, TypeError),
        ({"block_overhead": 1.5}, TypeError),
        ({"image_tokens": -1}, ValueError),
    ],
)
def test_counter_prices_are_token_counts(kwargs: dict[str, object], error: type[Exception]) -> None:
    """A review found: a negative overhead made compiles report negative tokens; a string one failed later."""
    with pytest.raises(error):
        EstimatingCounter(**kwargs)  # type: ignore[arg-type]
