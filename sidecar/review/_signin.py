"""What keeps signing in to the reviewers' page slow to guess and its forms single-use:
a per-address backoff after failed sign-ins, a ceiling on failures from everywhere, and
one-time tokens for the sign-in form (kept in memory: showing the form writes nothing)."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

__all__ = ["FormNonces", "SignInLimiter"]


class SignInLimiter:
    """Failed sign-ins per client address: after ``free`` failures, each further one makes
    the address wait twice as long as the last (1 s, 2 s, 4 s... up to ``max_wait``); and
    over ``global_limit`` failures from all addresses in a minute, everyone waits.
    A sign-in that succeeds clears its address."""

    def __init__(
        self,
        *,
        free: int = 3,
        max_wait: float = 900.0,
        global_limit: int = 60,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.max_wait = max_wait
        self.global_limit = global_limit
        self.clock = clock
        self._lock = threading.Lock()
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._recent: deque[float] = deque()

    def wait(self, address: str) -> float:
        """Seconds ``address`` must wait before it may try again (0: it may now)."""
        now = self.clock()
        with self._lock:
            while self._recent and self._recent[0] < now - 60.0:
                self._recent.popleft()
            waits = [0.0]
            if len(self._recent) >= self.global_limit:
                waits.append(self._recent[0] + 60.0 - now)
            _, until = self._failures.get(address, (0, 0.0))
            waits.append(until - now)
            return max(waits)

    def failed(self, address: str) -> int:
        """Count a failed sign-in from ``address``; returns its failures in a row."""
        now = self.clock()
        with self._lock:
            count, _ = self._failures.pop(address, (0, 0.0))
            count += 1
            over = count - self.free
            until = now + min(2.0 ** (over - 1), self.max_wait) if over > 0 else 0.0
            self._failures[address] = (count, until)
            while len(self._failures) > 10_000:
                self._failures.popitem(last=False)
            self._recent.append(now)
        return count

    def succeeded(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)


class FormNonces:
    """One-time tokens of a form shown before anyone is signed in: issued on showing it,
    spent on its post, valid ``seconds``; at most ``capacity`` outstanding (the oldest go)."""

    def __init__(
        self,
        *,
        seconds: float = 600.0,
        capacity: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.capacity = capacity
        self.clock = clock
        self._lock = threading.Lock()
        self._issued: OrderedDict[str, float] = OrderedDict()

    def issue(self) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._issued[token] = self.clock()
            while len(self._issued) > self.capacity:
                self._issued.popitem(last=False)
        return token

    def spend(self, token: str | None) -> bool:
        """Whether ``token`` was issued, unspent and fresh; it is spent either way."""
        if not token:
            return False
        with self._lock:
            issued = self._issued.pop(token, None)
        return issued is not None and self.clock() - issued <= self.seconds
