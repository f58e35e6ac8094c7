"""What a page script uses: its context, widgets bound to the URL, its interactive part, charts.

The router (``app.py``, through :mod:`dashboard.navigation`) prepares each run: it reads the
link, creates the widgets of the parameters several pages read, and leaves a
:class:`PageContext` for the page, which takes it with :func:`page`. The page shows its own
widgets section by section, as its ``dashboard.features`` module declares them, with
:meth:`PageContext.show`, reads every parameter's value from :attr:`PageContext.values`, and hands
its interactive part to :func:`interactive`.
Widgets use Streamlit's own ``bind="query-params"`` (:mod:`dashboard.binding`): the address bar
is always a link to the current view.

The context travels in ``st.session_state`` (:data:`CONTEXT_KEY`) because Streamlit runs the page
(``page.run()``) with no arguments and session state is its documented per-session store, where a
module global would be shared by every session's thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard import charts
from dashboard.binding import Container, bound_tabs, bound_widget
from dashboard.params import PARAMS, Section

if TYPE_CHECKING:  # a type only: the registry imports the pages' features, some of which import this module
    from dashboard.registry import PageInfo

#: st.session_state key of the context the router leaves for the page of this run.
CONTEXT_KEY = "page_context"


@dataclass
class PageContext:
    """What a page needs: its registry entry, the link's raw values, where notices go, widget values.

    ``values`` holds every parameter of the page shown so far in this run, by key: the widget's
    value, or the default of a parameter whose widget its condition (``Param.shown_when``) hides.
    It is how a page reads its parameters; :meth:`raw_param` is only for the hand-encoded ones
    beyond them (the typed p and q, which a table holds: ``st.data_editor`` cannot be bound).
    """

    info: PageInfo
    raw_url: dict[str, list[str]]
    notices: Container
    pages: dict[str, Any]  # this run's st.Page of each page id
    values: dict[str, Any] = field(default_factory=dict)

    def show(self, section: Section, container: Container | None = None) -> None:
        """Show ``section``'s heading and widgets in ``container`` (the sidebar), in order, into :attr:`values`.

        The router's (α, k, c, the seed) already exist; a widget whose condition does not hold is
        not created, and its default is its value.
        """
        where = container if container is not None else st.sidebar
        if section.title:
            where.subheader(section.title)
        for key in section.keys:
            if key in self.info.app_params:
                continue
            if self._condition_holds(key):
                self.widget(key, where)
            else:
                self.values[key] = PARAMS[key].default

    def shown_for(self, section: Section, key: str) -> Any:
        """The value of the one widget of ``section`` shown for ``key``'s value (a draft's strength for its kind)."""
        (value,) = (self.values[other] for other in section.keys if PARAMS[other].shown_when == (key, self.values[key]))
        return value

    def shows(self, key: str) -> bool:
        """Whether parameter ``key``'s widget is shown: its condition (``Param.shown_when``) holds, if it has one."""
        return self._condition_holds(key)

    def _condition_holds(self, key: str) -> bool:
        condition = PARAMS[key].shown_when
        if condition is None:
            return True
        other, value = condition
        return self.values[other] == value and self._condition_holds(other)

    def widget(self, key: str, container: Container | None = None) -> Any:
        """Create the widget of parameter ``key`` bound to the URL (:func:`~dashboard.binding.bound_widget`),
        in ``container`` (the sidebar), with its section's callback; its value, also in :attr:`values`.
        Pages use :meth:`show`."""
        on_change = next((section.on_change for section in self.info.sections if key in section.keys), None)
        value = bound_widget(PARAMS[key], self.raw_url.get(key), self.notices, container or st.sidebar, on_change)
        self.values[key] = value
        return value

    def tab(self, key: str) -> Container:
        """Show the tabs of parameter ``key`` on the page; the open tab's container, the only one a
        page draws into (:func:`~dashboard.binding.bound_tabs`). Its value goes into :attr:`values`."""
        on_change = next((section.on_change for section in self.info.sections if key in section.keys), None)
        value, opened = bound_tabs(PARAMS[key], self.raw_url.get(key), self.notices, st, on_change)
        self.values[key] = value
        return opened

    def read_address(self) -> None:
        """Take the link's values from the address bar; before any widget of this run exists."""
        self.raw_url = {key: st.query_params.get_all(key) for key in st.query_params}

    def raw_param(self, key: str) -> str | None:
        """The link's value of a hand-encoded parameter (such as ``p``), if it has one."""
        values = self.raw_url.get(key)
        return values[-1] if values else None


