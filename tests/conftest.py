"""Set-up for every test: Streamlit imported before any test module imports ``dashboard.charts``."""

# Streamlit makes its plotly template the default when first imported, as the charts make theirs:
# importing it first, as the app's scripts do, lets the charts' template win whatever the file order.
import streamlit  # noqa: F401
