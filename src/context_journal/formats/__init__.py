"""Importers of real transcripts (and, later, exporters).

Read a transcript with :func:`read_transcript` (format detected by :func:`detect_format`, or named:
``claude-code``, ``locomo``, ``tau-bench``, ``irc``, ``anthropic``, ``openai``, ``openai-responses``) and
write it into a store with :func:`import_into`. :func:`to_openai_responses` encodes a compiled context as
Responses API ``input`` items. LoCoMo's QA items are evaluation fixtures: :func:`load_locomo_qa`.
"""

from __future__ import annotations

from .base import FORMATS, Conversation, ImportResult, Skipped
from .chat_json import read_anthropic, read_openai
from .claude_code import read_claude_code
from .importers import ConversationReport, ImportReport, detect_format, import_into, read_transcript
from .irc import read_irc
from .locomo import LocomoQA, load_locomo_qa, read_locomo
from .openai_responses import read_openai_responses, to_openai_responses, validate_responses_items
from .tau_bench import read_tau_bench

__all__ = [
    "FORMATS",
    "Conversation",
    "ConversationReport",
    "ImportReport",
    "ImportResult",
    "LocomoQA",
    "Skipped",
    "detect_format",
    "import_into",
    "load_locomo_qa",
    "read_anthropic",
    "read_claude_code",
    "read_irc",
    "read_locomo",
    "read_openai",
    "read_openai_responses",
    "read_tau_bench",
    "read_transcript",
    "to_openai_responses",
    "validate_responses_items",
]
