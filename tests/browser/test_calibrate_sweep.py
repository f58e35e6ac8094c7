"""Calibrate's sweep view as Chromium draws it: the numbers plotly.js received and the speedup table."""

from __future__ import annotations

import numpy as np

import engines
import specmath
from dashboard.features.calibrate_examples import EXAMPLES, SWEEP_EXAMPLE
from tests.browser.helpers import PAGES, AppTab


def test_the_sweep_example_draws_the_curve_the_profile_and_the_measured_schedule(tab: AppTab):
    sweep = engines.parse_engine_sweep(EXAMPLES[SWEEP_EXAMPLE])
    curve = engines.acceptance_curve(sweep)
    profile, _ = specmath.sweep.profile_from_curve(curve.k, curve.mean_length)
    schedule = engines.measured_schedule(sweep, curve)
    tab.open(PAGES["calibrate"])
    before = tab.signature()
    tab.page.get_by_role("button", name=SWEEP_EXAMPLE, exact=True).click()
    tab.settle(changed_from=before)
    assert tab.exceptions() == []
    lengths, positions, scheduled = tab.charts()
    np.testing.assert_allclose(lengths["traces"]["measured, 95% interval"]["y"], curve.mean_length)
    np.testing.assert_allclose(positions["traces"]["unconditional P(≥ i accepted)"]["y"], profile)
    np.testing.assert_array_equal(scheduled["traces"]["k in the schedule"]["x"], schedule.batch)
    rows = tab.page.locator('[data-testid="stTable"] tbody tr')
    assert rows.count() == schedule.batch.size
    header = tab.page.locator('[data-testid="stTable"] thead th').all_inner_texts()
    assert [h.strip() for h in header if h.strip()][-4:] == ["k = 1", "k = 2", "k = 3", "best k"]
    assert "accepted" not in tab.params()  # the address is not given counts the sweep does not have
