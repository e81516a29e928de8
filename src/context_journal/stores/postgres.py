"""The PostgreSQL backend (psycopg 3; extra ``postgres``): one store shared by many processes and hosts.

Layout: the same tables as SQLite (``branches``, ``slots``, ``records``, ``blobs``,
``schema_migrations``) in a schema of their own (``schema=`` option, default ``context_journal``), so
several deployments can share one database.

Sequences: a one-row table ``head`` holds the newest sequence. A write transaction locks that row
(``SELECT ... FOR UPDATE``) at its first write and allocates ``head + 1, head + 2 ...`` under the lock,
storing the new head before it commits. Writers are therefore serialised in sequence order:
sequences are unique and gap-free per store (a rolled-back transaction consumes none), and a reader
that has seen head ``H`` has seen every record ``<= H`` — which is what makes incremental cache
refresh ("records after the last one I saw") exact across hosts.

Change detection: :meth:`change_token` reads ``head.seq`` and ``head.branch_version`` in one query.
Records cannot be changed: triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on ``records``.
Driver errors are translated into :class:`~context_journal.errors.StoreError` at this edge.

Full-text index (:mod:`context_journal.stores.fulltext`): a side table ``text_index(doc, seq, tsv)`` with a
GIN index on ``tsv``, one row per document (``doc = seq * 256 + group``), written in the transaction of its
record and never changed (triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE``). The text is cut into
words in Python first (:func:`~context_journal.stores.fulltext.words`, FTS5's ``unicode61`` rules), so
PostgreSQL's parser never sees a file path, an e-mail address or a hyphenated word as one token; the words
are stemmed by the store's own text-search configuration, made to group words as SQLite's FTS5 index does
(see :class:`PostgresStore`). Hits are ranked by ``ts_rank`` (ties: newest document first).

Work queue wake-ups: every enqueue (:meth:`PostgresStore.queue_enqueue`) sends ``NOTIFY`` on the store's
channel (:attr:`PostgresStore.queue_channel`, derived from the schema, so stores in other schemas of the
database are not woken) in its own transaction, so the notification goes out when, and only if, the item is
committed. An idle :class:`~context_journal.workers.CompressionWorker` waits for it on a dedicated
connection (:meth:`PostgresStore.queue_listener`, ``LISTEN``) instead of sleeping out its poll interval.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import MissingExtraError, StoreBusyError, StoreError
from .base import ROOT_BRANCH, Op, StoreStats, Transaction
from .fulltext import MAX_GROUPS, TextHit, words
from .migrations import INDEX_FIELDS, Migration, apply_migrations
from .queue import WorkClaim
from .sql import SQLStore

try:
    import psycopg
    from psycopg import sql
except ImportError as _exc:  # pragma: no cover - depends on the extra
    raise MissingExtraError("psycopg", "postgres") from _exc

__all__ = ["PostgresStore", "QueueListener"]

_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_SHARED_SCHEMAS = frozenset({"public", "information_schema"})
"""Schemas a store never takes: PostgreSQL's own, and the one every user of a database shares by default."""
_TS_CONFIG_RE = re.compile(r"^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$")

TEXT_CONFIG = "context_journal_text"
"""Name of the store's own text-search configuration, in its schema (derived from ``text_search_config``)."""

_TSV_BUDGET = 900_000
"""Bytes of distinct words one document may bring (a tsvector holds at most 1 MiB of lexemes and positions:
each distinct word is counted with 8 bytes of overhead, and 32 KiB are left for positions)."""


def _m1_schema(store: PostgresStore) -> None:
    store._run_ddl(
        """
        CREATE TABLE branches (
            id BIGSERIAL PRIMARY KEY,
            name TEXT NOT NULL,
            parent_id BIGINT REFERENCES branches(id),
            fork_seq BIGINT,
            created_at DOUBLE PRECISION NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT FALSE
        );
        CREATE UNIQUE INDEX branches_live_name ON branches(name) WHERE NOT deleted;
        CREATE TABLE slots (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE head (id INT PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL, branch_version BIGINT NOT NULL);
        INSERT INTO head VALUES (1, 0, 0);
        CREATE TABLE records (
            seq BIGINT PRIMARY KEY,
            branch_id BIGINT NOT NULL,
            slot_id BIGINT NOT NULL,
            item TEXT NOT NULL,
            op SMALLINT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            body TEXT
        );
        CREATE INDEX records_slot ON records(slot_id, branch_id, seq);
        CREATE INDEX records_item ON records(slot_id, item, seq) WHERE op = 4;
        CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL);
        CREATE FUNCTION records_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'records are append-only: % refused', TG_OP;
        END $$;
        CREATE TRIGGER records_no_update BEFORE UPDATE OR DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION records_refuse_change();
        CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON records
            FOR EACH STATEMENT EXECUTE FUNCTION records_refuse_change();
        """
    )
    store._execute(
        "INSERT INTO branches(name, parent_id, fork_seq, created_at) VALUES (%s, NULL, NULL, %s)",
        (ROOT_BRANCH, time.time()),
    )


def _m2_journal(store: PostgresStore) -> None:
    # The execution journal: append-only rows per project; UPDATE, DELETE and TRUNCATE refused by triggers,
    # and an insert refused unless seq is the project's head + 1 and prev_hash the head's hash.
    store._run_ddl(
        """
        CREATE TABLE journal_entries (
            project TEXT NOT NULL,
            seq BIGINT NOT NULL,
            store_seq BIGINT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            author TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            body TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (project, seq),
            UNIQUE (project, idempotency_key)
        );
        CREATE INDEX journal_entries_kind ON journal_entries(project, kind, seq);
        CREATE FUNCTION journal_entries_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'journal entries are immutable: % refused', TG_OP;
        END $$;
        CREATE TRIGGER journal_entries_no_update BEFORE UPDATE OR DELETE ON journal_entries
            FOR EACH ROW EXECUTE FUNCTION journal_entries_refuse_change();
        CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
            FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_refuse_change();
        CREATE FUNCTION journal_entries_check_order() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            head_seq BIGINT;
            head_hash TEXT;
        BEGIN
            SELECT seq, hash INTO head_seq, head_hash FROM journal_entries
                WHERE project = NEW.project ORDER BY seq DESC LIMIT 1;
            IF NEW.seq <> COALESCE(head_seq, 0) + 1 OR NEW.prev_hash <> COALESCE(head_hash, '') THEN
                RAISE EXCEPTION 'journal entries are append-only: seq must be the head + 1, prev_hash its hash';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER journal_entries_in_order BEFORE INSERT ON journal_entries
            FOR EACH ROW EXECUTE FUNCTION journal_entries_check_order();
        """
    )


