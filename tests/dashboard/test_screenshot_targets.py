"""What ``make screenshots`` takes: every page, the registry's other views, distinct file names."""

from dashboard.registry import PAGES
from scripts.screenshots import targets


def test_every_page_and_each_registered_view_once():
    shots = targets("", [])
    names = [name for _, name in shots]
    assert len(names) == len(set(names))
    expected = {f"{page.id}.png" for page in PAGES.values()}
    expected |= {f"{page.id}-{view}.png" for page in PAGES.values() for view, _ in page.views}
    assert set(names) == expected
    assert ("/Step?k=8&step=19", "step_through-outcome.png") in shots


def test_a_configuration_goes_where_it_is_read_and_a_view_keeps_its_own_values():
    shots = dict((name, target) for target, name in targets("alpha=0.9&k=3&step=2", []))
    assert shots["speedup.png"] == "/Speedup?alpha=0.9&k=3"
    assert shots["home.png"] == "/"
    assert shots["step_through.png"] == "/Step?k=3&step=2"
    assert shots["step_through-score.png"] == "/Step?k=8&step=9"


def test_the_same_page_twice_gets_two_files():
    shots = targets("", ["http://x/Step?step=1", "http://x/Step?step=9", "http://x/Speedup"])
    assert [name for _, name in shots] == ["step_through.png", "step_through-2.png", "speedup.png"]
