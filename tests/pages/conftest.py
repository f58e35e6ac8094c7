"""Fixtures of the page tests."""

import pytest
import streamlit as st


@pytest.fixture
def downloads(monkeypatch):
    """What the download buttons of the AppTest runs that follow offer, read as the page passes it."""
    sent = []
    real = st.download_button

    def recording(label, data, *args, **kwargs):
        sent.append(data)
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", recording)

    def read(at) -> bytes:
        assert len(at.get("download_button")) == 1
        return sent[-1] if isinstance(sent[-1], bytes) else sent[-1].encode("utf-8")

    return read
