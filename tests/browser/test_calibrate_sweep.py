"""Calibrate's sweep view as Chromium draws it: the figures the server sent for the sweep example,
and the speedup table. Whether those figures hold the sweep's numbers is tests/pages/test_calibrate.py's."""

from __future__ import annotations

from dashboard.features.calibrate_examples import SWEEP_EXAMPLE
from tests.app_helpers import open_page, page_charts
from tests.browser.helpers import PAGES, AppTab, assert_drawn_as_served


def _served_after_the_example() -> tuple[list[dict], int]:
    """The figures AppTest gets once the sweep example's button is pressed, and its table's rows."""
    at = open_page("calibrate")
    next(b for b in at.button if b.label == SWEEP_EXAMPLE).click().run()
    assert not at.exception
    return page_charts(at), len(at.table[0].value)


def test_the_sweep_example_draws_the_figures_the_server_sent_and_its_table(tab: AppTab):
    figures, rows = _served_after_the_example()
    tab.open(PAGES["calibrate"])
    before = tab.signature()
    tab.page.get_by_role("button", name=SWEEP_EXAMPLE, exact=True).click()
    tab.settle(changed_from=before)
    assert tab.exceptions() == []
    assert_drawn_as_served(tab.charts(), figures)
    assert tab.page.locator('[data-testid="stTable"] tbody tr').count() == rows
    header = tab.page.locator('[data-testid="stTable"] thead th').all_inner_texts()
    assert [h.strip() for h in header if h.strip()][-4:] == ["k = 1", "k = 2", "k = 3", "best k"]
    assert "accepted" not in tab.params()  # the address is not given counts the sweep does not have
