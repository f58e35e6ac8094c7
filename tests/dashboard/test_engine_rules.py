"""The Verification rules page's engine table: every fact has a source."""

from dashboard.features.verification_rules import ENGINE_RULES


def test_every_engine_row_fills_every_column():
    columns = ("engine", "default", "switch", "source")
    for row in ENGINE_RULES:
        assert tuple(row) == columns, row.get("engine")
        assert all(row[column].strip() for column in columns), row["engine"]
