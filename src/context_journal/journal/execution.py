"""ExecutionJournal: the per-project, append-only journal of an orchestration harness, and its read side.

Workers append entries (:meth:`ExecutionJournal.append`); the harness reads a small, current view — the
per-step summaries (:meth:`~ExecutionJournal.get_project_summaries`), the rolling brief
(:meth:`~ExecutionJournal.build_brief`, :meth:`~ExecutionJournal.get_brief`), drift findings
(:meth:`~ExecutionJournal.check_drift`) and a bounded rendering for its own context
(:meth:`~ExecutionJournal.render_for_harness`) — and never reads raw worker output.

A journal object is a thin layer over a :class:`~context_journal.stores.Store` (any backend); many
objects, processes and hosts may share one store. It keeps an incremental fold per project and applies only
the entries written since (by anyone), after checking them (:mod:`.integrity`): a journal changed behind its
back raises :class:`~context_journal.journal.errors.JournalIntegrityError` instead of being served or extended.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Collection, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..llm import Provider, run_sync
from ..stores import ROOT_BRANCH, JournalRow, Store, open_store
from ..tokens import TokenCounter
from .append import AppendOutcome, append_entry
from .brief import Brief
from .chain import GENESIS_HASH, ChainReport
from .drift import DEFAULT_STALE_AFTER, DriftReport, check_brief, check_journal, make_report
from .entries import Entry
from .errors import EntryNotFoundError, HeadKeyRequiredError, JournalIntegrityError
from .folds import Fold, ProjectState, fold
from .integrity import ChainCheck, SignedHead, head_mac, head_marker, marker_projects, normalise_key, verify_journal
from .redaction import JournalRedaction, journal_redactions, redact_entry
from .render import HarnessView, render_view
from .storage import brief_pointer, check_slug, read_brief_record, to_entry, write_brief_record
from .summaries import DEFAULT_PAGE_TOKENS, MAX_LIMIT, SummaryPage, build_page, json_tokens, normalise_handoff
from .synthesis import SynthesisConfig, synthesize

__all__ = ["DEFAULT_HARNESS_AUTHORS", "BriefTrigger", "ExecutionJournal"]

DEFAULT_HARNESS_AUTHORS = frozenset({"harness"})
"""Authors allowed to write ``verification`` entries by default."""

DEFAULT_BRIEF_THRESHOLD = 4000
"""Tokens of per-step summaries not covered by the current brief above which a brief is needed."""

_PAGE = 2000  # rows read per query when scanning a whole journal


class BriefTrigger(BaseModel):
    """Whether a (new) brief is needed.

    Attributes:
        needed: True when the summaries not covered by the current brief exceed the threshold.
        reason: Why, in words.
        head_seq: The journal head.
        brief_version: The current brief, or None.
        brief_as_of: Its ``as_of_seq``, or None.
        uncovered_handoffs: Handoffs after the brief counted (counting stops once over the threshold).
        uncovered_tokens: Their estimated tokens as summaries.
        threshold_tokens: The threshold, in tokens.
    """

    model_config = ConfigDict(frozen=True)

    needed: bool
    reason: str
    head_seq: int
    brief_version: int | None
    brief_as_of: int | None
    uncovered_handoffs: int
    uncovered_tokens: int
    threshold_tokens: int


class ExecutionJournal:
    """The execution journal of every project in one store.

    Args:
        store: The store (not closed by the journal unless made by :meth:`open`).
        harness_authors: Authors allowed to write ``verification`` entries.
        provider: Default synthesizer for briefs (None: the offline summarizer).
        counter: Token counter of :meth:`render_for_harness` (default: the estimating counter).
        stale_after: Entries a brief may lag behind the head before it is stale.
        head_key: A secret the host keeps outside the store (bytes, or text encoded as UTF-8). Each entry
            appended is then signed (an HMAC of its head in its marker record), and every check requires the
            head to carry a valid signature: a journal rewritten with recomputed hashes cannot be signed
            without the key (see :mod:`~context_journal.journal.integrity`). None: unsigned.
        require_signed_head: With a key, refuse a head written without it (default). Set False while
            projects written before the key was set get their first signed entry.

    Raises:
        ValueError: an empty ``head_key``.
    """

    def __init__(
        self,
        store: Store,
        *,
        harness_authors: Collection[str] = DEFAULT_HARNESS_AUTHORS,
        provider: Provider | None = None,
        counter: TokenCounter | None = None,
        stale_after: int = DEFAULT_STALE_AFTER,
        head_key: bytes | str | None = None,
        require_signed_head: bool = True,
    ) -> None:
        self._key = normalise_key(head_key)
        self.require_signed_head = require_signed_head
        self._store = store
        self._owns_store = False
        self.harness_authors = frozenset(harness_authors)
        self.provider = provider
        self.counter = counter
        self.stale_after = stale_after
        self._root = store.get_branch(ROOT_BRANCH).id
        self._folds: dict[str, Fold] = {}
        self._heads: dict[str, JournalRow] = {}  # the verified head each fold is at
        self._scanned: dict[str, int] = {}  # store sequence up to which markers were checked, per project
        self._unsigned: dict[str, int] = {}  # the head seq found unsigned, per project (keyless appends)
        self._lock = threading.Lock()  # guards _folds and _heads; never held while calling the store

    @classmethod
    def open(cls, location: str | os.PathLike[str], **options: object) -> ExecutionJournal:
        """Open a store (a SQLite path, ``sqlite:///path``, ``memory:`` or a PostgreSQL URL) and a journal
        over it; :meth:`close` closes the store.

        Raises:
            StoreError: the store cannot be opened.
        """
        store = open_store(location)
        try:
            journal = cls(store, **options)  # type: ignore[arg-type]
        except BaseException:
            store.close()
            raise
        journal._owns_store = True
        return journal

    @property
    def store(self) -> Store:
        """The underlying store."""
        return self._store

    def close(self) -> None:
        """Close the store if this journal opened it. Idempotent."""
        if self._owns_store:
            self._store.close()

    def __enter__(self) -> ExecutionJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- folds ------------------------------------------------------------------------------------

    @property
    def signed(self) -> bool:
        """Whether this journal signs its heads (it was given a ``head_key``)."""
        return self._key is not None

    def _check(self, project: str) -> ChainCheck:
        return ChainCheck(self._store, self._root, project, self._key, self.require_signed_head)

    def _catch_up(self, project: str) -> ProjectState:
        """The fold at the head, after the incremental check: the head verified last is still there, the
        entries written since chain to it and match their markers (and signature), and no marker names an
        entry after the head. One read of the entries since, one of the markers after the head.

        Raises:
            JournalIntegrityError: a check failed (nothing is folded).
        """
        check = self._check(project)
        for attempt in range(3):
            with self._lock:
                f = self._folds.get(project)
                head = self._heads.get(project) if f is not None else None
                start = head.seq if head is not None else 0
                scanned = self._scanned.get(project, 0) if head is not None else 0
            rows = self._store.journal_rows(project, after=max(0, start - 1))
            if head is not None:
                if not rows or rows[0].seq != head.seq or rows[0].hash != head.hash:
                    raise JournalIntegrityError(
                        project=project,
                        seq=head.seq,
                        reason="the head this journal verified was removed or changed since",
                    )
                rows = rows[1:]
            problem = check.chain(rows, prev_hash=head.hash if head else GENESIS_HASH, start_seq=start + 1, head=True)
            if problem is not None:
                raise JournalIntegrityError(project=project, seq=problem[0], reason=problem[1])
            late, scanned = check.after_head(rows[-1] if rows else head, scanned)
            if late is None:
                break
            if attempt == 2:  # not an append committed between the two reads: the entry is gone
                raise JournalIntegrityError(project=project, seq=late[0], reason=late[1])
        with self._lock:
            f = self._folds.setdefault(project, Fold(project))
            for row in rows:
                if row.seq == f.head_seq + 1:
                    f.apply(to_entry(row))
                    self._heads[project] = row
            self._scanned[project] = max(self._scanned.get(project, 0), scanned)
            return f.snapshot()

    def _applied(self, row: JournalRow) -> None:
        with self._lock:
            f = self._folds.get(row.project)
            head = self._heads.get(row.project)
            if f is not None and row.seq == f.head_seq + 1 and row.prev_hash == (head.hash if head else GENESIS_HASH):
                f.apply(to_entry(row))
                self._heads[row.project] = row

    def _served(self, project: str, rows: Sequence[JournalRow]) -> list[JournalRow]:
        """``rows``, once each matches its own hash and its marker record.

        Raises:
            JournalIntegrityError: one does not.
        """
        problem = self._check(project).served(rows)
        if problem is not None:
            raise JournalIntegrityError(project=project, seq=problem[0], reason=problem[1])
        return list(rows)

    def _refuse_keyless(self, project: str, head_seq: int) -> None:
        """Raise when the head at ``head_seq`` is signed: this journal has no key to sign the next one.
        One marker read per head seen (heads found unsigned are remembered).

        Raises:
            HeadKeyRequiredError: the head is signed.
        """
        with self._lock:
            head = self._heads.get(project)
            if self._unsigned.get(project) == head_seq or head is None or head.seq != head_seq:
                return
        marker = head_marker(self._store, head)
        if marker.get("mac") is not None:
            raise HeadKeyRequiredError(project=project, seq=head_seq)
        with self._lock:
            self._unsigned[project] = head_seq

    def _sign(self, project: str, seq: int, digest: str) -> str | None:
        return None if self._key is None else head_mac(self._key, project, seq, digest)

    def state(self, project: str, as_of: int | None = None) -> ProjectState:
        """The fold of a project: active rule-outs, task status, latest goal and next step.

        Args:
            project: The slug.
            as_of: Fold only entries up to this seq (default: all).
        """
        current = self._catch_up(project)
        if as_of is None or as_of >= current.head_seq:
            return current
        try:
            return fold(self.entries(project, upto=as_of), project)
        except ValueError as exc:  # an entry below the verified head went missing since it was verified
            raise JournalIntegrityError(project=project, seq=as_of, reason=f"the entries do not fold: {exc}") from None

    # ---- writes -----------------------------------------------------------------------------------

    def append(
        self,
        project: str,
        kind: str,
        body: object,
        author: str,
        idempotency_key: str,
        expected_seq: int | None = None,
    ) -> AppendOutcome:
        """Append an entry to a project's journal (one transaction; safe across processes).

        Args:
            project: The slug (created by its first entry).
            kind: ``plan``, ``plan_revision``, ``step``, ``handoff``, ``reverse_ruleout`` or ``verification``.
            body: The body as JSON data (or the kind's pydantic model); unknown fields are refused.
            author: Who writes it; ``verification`` needs one of :attr:`harness_authors`.
            idempotency_key: Unique per project. Retry a failed or unanswered call with the same key.
            expected_seq: The head seq you last saw (0 for an empty project), or None to append anyway.

        Returns:
            ``appended``, ``duplicate`` (the key was written before with the same entry: the original is
            returned) or ``conflict`` (``expected_seq`` is stale: nothing written; ``head_seq`` is the head).

        Raises:
            ValueError: an invalid slug, author, key or ``expected_seq``.
            EntryValidationError: the body does not fit its kind or breaks a journal rule (nothing written).
            AuthorNotAllowedError: a verification from an author that is not a harness.
            IdempotencyKeyReuseError: the key names an entry with another kind, author or body.
            JournalIntegrityError: the journal does not verify (an entry was changed or removed behind its
                back): nothing is written.
            HeadKeyRequiredError: this journal has no head key and the project's head is signed (an
                unsigned head would follow it, which keyed readers refuse): nothing is written.
            StoreError: the store failed (nothing written); retrying with the same key is safe.
        """

        def state_at(head_seq: int) -> ProjectState:
            state = self._catch_up(project)  # the incremental check, under the journal lock
            if state.head_seq != head_seq:  # the lock is held: only a change behind the journal moves the head
                raise JournalIntegrityError(
                    project=project,
                    seq=min(head_seq, state.head_seq) + 1,
                    reason=f"the table's head is #{head_seq} while its verified entries end at #{state.head_seq}",
                )
            if self._key is None and head_seq:
                self._refuse_keyless(project, head_seq)
            return state

        return append_entry(
            self._store,
            self._root,
            project,
            kind,
            body,
            author,
            idempotency_key,
            expected_seq=expected_seq,
            state_at=state_at,
            harness_authors=self.harness_authors,
            on_appended=self._applied,
            sign=self._sign,
            check_existing=lambda row: self._served(project, [row]),
        )

    # ---- erasure ------------------------------------------------------------------------------------

    def redact_entry(self, project: str, seq: int, *, reason: str, by: str | None = None) -> JournalRedaction:
        """Erase the body of entry ``seq`` of ``project``, keeping its place and hash in the chain (see
        :mod:`~context_journal.journal.redaction`), in one transaction: the row's body becomes the marker
        ``redacted:sha256:<hex>``, a redaction record keeps who, when, why and the removed body's sha256, and
        the stored briefs that may quote the entry (``as_of_seq`` at or after it) are erased too. Reads then
        return the entry with ``redacted=True`` and a marker body; :meth:`verify_chain` still passes and
        lists it in ``redacted``. This journal folds the project again from its entries; other journal
        objects keep what they folded in memory until they are reopened.

        Args:
            project: The slug.
            seq: The entry to redact.
            reason: Why (non-empty, at most 2,000 characters); kept in the redaction record.
            by: Who asked; kept in the redaction record.

        Returns:
            The redaction (``notes``: what the scrub after the commit could not do). An entry redacted
            before is not redacted again: its earlier redaction is returned.

        Raises:
            ValueError: an invalid slug.
            RedactionError: the reason is empty or too long, or the backend cannot redact.
            EntryNotFoundError: the project has no entry ``seq``.
            JournalIntegrityError: the entry does not verify as stored (its content or its marker record was
                changed): nothing is erased.
            StoreError: the store failed (nothing is erased).
        """
        check = self._check(project)
        try:
            return redact_entry(self._store, self._root, project, seq, reason=reason, by=by, problem=check.row_check)
        finally:
            with self._lock:  # fold again from the entries as they are now (the body is gone from the fold)
                self._folds.pop(project, None)
                self._heads.pop(project, None)
                self._scanned.pop(project, None)
                self._unsigned.pop(project, None)

    def redactions(self, project: str) -> list[JournalRedaction]:
        """The redactions of ``project``'s entries, by seq."""
        found = journal_redactions(self._store, self._root, project)
        return [found[s] for s in sorted(found)]

    # ---- reads ------------------------------------------------------------------------------------

    def projects(self) -> list[str]:
        """Slugs of every project with entries, sorted."""
        return self._store.journal_projects()

    def head_seq(self, project: str) -> int:
        """The newest seq of a project (0 when it has no entries)."""
        head = self._store.journal_head(project)
        return head.seq if head else 0

    def entries(
        self,
        project: str,
        *,
        after: int = 0,
        upto: int | None = None,
        limit: int | None = None,
        kinds: Sequence[str] | None = None,
        descending: bool = False,
    ) -> list[Entry]:
        """Entries with ``after < seq <= upto`` in seq order (newest first with ``descending``).

        Raises:
            JournalIntegrityError: one of them does not match its hash or its marker record.
        """
        rows = self._store.journal_rows(
            project, after=after, upto=upto, limit=limit, kinds=kinds, descending=descending
        )
        return [to_entry(r) for r in self._served(project, rows)]

    def get_entry(self, project: str, seq: int) -> Entry:
        """One entry.

        Raises:
            EntryNotFoundError: no entry with that seq.
            JournalIntegrityError: it does not match its hash or its marker record (it was changed), or,
                with a head key, the journal it belongs to does not verify up to a signed head.
        """
        if self._key is not None:
            # With a key, an entry is served only from a journal whose head is signed (an
            # entry rewritten with its hashes, markers and signatures recomputed or stripped was once served).
            self._catch_up(project)
        rows = self._store.journal_rows(project, after=seq - 1, upto=seq) if seq >= 1 else []
        if not rows:
            raise EntryNotFoundError(project=project, seq=seq, head_seq=self.head_seq(project))
        return to_entry(self._served(project, rows)[0])

    def signed_head(self, project: str) -> SignedHead:
        """The project's verified head, with its signature when this journal has a key: keep it outside the
        store and pass it to :meth:`verify_chain` later (``trusted_head``) to detect a journal cut back to an
        older head, or rewritten before it.

        Raises:
            JournalIntegrityError: the journal does not verify incrementally.
        """
        state = self._catch_up(project)
        with self._lock:
            head = self._heads.get(project)
        if head is None or state.head_seq == 0:
            return SignedHead(project, 0, GENESIS_HASH)
        return SignedHead(project, head.seq, head.hash, self._sign(project, head.seq, head.hash))

    def verify_chain(
        self, project: str, *, raise_on_error: bool = False, trusted_head: SignedHead | None = None
    ) -> ChainReport:
        """Verify a project's journal in full (reads every entry and its marker record, in pages): the hash
        chain, each entry against its marker in ``records`` (a rewrite with recomputed hashes differs from
        it), no marker after the head (entries deleted from the end), the head's signature (with a key),
        and, given ``trusted_head``, that the journal still holds that head.

        Raises:
            JournalIntegrityError: with ``raise_on_error``, when an entry does not verify.
        """
        report = self._verify(project, trusted_head)
        if not report.ok and raise_on_error:
            assert report.first_bad_seq is not None
            raise JournalIntegrityError(project=project, seq=report.first_bad_seq, reason=report.reason)
        return report

    def verify_projects(self, projects: Sequence[str] | None = None) -> dict[str, ChainReport]:
        """:meth:`verify_chain` of each project (default: every project with an entry or a marker record, so
        a project whose entries were all deleted is checked too), by slug."""
        names = projects
        if names is None:
            names = sorted(set(self.projects()) | marker_projects(self._store, self._root))
        return {name: self._verify(name, None) for name in names}

    def _verify(self, project: str, trusted: SignedHead | None) -> ChainReport:
        return verify_journal(self._check(project), trusted, page=_PAGE)

    # ---- synthesis: summaries ----------------------------------------------------------------------

    def get_project_summaries(
        self,
        project: str,
        limit: int = 10,
        order: Literal["desc", "asc"] = "desc",
        before_seq: int | None = None,
        *,
        max_tokens: int = DEFAULT_PAGE_TOKENS,
    ) -> SummaryPage:
        """The per-step summaries (handoffs, lightly normalised and bounded) with the active rule-outs, task
        status, latest goal and next step from the fold, and a cursor.

        The window is always the newest ``limit`` handoffs with seq < ``before_seq`` (all when None);
        ``order`` only sorts that window (``desc``: newest first, ``asc``: oldest first). Every field is
        clipped and the whole page is at most ``max_tokens`` estimated tokens, whatever workers wrote; when
        the window does not fit, its oldest handoffs are left for the next page. Page backwards with
        ``before_seq=page.next_before_seq`` until it is None.

        Args:
            project: The slug.
            limit: Handoffs per page, 1..50.
            order: ``desc`` or ``asc``.
            before_seq: Only handoffs before this seq.
            max_tokens: Bound of the page, in estimated tokens (>= 4000).

        Raises:
            ValueError: ``limit``, ``order`` or ``max_tokens`` out of range.
        """
        check_slug(project)
        if not 1 <= limit <= MAX_LIMIT:
            raise ValueError(f"limit must be 1..{MAX_LIMIT}, got {limit}")
        if order not in ("desc", "asc"):
            raise ValueError(f"order must be 'desc' or 'asc', got {order!r}")
        state = self._catch_up(project)
        upto = None if before_seq is None else before_seq - 1
        rows = self._store.journal_rows(project, upto=upto, limit=limit + 1, descending=True, kinds=["handoff"])
        window = [to_entry(r) for r in self._served(project, rows[:limit])]
        return build_page(
            state,
            window,
            limit=limit,
            order=order,
            before_seq=before_seq,
            more_before=len(rows) > limit,
            max_tokens=max_tokens,
        )

    # ---- synthesis: briefs --------------------------------------------------------------------------

    def get_brief(self, project: str, version: int | None = None) -> Brief | None:
        """A stored brief: the current one (newest not rejected) by default, or ``version`` (any status).

        Returns:
            The brief, or None when there is none.
        """
        pointer = brief_pointer(self._store, self._root, project)
        wanted = version if version is not None else pointer.get("current")
        if wanted is None:
            return None
        body = read_brief_record(self._store, self._root, project, wanted)
        return None if body is None else Brief.model_validate(body)

    def list_briefs(self, project: str) -> list[Brief]:
        """Every stored brief of a project, oldest first (rejected ones included)."""
        latest = brief_pointer(self._store, self._root, project).get("latest", 0)
        out = [self.get_brief(project, v) for v in range(1, latest + 1)]
        return [b for b in out if b is not None]

    def brief_needed(self, project: str, threshold_tokens: int = DEFAULT_BRIEF_THRESHOLD) -> BriefTrigger:
        """Whether the per-step summaries not covered by the current brief exceed ``threshold_tokens``
        (estimated tokens). Reads at most what it takes to pass the threshold."""
        brief = self.get_brief(project)
        head = self.head_seq(project)
        after = brief.as_of_seq if brief else 0
        tokens = handoffs = 0
        upto: int | None = None
        while tokens <= threshold_tokens:
            rows = self._store.journal_rows(
                project, after=after, upto=upto, limit=50, descending=True, kinds=["handoff"]
            )
            for r in self._served(project, rows):
                tokens += json_tokens(normalise_handoff(to_entry(r)))
                handoffs += 1
            if len(rows) < 50:
                break
            upto = rows[-1].seq - 1
        needed = tokens > threshold_tokens
        covered = f"the brief v{brief.version} (as of #{brief.as_of_seq})" if brief else "no brief"
        reason = (
            f"{handoffs} handoffs ({tokens} tokens) after {covered} exceed {threshold_tokens} tokens"
            if needed
            else f"{tokens} tokens of handoffs after {covered}, within {threshold_tokens}"
        )
        return BriefTrigger(
            needed=needed,
            reason=reason,
            head_seq=head,
            brief_version=brief.version if brief else None,
            brief_as_of=brief.as_of_seq if brief else None,
            uncovered_handoffs=handoffs,
            uncovered_tokens=tokens,
            threshold_tokens=threshold_tokens,
        )

    async def abuild_brief(
        self, project: str, *, config: SynthesisConfig | None = None, provider: Provider | None = None
    ) -> Brief:
        """Write, check and store a new brief (see :mod:`~context_journal.journal.synthesis`).

        Returns:
            The stored brief: ``accepted``, ``rebuilt`` or ``rejected`` (a rejected brief does not become
            current), with its findings.

        Raises:
            ValueError: the project has no entries.
            ProviderError: the model call failed (nothing stored).
        """
        cfg = config or SynthesisConfig(stale_after=self.stale_after)
        state = self._catch_up(project)
        if state.head_seq == 0:
            raise ValueError(f"project {project!r} has no entries to brief")
        previous = self.get_brief(project)
        if cfg.mode == "cumulative" and previous is not None:
            window = self.entries(project, after=previous.as_of_seq, limit=None)[-cfg.window :]
        else:
            window = self.entries(project, limit=cfg.window, descending=True)[::-1]
        brief = await synthesize(state, window, previous, provider or self.provider, cfg)
        return self._store_brief(project, brief)

    def build_brief(
        self, project: str, *, config: SynthesisConfig | None = None, provider: Provider | None = None
    ) -> Brief:
        """:meth:`abuild_brief` from synchronous code.

        Raises:
            ValueError: the project has no entries.
            ProviderError: the model call failed (nothing stored).
        """
        return run_sync(self.abuild_brief(project, config=config, provider=provider))

    def _store_brief(self, project: str, brief: Brief) -> Brief:
        with self._store.transaction() as txn:
            txn.lock_journal(project)  # versions are allocated under the project's lock
            version = brief_pointer(self._store, self._root, project).get("latest", 0) + 1
            stored = brief.model_copy(update={"version": version})
            write_brief_record(self._store, txn, self._root, project, version, stored.model_dump(mode="json"))
        return stored

    def check_drift(
        self, project: str, *, brief_version: int | None = None, stale_after: int | None = None
    ) -> DriftReport:
        """Run the drift checks: the journal's warnings, and the current brief's (or ``brief_version``'s)
        errors — reconciled against the fold at its ``as_of_seq``, staleness against the head, citations.

        Raises:
            ValueError: ``brief_version`` names no stored brief.
        """
        head = self._catch_up(project)
        brief = self.get_brief(project, brief_version)
        if brief_version is not None and brief is None:
            raise ValueError(f"project {project!r} has no brief v{brief_version}")
        findings = check_journal(head)
        if brief is not None:
            at = self.state(project, as_of=brief.as_of_seq) if brief.as_of_seq <= head.head_seq else head
            stale = self.stale_after if stale_after is None else stale_after
            findings = [*check_brief(brief, at, head_seq=head.head_seq, stale_after=stale), *findings]
        return make_report(project, head.head_seq, brief, findings)

    # ---- synthesis: the harness view ---------------------------------------------------------------

    def render_for_harness(self, project: str, max_tokens: int = 2000) -> HarnessView:
        """The project's state as content blocks within ``max_tokens`` (see
        :mod:`~context_journal.journal.render`); pass ``view.to_injection()`` to ``ContextManager.compile``.
        Its size depends on ``max_tokens`` only, never on the length of the project.

        Raises:
            ValueError: ``max_tokens`` below 300.
        """
        state = self._catch_up(project)
        brief = self.get_brief(project)
        after = brief.as_of_seq if brief else 0
        recent = self.entries(project, after=after, limit=20, descending=True, kinds=["handoff"])
        return render_view(state, brief, recent, max_tokens=max_tokens, counter=self.counter)
