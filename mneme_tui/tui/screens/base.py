"""What every mode screen shares: header, mode bar, footer, and refreshing when the data changed."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import get_current_worker

from mneme_tui.errors import MnemeError
from mneme_tui.memory.records import StatusChange
from mneme_tui.tui.keymap import with_ids
from mneme_tui.tui.widgets.footer import KeyFooter
from mneme_tui.tui.widgets.header import AppHeader, ModeBar

T = TypeVar("T")
DISMISS_REASON = "dismissed in the TUI"
UNDO_REASON = "undo in the TUI"

if TYPE_CHECKING:
    from mneme_tui.memory.store import Store
    from mneme_tui.tui.app import MnemeApp
    from mneme_tui.tui.context import AppContext


class ModeScreen(Screen):
    """A mode's screen. Subclasses implement ``compose_body`` and ``reload``.

    ``reload(reason)`` fetches the data again in a worker and updates the widgets in place, keeping the
    cursor where it was; the app calls it when the database or the Legion files change.
    """

    MODE_NAME: ClassVar[str] = ""
    MODE_KEY: ClassVar[str] = ""  # the key that shows this mode (also in the mode bar)
    MODE_TITLE: ClassVar[str] = ""
    MODE_DESCRIPTION: ClassVar[str] = ""  # one line for the help screen and the command palette
    HELP: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give the mode's bindings ids (``recall.dismiss_result``) before Textual merges them, so the
        config file's ``[keys]`` can remap every key of every mode, those added later included."""
        if "BINDINGS" in cls.__dict__:
            cls.BINDINGS = with_ids(cls.MODE_NAME or cls.__name__.lower(), cls.__dict__["BINDINGS"])
        super().__init_subclass__(**kwargs)

    def __init__(self) -> None:
        super().__init__()
        self._stale = False
        self.generation = 0

    @property
    def mneme(self) -> MnemeApp:
        return self.app  # type: ignore[return-value]

    @property
    def ctx(self) -> AppContext:
        return self.mneme.ctx

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the mode's write keys are shown disabled and do nothing."""
        return True if self.mneme.allows(self.MODE_NAME, action) else None

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield ModeBar(self.MODE_NAME, [(m.MODE_NAME, m.MODE_KEY, m.MODE_TITLE) for m in mode_screens(self.app)])
        yield from self.compose_body()
        yield KeyFooter()

    def on_mount(self) -> None:
        self.mneme.register_mode_screen(self.MODE_NAME, self)

    def compose_body(self) -> ComposeResult:
        return iter(())

    def reload(self, reason: str = "") -> None:
        """Fetch this screen's data again (override)."""

    def fetch_in_worker(
        self, load: Callable[[], T], show: Callable[[T], None], *, finished: Callable[[], None] | None = None
    ) -> None:
        """Run ``load`` in a thread worker and ``show`` its result on the UI thread.

        One fetch at a time per screen: a newer fetch (or anything that moves ``self.generation`` on)
        makes this one stale, and a stale result is never shown. A MnemeError of a current fetch becomes
        a toast. ``finished`` runs on the UI thread when the fetch has ended, whatever its outcome.
        """
        self.generation += 1
        generation = self.generation

        def current() -> bool:
            return generation == self.generation and not get_current_worker().is_cancelled

        def deliver(data: T) -> None:
            if generation == self.generation:
                show(data)

        def work() -> None:
            try:
                if not current():
                    return
                try:
                    data = load()
                except MnemeError as exc:
                    if current():
                        self.app.call_from_thread(self.mneme.say, str(exc), "error")
                    return
                if current():
                    self.app.call_from_thread(deliver, data)
            finally:
                if finished is not None:
                    with contextlib.suppress(RuntimeError):  # the app is closing
                        self.app.call_from_thread(finished)

        self.run_worker(work, thread=True, exclusive=True, group=self.MODE_NAME, exit_on_error=False)

    def change_status(
        self, write: Callable[[Store], StatusChange], done: Callable[[StatusChange], None], rollback: Callable[[], None]
    ) -> None:
        """Dismiss or undo: run ``write`` in a thread worker, then ``done`` with its change on the UI thread
        (the app learns it was its own write and marks the other screens stale). If the write fails,
        ``rollback`` puts the screen's undo state back, the error becomes a toast and the screen reloads."""

        def failed(message: str) -> None:
            rollback()
            self.mneme.say(message, "error")
            self.reload("failed")

        write_in_worker(self, write, done, failed, group=f"{self.MODE_NAME}-write")

    def mark_stale(self) -> None:
        """The data changed while this screen was not shown: reload when it is shown again."""
        self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.reload("resume")


