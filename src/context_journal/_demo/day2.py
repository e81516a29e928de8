"""Tuesday 5 March 2024: historical rates, the migration, the CSV export, customer currencies, reports."""

from __future__ import annotations

from datetime import UTC, datetime

from .session import ROOT, Session, convert_minor, pytest_output

__all__ = ["customer_currency", "export", "history", "migration", "reports"]


def history(s: Session) -> None:
    s.day(datetime(2024, 3, 5, 8, 47, 10, tzinfo=UTC))
    s.user(
        "Morning. New requirement from finance (Ines Okafor): a line item may be in another currency "
        "than its invoice, e.g. a USD hosting fee on an EUR invoice. Convert each line at the ECB rate "
        "of the invoice date (issued_on), not today's rate, and keep the original amount and currency "
        "on the line for the audit trail."
    )
    s.say(
        "Good to know before the migration. What this needs:\n"
        "- LineItem keeps `original: Money | None` (amount and currency as entered);\n"
        "- fx.convert(money, to, on=date) reads historical rates: the ECB 90-day file "
        "(eurofxref-hist-90d.xml) covers 4 December 2023 to 1 March 2024;\n"
        "- Invoice.add() converts a foreign line at issued_on.\n"
        "One question the data will raise: the ECB publishes only on business days. What rate applies "
        "to an invoice dated on a Saturday?"
    )
    s.user("What do our accountants do by hand today?")
    s.say(
        "I can't know that from the code. The common rule (and the one the ECB itself suggests for "
        "non-publication days) is the last rate published on or before the date. I'll implement that "
        "and name it in the docstring, so it's easy to change."
    )
    s.user("OK, last published rate on or before the date. Go.")
    s.read("The history file, one more day block:", "data/ecb/eurofxref-hist-90d.xml", offset=5, limit=14)
    s.edit(
        "fx.py: a table per day, loaded from the history file.",
        "src/tally/fx.py",
        'DAILY = Path(__file__).resolve().parents[2] / "data" / "ecb" / "eurofxref-daily.xml"\n',
        'DAILY = Path(__file__).resolve().parents[2] / "data" / "ecb" / "eurofxref-daily.xml"\n'
        'HISTORY = DAILY.with_name("eurofxref-hist-90d.xml")\n',
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "def convert(money: Money, to: str, table: RateTable | None = None) -> Money:\n"
        "    table = table or load_table()\n",
        "def load_history(path: Path = HISTORY) -> dict[date, RateTable]:\n"
        "    root = ET.parse(path).getroot()\n"
        "    tables = {}\n"
        '    for day in root.iterfind(".//e:Cube[@time]", NS):\n'
        '        rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("e:Cube", NS)}\n'
        '        when = date.fromisoformat(day.get("time"))\n'
        "        tables[when] = RateTable(when, rates)\n"
        "    return tables\n\n\n"
        "def table_on(on: date) -> RateTable:\n"
        '    """The rates of ``on``, or of the last ECB business day before it (weekends, holidays)."""\n'
        "    tables = load_history()\n"
        "    return tables[on]\n\n\n"
        "def convert(money: Money, to: str, on: date | None = None) -> Money:\n"
        "    table = table_on(on) if on is not None else load_table()\n",
    )
    s.edit(
        "LineItem keeps the original, and Invoice.add converts foreign lines at issued_on.",
        "src/tally/invoice.py",
        "    unit_price: Money\n\n",
        "    unit_price: Money\n    original: Money | None = None  # as entered, before conversion (audit)\n\n",
    )
    s.edit(
        "",
        "src/tally/invoice.py",
        "        item = LineItem(description, quantity, unit_price)\n",
        "        original = None\n"
        "        if unit_price.currency != self.currency:\n"
        "            original = unit_price\n"
        "            unit_price = convert(unit_price, self.currency, on=self.issued_on)\n"
        "        item = LineItem(description, quantity, unit_price, original)\n",
    )
    s.edit(
        "", "src/tally/invoice.py", "from .money import Money\n", "from .fx import convert\nfrom .money import Money\n"
    )
    s.write(
        "Tests, including a Saturday:",
        "tests/test_fx_history.py",
        "from datetime import date\n\nimport pytest\n\nfrom tally.fx import convert, table_on\n"
        "from tally.invoice import Invoice\nfrom tally.money import Money\n\n\n"
        "def test_rate_of_a_business_day():\n"
        "    assert table_on(date(2024, 2, 29)).day == date(2024, 2, 29)\n\n\n"
        "def test_saturday_uses_friday():\n"
        "    assert table_on(date(2024, 3, 2)).day == date(2024, 3, 1)\n\n\n"
        "def test_before_history_is_an_error():\n"
        "    with pytest.raises(LookupError):\n"
        "        table_on(date(2023, 11, 30))\n\n\n"
        "def test_foreign_line_keeps_original():\n"
        '    invoice = Invoice("INV-T-9", 7, date(2024, 3, 1))\n'
        '    line = invoice.add("Hosting (USD)", 1, Money(10_000, "USD"))\n'
        '    assert line.original == Money(10_000, "USD")\n'
        '    assert line.unit_price.currency == "EUR"\n\n\n'
        "def test_convert_on_date():\n"
        '    assert convert(Money(10_000, "USD"), "EUR", on=date(2024, 3, 1)).currency == "EUR"\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_fx_history.py",
        pytest_output(
            3,
            0,
            0.41,
            [
                (
                    "tests/test_fx_history.py::test_saturday_uses_friday",
                    "    def table_on(on: date) -> RateTable:\n"
                    "        tables = load_history()\n"
                    ">       return tables[on]\n"
                    "E       KeyError: datetime.date(2024, 3, 2)",
                ),
                (
                    "tests/test_fx_history.py::test_before_history_is_an_error",
                    "    def test_before_history_is_an_error():\n"
                    "        with pytest.raises(LookupError):\n"
                    ">           table_on(date(2023, 11, 30))\n"
                    "E       KeyError: datetime.date(2023, 11, 30)\n"
                    "E   Failed: DID NOT RAISE <class 'LookupError'>",
                ),
            ],
        ),
        error=True,
        description="Run the history tests",
    )
    s.say(
        "As expected, table_on() needs the fallback I described: walk back to the last day that has a "
        "table (at most 7 days, which covers Easter), and raise a LookupError naming the date when the "
        "history does not reach back that far. (KeyError is a LookupError, but the second test shows the "
        "error message should say what happened.)"
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "    tables = load_history()\n    return tables[on]\n",
        "    tables = load_history()\n"
        "    for back in range(8):\n"
        "        table = tables.get(on - timedelta(days=back))\n"
        "        if table is not None:\n"
        "            return table\n"
        '    raise LookupError(f"no ECB rate on or up to 7 days before {on.isoformat()}")\n',
    )
    s.edit("", "src/tally/fx.py", "from datetime import date\n", "from datetime import date, timedelta\n")
    s.bash("", "python -m pytest -q tests/test_fx_history.py", pytest_output(5, 0, 0.38))
    s.bash("", "python -m pytest -q", pytest_output(237, 3, 7.45), description="Run the test suite")


