"""The public surface is one sorted ``__all__``, pinned here name by name (as httpx does): a name added
or dropped is a decision (and a CHANGELOG line), not a side effect of an import."""

from __future__ import annotations

import importlib.metadata

import context_journal

PUBLIC = [
    "AnthropicProvider",
    "AnthropicTokenCounter",
    "AppendOutcome",
    "AsyncContextManager",
    "AudienceNarrowingError",
    "AuthorNotAllowedError",
    "AutobiographicalConfig",
    "AutobiographicalStrategy",
    "Base64Source",
    "BlobNotFoundError",
    "BlobSource",
    "Block",
    "BranchError",
    "BranchExistsError",
    "BranchInUseError",
    "BranchNotFoundError",
    "BranchSummary",
    "Brief",
    "BriefTrigger",
    "Calibration",
    "CompileOptions",
    "CompileResult",
    "CompiledMessage",
    "CompressionDelegatedError",
    "CompressionStats",
    "CompressionUnavailableError",
    "CompressionWorker",
    "ContentError",
    "ContextJournalError",
    "ContextManager",
    "Conversation",
    "CorruptRecordError",
    "Derivation",
    "DocumentBlock",
    "DrainProgress",
    "DrainReport",
    "DriftReport",
    "DuplicateMessageError",
    "EmptyContextError",
    "EntryNotFoundError",
    "EntryValidationError",
    "EstimatingCounter",
    "ExecutionJournal",
    "Finding",
    "HarnessView",
    "HeadKeyRequiredError",
    "IdempotencyKeyReuseError",
    "ImageBlock",
    "ImportFormatError",
    "ImportReport",
    "ImportResult",
    "Injection",
    "InvalidContextError",
    "JournalEntry",
    "JournalError",
    "JournalIntegrityError",
    "KnowledgeStrategy",
    "LLMMessage",
    "LLMRequest",
    "LLMResponse",
    "LeaseLostError",
    "MalformedContentError",
    "MemoryStore",
    "Message",
    "MessageError",
    "MessageInput",
    "MessageNotFoundError",
    "MigrationError",
    "MissingExtraError",
    "OfflineSummarizer",
    "OpenAIProvider",
    "OverBudgetError",
    "PassthroughStrategy",
    "PendingWork",
    "Phase",
    "PinInfo",
    "PinUnsupportedError",
    "Provider",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRefusalError",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderTransientError",
    "ReaderConflictError",
    "ReaderError",
    "ReaderView",
    "RecallConfig",
    "RecallStrategy",
    "RedactedThinkingBlock",
    "Repair",
    "RetryPolicy",
    "Roles",
    "SQLiteStore",
    "SearchHit",
    "ShardingError",
    "Skipped",
    "Source",
    "StaleReaderError",
    "Store",
    "StoreBusyError",
    "StoreClosedError",
    "StoreError",
    "Strategy",
    "StrategyContext",
    "StrategyInitError",
    "Summary",
    "SummaryHit",
    "SummaryNotFoundError",
    "SummaryPage",
    "SummaryRequest",
    "SummaryResult",
    "TextBlock",
    "ThinkingBlock",
    "TickResult",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerUnavailableError",
    "ToolDefinition",
    "ToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "Usage",
    "ValidationIssue",
    "ViewFilterError",
    "WindowedPassthroughStrategy",
    "WorkerReport",
    "detect_format",
    "import_into",
    "load_locomo_qa",
    "open_store",
    "read_transcript",
    "run_sync",
    "validate_messages",
]


def test_all_is_pinned() -> None:
    assert context_journal.__all__ == PUBLIC


def test_one_version_source() -> None:
    # pyproject.toml reads the version from the package (``[tool.setuptools.dynamic]``).
    assert importlib.metadata.version("context-journal") == context_journal.__version__


def test_all_is_sorted_and_importable() -> None:
    names = context_journal.__all__
    assert names == sorted(names)
    for name in names:
        assert getattr(context_journal, name) is not None


def test_every_error_derives_from_the_root() -> None:
    from context_journal import errors

    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, context_journal.ContextJournalError), name
        assert name in (errors.__doc__ or ""), f"{name} missing from the error tree in errors.py's docstring"
