"""Keeping a ledger current with a message index, and the strategy wrapper that renders it.

:class:`LedgerKeeper` watches one :class:`~context_journal.messages.MessageStore` (one slot, one
branch): each append applied to the index (this handle's writes and other handles' writes read on
refresh) hands the keeper the stored body, which it queues in O(1); :meth:`LedgerKeeper.sync` folds
the queued messages in order (reading from the store only what was not queued: the messages that
existed before the keeper was made). A keeper starts from the newest persisted checkpoint the journal
agrees with, or from a copy of an ancestor branch's ledger in this process (fork, derive), and writes
a checkpoint every ``LedgerConfig.checkpoint_every`` appends (:mod:`context_journal.state.checkpoint`),
so open and fork fold only the messages after it. A removal, or an edit that changes what the fold
reads, makes the next sync start again from a checkpoint older than the changed message (the fold is
not invertible); an edit of a message of text blocks that keeps the names it mentions (a typo fixed, a
sentence reworded) and its readers changes nothing the ledger holds and costs two version reads.

:class:`LedgerStrategy` wraps any strategy: it prices the rendered block, gives the wrapped strategy
the rest of the budget, and places the block as a pair (a marker user turn, then the block as an
assistant turn) where :attr:`LedgerConfig.placement` says: after every summary and the head, at the
start of the last raw span or (``"turn"``) where its newest user turn starts, never inside a tool unit
or a summary's pair. The block is added only when the conversation does not fit the budget whole
(otherwise every message is there raw and the block would repeat it). Its allowance is
``LedgerConfig.share_for`` the conversation's length (a larger share when the conversation is many
times the budget), fixed at the compile's first select: when the compiler selects again with less room
(the strategy's raw window did not fit), the room comes off the wrapped strategy, not the block. The
wrapped strategy is never given room the block takes back at a larger budget (the block grows in steps:
see :meth:`LedgerStrategy._room_taken_back`), so more room never sends fewer messages for the block.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import CHEAPEST_PART, MessageNotFoundError, OverBudgetError
from ..messages import MessageStore
from ..stores.redaction import REDACTED_TEXT
from ..strategies.base import Budget, ContextEntry, RawSpan, RenderedEntry, Selection, Strategy
from ..strategies.placement import StrategyWrapper
from ..tokens import TokenCounter
from ..views import MessageView
from .checkpoint import Checkpoint, _covered, load_checkpoint, names_reader, save_checkpoint
from .ledger import Ledger, LedgerConfig, WorkingState
from .render import MARKER, RenderMemo

if TYPE_CHECKING:
    from ..messages import _Entry

__all__ = ["LedgerKeeper", "LedgerStrategy"]

_BATCH = 256
_QUEUE = 4096  # queued bodies folded early past this (bounded memory between compiles)
_ROOM_LOOK = 4096  # tokens of larger budgets :meth:`LedgerStrategy._room_taken_back` looks at, at most
_EDITS = 256  # edits between two syncs looked at one by one (more: the next sync folds again)
_TURN_SCAN = 256  # the newest user turn is looked for among this many last messages (as _newest_user_turn)
_BEFORE_KEPT = 4  # states before a message kept (a turn's opening, the block's place in a compile or two)
_BEFORE_MAX = 4096  # messages folded again at most for the state before a turn (else the current state shows)


def _stub(content: Sequence[Mapping[str, Any]]) -> bool:
    """True for content that reads as a redaction stub (one text block ``[redacted]``; a message that
    says just that is taken for one too: it is only folded again)."""
    return len(content) == 1 and content[0].get("type") == "text" and content[0].get("text") == REDACTED_TEXT


class LedgerKeeper:
    """The ledger of one message index as read by one reader (see the module docstring).

    Args:
        messages: The message index (slot and branch).
        reader: The reader whose blocks count.
        config: The ledger knobs (``checkpoint_every``: appends between persisted checkpoints, 0: none).
        seeds: Keepers of ancestor branches (or of this one) whose ledger may serve as the start, as
            copied in memory (a fork or derive in this process), when the journal agrees with it.
    """

    def __init__(
        self,
        messages: MessageStore,
        reader: str | None,
        config: LedgerConfig,
        seeds: Sequence[LedgerKeeper] = (),
    ) -> None:
        self.messages = messages
        self.reader = reader
        self.config = config
        self.ledger = Ledger(config, reader)
        self.folded = 0  # messages folded by this keeper (what open and fork must keep small)
        self._done = 0
        self._seq = 0  # store sequence the ledger covers (once loaded and synced)
        self._private = False  # a folded message holds a block naming the reader
        self._loaded = False  # the start (checkpoint, seed or empty) was chosen
        self._saved = 0  # positions covered by the newest checkpoint written or loaded
        self._seeds = [k._point() for k in seeds if k._serves(messages, reader, config)]
        self._mutations = messages.mutation_count
        self._queue: dict[int, list[dict[str, Any]]] = {}
        # Edits applied since the last sync: (position, entry before, entry after, content after or None).
        self._edits: list[tuple[int, _Entry, _Entry, list[dict[str, Any]] | None]] = []
        self.renders = RenderMemo()
        """The block's latest renders, shared by the compiles of this ledger (see :class:`RenderMemo`)."""
        self.opens_turn: Callable[[_Entry], bool] | None = None
        """Which messages open a user turn (set by :meth:`state_before`): the fold keeps the ledger as it
        stood before the newest one it passes, so the compiles of that turn need not fold again."""
        self._before: dict[tuple[int, str, int], Ledger] = {}  # (position, id, seq) -> the ledger before it
        messages.observers.append(self._observe)
        messages.edit_observers.append(self._observe_edit)

    def detach(self) -> None:
        """Stop watching the index."""
        if self._observe in self.messages.observers:
            self.messages.observers.remove(self._observe)
        if self._observe_edit in self.messages.edit_observers:
            self.messages.edit_observers.remove(self._observe_edit)

    @property
    def done(self) -> int:
        """Store positions folded."""
        return self._done

    @property
    def covered_seq(self) -> int:
        """Store sequence the ledger covers (after :meth:`sync`)."""
        return self._seq

    def _serves(self, messages: MessageStore, reader: str | None, config: LedgerConfig) -> bool:
        """True when this keeper's ledger is a valid start for ``messages`` (same slot, reader and fold
        configuration; this keeper's branch in its lineage no later than the ledger's sequence)."""
        if not self._loaded or self._done != len(self.messages.rows) or reader != self.reader:
            return False
        if messages.slot != self.messages.slot or config.fingerprint() != self.config.fingerprint():
            return False
        segments = messages.store.lineage(messages.branch_id).segments
        return any(bid == self.messages.branch_id and self._seq <= upto for bid, upto in segments)

    def _point(self) -> Checkpoint:
        return Checkpoint(self.ledger.copy(), self._seq, self._done, self._private)

    def _observe(self, position: int, message_id: str, body: dict[str, Any]) -> None:
        if position >= self._done:
            self._queue[position] = body["content"]
            if len(self._queue) > _QUEUE and self._loaded:
                self._fold_queued()

    def _observe_edit(self, position: int, before: _Entry, after: _Entry, body: dict[str, Any] | None) -> None:
        content = body["content"] if body is not None else None
        if position in self._queue:  # not folded yet: fold the new version when its turn comes
            if content is None:
                del self._queue[position]  # read from the store then
            else:
                self._queue[position] = content
        if len(self._edits) < _EDITS:  # past it, the count of mutations tells: the next sync folds again
            self._edits.append((position, before, after, content))

    def _edits_kept(self) -> bool:
        """True when every mutation since the last sync is an edit that leaves the fold as it is: of a
        message not folded yet, or between two versions whose fold is the same whatever came before
        (:meth:`Ledger.text_effect`, as the reader sees them). Then the ledger needs no fold again (a
        version with a block naming the reader marks the fold as the reader's own, as folding it does)."""
        ms = self.messages
        edits, self._edits = self._edits, []
        if ms.mutation_count - self._mutations != len(edits):
            return False  # a removal (or an edit this keeper did not see)
        if not self._loaded:
            return True  # the start is chosen at the next sync, from what the journal holds then
        folded = [(before, after, content) for pos, before, after, content in edits if pos < self._done]
        if not folded:
            return True
        wanted = [(e.id, e.seq, e.created_seq) for before, after, content in folded for e in (before, after)]
        try:
            versions = ms.load_versions(wanted)
        except MessageNotFoundError:  # a version erased since: fold again from what the journal holds
            return False
        ledger, reader = self.ledger, self.reader
        private = self._private
        for k, (_before, after, content) in enumerate(folded):
            old_content = versions[2 * k].content_dicts()
            new_content = content if content is not None else versions[2 * k + 1].content_dicts()
            if _stub(old_content) or _stub(new_content):
                # A redaction: the version before it reads as the stub too (its body was erased), so the
                # two compare equal while the fold still holds what the erased text named.
                return False
            old = ledger.text_effect(old_content)
            new = ledger.text_effect(new_content)
            if old is None or old != new:
                return False
            # A block now naming the reader makes the fold theirs (persisted under their group); one that
            # no longer does leaves it so (another message may still name them: only more restrictive).
            private = private or names_reader(after, reader)
        self._private = private
        return True

    def _fold(self, entry: _Entry, content: Sequence[Mapping[str, Any]], position: int) -> None:
        opens = self.opens_turn
        if opens is not None and len(self.messages.rows) - position <= _TURN_SCAN and opens(entry):
            self._keep_before((position, entry.id, entry.seq), self.ledger.copy())
        if entry.audience is not None and names_reader(entry, self.reader):
            self._private = True
        self.ledger.add(entry.id, content)
        self.folded += 1

    def _fold_queued(self) -> None:
        """Fold the queued messages that come next in order (no store read)."""
        entries = self.messages.rows
        while self._done in self._queue and self._done < len(entries):
            content = self._queue.pop(self._done)
            entry = entries[self._done]
            if entry.live:
                self._fold(entry, content, self._done)
            self._done += 1

    def _start(self) -> None:
        """Choose where the fold starts: the newest persisted checkpoint or in-memory seed the journal
        agrees with, else the empty ledger."""
        ms, config = self.messages, self.config
        best = load_checkpoint(ms, config, self.reader) if config.checkpoint_every else None
        self._saved = best.done if best is not None else 0
        for seed in self._seeds:
            if _covered(ms.rows, seed.seq, seed.done) is None and (best is None or seed.seq > best.seq):
                best = Checkpoint(seed.ledger.copy(), seed.seq, seed.done, seed.private)
        self._seeds = []
        if best is None:
            best = Checkpoint(Ledger(config, self.reader), 0, 0)
        self.ledger, self._seq, self._done, self._private = best.ledger, best.seq, best.done, best.private
        self._before = {}
        self._loaded = True

    def sync(self) -> Ledger:
        """Fold every message not folded yet; returns the ledger (current with the index)."""
        ms = self.messages
        with ms.lock:
            if ms.mutated_since(self._mutations) is not None and not self._edits_kept():
                self._loaded = False  # the fold is not invertible: start again from what still holds
                self._queue = {}  # a queued body may be the version an edit replaced
            self._mutations = ms.mutation_count
            self._edits = []
            if not self._loaded:
                self._start()
            entries = ms.rows
            n = len(entries)
            while self._done < n:
                self._fold_queued()
                if self._done >= n:
                    break
                stop = min(n, self._done + _BATCH)
                wanted = [entries[p] for p in range(self._done, stop) if entries[p].live and p not in self._queue]
                loaded = {
                    m.id: m.content_dicts() for m in ms.load_versions([(e.id, e.seq, e.created_seq) for e in wanted])
                }
                for p in range(self._done, stop):
                    e = entries[p]
                    queued = self._queue.pop(p, None)
                    if e.live:
                        self._fold(e, queued if queued is not None else loaded[e.id], p)
                self._done = stop
            self._seq = max(self._seq, ms.last_seq)
            self._queue = {p: c for p, c in self._queue.items() if p >= self._done}
        return self.ledger

    def state_before(
        self, message_id: str, facts: Mapping[str, str], opens_turn: Callable[[_Entry], bool]
    ) -> WorkingState | None:
        """The working state of the messages before ``message_id`` (which opens a user turn, as
        ``opens_turn`` tells of an index entry), with ``facts``: what the block shows while that turn runs
        (see :class:`LedgerStrategy`). Call after :meth:`sync`. Kept from the fold when it passed that
        message (a copy of the ledger per user turn among the last :data:`_TURN_SCAN` messages), else
        folded again from the newest checkpoint before it; None when that would fold more than
        :data:`_BEFORE_MAX` messages (the caller shows the current state)."""
        self.opens_turn = opens_turn
        ms = self.messages
        pos = ms.positions.get(message_id)
        if pos is None or pos >= self._done:
            return None
        entry = ms.rows[pos]
        key = (pos, entry.id, entry.seq)
        ledger = self._before.get(key)
        if ledger is None:
            ledger = self._fold_before(pos)
            if ledger is None:
                return None
            self._keep_before(key, ledger)
        return ledger.state(facts, scores=False)

    def _keep_before(self, key: tuple[int, str, int], ledger: Ledger) -> None:
        """Keep ``ledger`` as the state before ``key``'s message (the newest :data:`_BEFORE_KEPT`)."""
        self._before.pop(key, None)
        self._before[key] = ledger
        while len(self._before) > _BEFORE_KEPT:
            del self._before[next(iter(self._before))]

    def _fold_before(self, pos: int) -> Ledger | None:
        """A ledger of the messages before position ``pos``: from the newest checkpoint covering no more
        than them (or the empty ledger), folded up to ``pos``; None past :data:`_BEFORE_MAX` messages."""
        ms, config = self.messages, self.config
        best = load_checkpoint(ms, config, self.reader, tries=8, upto=pos) if config.checkpoint_every else None
        ledger, done = (best.ledger, best.done) if best is not None else (Ledger(config, self.reader), 0)
        if pos - done > _BEFORE_MAX:
            return None
        entries = ms.rows
        for start in range(done, pos, _BATCH):
            wanted = [e for e in entries[start : min(pos, start + _BATCH)] if e.live]
            for message in ms.load_versions([(e.id, e.seq, e.created_seq) for e in wanted]):
                ledger.add(message.id, message.content_dicts())
        return ledger

    def appended(self) -> int | None:
        """After appends: once ``checkpoint_every`` appends are past the newest checkpoint, fold them and
        persist a checkpoint (its own transaction). Returns the record's sequence, or None."""
        every = self.config.checkpoint_every
        if not every or len(self.messages.rows) - self._saved < every:
            return None
        self.sync()
        if self._done - self._saved < every:
            return None
        seq = save_checkpoint(self.messages, self.config, self.reader, self._point_now())
        self._saved = self._done
        return seq

    def _point_now(self) -> Checkpoint:
        return Checkpoint(self.ledger, self._seq, self._done, self._private)


