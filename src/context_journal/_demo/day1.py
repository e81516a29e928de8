"""Monday 4 March 2024: the request, exploration, money in minor units, the fx module, invoices in a currency."""

from __future__ import annotations

from .session import RATES, ROOT, Session, convert_minor, pytest_output

__all__ = ["fx", "invoice", "money", "opening"]

_FX_V1 = '''"""Exchange rates from the ECB reference files, and conversion between currencies."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from .money import MINOR_UNITS, Money

DAILY = Path(__file__).resolve().parents[2] / "data" / "ecb" / "eurofxref-daily.xml"


@dataclass(frozen=True)
class RateTable:
    day: date
    rates: dict[str, Decimal]  # units of the currency per 1 EUR

    def rate(self, currency: str) -> Decimal:
        if currency == "EUR":
            return Decimal(1)
        return self.rates[currency]


def load_table(path: Path = DAILY) -> RateTable:
    root = ET.parse(path).getroot()
    day = root.find(".//Cube[@time]")
    rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("Cube")}
    return RateTable(date.fromisoformat(day.get("time")), rates)


def convert(money: Money, to: str, table: RateTable | None = None) -> Money:
    table = table or load_table()
    eur = money.to_decimal() / table.rate(money.currency)
    value = eur * table.rate(to)
    digits = MINOR_UNITS[to]
    minor = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN).scaleb(digits)
    return Money(int(minor), to)
'''

_TEST_FX = """from decimal import Decimal

import pytest

from tally.fx import DAILY, convert, load_table
from tally.money import Money


def test_daily_table_is_1_march_2024():
    table = load_table(DAILY)
    assert table.day.isoformat() == "2024-03-01"
    assert table.rate("USD") == Decimal("1.0842")


def test_eur_to_eur_is_identity():
    assert convert(Money(1999), "EUR") == Money(1999)


@pytest.mark.parametrize(
    "amount,source,target,expected",
    [
        (Money(10_000, "USD"), "EUR", Money({usd_eur}, "EUR")),
        (Money(10_000, "USD"), "JPY", Money({usd_jpy}, "JPY")),
        (Money(1_250_000, "JPY"), "EUR", Money({jpy_eur}, "EUR")),
        (Money(5_000, "GBP"), "CHF", Money({gbp_chf}, "CHF")),
    ],
)
def test_convert(amount, source, target, expected):
    assert convert(amount, target) == expected
"""


