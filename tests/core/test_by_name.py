"""One factory per choice: strategies and summarizers by name, as the command line, the MCP server and
``ContextManager.open(strategy="...")`` pick them."""

from __future__ import annotations

import pytest

from context_journal import ContextManager
from context_journal.llm import PROVIDER_NAMES, OfflineSummarizer, ProviderAuthError, provider_by_name
from context_journal.strategies import (
    STRATEGY_NAMES,
    AutobiographicalConfig,
    AutobiographicalStrategy,
    KnowledgeStrategy,
    PassthroughStrategy,
    WindowedPassthroughStrategy,
    strategy_by_name,
)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("passthrough", PassthroughStrategy),
        ("windowed", WindowedPassthroughStrategy),
        ("autobiographical", AutobiographicalStrategy),
        ("knowledge", KnowledgeStrategy),
    ],
)
def test_each_name_makes_its_strategy_and_the_manager_takes_the_same_names(name: str, kind: type) -> None:
    made = strategy_by_name(name)
    assert type(made) is kind and strategy_by_name(name) is not made  # a new one each time
    with ContextManager.open("memory:", strategy=f" {name.upper()} ") as cm:
        assert type(cm.strategy) is kind


def test_a_compressing_strategy_takes_its_config_and_the_others_refuse_one() -> None:
    config = AutobiographicalConfig.for_budget(3000)
    made = strategy_by_name("knowledge", config)
    assert isinstance(made, KnowledgeStrategy) and made.config == config
    with pytest.raises(ValueError, match="windowed strategy does not compress"):
        strategy_by_name("windowed", config)


def test_an_unknown_strategy_name_lists_the_names() -> None:
    with pytest.raises(ValueError, match="unknown strategy 'autobio'; choose one of " + ", ".join(STRATEGY_NAMES)):
        strategy_by_name("autobio")
    with pytest.raises(TypeError, match="unknown strategy 'autobio'"):
        ContextManager.open("memory:", strategy="autobio")


def test_the_offline_summarizer_needs_no_key_and_takes_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    assert isinstance(provider_by_name("offline"), OfflineSummarizer)
    assert provider_by_name("offline", "digest-2").model == "digest-2"


@pytest.mark.parametrize(("name", "variable"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_an_sdk_provider_without_a_key_is_an_auth_error_naming_the_variable(
    name: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for v in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(v, raising=False)
    with pytest.raises(ProviderAuthError, match=f"needs an API key: set {variable}") as info:
        provider_by_name(name)
    assert info.value.provider == name and info.value.attempts == 0


def test_an_sdk_provider_with_a_key_is_built_with_its_model_and_url(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    made = provider_by_name("openai", "llama", "http://localhost:8000/v1")
    assert (made.name, made.model) == ("openai", "llama")


def test_an_unknown_provider_name_lists_the_names() -> None:
    with pytest.raises(ValueError, match="unknown provider 'claude'; choose one of " + ", ".join(PROVIDER_NAMES)):
        provider_by_name("claude")