def _m3_work_queue(store: PostgresStore) -> None:
    # Pending summarisation work, one row per (namespace, branch, slot); leased by compression workers with
    # SELECT ... FOR UPDATE SKIP LOCKED. Mutable by design (coordination state, not history).
    store._run_ddl(
        """
        CREATE TABLE work_queue (
            key TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            branch_id BIGINT NOT NULL,
            slot TEXT NOT NULL,
            config TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            lease_owner TEXT,
            lease_expires DOUBLE PRECISION NOT NULL DEFAULT 0,
            attempts INT NOT NULL DEFAULT 0,
            generation BIGINT NOT NULL DEFAULT 1,
            error TEXT,
            updated DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX work_queue_ready ON work_queue(status, lease_expires, updated)
        """
    )


def _m4_text_index(store: PostgresStore) -> None:
    # The full-text index (stores/fulltext.py): one row per document, doc = sequence * 256 + audience group,
    # a GIN index on the tsvector, refused when changed. Records written before this migration are indexed
    # by Store.build_text_index, which marks its progress in text_index_backfill (as on SQLite).
    source = store._text_source
    _make_text_config(store, source)
    store._run_ddl(
        """
        CREATE TABLE text_index (doc BIGINT PRIMARY KEY, seq BIGINT NOT NULL, tsv tsvector NOT NULL);
        CREATE INDEX text_index_tsv ON text_index USING GIN (tsv);
        CREATE FUNCTION text_index_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the text index is append-only: % refused', TG_OP;
        END $$;
        CREATE TRIGGER text_index_no_update BEFORE UPDATE OR DELETE ON text_index
            FOR EACH ROW EXECUTE FUNCTION text_index_refuse_change();
        CREATE TRIGGER text_index_no_truncate BEFORE TRUNCATE ON text_index
            FOR EACH STATEMENT EXECUTE FUNCTION text_index_refuse_change();
        CREATE TABLE text_index_backfill (
            id INT PRIMARY KEY CHECK (id = 1), done BIGINT NOT NULL, upto BIGINT NOT NULL
        );
        CREATE TABLE text_index_settings (id INT PRIMARY KEY CHECK (id = 1), source_config TEXT NOT NULL)
        """
    )
    # Under the head row lock: no writer of an older version commits between the head read and the mark.
    head = store._lock_head()
    store._execute("INSERT INTO text_index_backfill(id, done, upto) VALUES (1, 0, %s)", (head,))
    store._execute("INSERT INTO text_index_settings(id, source_config) VALUES (1, %s)", (source,))


def _make_text_config(store: PostgresStore, source: str) -> None:
    """Create the store's text-search configuration :data:`TEXT_CONFIG`: a copy of ``source`` whose Snowball
    dictionaries keep stopwords (FTS5 drops none), whose English stemmer is Porter's original algorithm
    (Snowball's ``porter``, the stemmer of FTS5's ``porter`` tokenizer and of the memory backend), and which
    stems words with digits like words (see :class:`PostgresStore`)."""
    target = sql.Identifier(store.schema, TEXT_CONFIG)
    store._execute(
        sql.SQL("CREATE TEXT SEARCH CONFIGURATION {} (COPY = {})").format(target, sql.Identifier(*source.split(".")))
    )
    rows = store._execute(
        "SELECT DISTINCT n.nspname, d.dictname, d.dictinitoption FROM pg_ts_config_map m "
        "JOIN pg_ts_dict d ON d.oid = m.mapdict JOIN pg_namespace n ON n.oid = d.dictnamespace "
        "JOIN pg_ts_template t ON t.oid = d.dicttemplate "
        "WHERE m.mapcfg = %s::regconfig AND t.tmplname = 'snowball' ORDER BY 1, 2",
        (store._text_config,),
    ).fetchall()
    for i, (namespace, name, options) in enumerate(rows):
        found = re.search(r"language\s*=\s*'?([A-Za-z_]+)", options or "")
        if found is None:
            continue
        language = found.group(1).lower()
        stem_dict = sql.Identifier(store.schema, f"{TEXT_CONFIG}_stem{i}")
        store._execute(
            sql.SQL("CREATE TEXT SEARCH DICTIONARY {} (TEMPLATE = pg_catalog.snowball, LANGUAGE = {})").format(
                stem_dict, sql.Literal("porter" if language == "english" else language)
            )
        )
        store._execute(
            sql.SQL("ALTER TEXT SEARCH CONFIGURATION {} ALTER MAPPING REPLACE {} WITH {}").format(
                target, sql.Identifier(namespace, name), stem_dict
            )
        )
    # FTS5 stems words with digits too ("v2s" -> "v2"): numword goes where asciiword goes.
    words_to = store._execute(
        "SELECT n.nspname, d.dictname FROM pg_ts_config_map m JOIN pg_ts_dict d ON d.oid = m.mapdict "
        "JOIN pg_namespace n ON n.oid = d.dictnamespace JOIN pg_ts_config c ON c.oid = m.mapcfg "
        "JOIN ts_token_type(c.cfgparser) tt ON tt.tokid = m.maptokentype "
        "WHERE m.mapcfg = %s::regconfig AND tt.alias = 'asciiword' ORDER BY m.mapseqno",
        (store._text_config,),
    ).fetchall()
    if words_to:
        store._execute(
            sql.SQL("ALTER TEXT SEARCH CONFIGURATION {} ALTER MAPPING FOR numword WITH {}").format(
                target, sql.SQL(", ").join(sql.Identifier(n, d) for n, d in words_to)
            )
        )