def opening(s: Session) -> None:
    s.user(
        "Hi Claude. We're adding multi-currency invoices to tally (ticket TALLY-312). Requirements:\n"
        "1. An invoice carries an ISO 4217 currency code: EUR, USD, GBP, JPY and CHF for now.\n"
        "2. Amounts stay integer minor units everywhere (cents; JPY has none). Never floats.\n"
        "3. Exchange rates come from the ECB reference files we already mirror in data/ecb/ "
        "(scripts/fetch_rates.sh).\n"
        "4. Rounding is banker's rounding (ROUND_HALF_EVEN): finance insists, it's in FIN-2291.\n"
        "5. No new dependencies.\n"
        "6. Keep the signature of Invoice.total() unchanged; the billing UI calls it.\n"
        "Deadline: Friday 15 March 2024 (release 2.14). Look around first and tell me your plan before "
        "you change anything."
    )
    s.say(
        "Understood: currency on invoices, integer minor units, ECB rates, ROUND_HALF_EVEN, no new "
        "dependencies, Invoice.total() unchanged, due Friday 15 March for release 2.14. I'll start by "
        "mapping the code that touches amounts and rates, and run the test suite for a baseline."
    )
    s.call("Let me see the layout of the package first.", "Glob", {"pattern": f"{ROOT}/src/tally/**/*.py"})
    s.read("money.py is where amounts live.", "src/tally/money.py")
    s.read("", "src/tally/invoice.py")
    s.grep("Looking for floats and hard-coded cents.", r"float\(|/ 100|\* 100")
    s.read("Is there already a rates module?", "src/tally/rates.py")
    s.grep("No. Where do we mirror the ECB files?", "eurofxref", path=".")
    s.read("", "scripts/fetch_rates.sh")
    s.read("The daily file:", "data/ecb/eurofxref-daily.xml")
    s.read("And the 90-day history, first lines:", "data/ecb/eurofxref-hist-90d.xml", limit=16)
    s.calls(
        "Now the API and the export, which will need the currency too.",
        [
            ("Read", {"file_path": f"{ROOT}/src/tally/api/routes.py"}),
            ("Read", {"file_path": f"{ROOT}/src/tally/export/csv_export.py"}),
        ],
    )
    s.bash(
        "Baseline test run:",
        "python -m pytest -q",
        pytest_output(214, 3, 6.84),
        description="Run the test suite",
    )
    s.say(
        "Here is what I found and what I propose.\n\n"
        "Findings:\n"
        "- src/tally/money.py: Money(amount_minor, currency='EUR') already has a currency field, but "
        "from_decimal() and to_decimal() assume 2 decimal places (`* 100`, `/ 100`), so JPY would be off "
        "by 100x. from_decimal() rounds ROUND_HALF_UP, not HALF_EVEN.\n"
        "- src/tally/invoice.py: Invoice has no currency; net() starts from Money(0), i.e. EUR. tax() "
        "floors (`// 10_000`), which loses up to a cent per invoice.\n"
        "- legacy_amount() still takes floats (TODO TALLY-288); only the importer uses it.\n"
        "- The ECB files are in data/ecb/, refreshed by scripts/fetch_rates.sh at 16:30 on weekdays.\n"
        "- Baseline: 214 passed, 3 skipped in 6.84 s.\n\n"
        "Plan:\n"
        "1. money.py: a MINOR_UNITS table (EUR/USD/GBP/CHF 2, JPY 0) used by from_decimal, to_decimal "
        "and __str__; HALF_EVEN rounding.\n"
        "2. New src/tally/rates.py: parse the ECB XML, convert(money, to) through EUR.\n"
        "3. Invoice.currency (default 'EUR'); net() starts in the invoice currency; total() keeps its "
        "signature.\n"
        "4. API accepts `currency`; a migration adds invoices.currency; the CSV export gets a currency "
        "column.\n"
        "5. Tests for each step."
    )
    s.user(
        "Go ahead. One change: call the module src/tally/fx.py, not rates.py. rates.py is our tax-rate "
        "module in the billing repo and people mix them up. And leave legacy_amount alone, TALLY-288 "
        "removes it next sprint."
    )
    s.say("Noted: the module is src/tally/fx.py, and legacy_amount() stays untouched (TALLY-288).")


