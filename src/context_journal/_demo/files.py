"""The project the demo's developer and Claude work on: the files of ``tally`` as they stand on day one
(the code they change, the ECB rate files, migrations, tests), as text keyed by absolute path."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

__all__ = ["RATES", "ROOT", "initial_files"]

ROOT = "/home/dev/tally"
"""Working directory of the session (paths in tool calls are absolute, as Claude Code writes them)."""

RATES = {"USD": "1.0842", "JPY": "162.51", "GBP": "0.85520", "CHF": "0.9565"}
"""ECB reference rates of Friday 1 March 2024 (EUR = 1)."""

_WIGGLE = (0, 12, -7, 5, -15, 9, 3, -4, 14, -10, 6, -2)


# ---- files of the project ---------------------------------------------------------------------------

_MONEY = '''"""Money as integer minor units (cents). Never use floats for amounts."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


@dataclass(frozen=True, order=True)
class Money:
    amount_minor: int
    currency: str = "EUR"

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.amount_minor + other.amount_minor, self.currency)

    def __mul__(self, factor: int) -> Money:
        return Money(self.amount_minor * factor, self.currency)

    @classmethod
    def from_decimal(cls, value: Decimal | str, currency: str = "EUR") -> Money:
        quantized = Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return cls(int(quantized * 100), currency)

    def to_decimal(self) -> Decimal:
        return Decimal(self.amount_minor) / 100

    def __str__(self) -> str:
        return f"{self.to_decimal():.2f} {self.currency}"


def parse_amount(text: str) -> Money:
    """Parse "12.50 EUR" or "12.50" (EUR)."""
    parts = text.split()
    value = parts[0].replace(",", "")
    currency = parts[1] if len(parts) > 1 else "EUR"
    return Money.from_decimal(value, currency)


def legacy_amount(value: float) -> Money:
    # TODO(TALLY-288): remove once the importer stops sending floats
    return Money(int(round(float(value) * 100)))
'''

_INVOICE = '''"""Invoices and their line items."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from .money import Money


@dataclass
class LineItem:
    description: str
    quantity: int
    unit_price: Money

    def subtotal(self) -> Money:
        return self.unit_price * self.quantity


@dataclass
class Invoice:
    number: str
    customer_id: int
    issued_on: date
    lines: list[LineItem] = field(default_factory=list)
    tax_rate_bp: int = 1900  # basis points: 19.00 %

    def add(self, description: str, quantity: int, unit_price: Money) -> LineItem:
        item = LineItem(description, quantity, unit_price)
        self.lines.append(item)
        return item

    def net(self) -> Money:
        total = Money(0)
        for line in self.lines:
            total = total + line.subtotal()
        return total

    def tax(self) -> Money:
        net = self.net()
        return Money(net.amount_minor * self.tax_rate_bp // 10_000, net.currency)

    def total(self) -> Money:
        return self.net() + self.tax()
'''

_ROUTES = """from datetime import date

from flask import Blueprint, jsonify, request

from ..db import session_scope
from ..invoice import Invoice
from ..money import parse_amount
from ..repository import InvoiceRepository
from .serialize import invoice_to_json

bp = Blueprint("invoices", __name__, url_prefix="/api/v1/invoices")


@bp.post("")
def create_invoice():
    payload = request.get_json(force=True)
    invoice = Invoice(
        number=payload["number"],
        customer_id=int(payload["customer_id"]),
        issued_on=date.fromisoformat(payload["issued_on"]),
    )
    for line in payload.get("lines", []):
        invoice.add(line["description"], int(line["quantity"]), parse_amount(line["unit_price"]))
    with session_scope() as session:
        InvoiceRepository(session).save(invoice)
    return jsonify({"number": invoice.number, "total": str(invoice.total())}), 201


@bp.get("/<number>")
def get_invoice(number: str):
    with session_scope() as session:
        invoice = InvoiceRepository(session).get(number)
    if invoice is None:
        return jsonify({"error": f"invoice {number} not found"}), 404
    return jsonify(invoice_to_json(invoice))