_MAX_LEXEME = 2047
"""Bytes of the longest lexeme PostgreSQL stores (``to_tsvector`` skips longer words)."""


def _unstemmed(word: str) -> bool:
    """True for the words FTS5's ``porter`` tokenizer leaves as they are: under 3 or over 64 bytes. They are
    indexed and searched as raw lexemes, not through the configuration (whose stemmer would change ``as``
    to ``a``, and whose parser would cut a long identifier)."""
    return not 3 <= len(word.encode()) <= 64


def _index_parts(text: str) -> tuple[str, list[str]]:
    """A document as PostgreSQL indexes it: the text ``to_tsvector`` is given (its stemmed words, cut by
    :func:`~context_journal.stores.fulltext.words`, joined by spaces) and its raw lexemes (distinct
    :func:`_unstemmed` words). Past :data:`_TSV_BUDGET` bytes of distinct words, new words are left out (a
    tsvector over 1 MiB would refuse the write); repeats of kept ones still count."""
    found = words(text)
    if sum(len(w) for w in found) < _TSV_BUDGET // 12:  # at most 4 bytes a character, 8 of overhead a word
        stemmed = [w for w in found if not _unstemmed(w)]
        raw = {w for w in found if _unstemmed(w) and len(w.encode()) <= _MAX_LEXEME}
        return " ".join(stemmed), sorted(raw)
    kept: list[str] = []
    kept_raw: list[str] = []
    seen: set[str] = set()
    budget = _TSV_BUDGET
    for w in found:
        if w not in seen:
            size = len(w.encode()) + 8
            if size > budget or (_unstemmed(w) and size - 8 > _MAX_LEXEME):
                continue
            budget -= size
            seen.add(w)
            if _unstemmed(w):
                kept_raw.append(w)
        if not _unstemmed(w):
            kept.append(w)
    return " ".join(kept), kept_raw


def _query_part(term: str, config: str) -> tuple[str, tuple[str, ...]] | None:
    """The SQL and parameters of one query word's ``tsquery``: ``plainto_tsquery`` in ``config`` (no query
    syntax at all), or for an :func:`_unstemmed` word one quoted raw lexeme (letters and digits only); None
    for a word longer than any lexeme (it matches nothing)."""
    if not _unstemmed(term):
        return "plainto_tsquery(%s::regconfig, %s)", (config, term)
    if len(term.encode()) > _MAX_LEXEME:
        return None
    return "%s::tsquery", ("'" + term.replace("\\", "\\\\").replace("'", "''") + "'",)


def _m5_summary_index(store: PostgresStore) -> None:
    # Summaries get a full-text index of their own (stores/fulltext.py), like text_index (one row per summary
    # record, doc = sequence * 256, same configuration, GIN, append-only) but apart from it, as on SQLite. A
    # summary record is indexed in the transaction that writes it (Transaction.append); the ones stored
    # before are indexed here.
    store._run_ddl(
        """
        CREATE TABLE summary_index (doc BIGINT PRIMARY KEY, seq BIGINT NOT NULL, tsv tsvector NOT NULL);
        CREATE INDEX summary_index_tsv ON summary_index USING GIN (tsv);
        CREATE TRIGGER summary_index_no_update BEFORE UPDATE OR DELETE ON summary_index
            FOR EACH ROW EXECUTE FUNCTION text_index_refuse_change();
        CREATE TRIGGER summary_index_no_truncate BEFORE TRUNCATE ON summary_index
            FOR EACH STATEMENT EXECUTE FUNCTION text_index_refuse_change();
        """
    )
    store._index_summary_records()


REDACTION_SETTING = "context_journal.redaction"
"""Transaction-local setting (``set_config(..., true)``) under which the guard functions of migration 6 let
a redaction's statements through; only the redaction path sets it, and only around its own statements."""


_STUB_OK = r"""CREATE OR REPLACE FUNCTION redaction_stub_ok(new_body TEXT, old_body TEXT) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE n jsonb; o jsonb; clean text; fixed text;
BEGIN
    IF new_body IS NULL THEN
        RETURN true;
    END IF;
    BEGIN
        n := new_body::jsonb;
        -- jsonb refuses the escape of a NUL character: each one (not a quoted backslash before "u0000")
        -- becomes U+0001 first; the fields compared below hold none
        clean := old_body;
        LOOP
            fixed := regexp_replace(clean, '((?:^|[^\\])(?:\\\\)*)\\u0000', '\1\\u0001', 'g');
            EXIT WHEN fixed = clean;
            clean := fixed;
        END LOOP;
        o := clean::jsonb;
    EXCEPTION WHEN others THEN
        RETURN false;
    END;
    RETURN jsonb_typeof(n) = 'object' AND jsonb_typeof(o) = 'object'
        AND (n -> 'redacted') = 'true'::jsonb
        AND (n -> 'participant') IS NOT DISTINCT FROM (o -> 'participant')
        AND (n -> 'timestamp') IS NOT DISTINCT FROM (o -> 'timestamp')
        AND (n - 'participant' - 'content' - 'timestamp' - 'redacted') = '{}'::jsonb
        AND jsonb_typeof(n -> 'content') = 'array' AND jsonb_array_length(n -> 'content') = 1
        AND (n #>> '{content,0,type}') = 'text' AND (n #>> '{content,0,text}') = '[redacted]'
        AND ((n -> 'content' -> 0) - 'type' - 'text' - 'audience') = '{}'::jsonb
        AND (NOT (n -> 'content' -> 0) ? 'audience' OR (
            jsonb_typeof(n #> '{content,0,audience}') = 'array'
            AND NOT EXISTS (
                SELECT 1 FROM jsonb_array_elements(n #> '{content,0,audience}') e
                WHERE jsonb_typeof(e) <> 'string'
            )
        ));
END $$;
"""
"""The function the records' UPDATE guard asks whether a redaction's new body may replace the old one:
NULL, or the stub of the same participant and time. ``jsonb`` refuses the JSON escape of a NUL character,
which made a message holding one impossible to redact: the old body's NULs become U+0001 before it is read
(only its participant and time are compared)."""