class WriteOrder:
    """The TUI's writes run one after another, in the order their keys were pressed: each write waits for the
    one started before it (``d`` then ``r`` pressed fast dismiss, then restore; never the other way round)."""

    TURN_TIMEOUT = 30.0
    """How long a write waits for the one before it; only a write whose worker was cancelled before it ran (its
    screen closed) never ends its turn, and the next must not wait for it forever."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: threading.Event | None = None

    def take_turn(self) -> tuple[threading.Event | None, threading.Event]:
        """On the UI thread, when the key is pressed: the turn before this write's, and this write's own."""
        mine = threading.Event()
        with self._lock:
            previous, self._last = self._last, mine
        return previous, mine

    def wait_for(self, previous: threading.Event | None) -> None:
        if previous is not None:
            previous.wait(self.TURN_TIMEOUT)


def write_in_worker(
    owner: DOMNode, write: Callable[[Store], T], done: Callable[[T], None], failed: Callable[[str], None], *, group: str
) -> None:
    """Run ``write`` with the store in a thread worker of ``owner`` (a screen or the app). On the UI thread:
    ``done`` with its result (the app learns it was its own write and refreshes its other screens), or
    ``failed`` with the message of a MnemeError (nothing was written)."""
    app: MnemeApp = owner.app  # type: ignore[assignment]
    if app.ctx.read_only:
        failed("read-only: this app was opened with --read-only (or read_only = true), nothing is written")
        return

    previous, mine = app.write_order.take_turn()

    def work() -> None:
        try:
            app.write_order.wait_for(previous)
            with app.ctx.session() as store:
                result = write(store)
                store.refresh_index()
                revision = store.revision()
        except MnemeError as exc:
            app.call_from_thread(failed, str(exc))
            return
        finally:
            mine.set()
        app.call_from_thread(written, result, revision)

    def written(result: T, revision: int) -> None:
        app.own_write(revision)
        done(result)
        app.data_changed(source=owner if isinstance(owner, Screen) else None)

    owner.run_worker(work, thread=True, group=group, exit_on_error=False)


@dataclass(frozen=True)
class Undo:
    """How to take back one action of Recall, a memory's detail or the new-memory form: the store write
    that does it, the toast that says it was done, and the memory to show afterwards."""

    write: Callable[[Store], Any]
    message: str
    show_id: int | None = None


def undo_last(owner: DOMNode, done: Callable[[Undo], None] | None = None) -> None:
    """Undo the newest action on the app's undo stack (``u``); ``done`` runs after the write succeeded."""
    app: MnemeApp = owner.app  # type: ignore[assignment]
    if not app.undo_stack:
        app.say("Nothing to undo.")
        return
    entry = app.undo_stack.pop()

    def undone(_: object) -> None:
        app.say(entry.message)
        if done is not None:
            done(entry)

    def failed(message: str) -> None:
        app.undo_stack.append(entry)
        app.say(f"Undo failed: {message}", "error")

    write_in_worker(owner, entry.write, undone, failed, group="undo")


def mode_screens(app: App) -> list[type[ModeScreen]]:
    """The app's modes in order: the ModeScreen classes of its ``MODES``."""
    return [screen for screen in app.MODES.values() if isinstance(screen, type) and issubclass(screen, ModeScreen)]


def screen_bindings(screen_class: type) -> list[Binding]:
    """The Binding objects declared on a screen (or app) class (not inherited defaults)."""
    found = []
    for item in getattr(screen_class, "BINDINGS", []):
        if isinstance(item, Binding):
            found.append(item)
        elif isinstance(item, tuple):
            found.append(Binding(*item))
    return found
