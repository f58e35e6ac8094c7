"""Page runs take turns: one at a time, a nested run straight through, the turn freed on any exit."""

from __future__ import annotations

import threading

import pytest

from dashboard import turns

#: Seconds to wait for a thread that should get in; a thread that must not is given a moment.
ENTERS = 10.0
STAYS_OUT = 0.2


def _in_thread(body) -> threading.Thread:
    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread


def test_a_second_run_waits_for_the_first_and_then_goes_in():
    inside, release, second = threading.Event(), threading.Event(), threading.Event()

    def first_run():
        with turns.page_run():
            inside.set()
            release.wait(ENTERS)

    def second_run():
        with turns.page_run():
            second.set()

    first = _in_thread(first_run)
    assert inside.wait(ENTERS)
    _in_thread(second_run)
    assert not second.wait(STAYS_OUT)
    release.set()
    assert second.wait(ENTERS)
    first.join(ENTERS)


def test_a_fragment_within_a_page_run_goes_straight_through():
    done = threading.Event()

    def page_with_fragment():
        with turns.page_run(), turns.page_run():
            done.set()

    _in_thread(page_with_fragment).join(ENTERS)
    assert done.is_set()


def test_a_run_that_fails_or_is_stopped_frees_the_turn():
    # Streamlit stops a run for a rerun by raising an exception inside it.
    with pytest.raises(RuntimeError), turns.page_run():
        raise RuntimeError("rerun requested")
    entered = threading.Event()

    def next_run():
        with turns.page_run():
            entered.set()

    _in_thread(next_run)
    assert entered.wait(ENTERS)


def test_a_run_waiting_aside_lets_the_next_in_and_then_takes_its_turn_back():
    aside, other_inside, other_may_leave, back = (threading.Event() for _ in range(4))

    def waiting_run():
        with turns.page_run():
            with turns.aside():
                aside.set()
                other_may_leave.wait(ENTERS)
            back.set()

    def next_run():
        with turns.page_run():
            other_inside.set()
            other_may_leave.wait(ENTERS)

    first = _in_thread(waiting_run)
    assert aside.wait(ENTERS)
    _in_thread(next_run)
    assert other_inside.wait(ENTERS), "a run waiting aside holds no turn"
    other_may_leave.set()
    assert back.wait(ENTERS)
    first.join(ENTERS)


def test_aside_outside_a_run_only_runs_the_block():
    with turns.aside():
        pass
    with turns.page_run():
        pass  # the turn is free