def _m6_redaction(store: PostgresStore) -> None:
    # Redaction (stores/redaction.py) is the one change a record may undergo: its body set to NULL,
    # every other column unchanged; and its documents leave the full-text indexes. The guard functions let
    # exactly those statements through while the transaction-local setting is on (the redaction sets it
    # before them and clears it right after); every other UPDATE, DELETE and TRUNCATE is refused as before.
    # Plain SQL can set the setting too: the guard stops mistakes and tools, not a user who owns the schema
    # (who could drop the triggers as well); `verify` checks the triggers.
    store._run_ddl(
        f"""
        {_STUB_OK}
        CREATE OR REPLACE FUNCTION records_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'UPDATE' THEN
                IF current_setting('{REDACTION_SETTING}', true) = 'on' AND redaction_stub_ok(NEW.body, OLD.body)
                   AND NEW.seq = OLD.seq AND NEW.branch_id = OLD.branch_id AND NEW.slot_id = OLD.slot_id
                   AND NEW.item = OLD.item AND NEW.op = OLD.op AND NEW.ts = OLD.ts THEN
                    RETURN NEW;
                END IF;
            END IF;
            RAISE EXCEPTION 'records are append-only: % refused', TG_OP;
        END $$;
        CREATE OR REPLACE FUNCTION text_index_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                -- only the documents of a record the redaction has already erased
                IF current_setting('{REDACTION_SETTING}', true) = 'on' AND EXISTS (
                    SELECT 1 FROM records r WHERE r.seq = OLD.seq
                    AND (r.body IS NULL OR (r.body::jsonb -> 'redacted') = 'true'::jsonb)
                ) THEN
                    RETURN OLD;
                END IF;
            END IF;
            RAISE EXCEPTION 'the text index is append-only: % refused', TG_OP;
        END $$
        """
    )


def _m7_journal_redaction(store: PostgresStore) -> None:
    # Journal redaction (journal/redaction.py): an entry keeps its row and hash, its body becomes
    # the marker "redacted:sha256:<hex of the removed body's sha256>" (the column is NOT NULL). The guard
    # function of migration 2 lets exactly that UPDATE through while the transaction-local setting of
    # migration 6 is on (the redaction sets it around its one statement): the new body is the marker, the
    # old one was not, every other column is unchanged. DELETE and TRUNCATE stay refused.
    store._run_ddl(
        f"""
        CREATE OR REPLACE FUNCTION journal_entries_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'UPDATE' THEN
                IF current_setting('{REDACTION_SETTING}', true) = 'on'
                   AND NEW.body ~ '^redacted:sha256:[0-9a-f]{{64}}$' AND OLD.body !~ '^redacted:'
                   AND NEW.project = OLD.project AND NEW.seq = OLD.seq AND NEW.store_seq = OLD.store_seq
                   AND NEW.kind = OLD.kind AND NEW.author = OLD.author
                   AND NEW.idempotency_key = OLD.idempotency_key AND NEW.prev_hash = OLD.prev_hash
                   AND NEW.hash = OLD.hash AND NEW.ts = OLD.ts THEN
                    RETURN NEW;
                END IF;
            END IF;
            RAISE EXCEPTION 'journal entries are immutable: % refused', TG_OP;
        END $$
        """
    )


def _m8_index_fields(store: PostgresStore) -> None:
    # What the message index keeps of a message version (Record.ix: the counter's key and the token count),
    # written with the record so that opening a store does not price every message again; older records
    # have none and are priced at open as before. A redaction clears it with the body (the count was the
    # erased content's); the guard of migration 6 refuses every other UPDATE.
    store._run_ddl("ALTER TABLE records ADD COLUMN IF NOT EXISTS ix TEXT")


def _m9_stub_check_reads_nul(store: PostgresStore) -> None:
    # The check of migration 6 read the old body as jsonb, which refuses a NUL character: a message holding
    # one could not be redacted (the guard refused the UPDATE). Its NULs are replaced first now (_STUB_OK).
    store._run_ddl(_STUB_OK)


MIGRATIONS: list[Migration[PostgresStore]] = [
    Migration(1, "records, branches, slots, head, blobs; append-only triggers", _m1_schema),
    Migration(2, "execution journal (append-only triggers)", _m2_journal),
    Migration(3, "compression work queue", _m3_work_queue),
    Migration(4, "full-text index (tsvector, GIN)", _m4_text_index),
    Migration(5, "full-text index: summaries", _m5_summary_index),
    Migration(
        6, "redaction: the guards of records and the full-text indexes let its statements through", _m6_redaction
    ),
    Migration(7, "journal redaction: the guard lets exactly an entry's body redaction through", _m7_journal_redaction),
    Migration(8, INDEX_FIELDS, _m8_index_fields),
    Migration(9, "redaction: a message holding a NUL character can be redacted", _m9_stub_check_reads_nul),
]


