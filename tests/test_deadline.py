"""``passman.deadline.run_with_deadline``: the answer, the error, the limit, and no child left behind."""

from __future__ import annotations

import os
import time

import pytest

from passman import deadline
from passman.deadline import ChildFailed, DeadlineExceeded, run_with_deadline


def _children() -> set[int]:
    """This process's child processes (Linux: /proc/self/task/*/children)."""
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids |= {int(p) for p in f.read().split()}
        except FileNotFoundError:
            pass
    return pids


def test_the_answer_comes_back():
    assert run_with_deadline(lambda: {"a": [1, 2.5]}, 5) == {"a": [1, 2.5]}


def test_an_error_comes_back_as_itself_or_as_its_text():
    with pytest.raises(KeyError):
        run_with_deadline(lambda: {}["missing"], 5)

    class Local(Exception):  # not picklable: a local class
        pass

    def fail():
        raise Local("unpicklable")

    with pytest.raises(ChildFailed, match="unpicklable"):
        run_with_deadline(fail, 5)


def test_past_its_time_the_child_is_killed():
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        run_with_deadline(lambda: time.sleep(30), 0.3)
    assert time.monotonic() - start < 5
    assert not {p for p in _children() if p not in deadline._exiting}


def test_children_that_answered_are_reaped():
    """The parent does not wait for an answered child to exit, but none accumulates."""
    before = _children()
    most = 0
    for i in range(20):
        assert run_with_deadline(lambda i=i: i * i, 5) == i * i
        most = max(most, len(deadline._exiting))
    assert most < 20  # each call reaps the children that have exited
    for _ in range(50):  # without waiting: the exited ones go at the next call, or here
        deadline._reap()
        if not deadline._exiting:
            break
        time.sleep(0.1)
    assert not deadline._exiting
    assert _children() <= before
