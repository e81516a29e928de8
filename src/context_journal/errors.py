"""The error tree of context-journal.

Every error the library raises derives from :class:`ContextJournalError`. Each carries typed
attributes that say where the fault is, and its message says what to do instead::

    ContextJournalError
    ├── ContentError
    │   └── MalformedContentError          a message or block has the wrong shape (names the place)
    ├── MessageError
    │   ├── MessageNotFoundError           no visible message has that id (also a KeyError)
    │   ├── DuplicateMessageError          the id is already used in this slot and branch
    │   └── ViewFilterError                a manager's view_filter raised for a message (chained)
    ├── StoreError
    │   ├── CorruptRecordError             a stored body is not JSON (written around the library)
    │   ├── StoreClosedError               the handle was closed
    │   ├── StoreBusyError                 the database stayed locked past the busy timeout
    │   ├── BlobNotFoundError              no blob with that sha256 (erased by a redaction; also a KeyError)
    │   ├── MigrationError                 the schema is newer than this library, or a migration failed
    │   ├── RedactionError                 a redaction that cannot be made (backend, reader, argument)
    │   └── BranchError
    │       ├── BranchNotFoundError        no live branch has that name
    │       ├── BranchExistsError          a live branch already has that name
    │       └── BranchInUseError           the branch is current or has live children
    ├── ImportFormatError                  a transcript could not be read in the format asked for
    ├── MissingExtraError                  an optional dependency is not installed (also an ImportError)
    ├── OverBudgetError                    (compile.py) the must-keep part of a compile exceeds the budget
    ├── EmptyContextError                  (compile.py) a compile would return no message (also a ValueError)
    ├── NamespaceNotFoundError             (namespaces.py) no namespace of that name (lists those that exist)
    ├── JournalError                       (journal/errors.py) an execution-journal operation that cannot be done
    │   ├── EntryValidationError           the entry does not fit its kind or breaks a journal rule
    │   ├── IdempotencyKeyReuseError       the key was used before for another entry
    │   ├── AuthorNotAllowedError          a verification from an author that is not a harness
    │   ├── EntryNotFoundError             no entry with that seq
    │   ├── JournalIntegrityError          the hash chain does not verify
    │   └── HeadKeyRequiredError           an append without the head key after a signed head
    ├── StrategyInitError                  (branching.py) a strategy failed to initialise; the old one stays
    ├── SummaryNotFoundError     (compression/queries.py) no summary with that id here (also a KeyError)
    ├── CompressionUnavailableError (compression/driver.py) the strategy cannot reset its head window (also a TypeError)
    ├── ReaderError                        (readers.py) a reader the namespace or branch refuses
    │   ├── ReaderConflictError            the namespace records another reader (names both)
    │   └── StaleReaderError               another handle claimed the namespace since this manager opened
    ├── AudienceNarrowingError             (readers.py) an edit would hide a block compression may have read
    ├── CompressionDelegatedError (compression/queue.py) this manager leaves compression to workers
    ├── LeaseLostError                     (workers.py) a worker's lease expired before it recorded its result
    ├── InvalidContextError                (validate.py) a compiled context breaks a provider rule (a bug)
    ├── TokenizerUnavailableError          (tokens.py) no offline rank file for the exact token counter
    └── ProviderError                      (llm/errors.py) a model call failed; its subtree is drawn there:
        ├── ProviderTransientError         rate limits, 5xx, timeouts that outlasted the retries
        ├── ProviderRequestError           the request was rejected (ProviderAuthError: bad credentials)
        └── ProviderResponseError          the answer is unusable (ProviderRefusalError: the model declined)

Every exception and warning of the package also derives from :class:`PicklableError`, a mixin that makes
it pickle whole (an error raised in a worker process reaches the parent as it was raised).

Driver errors (``sqlite3``, ``psycopg``) are translated into :class:`StoreError` only at the store's
transaction boundary; the CLI turns library errors into messages only at its edge.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._graphemes import clip_end
from ._names import clip_repr

__all__ = [
    "BlobNotFoundError",
    "BranchError",
    "BranchExistsError",
    "BranchInUseError",
    "BranchNotFoundError",
    "ContentError",
    "ContextJournalError",
    "CorruptRecordError",
    "DuplicateMessageError",
    "ImportFormatError",
    "MalformedContentError",
    "MessageError",
    "MessageNotFoundError",
    "MigrationError",
    "MissingExtraError",
    "OverBudgetError",
    "RedactionError",
    "StoreBusyError",
    "StoreClosedError",
    "StoreError",
    "ViewFilterError",
]


def _restored(cls: type[BaseException], args: tuple[object, ...], state: dict[str, object]) -> BaseException:
    """An exception of ``cls`` with ``args`` and the attributes ``state``, made without calling its
    ``__init__`` (see :class:`PicklableError`)."""
    error = cls.__new__(cls, *args)
    error.args = args
    for name, value in state.items():
        setattr(error, name, value)  # (an ImportError's msg, name and path are slots, not in __dict__)
    return error


class PicklableError(BaseException):
    """Makes an exception whose ``__init__`` takes other arguments than its ``args`` pickle and unpickle
    whole: with its class, message and attributes (``pickle``'s default calls ``cls(*args)``, which fails
    for ``OverBudgetError(budget, actual, parts)`` and wraps the message of
    ``BranchNotFoundError(branch)`` in a second one). An error raised in a worker process reaches the
    parent as it was raised (``multiprocessing``, ``concurrent.futures.ProcessPoolExecutor``); the
    traceback, cause and context are left out, as ``pickle`` leaves them out of every exception."""

    def __reduce__(self) -> tuple[object, ...]:
        state = dict(self.__dict__)
        if isinstance(self, ImportError):
            state.update(msg=self.msg, name=self.name, path=self.path)
        return _restored, (type(self), self.args, state)


class ContextJournalError(PicklableError, Exception):
    """Root of every error raised by context-journal."""


# --- content -------------------------------------------------------------------------------------


class ContentError(ContextJournalError):
    """Content that cannot be stored or rendered."""


class MalformedContentError(ContentError, ValueError):
    """A message or content block has the wrong shape; nothing was written.

    Attributes:
        message_index: Position of the message in the write (0 for a single ``add_message``), or None.
        block_index: Position of the block in the message's content, or None when the fault is in the
            message itself (participant, metadata, empty content).
        path: Dotted path inside the block (``"input"``, ``"content.0.text"``), or ``""``.
        reason: What is wrong, in words.
    """

    def __init__(
        self,
        reason: str,
        *,
        message_index: int | None = None,
        block_index: int | None = None,
        path: str = "",
    ) -> None:
        self.reason = reason
        self.message_index = message_index
        self.block_index = block_index
        self.path = path
        super().__init__(self._render())

    @property
    def place(self) -> str:
        """The place of the fault as text, e.g. ``"message 0, block 2 (content.0.text)"``."""
        parts: list[str] = []
        if self.message_index is not None:
            parts.append(f"message {self.message_index}")
        if self.block_index is not None:
            parts.append(f"block {self.block_index}")
        where = ", ".join(parts) if parts else "content"
        if self.path:
            where += f" ({self.path})"
        return where

    def _render(self) -> str:
        return f"malformed content at {self.place}: {self.reason}; nothing was written"

    def at_message(self, message_index: int) -> MalformedContentError:
        """Return a copy of this error placed at ``message_index`` (used by batch writes)."""
        return MalformedContentError(
            self.reason, message_index=message_index, block_index=self.block_index, path=self.path
        )


# --- messages ------------------------------------------------------------------------------------


class MessageError(ContextJournalError):
    """A message operation that refers to the wrong message."""


class MessageNotFoundError(MessageError, KeyError):
    """No message with ``message_id`` is visible on this branch (it never existed or was removed).

    Attributes:
        message_id: The id asked for.
    """

    def __init__(self, message_id: str, detail: str = "") -> None:
        self.message_id = message_id
        text = f"no visible message with id {clip_repr(message_id)}"
        if detail:
            text += f" ({detail})"
        super().__init__(text)

    def __str__(self) -> str:  # KeyError quotes its argument; keep the plain message.
        return str(self.args[0])


class ViewFilterError(MessageError):
    """A manager's ``view_filter`` raised for a message (the exception is chained as ``__cause__``);
    nothing was written, and the next compile asks the filter about that message again.

    Attributes:
        message_id: The message the filter was judging.
    """

    def __init__(self, message_id: str, error: BaseException) -> None:
        self.message_id = message_id
        # The filter's own error, shortened: a filter that compiles again would nest these without end.
        said = str(error)
        said = said if len(said) <= 300 else clip_end(said, 299) + "…"
        super().__init__(f"view_filter raised for message {clip_repr(message_id)}: {type(error).__name__}: {said}")


class DuplicateMessageError(MessageError, ValueError):
    """The message id is already used on this branch's slot; pass another id or none.

    Attributes:
        message_id: The id that is already taken.
    """

    def __init__(self, message_id: str) -> None:
        self.message_id = message_id
        super().__init__(
            f"message id {clip_repr(message_id)} is already used here; omit the id to get a fresh one, "
            "or use edit_message to change the existing message"
        )


# --- store ---------------------------------------------------------------------------------------


class StoreError(ContextJournalError):
    """A failure of the durable store (translated from the database driver)."""


class CorruptRecordError(StoreError, ValueError):
    """A stored record's body cannot be read (it is not JSON: written around the library, e.g. by SQL);
    ``context-journal verify`` lists every such record.

    Attributes:
        sequence: The record's store sequence.
    """

    def __init__(self, sequence: int, slot: str, item: str, reason: str) -> None:
        self.sequence = sequence
        super().__init__(
            f"record {sequence} (slot {clip_repr(slot)}, item {clip_repr(item)}) cannot be read: {reason}; "
            "`context-journal verify --store ...` lists every damaged record"
        )


class StoreClosedError(StoreError):
    """The store or manager was closed; open a new one."""


class StoreBusyError(StoreError):
    """The database stayed locked by another writer longer than the busy timeout; retry later."""


class BlobNotFoundError(StoreError, KeyError):
    """The store holds no blob with this sha256: a redaction erased it with the messages that named it
    (:meth:`~context_journal.ContextManager.redact`), or it was never written. A context compiled
    before the redaction names the erased bytes; compile again for one without them. A ``KeyError``, as
    a mapping's missing key is.

    Attributes:
        sha256: The digest asked for (64 hex characters).
    """

    def __init__(self, sha256: str) -> None:
        self.sha256 = sha256
        super().__init__(
            f"no blob with sha256 {clip_repr(sha256)} in the store: a redaction erased it, or it was never "
            "written (a context compiled before a redaction names what it erased: compile again)"
        )

    def __str__(self) -> str:  # KeyError quotes its argument; keep the plain message.
        return str(self.args[0])


class MigrationError(StoreError):
    """The store's schema is newer than this library knows, or a migration failed (rolled back).

    Attributes:
        version: The migration version concerned.
    """

    def __init__(self, message: str, version: int | None = None) -> None:
        self.version = version
        super().__init__(message)


class RedactionError(StoreError, ValueError):
    """A redaction that cannot be made: the backend cannot erase, a reader-bound handle asked (erasure
    belongs to the host), an argument is out of range (an empty reason, a retention of 0 days), or a
    retention policy on a namespace that shares the common message slot. Nothing was erased."""


class BranchError(StoreError):
    """A branch operation that cannot be done.

    Attributes:
        branch: The branch name concerned.
    """

    def __init__(self, message: str, branch: str) -> None:
        self.branch = branch
        super().__init__(message)


class BranchNotFoundError(BranchError, KeyError):
    """No live branch has this name; see ``list_branches()``."""

    def __init__(self, branch: str) -> None:
        super().__init__(
            f"no live branch named {clip_repr(branch)}; `context-journal branch list` (or list_branches()) "
            "shows the live ones",
            branch,
        )

    def __str__(self) -> str:
        return str(self.args[0])


class BranchExistsError(BranchError, ValueError):
    """A live branch already has this name; names are never merged into, pick another."""

    def __init__(self, branch: str) -> None:
        super().__init__(f"a live branch named {clip_repr(branch)} already exists; choose another name", branch)


class BranchInUseError(BranchError):
    """The branch cannot be deleted: it is current for this handle, is the root, or has live children.

    Attributes:
        children: Names of the live child branches that keep it alive.
    """

    def __init__(self, branch: str, reason: str, children: list[str] | None = None) -> None:
        self.children = list(children or [])
        super().__init__(f"branch {clip_repr(branch)} cannot be deleted: {reason}", branch)


# --- formats and extras --------------------------------------------------------------------------


class ImportFormatError(ContextJournalError, ValueError):
    """A transcript could not be read in the format asked for.

    Attributes:
        source: The file or object read.
        location: Line number, list index or key where reading failed, or None.
    """

    def __init__(self, message: str, *, source: str = "", location: str | int | None = None) -> None:
        self.source = source
        self.location = location
        where = source
        if location is not None:
            where += f" at {location}"
        super().__init__(f"{where}: {message}" if where else message)


class MissingExtraError(ContextJournalError, ImportError):
    """An optional dependency is missing; install the named extra.

    Attributes:
        extra: The extra to install, e.g. ``"postgres"``.
    """

    def __init__(self, package: str, extra: str) -> None:
        self.extra = extra
        super().__init__(f"{package} is not installed; install it with: pip install 'context-journal[{extra}]'")


# --- compiling -----------------------------------------------------------------------------------

_LISTED = 12  # parts an OverBudgetError's message names (the largest); ``parts`` holds every one

CHEAPEST_PART = "cheapest valid cover (lower bound)"
"""The part of :attr:`OverBudgetError.parts` a compile that fails before rendering names: a lower bound of
the smallest valid context, priced from the index, rendered entries (summaries, the working-state block)
at 0 (see :data:`context_journal.compile.EXACT_FAILURE_MESSAGES`)."""


class OverBudgetError(ContextJournalError):
    """What must be in the context does not fit the budget; nothing was dropped silently.

    Attributes:
        budget: ``max_tokens - reserve_for_response``, in tokens.
        actual: Tokens the must-keep part (or the smallest valid context) needs; at least that many when
            the compile failed before rendering (``parts`` then holds :data:`CHEAPEST_PART`, a lower bound
            priced from the index).
        parts: Each part and its size in tokens (``"system"``, ``"message m0 (system)"``,
            ``"injections"``, ``"newest unit from m5"``, ``"smallest valid context"`` (or
            ``"cheapest valid cover (lower bound)"``) and, of it, ``"not summarised yet"``...).
    """

    ADVICE = "raise max_tokens, lower reserve_for_response, or shorten the system prompt and injections"
    """What the message advises by default (a lagging compression names its own remedy instead)."""

    @property
    def lower_bound(self) -> bool:
        """Whether :attr:`actual` is a lower bound (the compile failed before rendering, see
        :data:`CHEAPEST_PART`): the context may need more, so advice names it "at least"."""
        return CHEAPEST_PART in self.parts

    def __init__(
        self,
        budget: int,
        actual: int,
        parts: Mapping[str, int],
        what: str = "the must-keep part",
        advice: str | None = None,
    ) -> None:
        self.budget = budget
        self.actual = actual
        self.parts = dict(parts)
        self.what = what
        shown = list(self.parts.items())
        if len(shown) > _LISTED:  # a bounded message: the largest parts; ``parts`` keeps them all
            shown = sorted(shown, key=lambda kv: -kv[1])[:_LISTED]
        listed = ", ".join(f"{k} {v}" for k, v in shown)
        if len(self.parts) > len(shown):
            listed += f" and {len(self.parts) - len(shown)} more (see .parts)"
        super().__init__(f"{self.needs()} but the budget is {budget} ({listed}); {advice or self.ADVICE}")

    def needs(self, grouped: bool = False) -> str:
        """What the error says is needed: ``"<what> needs 1234 tokens"`` (``grouped``: ``1,234``, as the
        command line writes figures), or ``"needs at least"`` when :attr:`actual` is a lower bound (a review
        found a failure at budget 1 naming 124 tokens where the smallest that fitted was 128)."""
        figure = f"{self.actual:,}" if grouped else str(self.actual)
        return f"{self.what} needs {'at least ' if self.lower_bound else ''}{figure} tokens"