"""

_CSV_EXPORT = '''"""Monthly CSV export for the accounting team (one row per line item)."""

import csv
from collections.abc import Iterable
from typing import TextIO

from ..invoice import Invoice

HEADER = ["invoice", "issued_on", "customer_id", "description", "quantity", "unit_price", "subtotal"]


def write_csv(invoices: Iterable[Invoice], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\\n")
    writer.writerow(HEADER)
    rows = 0
    for invoice in invoices:
        for line in invoice.lines:
            writer.writerow(
                [
                    invoice.number,
                    invoice.issued_on.isoformat(),
                    invoice.customer_id,
                    line.description,
                    line.quantity,
                    f"{line.unit_price.to_decimal():.2f}",
                    f"{line.subtotal().to_decimal():.2f}",
                ]
            )
            rows += 1
    return rows
'''

_TEMPLATE = """<table class="lines">
  <tr><th>Description</th><th>Qty</th><th>Unit price</th><th>Amount</th></tr>
  {% for line in invoice.lines %}
  <tr>
    <td>{{ line.description }}</td>
    <td>{{ line.quantity }}</td>
    <td>{{ "%.2f"|format(line.unit_price.amount_minor / 100) }}</td>
    <td>{{ "%.2f"|format(line.subtotal().amount_minor / 100) }}</td>
  </tr>
  {% endfor %}
  <tr class="total"><td colspan="3">Total</td><td>{{ "%.2f"|format(invoice.total().amount_minor / 100) }}</td></tr>
</table>
"""

_FETCH_RATES = """#!/usr/bin/env bash
# Mirror the ECB reference rates (cron: 30 16 * * 1-5, Europe/Berlin)
set -euo pipefail
cd "$(dirname "$0")/.."
curl -fsS https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml -o data/ecb/eurofxref-daily.xml
curl -fsS https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml -o data/ecb/eurofxref-hist-90d.xml
echo "rates updated $(date -Iseconds)"
"""

_MIGRATION_7 = """-- 0007: discounts on line items (TALLY-251)
ALTER TABLE line_items ADD COLUMN discount_bp INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ix_line_items_invoice ON line_items (invoice_number);
"""

_MIGRATION_DRAFT = """-- 0008 draft (priya, 2024-02-12): currency on invoices -- DO NOT MERGE
ALTER TABLE invoices ADD COLUMN currency CHAR(3);
-- TODO line items?
"""

_TEST_MONEY = """from decimal import Decimal

from tally.money import Money, parse_amount


def test_add_same_currency():
    assert Money(1050) + Money(250) == Money(1300)


def test_parse_amount_with_currency():
    assert parse_amount("12.50 USD") == Money(1250, "USD")


def test_from_decimal_rounds():
    assert Money.from_decimal(Decimal("0.125")) == Money(13)
"""

_CUSTOMERS = '''"""Customers and their billing settings."""

from dataclasses import dataclass
from datetime import date, timedelta

from .db import Row


@dataclass
class Customer:
    id: int
    name: str
    country: str  # ISO 3166-1 alpha-2
    vat_id: str | None = None
    payment_terms_days: int = 14

    @classmethod
    def from_row(cls, row: Row) -> "Customer":
        return cls(row["id"], row["name"], row["country"], row["vat_id"], row["payment_terms_days"])


def payment_due(customer: Customer, issued_on: date) -> date:
    return issued_on + timedelta(days=customer.payment_terms_days)
'''

_REPORTS = '''"""Management reports (monthly, for the board pack)."""

from collections import defaultdict

from .invoice import Invoice


def revenue_by_month(invoices: list[Invoice]) -> dict[str, int]:
    """Net revenue in cents per month ("2024-02")."""
    totals: dict[str, int] = defaultdict(int)
    for invoice in invoices:
        totals[invoice.issued_on.strftime("%Y-%m")] += invoice.net().amount_minor
    return dict(totals)


def top_customers(invoices: list[Invoice], n: int = 10) -> list[tuple[int, int]]:
    """The ``n`` customers with the highest net revenue (customer id, cents)."""
    totals: dict[int, int] = defaultdict(int)
    for invoice in invoices:
        totals[invoice.customer_id] += invoice.net().amount_minor
    return sorted(totals.items(), key=lambda kv: -kv[1])[:n]
'''

_RECONCILE = '''"""Nightly reconciliation: bank payments (camt.053 statements) against open invoices."""

from dataclasses import dataclass
from datetime import date

from .money import Money

TOLERANCE_MINOR = 1  # one cent: banks round fees differently


@dataclass(frozen=True)
class Payment:
    reference: str  # the invoice number, as the customer typed it
    amount: Money
    booked_on: date


def normalise_reference(text: str) -> str:
    return text.upper().replace(" ", "").replace("INV", "INV-", 1).replace("--", "-")


def matches(invoice_total: Money, paid: Money) -> bool:
    return abs(invoice_total.amount_minor - paid.amount_minor) <= TOLERANCE_MINOR
'''

_CI = """name: ci
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4
      - run: pip install ruff==0.3.0 && ruff check src tests
  test:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
      - run: pip install -e '.[dev]' && python -m pytest -q
  migrations-check:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4
        with: {fetch-depth: 0}
      - run: python scripts/check_migrations.py --against origin/main
