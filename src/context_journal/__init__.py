"""context-journal: a durable, branching journal and a bounded context compiler for LLM agents.

The public surface is re-exported here; ``__all__`` is sorted and pinned by a test.
"""

from __future__ import annotations

from .content import (
    Base64Source,
    BlobSource,
    Block,
    DocumentBlock,
    ImageBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
)
from .errors import (
    BranchError,
    BranchExistsError,
    BranchInUseError,
    BranchNotFoundError,
    ContentError,
    ContextJournalError,
    DuplicateMessageError,
    ImportFormatError,
    MalformedContentError,
    MessageError,
    MessageNotFoundError,
    MigrationError,
    MissingExtraError,
    StoreBusyError,
    StoreClosedError,
    StoreError,
)
from .formats import (
    Conversation,
    ImportReport,
    ImportResult,
    Skipped,
    detect_format,
    import_into,
    load_locomo_qa,
    read_transcript,
)
from .manager import ContextManager
from .messages import Message, MessageInput
from .stores import MemoryStore, SQLiteStore, Store, open_store
from .tokens import EstimatingCounter, TokenCounter

__version__ = "0.1.0"

__all__ = [
    "Base64Source",
    "BlobSource",
    "Block",
    "BranchError",
    "BranchExistsError",
    "BranchInUseError",
    "BranchNotFoundError",
    "ContentError",
    "ContextJournalError",
    "ContextManager",
    "Conversation",
    "DocumentBlock",
    "DuplicateMessageError",
    "EstimatingCounter",
    "ImageBlock",
    "ImportFormatError",
    "ImportReport",
    "ImportResult",
    "MalformedContentError",
    "MemoryStore",
    "Message",
    "MessageError",
    "MessageInput",
    "MessageNotFoundError",
    "MigrationError",
    "MissingExtraError",
    "RedactedThinkingBlock",
    "SQLiteStore",
    "Skipped",
    "Store",
    "StoreBusyError",
    "StoreClosedError",
    "StoreError",
    "TextBlock",
    "ThinkingBlock",
    "TokenCounter",
    "ToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "detect_format",
    "import_into",
    "load_locomo_qa",
    "open_store",
    "read_transcript",
]
