"""``SendFuture``, the future a sender returns per message: the ``concurrent.futures.Future``
API and guarantees with its lock made on first use (waiting, callbacks, ``wait``, and a
waiter racing the resolving thread)."""

from __future__ import annotations

import concurrent.futures as cf
import gc
import threading
import time

import pytest
from xrgen_runtime.adapters._future import SendFuture


def test_result_exception_and_callbacks() -> None:
    f: SendFuture[int] = SendFuture()
    f.set_result(3)
    assert f.done() and f.result(0) == 3
    with pytest.raises(cf.InvalidStateError):
        f.set_exception(ValueError("twice"))
    failed: SendFuture[int] = SendFuture()
    failed.set_exception(ValueError("refused"))
    with pytest.raises(ValueError, match="refused"):
        failed.result(0)
    got: list[int] = []
    later: SendFuture[int] = SendFuture()
    later.add_done_callback(lambda x: got.append(x.result()))
    later.set_result(5)
    later.add_done_callback(
        lambda x: got.append(x.result() + 1)
    )  # already done: at once
    assert got == [5, 6]
    with pytest.raises(cf.InvalidStateError):
        later.set_result(7)  # the lock exists now: the Future's own checks apply


def test_waiters_are_woken_whoever_comes_first() -> None:
    for _ in range(500):
        f: SendFuture[int] = SendFuture()
        got: list[int] = []
        waiter = threading.Thread(target=lambda f=f, got=got: got.append(f.result(5)))
        waiter.start()
        f.set_result(7)
        waiter.join(5)
        assert got == [7]
    futures: list[SendFuture[int]] = [SendFuture() for _ in range(100)]

    def resolve() -> None:
        for f in futures:
            time.sleep(0.0002)
            f.set_result(1)

    threading.Thread(target=resolve).start()
    done, pending = cf.wait(futures, timeout=10)
    assert len(done) == 100 and not pending


def test_a_pending_future_holds_no_lock_and_no_lists() -> None:
    """A future in flight is one object for the garbage collector to walk: the condition and
    the lists of waiters and callbacks are made by the first waiter or callback only; a
    resolved one answers ``done``, ``exception`` and a successful ``result`` without making
    them."""
    made = (threading.Condition, list, dict)
    f: SendFuture[int] = SendFuture()
    assert not [r for r in gc.get_referents(f) if isinstance(r, made)]
    f.set_result(1)
    assert f.done() and f.result(0) == 1 and f.exception(0) is None
    assert not [r for r in gc.get_referents(f) if isinstance(r, made)]
    failed: SendFuture[int] = SendFuture()
    failed.set_exception(ValueError("refused"))
    assert isinstance(failed.exception(0), ValueError)
    assert not [r for r in gc.get_referents(failed) if isinstance(r, made)]
    with pytest.raises(ValueError, match="refused"):
        failed.result(0)
    pending: SendFuture[int] = SendFuture()
    assert not pending.done()
    with pytest.raises(cf.TimeoutError):
        pending.result(0.01)
    waited: SendFuture[int] = SendFuture()
    waited.add_done_callback(lambda _: None)
    kinds = {type(r) for r in gc.get_referents(waited)}
    assert threading.Condition in kinds and list in kinds


def test_as_completed_and_first_exception_while_another_thread_resolves() -> None:
    """``concurrent.futures.as_completed`` and ``wait(FIRST_EXCEPTION)`` add their waiters to
    futures that have no lists yet, racing the resolving thread."""
    for _ in range(100):
        futures: list[SendFuture[int]] = [SendFuture() for _ in range(30)]

        def resolve(futures: list[SendFuture[int]] = futures) -> None:
            for i, f in enumerate(reversed(futures)):
                if i % 3 == 0:
                    time.sleep(0.00005)
                if i % 7 == 0:
                    f.set_exception(ValueError("refused"))
                else:
                    f.set_result(i)

        resolver = threading.Thread(target=resolve)
        resolver.start()
        assert len(list(cf.as_completed(futures, timeout=10))) == 30
        resolver.join(5)
    failing: list[SendFuture[int]] = [SendFuture() for _ in range(5)]
    threading.Timer(0.01, lambda: failing[2].set_exception(ValueError("x"))).start()
    done, _ = cf.wait(failing, timeout=5, return_when=cf.FIRST_EXCEPTION)
    assert failing[2] in done
