"""One migration mechanism for every backend: an ordered list of migrations recorded in a table.

Each backend declares its list (version, name, and a step that receives the backend) and calls
:func:`apply_migrations` when it opens. Applied versions are recorded in the backend's
``schema_migrations`` table; each migration runs in its own transaction, so a failing one leaves the
store at the previous version. A store whose recorded version is newer than the list refuses to open.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ..errors import MigrationError

__all__ = ["Migration", "MigrationTarget", "apply_migrations"]

B = TypeVar("B", bound="MigrationTarget")


class MigrationTarget(Protocol):
    """What a backend offers the runner."""

    def _applied_versions(self) -> set[int]: ...

    def _run_migration(self, version: int, name: str, step: Callable[[], None]) -> None:
        """Run ``step`` and record ``version`` in one transaction."""
        ...


@dataclass(frozen=True)
class Migration(Generic[B]):
    """One schema step.

    Attributes:
        version: Position in the list, from 1, strictly increasing.
        name: What it does, recorded beside the version.
        step: Applies the change to the backend it is given.
    """

    version: int
    name: str
    step: Callable[[B], None]


INDEX_FIELDS = "records: the message index's fields stored with each message version"
"""The name of the migration that gives ``records`` its ``ix`` column (:attr:`~context_journal.stores.Record.ix`),
the same on every SQL backend."""


def apply_migrations(target: B, migrations: Sequence[Migration[B]]) -> list[int]:
    """Apply every migration not yet recorded, in order.

    Returns:
        The versions applied now.

    Raises:
        MigrationError: the store records a version this list does not know (it was written by a newer
            library), or a step failed (that step was rolled back).
    """
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)):
        raise MigrationError("migration versions must be unique and increasing")
    applied = target._applied_versions()
    unknown = sorted(applied - set(versions))
    if unknown:
        raise MigrationError(
            f"the store has schema version {unknown[-1]}, newer than this library knows "
            f"({versions[-1] if versions else 0}); upgrade context-journal",
            version=unknown[-1],
        )
    done: list[int] = []
    for m in migrations:
        if m.version in applied:
            continue
        try:
            target._run_migration(m.version, m.name, functools.partial(m.step, target))
        except MigrationError:
            raise
        except Exception as exc:
            raise MigrationError(f"migration {m.version} ({m.name}) failed: {exc}", version=m.version) from exc
        done.append(m.version)
    return done
