"""The home page's way in: the registry's pages as two groups of cards. Pure: no Streamlit.

The chapter's own views come first, so that a newcomer sees them on the first screen of a
1366 × 768 laptop (tests/browser/test_first_screen.py); then the other pages. Both groups are
the registry's entries in its order, split by :attr:`dashboard.registry.PageInfo.chapter`.
"""

from __future__ import annotations

from dashboard.registry import PAGES, PageInfo


def chapter_views() -> list[PageInfo]:
    """The pages of the chapter's own views, in the registry's order."""
    return [page for page in PAGES.values() if page.chapter]


def other_pages() -> list[PageInfo]:
    """Every other page but the home page, in the registry's order."""
    return [page for page in PAGES.values() if not page.chapter and page.url_path]