def page() -> PageContext:
    """The context the router prepared for this run's page (see :mod:`dashboard.navigation`)."""
    return st.session_state[CONTEXT_KEY]


def interactive(ctx: PageContext, body: Callable[[], None]) -> None:
    """Run ``body``, the page's own widgets and what they drive, as a fragment of the page.

    Moving a widget of the fragment reruns only the fragment: Streamlit then re-sends and redraws
    its elements alone, not the navigation, the formulas and the explanations around it. The
    widgets of α, k, c and the seed are the router's and rerun the whole page.

    Pages draw their chart before the metrics shown above it (they go into a container made
    before the chart): the browser then draws the chart first instead of handling each metric's
    message while the chart's waits. The metrics follow within the same rerun.
    """

    def fragment() -> None:
        ctx.read_address()  # a fragment rerun sees the address as this page's widgets left it
        body()

    st.fragment(fragment)()


#: The byte order mark: spreadsheet programs read a CSV without it in the system's code page and
#: show "α" as "Î±".
UTF8_BOM = "\ufeff"


def csv_bytes(table: pd.DataFrame) -> bytes:
    """``table`` as CSV in UTF-8 with a byte order mark, without the index."""
    return (UTF8_BOM + table.to_csv(index=False)).encode("utf-8")


def csv_download(table: pd.DataFrame, file_name: str, label: str = "Download as CSV") -> None:
    """A download button for ``table`` as a CSV file that spreadsheet programs open correctly."""
    st.download_button(label, csv_bytes(table), file_name=file_name, mime="text/csv")


def metric_row(container: Container | None = None) -> Container:
    """A row of metrics, in order, that wraps onto more rows where the screen is too narrow.

    Each metric keeps its label's and its value's width and the row shares out what is left: in
    fixed columns a metric was cut short with an ellipsis ("8 → 3.…") on a 1024 px screen.
    """
    return (st if container is None else container).container(horizontal=True)


#: The narrowest a chart is drawn beside another; on a narrower screen the two stack at full width.
CHART_MIN_WIDTH = 450


def side_by_side(min_width: int = CHART_MIN_WIDTH) -> tuple[Container, Container]:
    """Two cells side by side, each at least ``min_width`` px wide, else one above the other.

    In fixed columns each chart of a pair was 270 px wide on a 1024 px screen with the sidebar
    open, too narrow for its title, its legend or its axis title, and a formula was cut short.
    """
    grid = st.grid(2, min_column_width=min_width)
    return grid.cell(), grid.cell()


def chart(fig: go.Figure | dict, filename: str, key: str | None = None, height: int | None = None) -> None:
    """Show a figure with its export named ``filename``: a plotly figure as PNG at 2x scale, an
    ECharts option (a dict, ``dashboard.charts.echart``) as drawn, under ``key``, ``height``
    pixels high (``charts.ECHART_HEIGHT`` if not given; a plotly figure has its own).

    The key must stay the same from press to press: it is what lets ECharts update the chart in
    place instead of drawing it anew (a keyed chart keeps its instance whatever its height).
    """
    if isinstance(fig, dict):
        if key is None:
            raise ValueError("an ECharts chart needs a key that stays the same across reruns")
        height = charts.ECHART_HEIGHT if height is None else height
        st.echarts_chart(charts.with_export(fig, filename), key=key, height=height, renderer="svg")
        return
    st.plotly_chart(fig, theme=None, config=charts.chart_config(filename))
