"""The page an address asks for, which the home page names when st.navigation does not know it."""

import pytest

from dashboard.navigation import requested_page


@pytest.mark.parametrize(
    ("url", "base", "page"),
    [
        ("http://h:8501/", "", ""),
        ("http://h:8501/Nope", "", "Nope"),
        ("http://h:8501/Speedup/", "", "Speedup"),
        ("http://h/app/Nope", "/app/", "Nope"),
        ("http://h/app", "app", ""),
        ("http://h/No%20pe", "", "No pe"),
        (None, "", ""),
    ],
)
def test_the_page_an_address_asks_for_is_its_path_after_the_base(url, base, page):
    assert requested_page(url, base) == page
