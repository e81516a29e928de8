"""The store contract (DESIGN.md 2.1) on every backend: the suite that ships as
:mod:`context_journal.testing.conformance`, run through the ``backend`` fixture of ``tests/conftest.py``
(memory, SQLite, and PostgreSQL when a server is reachable)."""

from __future__ import annotations

from context_journal.testing.conformance import StoreBackend, StoreConformance
from tests.hypothesis_budget import examples


class TestStoreConformance(StoreConformance):
    def machine_examples(self, backend: StoreBackend) -> int:
        """More examples on the backends that ship than the suite's default, fewer under ``dev``."""
        return examples({"memory": 60, "sqlite": 50}.get(backend.name, 20))