def _newest_user_turn(view: MessageView, user_role: Callable[[str], bool], scan: int = _TURN_SCAN) -> int | None:
    """The view position of the newest message that opens a user turn: a user-role message with a
    text block and no tool result (looked for among the last ``scan`` messages)."""
    n = len(view)
    for pos in range(n - 1, max(-1, n - 1 - scan), -1):
        entry = view.entry(pos)
        if "text" in entry.kinds and "tool_result" not in entry.kinds and user_role(entry.participant):
            return pos
    return None


def _all_raw(entries: Sequence[ContextEntry], n: int) -> bool:
    """True when ``entries`` are raw spans showing each of positions ``0..n-1`` once (in any order:
    a message rendered as newest moves), and nothing else."""
    spans: list[RawSpan] = []
    for e in entries:
        if not isinstance(e, RawSpan):
            return False
        spans.append(e)
    at = 0
    for e in sorted(spans, key=lambda span: span.start):
        if e.start != at:
            return False
        at = e.end
    return at == n


class LedgerStrategy(StrategyWrapper):
    """``inner`` plus the working-state block (see the module docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        state: The working state to render.
        config: Share of the budget and placement.
        counter: The view's token counter.
        user_role: ``participant -> True`` for speakers of user turns (for the ``"turn"`` placement).
        renders: Renders kept from earlier compiles of the same ledger (default: none kept).
        before: ``message id -> the working state of the messages before it`` (None when it cannot be
            had; see :meth:`LedgerKeeper.state_before`). With the ``"turn"`` placement, the block placed
            before the newest user turn shows that state with the current plans and facts, so it stays
            byte for byte the same while the turn's tool loop runs (the loop's steps are raw after it),
            and the prompt cache serves the loop (without it the block showed every step's files and
            commands, and everything after it was sent anew at each step). When the turn takes more than
            half the budget, or its opening message is not raw in the last raw span (the loop cut), the
            block shows the state before its own place instead (:meth:`_at_place`).
    """

    def __init__(
        self,
        inner: Strategy,
        state: WorkingState,
        config: LedgerConfig,
        counter: TokenCounter,
        user_role: Callable[[str], bool],
        renders: RenderMemo | None = None,
        before: Callable[[str], WorkingState | None] | None = None,
    ) -> None:
        super().__init__(inner)
        self.renders = renders if renders is not None else RenderMemo()
        self.state = state
        self.config = config
        self.counter = counter
        self.user_role = user_role
        self.before = before
        self._rendered: dict[tuple[int, bool], tuple[tuple[RenderedEntry, RenderedEntry], int] | None] = {}
        self._turn: tuple[tuple[int, int], int | None, WorkingState | None] | None = None  # (view size and room,
        # the newest user turn's opening message, the state before it)
        self._cost: int | None = None  # the placed block's tokens
        self._at_pairs: dict[tuple[int, int], tuple[tuple[RenderedEntry, RenderedEntry], int] | None] = {}
        self.block: str | None = None
        self._allowance: int | None = None
        self._withheld = 0  # tokens the wrapped strategy is not given (see _room_taken_back)
        self._facts_pairs: dict[int, tuple[tuple[RenderedEntry, RenderedEntry], int] | None] = {}  # facts alone

    def _pair(
        self, allowance: int, turn: WorkingState | None = None
    ) -> tuple[tuple[RenderedEntry, RenderedEntry], int] | None:
        """The pair of ``turn`` (the state before the newest user turn) or of the current state within
        ``allowance`` tokens and its cost (memoised: the compiler may select again)."""
        key = (allowance, turn is not None)
        if key not in self._rendered:
            self._rendered[key] = self._render_pair(turn if turn is not None else self.state, allowance)
        return self._rendered[key]

    def _turn_state(self, view: MessageView, room: int) -> WorkingState | None:
        """With the ``"turn"`` placement: the state before the newest user turn, with the current plans
        and facts, when that turn takes at most half of ``room`` (tokens: the compile's budget, the same
        at every select of a compile, so that the choice is too), so that it is sent raw. None: the
        current state shows. A longer turn is cut, and its cut steps' files and names are then in the
        block only: with the state before any turn, ``benchmarks/eval_compaction.py``'s sessions compiled
        a whole session behind on compression kept 1.18x the compaction's salient file names, not 1.45x."""
        if self.config.placement != "turn" or self.before is None:
            return None
        if self._turn is None or self._turn[0] != (len(view), room):
            pos = _newest_user_turn(view, self.user_role)
            short = pos is not None and pos > 0 and 2 * view.tokens(pos, len(view)) <= room
            state = self.before(view.entry(pos).id) if pos is not None and short else None
            if state is not None:
                state = replace(state, plans=self.state.plans, facts=self.state.facts)
                if state.empty:
                    state = None
            self._turn = ((len(view), room), pos, state)
        return self._turn[2]

    def _at_place(
        self,
        view: MessageView,
        entries: Sequence[ContextEntry],
        allowance: int,
        planned: tuple[tuple[RenderedEntry, RenderedEntry], int],
    ) -> tuple[tuple[RenderedEntry, RenderedEntry], int]:
        """The pair showing the working state of the messages before the block's place in ``entries`` (the
        first message after it, raw), with the current plans and facts, when it costs no more than
        ``planned`` (the current state's pair, which the selection made room for); else ``planned``.
        Everything after the block is raw, so it shows what the block leaves out, and the block changes
        only when its place moves (at a compaction, or when the window's start jumps): in a real Claude
        Code session a user turn is one loop of a hundred steps or more, and the block, showing every
        step's files and commands, sent everything after it anew at every step."""
        at = self._place_index(view, entries)
        if at is None or at <= 0 or self.before is None:
            return planned
        reduced = getattr(view, "reduced_from", None)  # (a PricedView: the compile priced its reductions)
        if reduced is not None and reduced(at):
            return planned  # a message after the block is cut: what it names may be in the block only
        key = (allowance, at)
        if key not in self._at_pairs:
            state = self.before(view.entry(at).id)
            found = None
            if state is not None:
                state = replace(state, plans=self.state.plans, facts=self.state.facts)
                found = None if state.empty else self._render_pair(state, allowance)
            self._at_pairs[key] = found
        found = self._at_pairs[key]
        return found if found is not None and found[1] <= planned[1] else planned

    def _place_index(self, view: MessageView, entries: Sequence[ContextEntry]) -> int | None:
        """The view position of the message :meth:`_place` puts the block before (None: none, or the
        ``"head"`` placement)."""
        placement = self.config.placement
        if placement == "head":
            return None
        rendered = [k for k, e in enumerate(entries) if not isinstance(e, RawSpan)]
        raw = [k for k, e in enumerate(entries) if isinstance(e, RawSpan)]
        last = raw[-1] if raw and (not rendered or raw[-1] > rendered[-1]) else None
        if last is None:
            return None
        span = entries[last]
        assert isinstance(span, RawSpan)
        if placement == "turn":
            pos = _newest_user_turn(view, self.user_role)
            if pos is not None and span.start < pos < span.end:
                return pos
        return span.start

    def _opener_raw(self, entries: Sequence[ContextEntry]) -> bool:
        """True when the newest user turn's opening message is raw in the last raw span (the block then
        stands right before it, or before the span it is in)."""
        pos = self._turn[1] if self._turn is not None else None
        if pos is None:
            return False
        rendered = [k for k, e in enumerate(entries) if not isinstance(e, RawSpan)]
        raw = [k for k, e in enumerate(entries) if isinstance(e, RawSpan)]
        if not raw or (rendered and rendered[-1] > raw[-1]):
            return False
        last = entries[raw[-1]]
        assert isinstance(last, RawSpan)
        return last.start <= pos < last.end

    def _render_pair(
        self, state: WorkingState, allowance: int
    ) -> tuple[tuple[RenderedEntry, RenderedEntry], int] | None:
        """The marker/block pair of ``state`` within ``allowance`` tokens and its cost (None: no block)."""
        marker_blocks = ({"type": "text", "text": f"{self.config.marker_participant}: {MARKER}"},)
        overhead = self.counter.count_message(self.config.marker_participant, marker_blocks)
        overhead += self.counter.count_message("assistant", [{"type": "text", "text": ""}])

        def count(text: str) -> int:
            return self.counter.count_block({"type": "text", "text": text})

        text = self.renders.render(state, allowance - overhead, count, self.counter)
        found: tuple[tuple[RenderedEntry, RenderedEntry], int] | None = None
        if text is not None:
            marker = RenderedEntry(
                self.config.marker_participant, ({"type": "text", "text": MARKER},), kind="marker", role="user"
            )
            asof = ((state.last_message_id or "working_state", 0, True),)
            body = RenderedEntry(
                "assistant", ({"type": "text", "text": text},), kind="ledger", role="assistant", recalled=asof
            )
            found = ((marker, body), overhead + count(text))
        return found

    def _facts_only(self, allowance: int) -> tuple[tuple[RenderedEntry, RenderedEntry], int] | None:
        """The block with the host's facts alone (the rest is in the raw conversation) within
        ``allowance`` tokens (long facts clipped), memoised like :meth:`_pair`."""
        if allowance not in self._facts_pairs:
            state = self.state
            only = WorkingState(facts=state.facts, messages=state.messages, last_message_id=state.last_message_id)
            self._facts_pairs[allowance] = self._render_pair(only, allowance)
        return self._facts_pairs[allowance]

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection with the ledger pair placed among its entries."""
        whole = view.tokens(0, len(view))
        # Everything fits raw and the strategy shows it so: the block would only repeat it, but for facts.
        # (A strategy may still show summaries where everything would fit: the autobiographical one keeps
        # the layout of its previous compile. The block is then shown as whenever summaries stand for
        # messages, so that compiling again gives the same context.)
        plain = self.inner.select(view, budget) if whole <= budget.tokens else None
        if plain is not None and _all_raw(plain.entries, len(view)):
            self.block = None
            facts = self._facts_only(budget.tokens // 2) if self.state.facts else None
            if facts is None:
                return plain
            pair, cost = facts  # the facts keep their room: the strategy cuts messages for it if it must
            self.block = str(pair[1].content[0]["text"])
            selection = self.inner.select(view, replace(budget, tokens=max(0, budget.tokens - cost)))
            return replace(selection, entries=self._place(view, selection.entries, pair))
        if self._allowance is None and budget.tokens == 0:
            # The compiler's probe of the smallest selection: no block in it, and none fixed for the
            # compile's later selects (set here, a first compile after a drain sent no block, and every
            # compile after it a block: compiling again did not give the same context).
            self.block = None
            return self.inner.select(view, budget)
        first = self._allowance is None
        if self._allowance is None:  # the compiler's later selects (retries with less room) keep it
            self._allowance = self._allowance_at(view, budget, 0)
        allowance = self._allowance
        turn = self._turn_state(view, budget.total) if allowance > 0 else None
        planned = self._pair(allowance, turn) if allowance > 0 else None
        cost = planned[1] if planned is not None else 0
        if first:
            self._withheld = self._room_taken_back(view, budget, cost, turn)
        inner = replace(budget, tokens=max(0, budget.tokens - cost - self._withheld))
        chosen = self.inner.select(view, inner) if planned is not None else None
        if chosen is not None and turn is not None and not self._opener_raw(chosen.entries):
            turn = None  # the turn's loop is cut: the block shows the state where the journal stands now
            planned = self._pair(allowance)
            cost = planned[1] if planned is not None else 0
            if first:
                self._withheld = self._room_taken_back(view, budget, cost, None)
            inner = replace(budget, tokens=max(0, budget.tokens - cost - self._withheld))
            chosen = self.inner.select(view, inner) if planned is not None else None
        if planned is None or chosen is None:
            # No block fits the allowance: none, and no room that a larger budget's block takes.
            self.block = None
            return self.inner.select(view, inner)
        pair, cost = planned
        if turn is None:  # a long turn, or a placement without one: the state before the block's own place
            pair, cost = self._at_place(view, chosen.entries, allowance, planned)
        self._cost = cost
        self.block = str(pair[1].content[0]["text"])
        selection = chosen
        entries = self._place(view, selection.entries, pair)
        return replace(selection, entries=entries, superseded={**selection.superseded, **self._superseded(view)})

    def _allowance_at(self, view: MessageView, budget: Budget, more: int) -> int:
        """The block's allowance (tokens) at a budget larger than ``budget`` by ``more`` tokens:
        ``LedgerConfig.share_for`` the conversation's length of the whole budget, at most half of what the
        strategy may fill."""
        total = budget.total + more
        share = self.config.share_for(view.tokens(0, len(view)), total)
        return min(int(total * share), (budget.tokens + more) // 2)

    def _room_taken_back(self, view: MessageView, budget: Budget, cost: int, turn: WorkingState | None) -> int:
        """Tokens of ``budget`` the wrapped strategy is not given beside the block of ``cost`` tokens (0 or
        more): the block takes its larger allowance only from room that is new.

        The block is rendered by whole lines and names within its allowance, so its size grows in steps
        while the allowance grows by a share of each token of budget: given all of ``budget.tokens - cost``,
        the wrapped strategy would hold, just below a step, room that the block takes back at the step (a
        review's passthrough history sent a tool call and its result at 1,406 tokens and left both out at
        1,410, where the block grew from 162 to 210 tokens: fewer messages sent with more room), and it
        comes in whole at the budget where its smallest form first fits (``cost`` 0 below it: another
        history sent nine messages at 970 tokens without a block and seven at 974 beside one). So the
        strategy is given at most the least room any larger budget leaves it,
        ``min(budget.tokens + d - cost(d))`` over ``d >= 0`` (``cost(d)``: the block rendered at the
        allowance of a budget larger by ``d``); what a strategy gets never shrinks as the budget grows.
        Budgets are looked at until ``budget.tokens + d - allowance(d)`` (never less than what that budget
        leaves) reaches that least room; the block rendered at the farthest of them costing ``cost`` again
        (it is whole already) ends the search at once. ``turn``: the state the block shows (see :meth:`_pair`)."""
        room = budget.tokens - cost
        reach = 0  # the larger budgets to look at: until what the allowance leaves reaches the least room
        while budget.tokens + reach - self._allowance_at(view, budget, reach) < room and reach < _ROOM_LOOK:
            reach = 2 * reach + 1
        if reach == 0:
            return 0
        farthest = self._pair(self._allowance_at(view, budget, reach), turn)
        if farthest is None or farthest[1] <= cost:
            return 0  # the block does not grow within reach
        last = self._allowance
        for more in range(1, reach + 1):
            allowance = self._allowance_at(view, budget, more)
            if budget.tokens + more - allowance >= room:
                break  # no larger budget leaves less
            if allowance == last:
                continue
            last = allowance
            planned = self._pair(allowance, turn)
            if planned is not None:
                room = min(room, budget.tokens + more - planned[1])
        return max(0, budget.tokens - cost - room)

    def give_way(self, error: OverBudgetError) -> bool:
        """Halve the block's allowance (none under 64 tokens) after a compile that failed with ``error``;
        with no block at all next when the smallest context was over the budget by more than twice the
        block's tokens (a calibration factor above 2 is outside what reports move it to: halving is then
        futile, one try without the block is not). False when there was no block to shrink, or when the
        compile failed on a lower bound that leaves the block out (:data:`CHEAPEST_PART`: without the
        block it fails as well). The manager compiles again, so a context that fits without the block
        (or with a shorter one) is never refused because of it: the block, being a digest of the
        journal, gives way before the compile fails. (The smallest context a failed compile reports is
        no lower bound: one reported 931 tokens at a budget of 711 that fit without the block in 569.)"""
        if self.block is None or not self._allowance or CHEAPEST_PART in error.parts:
            return False
        cost = self._cost if self._cost is not None else self._allowance
        if error.actual - 2 * cost > error.budget or self._allowance < 128:
            self._allowance = 0
        else:
            self._allowance //= 2
        self.block = None
        self._withheld = 0
        return True

    def _superseded(self, view: MessageView) -> dict[str, tuple[int, str]]:
        """Plan tools whose latest plan the block shows: tool name -> (store sequence of the message
        holding that version, the note older raw calls of the tool show instead of their input)."""
        out: dict[str, tuple[int, str]] = {}
        for plan in self.state.plans:
            if self.block is None or f"Plan ({plan.tool}, version {plan.version}, latest):" not in self.block:
                continue  # the block does not show it (a name with control characters is shown escaped)
            pos = view.index_of(plan.message_id)
            if pos is not None:
                note = f"an older version of this plan; the working state shows the latest (version {plan.version})"
                out[plan.tool] = (view.entry(pos).sequence, note)
        return out

    def _place(
        self, view: MessageView, entries: tuple[ContextEntry, ...], pair: tuple[RenderedEntry, RenderedEntry]
    ) -> tuple[ContextEntry, ...]:
        placement = self.config.placement
        # The block goes after every rendered entry (summaries, recall pairs) and after the head: at the
        # start of the last raw span, or ("turn") further in, where that span's newest user turn starts.
        rendered = [k for k, e in enumerate(entries) if not isinstance(e, RawSpan)]
        raw = [k for k, e in enumerate(entries) if isinstance(e, RawSpan)]
        last = raw[-1] if raw and (not rendered or raw[-1] > rendered[-1]) else None
        if placement == "turn" and last is not None:
            e = entries[last]
            assert isinstance(e, RawSpan)
            pos = _newest_user_turn(view, self.user_role)
            if pos is not None and e.start < pos < e.end:
                split = (RawSpan(e.start, pos), *pair, RawSpan(pos, e.end))
                return (*entries[:last], *split, *entries[last + 1 :])
        if placement in ("turn", "recent"):
            k = last if last is not None else len(entries)
            if k == len(entries) and entries and isinstance(entries[-1], RenderedEntry):
                k = len(entries)  # nothing raw after the last summary: the block closes the context
            return (*entries[:k], *pair, *entries[k:])
        first = entries[0] if entries else None
        k = 1 if isinstance(first, RawSpan) and first.start == 0 and len(entries) > 1 else 0
        return (*entries[:k], *pair, *entries[k:])


def facts_from_state(value: Any) -> dict[str, str]:
    """The host's facts from their stored state (anything malformed is ignored)."""
    if not isinstance(value, Mapping):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}