"""

_OTHER_FILES = (
    "src/tally/__init__.py",
    "src/tally/app.py",
    "src/tally/db.py",
    "src/tally/repository.py",
    "src/tally/importer.py",
    "src/tally/numbering.py",
    "src/tally/api/__init__.py",
    "src/tally/api/serialize.py",
    "src/tally/export/__init__.py",
    "src/tally/web/__init__.py",
    "tests/test_invoice.py",
    "tests/test_api.py",
    "tests/test_export.py",
    "src/tally/jobs/__init__.py",
    "tests/golden/invoices_2024-02.csv",
    "tests/test_reports.py",
    "tests/test_reconcile.py",
    "migrations/0001_initial.sql",
    "migrations/0002_customers.sql",
    "migrations/0003_numbering.sql",
    "migrations/0004_line_items.sql",
    "migrations/0005_tax_rate.sql",
    "migrations/0006_indexes.sql",
)


def _business_days(first: date, last: date) -> list[date]:
    days = []
    d = first
    while d <= last:
        if d.weekday() < 5:
            days.append(d)
        d += timedelta(days=1)
    return days


def _rate_on(currency: str, k: int) -> str:
    base = Decimal(RATES[currency])
    places = Decimal("0.01") if currency == "JPY" else Decimal("0.0001")
    step = Decimal("0.05") if currency == "JPY" else Decimal("0.0001")
    return str((base + step * _WIGGLE[k % len(_WIGGLE)]).quantize(places))


def _ecb_xml(days: list[date]) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"'
        ' xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">',
        "  <gesmes:subject>Reference rates</gesmes:subject>",
        "  <Cube>",
    ]
    for k, d in enumerate(reversed(days)):
        lines.append(f"    <Cube time='{d.isoformat()}'>")
        for cur in RATES:
            lines.append(f"      <Cube currency='{cur}' rate='{_rate_on(cur, k)}'/>")
        lines.append("    </Cube>")
    lines += ["  </Cube>", "</gesmes:Envelope>", ""]
    return "\n".join(lines)


def initial_files() -> dict[str, str]:
    files = {
        "src/tally/money.py": _MONEY,
        "src/tally/invoice.py": _INVOICE,
        "src/tally/api/routes.py": _ROUTES,
        "src/tally/export/csv_export.py": _CSV_EXPORT,
        "src/tally/templates/invoice.html": _TEMPLATE,
        "scripts/fetch_rates.sh": _FETCH_RATES,
        "migrations/0007_add_discounts.sql": _MIGRATION_7,
        "migrations/0008_currency_draft.sql": _MIGRATION_DRAFT,
        "tests/test_money.py": _TEST_MONEY,
        "src/tally/customers.py": _CUSTOMERS,
        "src/tally/reports.py": _REPORTS,
        "src/tally/jobs/reconcile.py": _RECONCILE,
        ".github/workflows/ci.yml": _CI,
        "data/ecb/eurofxref-daily.xml": _ecb_xml([date(2024, 3, 1)]),
        "data/ecb/eurofxref-hist-90d.xml": _ecb_xml(_business_days(date(2023, 12, 4), date(2024, 3, 1))),
    }
    for path in _OTHER_FILES:
        comment = "--" if path.endswith(".sql") else "#"
        files.setdefault(path, f"{comment} {path.rsplit('/', 1)[-1]}\n")
    return {f"{ROOT}/{p}": text for p, text in files.items()}
