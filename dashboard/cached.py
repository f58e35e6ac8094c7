"""Calibrate's cached calibration (moves to ``dashboard/features/calibrate.py`` with its family)."""

from __future__ import annotations

import streamlit as st

from dashboard import calibrate_input


@st.cache_data(max_entries=32, show_spinner=False)
def calibration(measurement: calibrate_input.Measurement, c: float) -> calibrate_input.Calibration:
    """:func:`dashboard.calibrate_input.calibrate`, kept: the interval's two bisections (120
    evaluations of the i.i.d. model) were a third of Calibrate's rerun."""
    return calibrate_input.calibrate(measurement, c)
