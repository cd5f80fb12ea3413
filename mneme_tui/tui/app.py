"""The mneme app: modes (one screen each), global keys, the command palette, change watching, sync.

Modes are Textual's own ``MODES``: a mode is a ``ModeScreen`` subclass (its name, key, title and
description are class attributes) listed in ``MnemeApp.MODES``, plus its ``styles/<name>.tcss``. The
app binds the key and lists the mode in the mode bar, the help screen and the command palette.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from mneme_tui import compat, config, display
from mneme_tui.errors import MnemeError
from mneme_tui.legion.mirror.sync import sync as legion_sync
from mneme_tui.legion.mirror.sync_preview import SyncPreview, preview_sync
from mneme_tui.legion.mirror.sync_report import SyncReport
from mneme_tui.memory.records import Memory
from mneme_tui.tui.context import AppContext
from mneme_tui.tui.keymap import WRITE_ACTIONS, binding_id, flatten, keys_in_force, unknown_ids, with_ids
from mneme_tui.tui.screens.base import UNDO_REASON, ModeScreen, Undo, WriteOrder, screen_bindings, undo_last
from mneme_tui.tui.screens.briefing import BriefingScreen
from mneme_tui.tui.screens.dialogs import ConfirmScreen
from mneme_tui.tui.screens.graduation import GraduationScreen
from mneme_tui.tui.screens.help import HelpScreen
from mneme_tui.tui.screens.memories import MemoriesScreen
from mneme_tui.tui.screens.memory_screen import MemoryScreen
from mneme_tui.tui.screens.new_memory import NewMemoryScreen
from mneme_tui.tui.screens.prune import PruneScreen
from mneme_tui.tui.screens.recall import RecallScreen
from mneme_tui.tui.screens.review import ReviewScreen
from mneme_tui.tui.styles import style_path

POLL_SECONDS = 1.0
MODE_SCREENS: tuple[type[ModeScreen], ...] = (
    RecallScreen,
    MemoriesScreen,
    BriefingScreen,
    PruneScreen,
    GraduationScreen,
    ReviewScreen,
)


class MnemeApp(App[int]):
    """Browse and manage memory. ``ctx`` says which store, repo and Legion folder."""

    TITLE = "mneme"
    MODES = {screen.MODE_NAME: screen for screen in MODE_SCREENS}
    DEFAULT_MODE = RecallScreen.MODE_NAME
    BINDINGS = with_ids(
        "app",
        [
            Binding("question_mark,f1", "help", "Help", tooltip="This help: every key of every screen"),
            Binding("s", "sync", "Sync", tooltip="Legion sync: import and export the .planning/memory files"),
            Binding("n", "new_memory", "New", tooltip="Save a new memory (a form: content, topic, kind, repo)"),
            Binding("u", "undo", "Undo", show=False, tooltip="Undo the last save, Recall dismissal or detail action"),
            Binding("q", "quit", "Quit", show=False, tooltip="Quit (also ctrl+q)"),
            *(
                Binding(mode.MODE_KEY, f"mode({mode.MODE_NAME!r})", mode.MODE_TITLE, show=False)
                for mode in MODE_SCREENS
            ),
        ],
    )

    def __init__(
        self, ctx: AppContext, *, poll_interval: float | None = POLL_SECONDS, cursor_blink: bool = True
    ) -> None:
        # Every stylesheet is loaded once at start (not per screen): switching modes then costs no CSS
        # parsing and no restyling of the screens already mounted.
        super().__init__(css_path=[style_path(name) for name in stylesheets()])
        self.ctx = ctx
        self.cursor_blink = cursor_blink
        self.poll_interval = poll_interval
        self.mounted_modes: dict[str, ModeScreen] = {}
        self.db_revision: int | None = None
        self.legion_signature: tuple | None = None
        self.sync_running = False
        self.sync_confirmed = False  # the first sync of a session that writes files asks first
        self._polling = False
        self._watching = False
        self._prewarmed = False
        self.undo_stack: list[Undo] = []  # Recall, memory detail and new-memory actions, newest last
        self.write_order = WriteOrder()  # the writes of every screen, one after another in key order
        self.keys: dict[str, str] = {}  # the config file's [keys]: binding id -> keys

    # ------------------------------------------------------------------ basics
    def on_mount(self) -> None:
        self._restore_theme()
        self._load_keys()
        if self.ctx.read_only:
            self.say("Read-only: every write (save, dismiss, edit, sync, prune, undo) is off.", timeout=5)
        # Watching starts once the first results are on screen (``first_results_shown``), so loading the
        # search index at 100,000 memories never delays them; a fallback timer covers other start modes.
        if self.poll_interval:
            self.set_timer(1.0, self._start_watching)

    def _restore_theme(self) -> None:
        """Start with the theme saved by an earlier session; save the user's next choice."""
        try:
            theme = config.saved_theme()
        except MnemeError as exc:
            self.say(exc.message, severity="warning")
            theme = None
        if theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._theme_chosen)

    def _load_keys(self) -> None:
        """Apply the config file's ``[keys]`` (binding id -> keys); a broken table or an unknown id is a toast."""
        try:
            self.keys = flatten(config.key_bindings())
        except MnemeError as exc:
            self.say(exc.message, severity="warning")
            return
        unknown = unknown_ids(self.keys, all_binding_ids(self))
        if unknown:
            self.say(f"[keys]: no binding has the id {', '.join(unknown)} (the help screen lists them)", "warning")
        self.set_keymap(self.keys)

    def allows(self, scope: str, action: str) -> bool:
        """False for a write action (``WRITE_ACTIONS``) when the app is read-only."""
        return not (self.ctx.read_only and binding_id(scope, action) in WRITE_ACTIONS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the app's write keys are shown disabled and do nothing."""
        return True if self.allows("app", action) else None

    def _theme_chosen(self, theme) -> None:
        try:
            config.save_setting("theme", theme.name)
        except MnemeError as exc:
            self.say(f"Theme not saved: {exc.message}", severity="warning")

    def first_results_shown(self) -> None:
        self._start_watching()

    def _start_watching(self) -> None:
        if self._watching or not self.poll_interval:
            return
        self._watching = True
        self.poll_changes()
        self.set_interval(self.poll_interval, self._poll_tick, name="watch")

    def _prewarm_modes(self) -> None:
        """Build the other mode screens in the background once the index is warm, so a mode key shows
        its screen at once (each loads its data in its own worker)."""
        if self._prewarmed:
            return
        self._prewarmed = True
        # The warm index is hundreds of thousands of long-lived objects: keep them out of the cyclic GC's
        # full collections, which would otherwise pause typing for tens of milliseconds now and then.
        gc.freeze()
        for mode in MODE_SCREENS:
            compat.prepare_mode(self, mode.MODE_NAME)

    def say(self, message: str, severity: str = "information", timeout: float | None = None) -> None:
        """A toast with ``message`` shown literally (memory text in it can't act as markup)."""
        text = display.printable(str(message))
        self.notify(
            text,
            severity=severity,  # type: ignore[arg-type]
            markup=False,
            timeout=timeout if timeout is not None else (8 if severity == "error" else 3),
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that died of an unexpected error says so instead of failing silently."""
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            self.say(f"Internal error in {event.worker.name or 'a worker'}: {type(error).__name__}: {error}", "error")

    def action_mode(self, name: str) -> None:
        if name in self.MODES:
            self.switch_mode(name)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_new_memory(self) -> None:
        """The new-memory form; once saved, a toast names the new memory and ``u`` dismisses it again."""
        if isinstance(self.screen, NewMemoryScreen):
            return

        def saved(memory: Memory | None) -> None:
            if memory is None:
                return
            self.undo_stack.append(
                Undo(
                    lambda store: store.dismiss([memory.id], reason=UNDO_REASON),
                    f"Undid the save: #{memory.id} dismissed",
                    memory.id,
                )
            )
            self.say(f"Saved #{memory.id} ({memory.kind}, {memory.repo_id}) — {self._undo_hint()}.")

        self.push_screen(NewMemoryScreen(self.ctx.repo), saved)

    def _undo_hint(self) -> str:
        """How to undo from the current screen: ``u``, unless its ``u`` undoes only its own actions
        (Memories, Graduation); then from Recall."""
        screen = type(self.screen)
        shared = screen is MemoryScreen or all(b.key != "u" for b in screen_bindings(screen))
        return "press u to undo" if shared else f"press {RecallScreen.MODE_KEY}, then u, to undo"

    def action_undo(self) -> None:
        undo_last(self)

    def register_mode_screen(self, name: str, screen: ModeScreen) -> None:
        self.mounted_modes[name] = screen

    # ------------------------------------------------------- watching changes
    def _poll_tick(self) -> None:
        if not self._polling:
            self.poll_changes()

    @work(thread=True, group="watch", exit_on_error=False)
    def poll_changes(self) -> None:
        """Notice writes by other processes: the store's revision and the Legion files' mtimes."""
        self._polling = True
        try:
            revision: int | None
            try:
                with self.ctx.session() as store:
                    store.refresh_index()
                    revision = store.revision()
            except MnemeError:
                revision = self.db_revision
            signature = legion_signature(self.ctx.legion_dir)
            db_changed = self.db_revision is not None and revision != self.db_revision
            legion_changed = self.legion_signature is not None and signature != self.legion_signature
            first_poll = self.db_revision is None
            self.db_revision = revision
            self.legion_signature = signature
            if db_changed or legion_changed:
                self.call_from_thread(self.data_changed, None, "database" if db_changed else "legion")
            elif first_poll and not self._prewarmed:
                self.call_from_thread(self._prewarm_modes)
        finally:
            self._polling = False

    def own_write(self, revision: int | None = None, legion: bool = False) -> None:
        """This app just wrote (and refreshes its screens itself): the watcher need not react to it."""
        if revision is not None and self.db_revision is not None:
            self.db_revision = revision
        if legion and self.legion_signature is not None:
            self.legion_signature = legion_signature(self.ctx.legion_dir)

    def data_changed(self, source: Screen | None = None, what: str = "") -> None:
        """Something changed: reload the visible mode screen now, the others when next shown."""
        current = self._current_mode_screen()
        for screen in self.mounted_modes.values():
            if screen is source:
                continue
            if screen is current:
                screen.reload(what or "changed")
            else:
                screen.mark_stale()

    def _current_mode_screen(self) -> ModeScreen | None:
        return self.mounted_modes.get(self.current_mode)

    # ------------------------------------------------------------------- sync
    def action_sync(self) -> None:
        if self.ctx.legion_dir is None:
            self.say("No Legion folder (.planning/memory) for this project: nothing to sync.")
            return
        if self.sync_running:
            self.say("A sync is already running.")
            return
        self.sync_running = True
        if self.sync_confirmed or not self._confirm_sync_setting():
            self._start_sync()
        else:
            self.preview_sync()

    def _confirm_sync_setting(self) -> bool:
        try:
            return config.flag_setting("confirm_sync", True)
        except MnemeError as exc:
            self.say(exc.message, severity="warning")
            return True

    def _start_sync(self) -> None:
        self.say("Syncing with the Legion files…")
        self.run_sync()

    @work(thread=True, group="sync", exit_on_error=False)
    def preview_sync(self) -> None:
        """Count what the sync would import and export; ask before it first writes into the markdown files."""
        legion = self.ctx.legion()
        assert legion is not None  # action_sync checked the folder
        try:
            with self.ctx.session() as store:
                preview = preview_sync(store, legion, self.ctx.repo)
        except MnemeError as exc:
            self.call_from_thread(self._sync_done, f"Sync failed: {exc}", "error")
            return
        self.call_from_thread(self._ask_sync, preview)

    def _ask_sync(self, preview: SyncPreview) -> None:
        if not preview.writes_files:
            self._start_sync()
            return
        body = Text(display.printable("\n".join(preview.lines())) + "\n\n", end="")  # file names shown literally
        body.append(
            "Exporting appends the store's memories to these markdown files (git sees the change). "
            "Asked once a session; confirm_sync = false in the config file turns the question off.",
            style="dim",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.sync_confirmed = True
                self._start_sync()
            else:
                self.sync_running = False
                self.say("Sync cancelled: nothing written.")

        self.push_screen(ConfirmScreen("Legion sync: import and export", body, confirm_label="Sync"), answered)

    @work(thread=True, group="sync", exit_on_error=False)
    def run_sync(self) -> None:
        legion = self.ctx.legion()
        assert legion is not None  # action_sync checked the folder
        try:
            with self.ctx.session() as store:
                report: SyncReport = legion_sync(store, legion, repo=self.ctx.repo)
            message = report.summary()
            self.call_from_thread(self._sync_done, message, "information")
        except MnemeError as exc:
            self.call_from_thread(self._sync_done, f"Sync failed: {exc}", "error")
        except Exception as exc:  # a sync bug must not take the app down
            self.call_from_thread(self._sync_done, f"Sync failed: {type(exc).__name__}: {exc}", "error")

    def _sync_done(self, message: str, severity: str) -> None:
        self.sync_running = False
        self.say(message, severity)
        self.data_changed(None, "sync")

    # -------------------------------------------------------- command palette
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode in MODE_SCREENS:
            yield SystemCommand(
                f"Go to {mode.MODE_TITLE}",
                f"{mode.MODE_DESCRIPTION} (key {mode.MODE_KEY})",
                partial(self.action_mode, mode.MODE_NAME),
            )
        yield SystemCommand("Help: every key", "Show all keys of every screen (? or F1)", self.action_help)
        yield SystemCommand("Legion sync", "Import and export the .planning/memory files (key s)", self.action_sync)
        yield SystemCommand(
            "New memory", "Save a new memory: content, topic, kind, repo (key n)", self.action_new_memory
        )
        yield SystemCommand("Undo", "Undo the last save, Recall dismissal or detail action (key u)", self.action_undo)
        base = self._current_mode_screen()

        def in_force(binding: Binding) -> Binding:  # the [keys] remapping applied
            return Binding(keys_in_force(binding, self.keys).split(",")[0], binding.action, binding.description)

        if base is not None:
            title = type(base).MODE_TITLE
            for binding in screen_bindings(type(base)):
                if not binding.description:
                    continue
                yield SystemCommand(
                    f"{title}: {binding.description}",
                    f"{binding.tooltip or binding.description} (key {self.get_key_display(in_force(binding))})",
                    partial(base.run_action, binding.action),
                )


def all_binding_ids(app: App) -> list[str]:
    """The id of every binding of the app, its modes and the screens opened from them (for ``[keys]``)."""
    from mneme_tui.tui.screens.help import keyed_screens

    return [binding.id for _, bindings in keyed_screens(app) for binding in bindings if binding.id]


def stylesheets() -> list[str]:
    """The app's stylesheets: ``app.tcss``, ``<mode>.tcss`` for every mode, and ``dialogs.tcss``."""
    return ["app.tcss", *(f"{mode.MODE_NAME}.tcss" for mode in MODE_SCREENS), "dialogs.tcss"]


def legion_signature(folder: Path | None) -> tuple:
    """``(name, mtime_ns, size)`` of every ``*.md`` in the Legion folder (empty when there is none)."""
    if folder is None:
        return ()
    try:
        entries = sorted(folder.glob("*.md"))
    except OSError:
        return ()
    signature = []
    for path in entries:
        try:
            stat = path.stat()
        except OSError:
            continue
        signature.append((path.name, stat.st_mtime_ns, stat.st_size))
    return tuple(signature)