def migration(s: Session) -> None:
    s.call("Step 4: the database. Existing migrations:", "Glob", {"pattern": f"{ROOT}/migrations/*.sql"})
    s.calls(
        "",
        [
            ("Read", {"file_path": f"{ROOT}/migrations/0007_add_discounts.sql"}),
            ("Read", {"file_path": f"{ROOT}/migrations/0008_currency_draft.sql"}),
        ],
    )
    s.say(
        "There is already a 0008_currency_draft.sql from 12 February marked DO NOT MERGE; it adds "
        "invoices.currency as a nullable CHAR(3) and nothing for line items. I'll write "
        "0009_invoice_currency.sql instead and ask you about the draft."
    )
    s.write(
        "",
        "migrations/0009_invoice_currency.sql",
        "-- 0009: currency on invoices and original amounts on line items (TALLY-312)\n"
        "ALTER TABLE invoices ADD COLUMN currency CHAR(3) NOT NULL DEFAULT 'EUR';\n"
        "ALTER TABLE line_items ADD COLUMN original_amount_minor INTEGER;\n"
        "ALTER TABLE line_items ADD COLUMN original_currency CHAR(3);\n",
    )
    s.bash(
        "",
        "python -m tally.db migrate --database var/dev.sqlite3",
        "applying 0008_currency_draft ... ok (4 ms)\n"
        "applying 0009_invoice_currency ...\n"
        "Traceback (most recent call last):\n"
        '  File "/home/dev/tally/src/tally/db.py", line 88, in migrate\n'
        "    connection.executescript(sql)\n"
        "sqlite3.OperationalError: duplicate column name: currency\n"
        "migration 0009_invoice_currency rolled back",
        error=True,
        description="Apply migrations to the dev database",
    )
    s.say(
        "The migrator applies every file in order, so the draft 0008 added invoices.currency first and "
        "0009 collides with it. Is the draft Priya's abandoned attempt? If so I'd delete it rather than "
        "build on a nullable column."
    )
    s.user("Yes, Priya abandoned it when she moved to the payments team. Delete it.")
    s.bash(
        "",
        "git rm migrations/0008_currency_draft.sql && git mv migrations/0009_invoice_currency.sql "
        "migrations/0008_invoice_currency.sql",
        "rm 'migrations/0008_currency_draft.sql'",
        description="Replace the draft migration",
    )
    s.files[f"{ROOT}/migrations/0008_invoice_currency.sql"] = s.files.pop(
        f"{ROOT}/migrations/0009_invoice_currency.sql"
    )
    s.files.pop(f"{ROOT}/migrations/0008_currency_draft.sql")
    s.bash(
        "The dev database already has the draft applied; rebuild it from scratch.",
        "rm var/dev.sqlite3 && python -m tally.db migrate --database var/dev.sqlite3 && "
        "python -m tally.db seed --database var/dev.sqlite3",
        "applying 0001_initial ... ok (9 ms)\n"
        "applying 0002_customers ... ok (3 ms)\n"
        "applying 0003_numbering ... ok (2 ms)\n"
        "applying 0004_line_items ... ok (3 ms)\n"
        "applying 0005_tax_rate ... ok (2 ms)\n"
        "applying 0006_indexes ... ok (5 ms)\n"
        "applying 0007_add_discounts ... ok (4 ms)\n"
        "applying 0008_invoice_currency ... ok (12 ms)\n"
        "seeded 31,422 invoices, 118,907 line items (customers 1-2,340)",
        description="Rebuild the dev database",
    )
    s.bash(
        "",
        'sqlite3 var/dev.sqlite3 "select currency, count(*) from invoices group by currency"',
        "EUR|31422",
        description="Check the currencies of seeded invoices",
    )
    s.say(
        "Migration 0008_invoice_currency applied: all 31,422 existing invoices get currency 'EUR' from "
        "the column default, which matches reality today (everything was EUR). The draft is gone."
    )


