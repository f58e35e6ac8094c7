"""Set-up for every test: Streamlit imported before any test module imports ``dashboard.charts``,
and the Hypothesis profiles."""

import os

# Streamlit makes its plotly template the default when first imported, as the charts make theirs:
# importing it first, as the app's scripts do, lets the charts' template win whatever the file order.
import streamlit  # noqa: F401
from hypothesis import settings

# No deadline anywhere: on a shared machine a slow example is the neighbours' load, not a bug.
# A developer's run tries fewer examples; CI (CI=true) tries more.
settings.register_profile("dev", deadline=None, max_examples=25)
settings.register_profile("ci", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
