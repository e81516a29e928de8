"""The test suite, a package: helpers are imported by their package path (``from tests.ledger.ledger_helpers
import ...``), so pytest (its default ``prepend`` import mode puts the repository root on ``sys.path``), the
benchmarks and mypy resolve them the same way, and two folders' modules of one name never clash."""