def export(s: Session) -> None:
    s.edit(
        "Step 5: the CSV export gets a currency column and the original amount of converted lines.",
        "src/tally/export/csv_export.py",
        'HEADER = ["invoice", "issued_on", "customer_id", "description", "quantity", "unit_price", "subtotal"]\n',
        'HEADER = [\n    "invoice", "issued_on", "customer_id", "description", "quantity", "unit_price", "subtotal",\n'
        '    "currency", "original_amount", "original_currency",\n]\n',
    )
    s.edit(
        "",
        "src/tally/export/csv_export.py",
        '                    f"{line.unit_price.to_decimal():.2f}",\n'
        '                    f"{line.subtotal().to_decimal():.2f}",\n',
        "                    str(line.unit_price.to_decimal()),\n"
        "                    str(line.subtotal().to_decimal()),\n"
        "                    invoice.currency,\n"
        '                    str(line.original.to_decimal()) if line.original else "",\n'
        '                    line.original.currency if line.original else "",\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_export.py",
        pytest_output(
            3,
            0,
            0.52,
            [
                (
                    "tests/test_export.py::test_matches_golden_file",
                    "    def test_matches_golden_file(sample_invoices, tmp_path):\n"
                    "        out = tmp_path / 'out.csv'\n"
                    "        write_csv(sample_invoices, out.open('w'))\n"
                    ">       assert out.read_text() == GOLDEN.read_text()\n"
                    "E       AssertionError: assert 'invoice,issu...currency\\n' == 'invoice,issu...subtotal\\n'\n"
                    "E         - invoice,issued_on,customer_id,description,quantity,unit_price,subtotal\n"
                    "E         + invoice,issued_on,customer_id,description,quantity,unit_price,subtotal,"
                    "currency,original_amount,original_currency",
                ),
            ],
        ),
        error=True,
        description="Run the export tests",
    )
    s.user(
        "Careful: accounting imports that CSV into DATEV with a fixed column mapping. New columns must "
        "go at the end, which you did, but don't change the header names of existing ones."
    )
    s.say(
        "The existing seven header names are unchanged and the three new columns are appended at the "
        "end, so a fixed mapping by position keeps working. The failure is only the golden file "
        "tests/golden/invoices_2024-02.csv, which predates the columns; I'll regenerate it and show you "
        "the diff."
    )
    s.bash(
        "",
        "python -m tally.export.csv_export --month 2024-02 --database tests/fixtures/small.sqlite3 > "
        "tests/golden/invoices_2024-02.csv && git diff --stat tests/golden",
        " tests/golden/invoices_2024-02.csv | 96 +++++++++++++++++++++++++++---------------------------\n"
        " 1 file changed, 48 insertions(+), 48 deletions(-)",
        description="Regenerate the golden CSV",
    )
    s.bash(
        "",
        "head -3 tests/golden/invoices_2024-02.csv",
        "invoice,issued_on,customer_id,description,quantity,unit_price,subtotal,currency,original_amount,"
        "original_currency\nINV-2024-0101,2024-02-01,118,Support plan (February),1,490.00,490.00,EUR,,\n"
        "INV-2024-0102,2024-02-01,212,Hosting,3,89.90,269.70,EUR,,",
        description="Show the golden CSV",
    )
    s.bash("", "python -m pytest -q", pytest_output(239, 3, 7.51), description="Run the test suite")