def money(s: Session) -> None:
    s.edit(
        "Step 1, money.py. First the table of minor units and HALF_EVEN.",
        "src/tally/money.py",
        "from decimal import ROUND_HALF_UP, Decimal\n",
        'from decimal import ROUND_HALF_EVEN, Decimal\n\nMINOR_UNITS = {"EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, '
        '"JPY": 0}\n',
    )
    s.edit(
        "",
        "src/tally/money.py",
        '    @classmethod\n    def from_decimal(cls, value: Decimal | str, currency: str = "EUR") -> Money:\n'
        '        quantized = Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)\n',
        "    @property\n    def digits(self) -> int:\n        return MINOR_UNITS[self.currency]\n\n"
        '    @classmethod\n    def from_decimal(cls, value: Decimal | str, currency: str = "EUR") -> Money:\n'
        "        digits = MINOR_UNITS[currency]\n"
        "        quantized = Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)\n",
    )
    s.edit(
        "",
        "src/tally/money.py",
        "        return Decimal(self.amount_minor) / 100\n\n    def __str__(self) -> str:\n"
        '        return f"{self.to_decimal():.2f} {self.currency}"\n',
        "        return Decimal(self.amount_minor).scaleb(-self.digits)\n\n    def __str__(self) -> str:\n"
        '        return f"{self.to_decimal():.{self.digits}f} {self.currency}"\n',
    )
    s.write(
        "Tests for the new behaviour:",
        "tests/test_money_currency.py",
        "from decimal import Decimal\n\nimport pytest\n\nfrom tally.money import MINOR_UNITS, Money\n\n\n"
        '@pytest.mark.parametrize("currency,digits", sorted(MINOR_UNITS.items()))\n'
        "def test_minor_units(currency, digits):\n    assert Money(0, currency).digits == digits\n\n\n"
        "def test_jpy_has_no_minor_units():\n"
        '    assert Money.from_decimal("1500", "JPY") == Money(1500, "JPY")\n\n\n'
        "def test_str_uses_currency_digits():\n"
        '    assert str(Money(1500, "JPY")) == "1500 JPY"\n    assert str(Money(1250, "USD")) == "12.50 USD"\n\n\n'
        "def test_half_even():\n"
        '    assert Money.from_decimal(Decimal("0.125")) == Money(12)\n'
        '    assert Money.from_decimal(Decimal("0.135")) == Money(14)\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_money_currency.py tests/test_money.py",
        pytest_output(
            9,
            0,
            0.31,
            [
                (
                    "tests/test_money_currency.py::test_jpy_has_no_minor_units",
                    "    def test_jpy_has_no_minor_units():\n"
                    '>       assert Money.from_decimal("1500", "JPY") == Money(1500, "JPY")\n'
                    "E       AssertionError: assert Money(amount_minor=150000, currency='JPY') == "
                    "Money(amount_minor=1500, currency='JPY')",
                ),
                (
                    "tests/test_money.py::test_from_decimal_rounds",
                    "    def test_from_decimal_rounds():\n"
                    '>       assert Money.from_decimal(Decimal("0.125")) == Money(13)\n'
                    "E       AssertionError: assert Money(amount_minor=12, currency='EUR') == "
                    "Money(amount_minor=13, currency='EUR')",
                ),
            ],
        ),
        error=True,
        description="Run the money tests",
    )
    s.say(
        "Two failures, two different causes:\n"
        "1. test_jpy_has_no_minor_units: 150000 instead of 1500. from_decimal() still returns "
        "`int(quantized * 100)`; I changed the quantize step but not the scaling. Fix: "
        "`quantized.scaleb(digits)`.\n"
        "2. tests/test_money.py::test_from_decimal_rounds expects 0.125 -> 13 cents, which is HALF_UP. "
        "Under FIN-2291 (HALF_EVEN) the answer is 12. This test encodes the old rule, so I'll update it "
        "and say why in a comment."
    )
    s.read("", "src/tally/money.py", offset=24, limit=10)
    s.edit(
        "",
        "src/tally/money.py",
        "        return cls(int(quantized * 100), currency)\n",
        "        return cls(int(quantized.scaleb(digits)), currency)\n",
    )
    s.edit(
        "",
        "tests/test_money.py",
        'def test_from_decimal_rounds():\n    assert Money.from_decimal(Decimal("0.125")) == Money(13)\n',
        "def test_from_decimal_rounds():\n    # FIN-2291: banker's rounding, 0.125 -> 0.12 (was HALF_UP -> 0.13)\n"
        '    assert Money.from_decimal(Decimal("0.125")) == Money(12)\n',
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_money_currency.py tests/test_money.py",
        pytest_output(11, 0, 0.27),
        description="Run the money tests",
    )
    s.bash("Whole suite, to see nothing else relied on `/ 100`:", "python -m pytest -q", pytest_output(222, 3, 6.91))