class PostgresStore(SQLStore):
    """A store in a PostgreSQL database.

    Full-text search uses a text-search configuration chosen per store, when its index is created:
    ``text_search_config`` names an existing PostgreSQL configuration (``english``, the default;
    ``simple`` for mixed languages: no stemming; ``german``..., or ``myschema.myconfig``). The store keeps
    its own copy, ``<schema>.context_journal_text``, made to index as SQLite's FTS5 ``porter unicode61``
    tokenizer does, so that every backend returns the same hit sets on English text:

    - its Snowball dictionaries drop no stopwords (FTS5 drops none: a query made only of stopwords finds
      the same messages), and English is stemmed with Porter's original algorithm (Snowball ``porter``,
      the memory backend's stemmer) rather than Snowball ``english`` (Porter2), which groups about 20 times
      more English words differently from FTS5;
    - words with digits are stemmed like words, and words under 3 or over 64 bytes are indexed unstemmed
      (as FTS5 leaves them), as raw lexemes beside the configuration's output;
    - words are cut in Python before PostgreSQL sees them (its parser would keep a path or an e-mail
      address as one token). For letters outside ASCII the database's ``LC_CTYPE`` must be a UTF-8 locale
      (in the ``C`` locale PostgreSQL's parser drops them).

    What still differs: the few words whose Porter stems differ between Snowball and FTS5's C version
    (``possible``/``possibly``, ``apology``/``apologize``: the memory backend has the same difference); hex
    strings such as ``12e5ab`` that PostgreSQL's parser cuts in two (matched as a phrase); words past a
    document's first 900 kB of distinct words (a tsvector holds at most 1 MiB) and words over 2,047 bytes,
    which are not indexed. Ranking is ``ts_rank``, not bm25, so hits may come in another order.

    Args:
        url: A libpq URL, e.g. ``postgresql://postgres@127.0.0.1:5432/test``.
        schema: Schema holding this store's tables (created if missing); lower-case identifier, not
            ``public``, ``information_schema`` or ``pg_*`` (a store keeps a schema of its own).
        lock_timeout: Seconds a writer waits for the sequence lock before :class:`StoreBusyError`.
        connect_timeout: Seconds to wait for the server.
        text_search_config: The text-search configuration of the full-text index (see above), a
            lower-case identifier, optionally schema-qualified. None (the default) uses the store's
            recorded one, or ``english`` for a store whose index is created now. It cannot change once
            the index exists.
        create: Create the store when the schema holds none (default); with False such a schema raises
            :class:`StoreError` and nothing is created (read commands: a mistyped ``?schema=``).

    Raises:
        StoreError: the server cannot be reached, the schema name is not a plain identifier or is a
            shared one, or ``create`` is False and the schema holds no store.
        MigrationError: the schema was written by a newer library.
        ValueError: ``text_search_config`` is not an identifier, names no configuration of the database,
            or differs from the configuration the store's index was built with.
    """

    backend = "postgres"

    def __init__(
        self,
        url: str,
        *,
        schema: str = "context_journal",
        lock_timeout: float = 60.0,
        connect_timeout: float = 10.0,
        text_search_config: str | None = None,
        create: bool = True,
    ) -> None:
        super().__init__()
        if not _SCHEMA_RE.match(schema):
            raise StoreError(f"schema {schema!r} must be a lower-case identifier (letters, digits, _)")
        if schema in _SHARED_SCHEMAS or schema.startswith("pg_"):
            why = "every user of the database shares it" if schema == "public" else "PostgreSQL reserves it"
            raise StoreError(
                f"schema {schema!r} cannot hold a store ({why}); give the store a schema of its own "
                "(the default is 'context_journal')"
            )
        if text_search_config is not None and (
            not isinstance(text_search_config, str) or not _TS_CONFIG_RE.match(text_search_config)
        ):
            raise ValueError(
                f"text_search_config {text_search_config!r} must be a lower-case identifier such as 'english' "
                "or 'simple' (optionally schema-qualified)"
            )
        self.url = url
        self.schema = schema
        self._text_source = text_search_config or "english"
        self._text_config = f"{schema}.{TEXT_CONFIG}"
        self.text_search_config = self._text_source
        self._lock_timeout = lock_timeout
        self._connect_timeout = connect_timeout
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=int(connect_timeout))
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {_redact(url)}: {exc}") from exc
        self._slot_ids: dict[str, int] = {}
        self._in_txn = False
        self._pending_begin = False  # BEGIN not sent yet: it goes with the transaction's first statement
        self._locked_head: int | None = None
        self._locked_version = 0  # head.branch_version as read under the head lock
        self._next_seq = 0
        self._bump_branches = False
        try:
            if not create and not self._holds_store(schema):
                raise StoreError(
                    f"no context-journal store in schema {schema!r} of {_redact(url)}; nothing was created: check "
                    "the schema (a URL's ?schema=, default 'context_journal'), or write to the store first"
                )
            self._execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            self._execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            self._execute(f"SET lock_timeout = '{int(lock_timeout * 1000)}ms'")
            self._execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at DOUBLE PRECISION NOT NULL)"
            )
            if text_search_config is not None:
                self._require_text_config(text_search_config)
            apply_migrations(self, MIGRATIONS)
            self._load_text_config(text_search_config)
        except BaseException:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            raise

    def _holds_store(self, schema: str) -> bool:
        """True when ``schema`` holds this library's migration table (a store was created there)."""
        row = self._conn.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = 'schema_migrations'", (schema,)
        ).fetchone()
        return row is not None

    def _require_text_config(self, name: str) -> None:
        """Raise ValueError unless ``name`` is a text-search configuration of the database."""
        namespace, _, config = name.rpartition(".")
        if namespace:
            query = (
                "SELECT p.prsname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace "
                "JOIN pg_ts_parser p ON p.oid = c.cfgparser WHERE c.cfgname = %s AND n.nspname = %s"
            )
            params: tuple[str, ...] = (config, namespace)
        else:
            query = (
                "SELECT p.prsname FROM pg_ts_config c JOIN pg_ts_parser p ON p.oid = c.cfgparser "
                "WHERE c.cfgname = %s AND pg_ts_config_is_visible(c.oid)"
            )
            params = (config,)
        row = self._execute(query, params).fetchone()
        if row is None:
            raise ValueError(
                f"no text search configuration {name!r} in this database (see pg_ts_config: 'english', "
                "'simple', 'german'...)"
            )
        if row[0] != "default":
            raise ValueError(f"text search configuration {name!r} must use PostgreSQL's default parser")

    def _load_text_config(self, asked: str | None) -> None:
        """Take the configuration the store's index was built with; ValueError when ``asked`` differs."""
        row = None
        if self._execute("SELECT to_regclass('text_index_settings')").fetchone() != (None,):
            row = self._execute("SELECT source_config FROM text_index_settings WHERE id = 1").fetchone()
        recorded = str(row[0]) if row else self._text_source
        if asked is not None and asked != recorded:
            raise ValueError(
                f"this store's full-text index was built with text_search_config={recorded!r}; open it with "
                f"that configuration (or None), not {asked!r}"
            )
        self._text_source = self.text_search_config = recorded

    # ---- driver edge ------------------------------------------------------------------------------

    @staticmethod
    def _translate(exc: psycopg.Error) -> StoreError:
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StoreBusyError(f"PostgreSQL lock wait exceeded the lock timeout: {exc}; retry later")
        return StoreError(f"PostgreSQL error: {exc}")

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> psycopg.Cursor[Any]:
        return self._execute(sql.replace("?", "%s"), params)

    def _lock_for_queue(self) -> None:
        self._lock_head()  # the order every writer uses: head row first, then the queue row

    def _execute(self, query: Any, params: tuple[Any, ...] | None = None) -> psycopg.Cursor[Any]:
        try:
            if self._pending_begin:
                self._pending_begin = False
                self._conn.execute("BEGIN")
            return self._conn.execute(query, params)
        except psycopg.Error as exc:
            raise self._translate(exc) from exc

    def _run_ddl(self, script: str) -> None:
        # Split on top-level semicolons, leaving $$-quoted function bodies whole.
        parts = re.split(r";\s*(?=(?:[^$]*\$\$[^$]*\$\$)*[^$]*$)", script)
        for statement in parts:
            if statement.strip():
                self._execute(statement)

    # ---- migrations -------------------------------------------------------------------------------

    def _applied_versions(self) -> set[int]:
        return {int(r[0]) for r in self._execute("SELECT version FROM schema_migrations").fetchall()}

    def _run_migration(self, version: int, name: str, step: Callable[[], None]) -> None:
        with self.transaction():
            # Serialise concurrent first opens: one migrates, the others find it done.
            self._execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.migrations'))")
            if self._execute("SELECT 1 FROM schema_migrations WHERE version = %s", (version,)).fetchone():
                return
            step()
            self._execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (%s, %s, %s)",
                (version, name, time.time()),
            )

    # ---- transactions -----------------------------------------------------------------------------

    # A write is four round trips: BEGIN with the head lock, the record, its text index row, and the head
    # update with COMMIT (statements without parameters share one simple-protocol query).

    def _begin(self) -> None:
        self._pending_begin = True  # sent with the first statement (with the head lock: one round trip)
        self._in_txn = True
        self._locked_head = None
        self._bump_branches = False

    def _lock_head(self) -> int:
        if self._locked_head is None:
            lock = "SELECT seq, branch_version FROM head WHERE id = 1 FOR UPDATE"
            if self._pending_begin:
                self._pending_begin = False
                try:
                    cur = self._conn.execute("BEGIN; " + lock)
                    cur.nextset()
                except psycopg.Error as exc:
                    raise self._translate(exc) from exc
            else:
                cur = self._execute(lock)
            row = cur.fetchone()
            self._locked_head = int(row[0]) if row else 0
            self._locked_version = int(row[1]) if row else 0
            self._next_seq = self._locked_head
        return self._locked_head

    def _commit(self) -> None:
        if self._pending_begin:  # nothing was sent: nothing to commit
            self._reset_txn()
            return
        try:
            if self._locked_head is not None and (self._next_seq != self._locked_head or self._bump_branches):
                # Integers only, written by this code: safe inline, so the update and COMMIT go together.
                bump = 1 if self._bump_branches else 0
                self._conn.execute(
                    f"UPDATE head SET seq = {int(self._next_seq)}, branch_version = branch_version + {bump} "
                    "WHERE id = 1; COMMIT"
                )
            else:
                self._conn.execute("COMMIT")
        except psycopg.Error as exc:
            with contextlib.suppress(psycopg.Error):
                self._conn.execute("ROLLBACK")
            self._slot_ids.clear()  # a slot created in the transaction was rolled back with it
            self._reset_txn()
            raise self._translate(exc) from exc
        self._reset_txn()

    def _rollback(self) -> None:
        if not self._pending_begin:
            with contextlib.suppress(psycopg.Error):
                self._conn.execute("ROLLBACK")
        self._slot_ids.clear()
        self._reset_txn()

    def _reset_txn(self) -> None:
        self._in_txn = False
        self._pending_begin = False
        self._locked_head = None
        self._bump_branches = False

    # ---- slots ------------------------------------------------------------------------------------

    def _slot_id(self, slot: str, create: bool) -> int | None:
        sid = self._slot_ids.get(slot)
        if sid is not None:
            return sid
        row = self._execute("SELECT id FROM slots WHERE name = %s", (slot,)).fetchone()
        if row is None:
            if not create:
                return None
            row = self._execute(
                "INSERT INTO slots(name) VALUES (%s) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
                "RETURNING id",
                (slot,),
            ).fetchone()
            assert row is not None
        sid = int(row[0])
        self._slot_ids[slot] = sid
        return sid

    # ---- records ----------------------------------------------------------------------------------

    def _insert(
        self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float, ix: str | None = None
    ) -> int:
        self._lock_head()
        sid = self._slot_id(slot, create=True)
        seq = self._next_seq + 1
        self._execute(
            "INSERT INTO records(seq, branch_id, slot_id, item, op, ts, body, ix) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (seq, branch_id, sid, item, int(op), ts, body, ix),
        )
        self._next_seq = seq
        return seq

    # ---- branches ---------------------------------------------------------------------------------

    def _lock_branches(self) -> None:
        # Branch checks read the table under the head row lock, which every writer takes: a concurrent
        # create of the same name, or a fork of a branch being deleted, waits and then sees the result.
        self._lock_head()

    def _insert_branch(self, name: str, parent_id: int, fork_seq: int, created_at: float) -> int:
        self._lock_head()
        self._bump_branches = True
        row = self._execute(
            "INSERT INTO branches(name, parent_id, fork_seq, created_at) VALUES (%s, %s, %s, %s) RETURNING id",
            (name, parent_id, fork_seq, created_at),
        ).fetchone()
        assert row is not None
        return int(row[0])

    def _mark_branch_deleted(self, branch_id: int) -> None:
        self._lock_head()
        self._bump_branches = True
        self._execute("UPDATE branches SET deleted = TRUE WHERE id = %s", (branch_id,))

    # ---- blobs ------------------------------------------------------------------------------------

    def _put_blob(self, digest: str, data: bytes) -> None:
        self._execute(
            "INSERT INTO blobs(sha256, size, data) VALUES (%s, %s, %s) ON CONFLICT (sha256) DO NOTHING",
            (digest, len(data), data),
        )

    # ---- execution journal --------------------------------------------------------------------------

    def _journal_lock(self, project: str) -> None:
        # Every writer takes the head row lock before its first record; taking it first here orders journal
        # writers too (the head read after the lock sees every committed entry: READ COMMITTED).
        self._lock_head()

    # ---- integrity (stores/integrity.py) ------------------------------------------------------------

    _GUARDS = (
        ("records", "records_no_update"),
        ("records", "records_no_truncate"),
        ("journal_entries", "journal_entries_no_update"),
        ("journal_entries", "journal_entries_no_truncate"),
        ("journal_entries", "journal_entries_in_order"),
    )

    def _guard_problems(self) -> list[str]:
        rows = self._execute(
            "SELECT c.relname, t.tgname, t.tgenabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND NOT t.tgisinternal",
            (self.schema,),
        ).fetchall()
        state = {(table, name): enabled for table, name, enabled in rows}
        problems = []
        for table, name in self._GUARDS:
            enabled = state.get((table, name))
            if enabled is None:
                problems.append(f"the append-only trigger {name} on {table} is missing: rows can be changed")
            elif enabled == "D":
                problems.append(f"the append-only trigger {name} on {table} is disabled: rows can be changed")
        return problems

    # ---- full-text index (stores/fulltext.py) -------------------------------------------------------

    has_text_index = True

    # ---- redaction (stores/redaction.py) ------------------------------------------------------------

    can_redact = True

    def _redaction_permit(self, on: bool) -> None:
        self._execute("SELECT set_config(%s, %s, true)", (REDACTION_SETTING, "on" if on else "off"))

    def _text_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]] | None]]) -> None:
        self._index_delete("text_index", [seq for seq, _ in docs])

    def _summary_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]]]]) -> None:
        self._index_delete("summary_index", [seq for seq, _ in docs])

    def _index_delete(self, table: str, seqs: Sequence[int]) -> None:
        self._redaction_permit(True)
        self._execute(sql.SQL("DELETE FROM {} WHERE seq = ANY(%s)").format(sql.Identifier(table)), (list(seqs),))
        self._redaction_permit(False)

    def _text_insert(self, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        self._index_insert("text_index", seq, documents)

    def _text_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        return self._index_search("text_index", terms, slots, limit)

    search_within = True

    def _text_search_within(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, within: frozenset[int]
    ) -> list[TextHit]:
        return self._index_search("text_index", terms, slots, limit, within)

    def _summary_insert(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        self._index_insert("summary_index", seq, documents)

    def _summary_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        return self._index_search("summary_index", terms, slots, limit)

    def _index_insert(self, table: str, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        """Add the documents of record ``seq`` to the full-text ``table`` (``text_index`` or
        ``summary_index``: same rows, same configuration)."""
        if not documents:
            return
        base = seq * MAX_GROUPS
        params: list[Any] = []
        for group, text in documents:
            stemmed, raw = _index_parts(text)
            params += [base + group, seq, self._text_config, stemmed, raw]
        row = "(%s, %s, to_tsvector(%s::regconfig, %s) || array_to_tsvector(%s::text[]))"
        values = ", ".join([row] * len(documents))
        self._execute(f"INSERT INTO {table}(doc, seq, tsv) VALUES {values}", tuple(params))

    def _index_search(
        self,
        table: str,
        terms: Sequence[str],
        slots: Sequence[str],
        limit: int,
        within: frozenset[int] | None = None,
    ) -> list[TextHit]:
        """The ``limit`` best documents of the full-text ``table`` in ``slots`` (and of the records ``within``,
        when given) matching any of ``terms``."""
        ids = {sid: name for name in slots if (sid := self._existing_slot(name)) is not None}
        parts = [part for term in terms if (part := _query_part(term, self._text_config)) is not None]
        if not ids or not parts:
            return []
        # The terms' tsqueries OR-ed: user text never meets tsquery syntax, and a query that reduces to
        # nothing matches nothing (never raises).
        query = " || ".join(part_sql for part_sql, _ in parts)
        params = [value for _, values in parts for value in values]
        restrict, extra = ("AND t.seq = ANY(%s) ", [sorted(within)]) if within is not None else ("", [])
        rows = self._execute(
            f"SELECT t.doc, ts_rank(t.tsv, q.q) AS score, r.branch_id, r.slot_id, r.item "
            f"FROM (SELECT {query} AS q) AS q, {table} t JOIN records r ON r.seq = t.seq "
            f"WHERE t.tsv @@ q.q AND r.slot_id = ANY(%s) {restrict}ORDER BY score DESC, t.doc DESC LIMIT %s",
            (*params, list(ids), *extra, limit),
        ).fetchall()
        return [
            TextHit(int(doc) // MAX_GROUPS, int(doc) % MAX_GROUPS, float(score), ids[int(sid)], int(bid), item)
            for doc, score, bid, sid, item in rows
        ]

    def _text_backfill_state(self) -> tuple[int, int]:
        # Inside a transaction (Store.build_text_index), lock the row: two handles building at once take
        # turns, and the second resumes where the first stopped instead of indexing the same records again.
        lock = " FOR UPDATE" if self._in_txn else ""
        row = self._execute(f"SELECT done, upto FROM text_index_backfill WHERE id = 1{lock}").fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # ---- misc -------------------------------------------------------------------------------------

    def _head_seq(self) -> int:
        if self._in_txn and self._locked_head is not None:
            return self._next_seq
        row = self._execute("SELECT seq FROM head WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def _change_token(self) -> int:
        if self._in_txn:
            # A write transaction takes the head lock for it (as SQLite's BEGIN IMMEDIATE takes the write
            # lock): no other writer commits until it ends, so the token read under the lock stays true.
            head = self._lock_head()
            return (head << 20) + self._locked_version
        row = self._execute("SELECT seq, branch_version FROM head WHERE id = 1").fetchone()
        return (int(row[0]) << 20) + int(row[1]) if row else 0

    def _token_after_commit(self) -> int:
        if self._locked_head is not None:
            version = self._locked_version
        else:
            row = self._execute("SELECT branch_version FROM head WHERE id = 1").fetchone()
            version = int(row[0]) if row else 0
        return (self._next_seq << 20) + version + (1 if self._bump_branches else 0)

    def _bodies(self, seqs: Sequence[int]) -> dict[int, str | None]:
        rows = self._execute("SELECT seq, body FROM records WHERE seq = ANY(%s)", (list(seqs),)).fetchall()
        return {int(seq): body for seq, body in rows}

    def _stats(self) -> StoreStats:
        row = self._execute("SELECT COUNT(*), COALESCE(SUM(OCTET_LENGTH(body)), 0) FROM records").fetchone()
        assert row is not None
        blob_row = self._execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
        size_row = self._execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (self.schema,),
        ).fetchone()
        return StoreStats(
            int(row[0]),
            int(row[1]) + int(blob_row[0] if blob_row else 0),
            int(size_row[0] if size_row else 0),
            self._head_seq(),
        )

    def drop_schema(self) -> None:
        """Drop this store's schema and everything in it (tests and benchmarks only). Closes the handle."""
        with self._lock:
            self._check_open()
            self._execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self.schema)))
            self.close()

    def _close(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"PostgresStore({_redact(self.url)!r}, schema={self.schema!r})"

    # ---- compression work queue (see context_journal.stores.queue) ---------------------------------

    def queue_claim(self, owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        """Lease the pending item waiting longest (free, or whose lease expired): ``SELECT ... FOR UPDATE
        SKIP LOCKED``, then the lease columns, in one transaction (the head row is not locked)."""
        with self.transaction():
            row = self._execute(
                "SELECT key, namespace, branch_id, slot, config, generation, attempts FROM work_queue "
                "WHERE status = 'pending' AND lease_expires < %s ORDER BY updated LIMIT 1 FOR UPDATE SKIP LOCKED",
                (now,),
            ).fetchone()
            if row is None:
                return None
            self._execute(
                "UPDATE work_queue SET lease_owner = %s, lease_expires = %s, attempts = attempts + 1, updated = %s "
                "WHERE key = %s",
                (owner, now + lease_seconds, now, row[0]),
            )
        return WorkClaim(row[0], row[1], int(row[2]), row[3], row[4], int(row[5]), int(row[6]) + 1)

    @property
    def queue_channel(self) -> str:
        """The ``LISTEN``/``NOTIFY`` channel of this store's work queue: ``cj_queue_<schema>`` (a digest of
        the schema when that is longer than PostgreSQL's 63-byte identifiers). Channels are per database,
        so stores of other schemas, and of other databases, use other channels."""
        return _queue_channel(self.schema)

    def queue_enqueue(self, key: str, namespace: str, branch_id: int, slot: str, config: str, now: float) -> None:
        """Mark a conversation's compression as wanted and ``NOTIFY`` :attr:`queue_channel` (payload: the
        namespace, cut to 200 characters) in the same transaction: listeners hear of it once it commits,
        never of a rolled-back enqueue."""
        with self.transaction():
            super().queue_enqueue(key, namespace, branch_id, slot, config, now)
            self._execute("SELECT pg_notify(%s, %s)", (self.queue_channel, namespace[:200]))

    async def queue_listener(self) -> QueueListener | None:
        """A new :class:`QueueListener` on :attr:`queue_channel`, on a connection of its own (never this
        handle's); None when the installed psycopg cannot wait for notifications with a timeout (before
        3.2: callers poll). The caller closes it.

        Raises:
            StoreError: the server cannot be reached (or psycopg cannot run on this event loop, e.g.
                Windows' proactor loop).
        """
        if not _NOTIFIES_TIMEOUT:
            return None
        return await QueueListener.open(self.url, self.queue_channel, self._connect_timeout)


def _queue_channel(schema: str) -> str:
    name = f"cj_queue_{schema}"
    if len(name) <= 63:
        return name
    return "cj_queue_" + hashlib.sha256(schema.encode()).hexdigest()[:40]


_NOTIFIES_TIMEOUT = "timeout" in inspect.signature(psycopg.AsyncConnection.notifies).parameters
"""psycopg 3.2 and later: ``notifies(timeout=...)``."""


class QueueListener:
    """Waits for ``NOTIFY`` on one channel (``LISTEN``), on a dedicated :class:`psycopg.AsyncConnection`.

    Notifications that arrive while nobody waits are kept by the connection and end the next
    :meth:`wait` at once, so none is lost between two waits. Open it with :meth:`open` (or
    :meth:`PostgresStore.queue_listener`); use it from one task at a time, on one event loop.
    """

    def __init__(self, conn: psycopg.AsyncConnection[Any], channel: str) -> None:
        self._conn = conn
        self.channel = channel
        self.received = 0
        """Notifications received so far."""

    @classmethod
    async def open(cls, url: str, channel: str, connect_timeout: float = 10.0) -> QueueListener:
        """Connect and ``LISTEN`` on ``channel``.

        Raises:
            StoreError: the connection or the ``LISTEN`` failed.
        """
        try:
            conn = await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=max(1, int(connect_timeout))
            )
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {_redact(url)} to listen: {exc}") from exc
        try:
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        except BaseException as exc:
            with contextlib.suppress(psycopg.Error):
                await conn.close()
            if isinstance(exc, psycopg.Error):
                raise StoreError(f"PostgreSQL error: {exc}") from exc
            raise
        return cls(conn, channel)

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a notification (without blocking the event loop); True when
        one (or more) came, False at the timeout.

        Raises:
            StoreError: the connection failed.
        """
        got = 0
        try:
            async for _ in self._conn.notifies(timeout=max(0.0, timeout), stop_after=1):
                got += 1
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error while listening on {self.channel!r}: {exc}") from exc
        self.received += got
        return got > 0

    @property
    def closed(self) -> bool:
        return bool(self._conn.closed)

    async def close(self) -> None:
        """Close the connection (its ``LISTEN`` ends with it); idempotent."""
        with contextlib.suppress(psycopg.Error):
            await self._conn.close()


def _redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