def customer_currency(s: Session) -> None:
    s.user(
        "Sales asks for one more thing in 2.14 (Tomás from sales ops): new invoices should default to "
        "the customer's currency. GB -> GBP, JP -> JPY, CH -> CHF, US -> USD, everyone else EUR. A "
        "customer can override it: Hoshino KK (customer 2,117) wants EUR even though they are in Japan."
    )
    s.read("Where the country lives:", "src/tally/customers.py")
    s.bash(
        "How many customers per country, to see what the default changes:",
        'sqlite3 var/dev.sqlite3 "select country, count(*) from customers group by country order by 2 desc"',
        "DE|1204\nAT|388\nGB|214\nFR|161\nCH|117\nNL|96\nUS|73\nJP|41\nIT|29\nES|17",
        description="Count customers by country",
    )
    s.say(
        "445 of 2,340 customers (GB 214, CH 117, US 73, JP 41) would get a non-EUR default. Design: a "
        "COUNTRY_CURRENCY table in customers.py, an optional Customer.currency override (NULL = use the "
        "country), and default_currency(customer). The API uses it only when the request has no "
        "`currency`; an explicit currency still wins."
    )
    s.edit(
        "",
        "src/tally/customers.py",
        "    payment_terms_days: int = 14\n",
        "    payment_terms_days: int = 14\n    currency: str | None = None  # overrides the country's currency\n",
    )
    s.edit(
        "",
        "src/tally/customers.py",
        "def payment_due(customer: Customer, issued_on: date) -> date:\n",
        'COUNTRY_CURRENCY = {"GB": "GBP", "JP": "JPY", "CH": "CHF", "US": "USD"}\n\n\n'
        "def default_currency(customer: Customer) -> str:\n"
        '    return customer.currency or COUNTRY_CURRENCY.get(customer.country, "EUR")\n\n\n'
        "def payment_due(customer: Customer, issued_on: date) -> date:\n",
    )
    s.edit(
        "",
        "src/tally/customers.py",
        '        return cls(row["id"], row["name"], row["country"], row["vat_id"], row["payment_terms_days"])\n',
        "        return cls(\n"
        '            row["id"], row["name"], row["country"], row["vat_id"], row["payment_terms_days"], '
        'row["currency"]\n        )\n',
    )
    s.write(
        "",
        "migrations/0009_customer_currency.sql",
        "-- 0009: optional currency override per customer (TALLY-312)\n"
        "ALTER TABLE customers ADD COLUMN currency CHAR(3);\n"
        "UPDATE customers SET currency = 'EUR' WHERE id = 2117;  -- Hoshino KK invoices in EUR\n",
    )
    s.edit(
        "The API falls back to the customer's default:",
        "src/tally/api/routes.py",
        '        currency=payload.get("currency", "EUR"),\n',
        '        currency=payload.get("currency") or default_currency(load_customer(int(payload["customer_id"]))),\n',
    )
    s.edit(
        "",
        "src/tally/api/routes.py",
        "from ..db import session_scope\n",
        "from ..customers import default_currency\nfrom ..db import load_customer, session_scope\n",
    )
    s.write(
        "",
        "tests/test_customers_currency.py",
        "from tally.customers import Customer, default_currency\n\n\n"
        "def test_country_default():\n"
        '    assert default_currency(Customer(1, "Acme Ltd", "GB")) == "GBP"\n\n\n'
        "def test_other_countries_are_eur():\n"
        '    assert default_currency(Customer(2, "Beispiel GmbH", "DE")) == "EUR"\n\n\n'
        "def test_override_wins():\n"
        '    assert default_currency(Customer(2117, "Hoshino KK", "JP", currency="EUR")) == "EUR"\n\n\n'
        "def test_api_uses_customer_default(client, customer_factory):\n"
        '    customer = customer_factory(country="CH")\n'
        '    body = {"number": "INV-T-5", "customer_id": customer.id, "issued_on": "2024-03-05"}\n'
        '    assert client.post("/api/v1/invoices", json=body).json["total"] == "0.00 CHF"\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_customers_currency.py tests/test_api_currency.py",
        pytest_output(
            5,
            0,
            0.74,
            [
                (
                    "tests/test_api_currency.py::test_missing_currency_defaults_to_eur",
                    "    def test_missing_currency_defaults_to_eur(client):\n"
                    '        body = {"number": "INV-T-2", "customer_id": 7, "issued_on": "2024-03-04"}\n'
                    '>       assert client.post("/api/v1/invoices", json=body).json["total"] == "0.00 EUR"\n'
                    "E       AssertionError: assert '0.00 GBP' == '0.00 EUR'",
                ),
                (
                    "tests/test_customers_currency.py::test_api_uses_customer_default",
                    "E       fixture 'customer_factory' not found\n"
                    ">       available fixtures: app, cache, client, db_session, invoice_factory, monkeypatch, "
                    "tmp_path",
                ),
            ],
        ),
        error=True,
        description="Run the currency tests",
    )
    s.say(
        "1. test_missing_currency_defaults_to_eur uses customer 7, who is in GB in the fixtures, so GBP "
        "is now the correct answer: the test's name and expectation describe yesterday's rule. I'll "
        "rename it and use a German customer.\n"
        "2. There is no customer_factory fixture, only invoice_factory. Let me look at conftest."
    )
    s.grep("", r"def (invoice_factory|client|db_session)", path="tests")
    s.edit(
        "",
        "tests/test_api_currency.py",
        "def test_missing_currency_defaults_to_eur(client):\n"
        '    body = {"number": "INV-T-2", "customer_id": 7, "issued_on": "2024-03-04"}\n',
        "def test_missing_currency_uses_customer_default(client):\n"
        '    body = {"number": "INV-T-2", "customer_id": 12, "issued_on": "2024-03-04"}  # 12: DE\n',
    )
    s.edit(
        "",
        "tests/test_customers_currency.py",
        "def test_api_uses_customer_default(client, customer_factory):\n"
        '    customer = customer_factory(country="CH")\n'
        '    body = {"number": "INV-T-5", "customer_id": customer.id, "issued_on": "2024-03-05"}\n',
        "def test_api_uses_customer_default(client):\n"
        '    body = {"number": "INV-T-5", "customer_id": 31, "issued_on": "2024-03-05"}  # 31: CH\n',
    )
    s.bash("", "python -m pytest -q", pytest_output(243, 3, 7.58), description="Run the test suite")