def fx(s: Session) -> None:
    usd_eur = convert_minor(10_000, "USD", "EUR")
    usd_jpy = convert_minor(10_000, "USD", "JPY")
    jpy_eur = convert_minor(1_250_000, "JPY", "EUR")
    gbp_chf = convert_minor(5_000, "GBP", "CHF")
    s.say(
        "Step 2: src/tally/fx.py. Design: the ECB quotes every rate against EUR (units of currency per "
        "1 EUR), so convert(money, to) goes money -> EUR -> target with Decimal arithmetic and rounds "
        "once, at the end, with ROUND_HALF_EVEN to the target's minor units. xml.etree is in the "
        "standard library, so no new dependency."
    )
    s.write("", "src/tally/fx.py", _FX_V1)
    s.write(
        f"Expected values computed by hand from the 1 March rates (USD {RATES['USD']}, JPY {RATES['JPY']}, "
        f"GBP {RATES['GBP']}, CHF {RATES['CHF']}):",
        "tests/test_fx.py",
        _TEST_FX.format(usd_eur=usd_eur, usd_jpy=usd_jpy, jpy_eur=jpy_eur, gbp_chf=gbp_chf),
    )
    s.bash(
        "",
        "python -m pytest -q tests/test_fx.py",
        pytest_output(
            1,
            0,
            0.22,
            [
                (
                    "tests/test_fx.py::test_daily_table_is_1_march_2024",
                    "    def load_table(path: Path = DAILY) -> RateTable:\n"
                    "        root = ET.parse(path).getroot()\n"
                    '        day = root.find(".//Cube[@time]")\n'
                    '>       rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("Cube")}\n'
                    "E       AttributeError: 'NoneType' object has no attribute 'findall'",
                ),
            ]
            + [
                (
                    f"tests/test_fx.py::test_convert[amount{k}-{src}-{dst}-expected{k}]",
                    "src/tally/fx.py:30: in load_table\n"
                    '    rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("Cube")}\n'
                    "E   AttributeError: 'NoneType' object has no attribute 'findall'",
                )
                for k, (src, dst) in enumerate((("USD", "EUR"), ("USD", "JPY"), ("JPY", "EUR"), ("GBP", "CHF")))
            ],
        ),
        error=True,
        description="Run the fx tests",
    )
    s.say(
        "root.find('.//Cube[@time]') returns None: the ECB file puts every Cube element in the namespace "
        "http://www.ecb.int/vocabulary/2002-08-01/eurofxref (the default xmlns on the envelope), so an "
        "unqualified path matches nothing. Fix: a namespace map and qualified paths."
    )
    s.edit(
        "",
        "src/tally/fx.py",
        'DAILY = Path(__file__).resolve().parents[2] / "data" / "ecb" / "eurofxref-daily.xml"\n',
        'DAILY = Path(__file__).resolve().parents[2] / "data" / "ecb" / "eurofxref-daily.xml"\n'
        'NS = {"e": "http://www.ecb.int/vocabulary/2002-08-01/eurofxref"}\n',
    )
    s.edit(
        "",
        "src/tally/fx.py",
        '    day = root.find(".//Cube[@time]")\n'
        '    rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("Cube")}\n',
        '    day = root.find(".//e:Cube[@time]", NS)\n'
        "    if day is None:\n"
        '        raise ValueError(f"no dated Cube element in {path}")\n'
        '    rates = {c.get("currency"): Decimal(c.get("rate")) for c in day.findall("e:Cube", NS)}\n',
    )
    s.bash("", "python -m pytest -q tests/test_fx.py", pytest_output(6, 0, 0.19), description="Run the fx tests")
    s.bash(
        "A quick sanity check by hand of the cross rate USD -> JPY:",
        'python -c "from tally.fx import convert; from tally.money import Money; '
        "print(convert(Money(10_000, 'USD'), 'JPY'))\"",
        f"{usd_jpy} JPY",
        description="Convert 100 USD to JPY",
    )
    s.say(
        f"100.00 USD -> {usd_jpy} JPY at the 1 March rates (100 / {RATES['USD']} x {RATES['JPY']} = "
        f"{usd_jpy}, rounded half-even to whole yen). fx.py is done for daily rates: 6 new tests pass."
    )


