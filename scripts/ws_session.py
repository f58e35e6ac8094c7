"""A Streamlit session without a browser: the server's own websocket protocol, from Python.

A :class:`Session` connects to ``/_stcore/stream`` as the browser does, asks for a page's run
with a query string, and collects what the run sends until the server reports it finished:
the widgets (their ids and values) and the text elements. ``move`` sets one widget and reruns,
as a slider moved in the browser does, and returns the seconds until the run finished.

Used by ``bench/bench_load.py`` (many sessions at once) and by the offline test
(``tests/offline``). The messages are Streamlit's protobuf classes (``streamlit.proto``), the
wire format the browser speaks; nothing of the server's internals is touched.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.sync.client import connect

#: The element types whose value a session can set, and the WidgetState field that carries it.
VALUE_FIELDS = {
    "slider": "double_array_value",
    "number_input": "double_value",
    "checkbox": "bool_value",
    "selectbox": "int_value",
    "radio": "int_value",
}


class RunFailed(RuntimeError):
    """The run did not finish: an exception on the page, a closed socket, or a timeout."""


@dataclass
class Widget:
    id: str
    kind: str
    label: str
    field: str  # the WidgetState field that carries its value


@dataclass
class Run:
    seconds: float
    widgets: dict[str, Widget] = field(default_factory=dict)  # by label
    texts: list[str] = field(default_factory=list)  # markdown bodies and metric values
    exceptions: list[str] = field(default_factory=list)


class Session:
    """One browserless session of the app at ``url`` (``http://host:port``)."""

    def __init__(self, url: str, *, origin: str | None = None, open_timeout: float = 10.0, source: str | None = None):
        """``source``: the local address to connect from (a workshop's participants, 127.0.0.x)."""
        ws_url = url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        headers = {"Origin": origin} if origin else None
        # The first subprotocol is what the server selects; the browser puts tokens after it.
        self.socket = connect(
            ws_url,
            subprotocols=["streamlit"],
            additional_headers=headers,
            origin=None,
            open_timeout=open_timeout,
            max_size=None,
            compression=None,
            **({"source_address": (source, 0)} if source else {}),
        )
        self.page = ""
        self.query = ""
        self.states: dict[str, WidgetState] = {}
        self.last: Run | None = None

    def open(self, page: str = "", query: str = "", timeout: float = 60.0) -> Run:
        """The first run of ``/page?query``, as a browser's first visit asks for it."""
        self.page, self.query = page, query
        self.states.clear()
        return self._run(timeout)

    def move(self, label: str, value: Any, timeout: float = 60.0) -> Run:
        """Set the widget labelled ``label`` (of the last run) to ``value`` and rerun."""
        widget = self.last.widgets[label]
        state = WidgetState(id=widget.id)
        if widget.field == "double_array_value":
            state.double_array_value.data.extend([float(value)])
        else:
            setattr(state, widget.field, value)
        self.states[widget.id] = state
        return self._run(timeout)

    def _run(self, timeout: float) -> Run:
        message = BackMsg()
        client = message.rerun_script
        client.query_string = self.query
        client.page_name = self.page
        client.widget_states.widgets.extend(self.states.values())
        start = time.perf_counter()
        self.socket.send(message.SerializeToString())
        run = Run(seconds=0.0)
        deadline = start + timeout
        while True:
            try:
                data = self.socket.recv(timeout=max(0.0, deadline - time.perf_counter()))
            except TimeoutError as error:
                raise RunFailed(f"no end of run within {timeout} s") from error
            except Exception as error:
                raise RunFailed(f"the connection closed: {error}") from error
            forward = ForwardMsg()
            forward.ParseFromString(data)
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                _collect(forward.delta.new_element, run)
            elif kind == "script_finished":
                if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                run.seconds = time.perf_counter() - start
                self.last = run
                return run

    def close(self) -> None:
        self.socket.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _collect(element, run: Run) -> None:
    kind = element.WhichOneof("type")
    if kind in VALUE_FIELDS:
        proto = getattr(element, kind)
        field_name = VALUE_FIELDS[kind]
        if kind == "number_input" and proto.data_type == proto.INT:
            field_name = "int_value"
        run.widgets[proto.label] = Widget(proto.id, kind, proto.label, field_name)
    elif kind == "markdown":
        run.texts.append(element.markdown.body)
    elif kind == "metric":
        run.texts.append(f"{element.metric.label}: {element.metric.body}")
    elif kind == "alert":
        run.texts.append(element.alert.body)
    elif kind == "exception":
        run.exceptions.append(f"{element.exception.type}: {element.exception.message}")