def reports(s: Session) -> None:
    s.grep(
        "Before moving on: anything else that adds amount_minor across invoices would now mix currencies.",
        r"\.amount_minor",
        path="src/tally",
    )
    s.read("", "src/tally/reports.py")
    s.say(
        "reports.py sums `invoice.net().amount_minor` across invoices: with JPY and GBP invoices that adds "
        "yen to cents. revenue_by_month() and top_customers() feed the board pack. Options: (a) report "
        "per currency, (b) convert everything to EUR at the invoice date. (b) keeps the report's shape; "
        "(a) is exact. Which does the board want?"
    )
    s.user("(b), in EUR, at the rate of the invoice date. Same rule as the line items.")
    s.edit(
        "",
        "src/tally/reports.py",
        "from .invoice import Invoice\n",
        "from .fx import convert\nfrom .invoice import Invoice\nfrom .money import Money\n\n\n"
        "def _net_eur(invoice: Invoice) -> int:\n"
        '    return convert(invoice.net(), "EUR", on=invoice.issued_on).amount_minor\n',
    )
    s.edit(
        "",
        "src/tally/reports.py",
        "        totals[invoice.issued_on.strftime('%Y-%m')] += invoice.net().amount_minor\n",
        "        totals[invoice.issued_on.strftime('%Y-%m')] += _net_eur(invoice)\n",
    )
    s.read(
        "The file uses double quotes there; let me look at the exact lines.", "src/tally/reports.py", offset=13, limit=6
    )
    s.edit(
        "",
        "src/tally/reports.py",
        '        totals[invoice.issued_on.strftime("%Y-%m")] += invoice.net().amount_minor\n',
        '        totals[invoice.issued_on.strftime("%Y-%m")] += _net_eur(invoice)\n',
    )
    s.edit(
        "",
        "src/tally/reports.py",
        "        totals[invoice.customer_id] += invoice.net().amount_minor\n",
        "        totals[invoice.customer_id] += _net_eur(invoice)\n",
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_reports.py",
        pytest_output(
            2,
            0,
            0.33,
            [
                (
                    "tests/test_reports.py::test_revenue_by_month_2023",
                    "src/tally/reports.py:10: in _net_eur\n"
                    '    return convert(invoice.net(), "EUR", on=invoice.issued_on).amount_minor\n'
                    "src/tally/fx.py:57: in convert\n"
                    "    table = table_on(on) if on is not None else load_table()\n"
                    "src/tally/fx.py:51: in table_on\n"
                    '    raise LookupError(f"no ECB rate on or up to 7 days before {on.isoformat()}")\n'
                    "E   LookupError: no ECB rate on or up to 7 days before 2023-06-30",
                ),
            ],
        ),
        error=True,
        description="Run the report tests",
    )
    s.say(
        "The 2023 report fails on an EUR invoice from 30 June 2023: convert() looks up a rate table even "
        "when source and target are the same currency, and the 90-day history starts on 4 December 2023. "
        "Converting EUR to EUR must not need a rate at all; same for any X -> X. Fix in fx.convert."
    )
    s.edit(
        "",
        "src/tally/fx.py",
        "    table = table_on(on) if on is not None else load_table()\n",
        "    if money.currency == to:\n        return money\n"
        "    table = table_on(on) if on is not None else load_table()\n",
    )
    s.write(
        "And a test that pins it:",
        "tests/test_reports.py",
        "from datetime import date\n\nfrom tally.invoice import Invoice\nfrom tally.money import Money\n"
        "from tally.reports import revenue_by_month, top_customers\n\n\n"
        "def _invoice(number, customer, day, amount):\n"
        "    invoice = Invoice(number, customer, day, currency=amount.currency)\n"
        '    invoice.add("Service", 1, amount)\n    return invoice\n\n\n'
        "def test_revenue_by_month_2023():\n"
        '    invoices = [_invoice("A-1", 1, date(2023, 6, 30), Money(10_000))]\n'
        '    assert revenue_by_month(invoices) == {"2023-06": 10_000}\n\n\n'
        "def test_revenue_in_eur():\n"
        "    invoices = [\n"
        '        _invoice("A-2", 1, date(2024, 3, 1), Money(10_000)),\n'
        f'        _invoice("A-3", 2, date(2024, 3, 1), Money(1_250_000, "JPY")),\n'
        "    ]\n"
        "    assert revenue_by_month(invoices) == "
        f'{{"2024-03": 10_000 + {convert_minor(1_250_000, "JPY", "EUR")}}}\n\n\n'
        "def test_top_customers_in_eur():\n"
        "    invoices = [\n"
        '        _invoice("A-4", 1, date(2024, 3, 1), Money(5_000)),\n'
        '        _invoice("A-5", 2, date(2024, 3, 1), Money(10_000, "USD")),\n'
        "    ]\n"
        f"    assert top_customers(invoices) == [(2, {convert_minor(10_000, 'USD', 'EUR')}), (1, 5_000)]\n",
    )
    s.bash("", "python -m pytest -q", pytest_output(246, 3, 7.64), description="Run the test suite")
    s.say(
        "Reports now convert to EUR at the invoice date; same-currency conversion needs no rate (that was a "
        "real bug: any EUR invoice older than 4 December 2023 would have failed). 246 passed, 3 skipped."
    )