def invoice(s: Session) -> None:
    s.edit(
        "Step 3: the invoice gets a currency. total() keeps its signature; it just returns Money in the "
        "invoice currency.",
        "src/tally/invoice.py",
        "    tax_rate_bp: int = 1900  # basis points: 19.00 %\n",
        '    tax_rate_bp: int = 1900  # basis points: 19.00 %\n    currency: str = "EUR"\n',
    )
    s.edit(
        "",
        "src/tally/invoice.py",
        "        total = Money(0)\n",
        "        total = Money(0, self.currency)\n",
    )
    s.edit(
        "tax() floors with `//`; with HALF_EVEN required everywhere I'll round the tax the same way.",
        "src/tally/invoice.py",
        "        return Money(net.amount_minor * self.tax_rate_bp // 10_000, net.currency)\n",
        "        tax = Decimal(net.amount_minor * self.tax_rate_bp) / 10_000\n"
        "        return Money(int(tax.quantize(Decimal(1), rounding=ROUND_HALF_EVEN)), net.currency)\n",
    )
    s.edit(
        "",
        "src/tally/invoice.py",
        "from datetime import date\n",
        "from datetime import date\nfrom decimal import ROUND_HALF_EVEN, Decimal\n",
    )
    s.grep("Who constructs invoices?", r"Invoice\(", path="src")
    s.edit(
        "The API must accept the currency and check it.",
        "src/tally/api/routes.py",
        '        issued_on=date.fromisoformat(payload["issued_on"]),\n    )\n',
        '        issued_on=date.fromisoformat(payload["issued_on"]),\n'
        '        currency=payload["currency"],\n    )\n'
        "    if invoice.currency not in MINOR_UNITS:\n"
        '        return jsonify({"error": f"unsupported currency {invoice.currency}"}), 422\n',
    )
    s.edit(
        "",
        "src/tally/api/routes.py",
        "from ..money import parse_amount\n",
        "from ..money import MINOR_UNITS, parse_amount\n",
    )
    s.bash(
        "",
        "python -m pytest -q",
        pytest_output(
            219,
            3,
            7.12,
            [
                (
                    f"tests/test_api.py::{name}",
                    "    def create_invoice():\n"
                    "        payload = request.get_json(force=True)\n"
                    "        invoice = Invoice(\n"
                    '            number=payload["number"],\n'
                    '            customer_id=int(payload["customer_id"]),\n'
                    '            issued_on=date.fromisoformat(payload["issued_on"]),\n'
                    '>           currency=payload["currency"],\n'
                    "        )\n"
                    "E       KeyError: 'currency'",
                )
                for name in ("test_create_invoice", "test_create_invoice_with_lines", "test_total_in_response")
            ],
        ),
        error=True,
        description="Run the test suite",
    )
    s.say(
        "Three API tests post invoices without a currency, like every existing client does. Requiring it "
        "would break the billing UI, so the API defaults to EUR when the field is missing and rejects "
        "unknown codes with 422."
    )
    s.edit(
        "",
        "src/tally/api/routes.py",
        '        currency=payload["currency"],\n',
        '        currency=payload.get("currency", "EUR"),\n',
    )
    s.write(
        "And tests for the currency paths of the API:",
        "tests/test_api_currency.py",
        "def test_create_jpy_invoice(client):\n"
        '    body = {"number": "INV-T-1", "customer_id": 7, "issued_on": "2024-03-04", "currency": "JPY",\n'
        '            "lines": [{"description": "Consulting", "quantity": 1, "unit_price": "12500 JPY"}]}\n'
        '    response = client.post("/api/v1/invoices", json=body)\n'
        "    assert response.status_code == 201\n"
        '    assert response.json["total"] == "13750 JPY"\n\n\n'
        "def test_missing_currency_defaults_to_eur(client):\n"
        '    body = {"number": "INV-T-2", "customer_id": 7, "issued_on": "2024-03-04"}\n'
        '    assert client.post("/api/v1/invoices", json=body).json["total"] == "0.00 EUR"\n\n\n'
        "def test_unknown_currency_is_rejected(client):\n"
        '    body = {"number": "INV-T-3", "customer_id": 7, "issued_on": "2024-03-04", "currency": "XAU"}\n'
        '    response = client.post("/api/v1/invoices", json=body)\n'
        "    assert response.status_code == 422\n"
        '    assert response.json == {"error": "unsupported currency XAU"}\n\n\n'
        "def test_tax_rounds_half_even(client):\n"
        '    body = {"number": "INV-T-4", "customer_id": 7, "issued_on": "2024-03-04",\n'
        '            "lines": [{"description": "Pen", "quantity": 1, "unit_price": "0.50"}]}\n'
        '    assert client.post("/api/v1/invoices", json=body).json["total"] == "0.60 EUR"\n',
    )
    s.bash("", "python -m pytest -q", pytest_output(232, 3, 7.20), description="Run the test suite")
    s.say(
        "Step 3 done: Invoice.currency (default 'EUR'), tax rounded half-even instead of floored, the "
        "API takes an optional `currency` (422 for unknown codes). 232 passed, 3 skipped. Next: the "
        "migration and the CSV export, tomorrow morning unless you want them now."
    )
    s.user("Tomorrow is fine. Thanks!")
