"""Errors of the execution journal (a subtree of :class:`~context_journal.errors.ContextJournalError`)::

    JournalError
    ├── EntryValidationError          the body does not fit its kind, or breaks a journal rule (also ValueError)
    ├── IdempotencyKeyReuseError      the key was used before for another body
    ├── AuthorNotAllowedError         a verification entry from an author that is not a harness
    ├── EntryNotFoundError            no entry with that seq in the project (also KeyError)
    ├── JournalIntegrityError         the journal does not verify (an entry changed, removed or forged behind it)
    └── HeadKeyRequiredError          an append without the head key on a project whose head is signed

Expected outcomes are not errors: a retried append is ``duplicate`` and a stale ``expected_seq`` is
``conflict`` (see :class:`~context_journal.journal.AppendOutcome`).
"""

from __future__ import annotations

from ..errors import ContextJournalError

__all__ = [
    "AuthorNotAllowedError",
    "EntryNotFoundError",
    "EntryValidationError",
    "HeadKeyRequiredError",
    "IdempotencyKeyReuseError",
    "JournalError",
    "JournalIntegrityError",
]


class JournalError(ContextJournalError):
    """An execution-journal operation that cannot be done.

    Attributes:
        project: The project's slug.
    """

    def __init__(self, message: str, *, project: str) -> None:
        self.project = project
        super().__init__(message)


class EntryValidationError(JournalError, ValueError):
    """The entry was refused and nothing was written: its body does not match its kind's schema (unknown
    fields are refused), or it breaks a journal rule (a second ``plan``, a ``plan_revision`` that does not
    name the current plan, a ``reverse_ruleout`` of an id that is not active, a ``verification`` of a task
    or condition the plan does not have).

    Attributes:
        kind: The entry kind.
        reason: What is wrong, in words.
    """

    def __init__(self, reason: str, *, project: str, kind: str) -> None:
        self.kind = kind
        self.reason = reason
        message = f"{kind} entry refused for project {project!r}: {reason}; nothing was written"
        super().__init__(message, project=project)


class IdempotencyKeyReuseError(JournalError):
    """The idempotency key was already used in this project for a different entry. A retry must send the
    same kind, author and body; a new entry needs a new key.

    Attributes:
        idempotency_key: The key.
        seq: Seq of the entry that holds the key.
        differs: What differs (``"kind"``, ``"author"``, ``"body"``).
    """

    def __init__(self, *, project: str, idempotency_key: str, seq: int, differs: list[str]) -> None:
        self.idempotency_key = idempotency_key
        self.seq = seq
        self.differs = differs
        super().__init__(
            f"idempotency key {idempotency_key!r} of project {project!r} already names entry #{seq}, whose "
            f"{' and '.join(differs)} differ; retry with the same entry, or use a new key for a new entry",
            project=project,
        )


class AuthorNotAllowedError(JournalError):
    """Only the harness writes ``verification`` entries (the results of running a task's conditions).

    Attributes:
        author: The author refused.
        allowed: The harness authors this journal accepts.
    """

    def __init__(self, *, project: str, author: str, allowed: frozenset[str]) -> None:
        self.author = author
        self.allowed = allowed
        super().__init__(
            f"author {author!r} may not write verification entries in project {project!r}; only the harness "
            f"({', '.join(sorted(allowed))}) runs task conditions",
            project=project,
        )


class EntryNotFoundError(JournalError, KeyError):
    """No entry with this seq exists in the project.

    Attributes:
        seq: The seq asked for.
        head_seq: The project's newest seq (0 when it has no entries).
    """

    def __init__(self, *, project: str, seq: int, head_seq: int) -> None:
        self.seq = seq
        self.head_seq = head_seq
        where = f"entries are 1..{head_seq}" if head_seq else "it has no entries"
        super().__init__(f"project {project!r} has no entry #{seq} ({where})", project=project)

    def __str__(self) -> str:
        return str(self.args[0])


class JournalIntegrityError(JournalError):
    """The journal does not verify: an entry was changed, removed or rewritten behind the journal's back (its
    hash chain, its marker records or its signed head disagree; see :mod:`context_journal.journal.integrity`).
    Nothing is served from it or appended to it.

    Attributes:
        seq: The first entry that does not verify.
        reason: What does not match.
    """

    def __init__(self, *, project: str, seq: int, reason: str) -> None:
        self.seq = seq
        self.reason = reason
        super().__init__(
            f"the journal of project {project!r} fails verification at entry #{seq}: {reason}; restore the "
            "store from a backup, the entries from there on cannot be trusted",
            project=project,
        )


class HeadKeyRequiredError(JournalError):
    """An append made without the head key on a project whose head is signed: it would leave an
    unsigned head, which every keyed reader then refuses as stripped. Nothing was
    written. Open the journal with ``head_key`` (CLI and MCP server: the ``CONTEXT_JOURNAL_HEAD_KEY``
    environment variable).

    Attributes:
        seq: The signed head's sequence number.
    """

    def __init__(self, *, project: str, seq: int) -> None:
        self.seq = seq
        super().__init__(
            f"project {project!r}: its journal head (#{seq}) is signed, and this journal has no head key; an "
            "append without it would leave the head unsigned. Set CONTEXT_JOURNAL_HEAD_KEY (Python: "
            "ExecutionJournal(..., head_key=...)); nothing was written",
            project=project,
        )
