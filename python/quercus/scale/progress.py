"""Progress of long fits and predictions, shown on stderr.

The core calls a progress callback about four times a second while a fit (nodes grown) or a
large prediction (rows predicted) runs; `Progress` turns those calls into one line that says
what is done, how fast, and for predictions how much is left. Work shorter than a second
shows nothing. On a terminal the line is redrawn in place (as tqdm draws it); elsewhere (a log
file, a notebook's captured stderr) a line is written every ten seconds, so logs stay short.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

# Work shorter than this shows nothing: a progress line for a blink only flickers.
_QUIET_SECONDS = 1.0
# Without a terminal, one line per this many seconds.
_LOG_EVERY = 10.0


class Progress:
    """A progress display for one fit or prediction; call it as the core's callback, then
    `close()` it. `total` is the number of units the work will count, when known."""

    def __init__(
        self,
        what: str,
        total: int | None = None,
        stream: TextIO | None = None,
        interactive: bool | None = None,
    ) -> None:
        self.what = what
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.interactive = interactive if interactive is not None else bool(isatty and isatty())
        self.started = time.perf_counter()
        self.shown = False
        self.logged = 0.0
        self.last: tuple[int, str] = (0, "")

    def __call__(self, done: int, units: str) -> None:
        """One report from the core: `done` units (`"nodes"` or `"rows"`) so far."""
        self.last = (done, units)
        elapsed = time.perf_counter() - self.started
        if elapsed < _QUIET_SECONDS:
            return
        if not self.interactive:
            if elapsed - self.logged < _LOG_EVERY and self.shown:
                return
            self.logged = elapsed
        self._write(self._line(done, units, elapsed), final=False)

    def close(self) -> None:
        """The last line, once the work ended (only if a line was shown)."""
        if self.shown:
            done, units = self.last
            if self.total is not None and units == "rows":
                done = self.total
            self._write(self._line(done, units, time.perf_counter() - self.started), final=True)

    def _line(self, done: int, units: str, elapsed: float) -> str:
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"quercus {self.what}: {done:,} {units}"
        if self.total and units == "rows":
            share = min(done / self.total, 1.0)
            left = (self.total - done) / rate if rate > 0 else float("inf")
            text += f" of {self.total:,} ({share:.0%}), {_clock(left)} left"
        return text + f", {_clock(elapsed)} elapsed, {_rate(rate)} {units}/s"

    def _write(self, line: str, *, final: bool) -> None:
        if self.interactive:
            end = "\n" if final else ""
            self.stream.write(f"\r\x1b[2K{line}{end}")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.shown = True


def _clock(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _rate(per_second: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per_second >= scale:
            return f"{per_second / scale:.1f}{suffix}"
    return f"{per_second:.0f}"
