"""A memory in full with its audit history, and what can be done with it: edit (as supersede), dismiss,
restore, pin, copy, jump to its newer or older version, undo, purge."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from mneme_tui import config, display
from mneme_tui.editor import edit_text
from mneme_tui.errors import MnemeError
from mneme_tui.memory import kinds as K
from mneme_tui.memory.purge import PurgeResult, purge
from mneme_tui.memory.records import TUI, Memory, StatusChange
from mneme_tui.memory.records import MemoryDetail as MemoryRecord
from mneme_tui.memory.store import Store
from mneme_tui.tui.keymap import with_ids
from mneme_tui.tui.screens.base import DISMISS_REASON, UNDO_REASON, Undo, undo_last, write_in_worker
from mneme_tui.tui.screens.purge_confirm import PurgeConfirmScreen
from mneme_tui.tui.widgets.footer import KeyFooter
from mneme_tui.tui.widgets.memory_detail import MemoryDetail, memory_text

RESTORE_REASON = "restored in the TUI"
PURGE_REASON = "purged in the TUI"
EDIT_REASON = "edited in the TUI"
PIN_MARK = "◆"
PIN_STYLE = "bold magenta"

if TYPE_CHECKING:
    from mneme_tui.memory.curation.same_text import TextMatch
    from mneme_tui.tui.app import MnemeApp


class MemoryScreen(ModalScreen[None]):
    """One memory (opened with enter from Recall, Memories or Graduation) and the actions on it."""

    BINDINGS = with_ids(
        "detail",
        [
            Binding("escape,q,enter", "close", "Close"),
            Binding(
                "e",
                "edit",
                "Edit",
                tooltip="Edit the text in $VISUAL/$EDITOR: saves a new memory that supersedes this one",
            ),
            Binding("d", "dismiss_memory", "Dismiss", tooltip="Dismiss (tombstone) this memory"),
            Binding("r", "restore", "Restore", tooltip="Bring a dismissed or superseded memory back to active"),
            Binding("y", "copy", "Copy", tooltip="Copy the text to the clipboard (OSC 52)"),
            Binding(
                "p",
                "toggle_pin",
                "Pin",
                tooltip="Pin or unpin this memory (pinned: never proposed as cold, listed first in a handshake)",
            ),
            Binding("greater_than_sign", "newer", "Newer", tooltip="Open the memory that supersedes this one"),
            Binding("less_than_sign", "older", "Older", tooltip="Open the memory this one superseded"),
            Binding(
                "u", "undo", "Undo", tooltip="Undo the last action (dismiss ↔ restore; an edit restores the old text)"
            ),
            Binding(
                "P",
                "purge",
                "Purge",
                show=False,
                tooltip="Purge: remove the text for good (a leaked secret), after typing the word purge",
            ),
            Binding("n", "app.new_memory", "New", tooltip="Save a new memory"),  # a modal hides the app's keys
        ],
    )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only: the write keys are shown disabled and do nothing."""
        return True if self.mneme.allows("detail", action) else None

    def __init__(self, memory_id: int) -> None:
        super().__init__()
        self.memory_id = memory_id
        self.record: MemoryRecord | None = None
        self.pinned = False

    @property
    def mneme(self) -> MnemeApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-dialog", classes="dialog"):
            yield Static(self._title(), id="memory-title", classes="dialog-title")
            yield MemoryDetail("Loading…", id="memory-detail")
        yield KeyFooter()

    def _title(self) -> Text:
        title = Text(f"Memory #{self.memory_id}", style="bold", end="")
        if self.pinned:
            title.append(f"  {PIN_MARK} pinned", style=PIN_STYLE)
        return title

    def on_mount(self) -> None:
        self.query_one(MemoryDetail).focus()
        self.load()

    # ------------------------------------------------------------------ load
    def load(self) -> None:
        """Fetch the memory, its history and its other versions in a worker, then show them."""
        memory_id = self.memory_id
        ctx = self.mneme.ctx

        def work() -> None:
            try:
                with ctx.session() as store:
                    record = store.detail(memory_id)
                    pinned = memory_id in store.pinned_ids()
            except MnemeError as exc:
                self.app.call_from_thread(self._failed, str(exc))
                return
            self.app.call_from_thread(self._show, record, pinned)

        self.run_worker(work, thread=True, exclusive=True, group="memory-detail", exit_on_error=False)

    def _show(self, record: MemoryRecord, pinned: bool) -> None:
        if record.memory.id != self.memory_id:
            return  # a jump happened meanwhile
        self.record = record
        self.pinned = pinned
        self.query_one("#memory-title", Static).update(self._title())
        body = memory_text(
            record.memory,
            config.now(),
            history=record.history,
            tasks=record.accessed_by,
            superseded_by=record.superseded_by,
            supersedes=record.supersedes,
            created_by=record.created_by,
        )
        self.query_one(MemoryDetail).show(body, record.memory.id)

    def _failed(self, message: str) -> None:
        self.record = None
        self.query_one(MemoryDetail).clear(message)

    def open_memory(self, memory_id: int) -> None:
        """Show another memory in this view (a jump, or the result of an edit)."""
        self.memory_id = memory_id
        self.record = None
        self.pinned = False
        self.query_one("#memory-title", Static).update(self._title())
        self.load()

    def _memory(self) -> Memory | None:
        return self.record.memory if self.record is not None else None

    # ------------------------------------------------------------------ actions
    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        memory = self._memory()
        if memory is None:
            return
        self.app.copy_to_clipboard(memory.content)
        self.mneme.say(
            f"Copied the text of #{memory.id} ({len(memory.content)} characters) to the clipboard "
            "through the terminal (OSC 52); where the terminal ignores that, select it by hand."
        )

    def action_newer(self) -> None:
        if self.record is None:
            return
        if self.record.superseded_by is None:
            self.mneme.say(f"Nothing supersedes #{self.memory_id}.")
            return
        self.open_memory(self.record.superseded_by.id)

    def action_older(self) -> None:
        if self.record is None:
            return
        if not self.record.supersedes:
            self.mneme.say(f"#{self.memory_id} supersedes no memory.")
            return
        self.open_memory(self.record.supersedes[-1].id)

    def action_toggle_pin(self) -> None:
        """Pin this memory, or unpin it when it is pinned (Store.pin / Store.unpin, audited)."""
        memory = self._memory()
        if memory is None:
            return
        toggle_pin(self, memory.id, unpin=self.pinned, then=self.load, failed=self._write_failed)

    def action_dismiss_memory(self) -> None:
        self._set_status(K.TOMBSTONED)

    def action_restore(self) -> None:
        self._set_status(K.ACTIVE)

    def _set_status(self, target: str) -> None:
        """Dismiss (``target`` tombstoned) or restore (active) the memory; the undo puts back exactly what
        changed (a restored superseded memory gets its ``superseded_by`` link back)."""
        memory = self._memory()
        if memory is None:
            return
        if memory.status == target:
            self.mneme.say(f"#{memory.id} is already {target}.")
            return
        dismissing = target == K.TOMBSTONED
        did = f"Dismissed #{memory.id}" if dismissing else f"Restored #{memory.id} to active"
        relink = not dismissing and memory.status == K.SUPERSEDED

        def write(store: Store) -> StatusChange:
            if dismissing:
                return store.dismiss([memory.id], reason=DISMISS_REASON)
            return store.restore([memory.id], reason=RESTORE_REASON)

        def done(change: StatusChange) -> None:
            undo = Undo(undo_write(change, memory, relink), f"#{memory.id} is {memory.status} again", memory.id)
            self.mneme.undo_stack.append(undo)
            self.mneme.say(f"{did} — press u to undo.")
            self.load()

        write_in_worker(self, write, done, self._write_failed, group="memory-detail-write")
        # the next key acts on the state this write leaves (the reload after it shows the store's own)
        if self.record is not None:
            self.record = replace(self.record, memory=replace(memory, status=target))

    def _write_failed(self, message: str) -> None:
        self.mneme.say(message, "error")
        self.load()

    def action_undo(self) -> None:
        undo_last(self, lambda entry: self.open_memory(entry.show_id or self.memory_id))

    # ------------------------------------------------------------------ purge
    def action_purge(self) -> None:
        memory = self._memory()
        if memory is None:
            return

        def confirmed(answer: bool | None) -> None:
            if not answer:
                self.mneme.say(f"Not purged: #{memory.id} is as it was.")
                return

            def done(result: PurgeResult) -> None:
                tail = (
                    ""
                    if result.clean
                    else " (another process holds the database open: purge again later to empty its write-ahead log)"
                )
                self.mneme.say(f"Purged #{memory.id}: its text is gone; this cannot be undone{tail}.")
                self.load()

            write_in_worker(
                self,
                lambda store: purge(store, [memory.id], reason=PURGE_REASON),
                done,
                self._write_failed,
                group="memory-detail-write",
            )

        self.app.push_screen(PurgeConfirmScreen(memory), confirmed)

    # ------------------------------------------------------------------ edit
    def action_edit(self) -> None:
        memory = self._memory()
        if memory is None:
            return
        if memory.kind in K.STATUTORY_KINDS:
            self.mneme.say(
                f"#{memory.id} is {display.with_article(memory.kind)}: statutory kinds are written only "
                "by task sync and the Legion import, so it cannot be edited by hand. Dismiss it (d) and "
                "save a new memory (n).",
                "error",
            )
            return
        if memory.status != K.ACTIVE:
            self.mneme.say(
                f"#{memory.id} is {memory.status}: only active memories can be edited (r restores it).", "error"
            )
            return
        try:
            text = edit_suspended(self.app, memory.content, f"memory-{memory.id}.md")
        except MnemeError as exc:
            self.mneme.say(f"Edit failed: {exc.message}", "error")
            return
        if text == memory.content:
            self.mneme.say(f"Nothing changed: #{memory.id} is as it was.")
            return
        if not text.strip():
            self.mneme.say(f"The edited text is empty: #{memory.id} is unchanged.", "error")
            return

        def done(saved: tuple[Memory, TextMatch]) -> None:
            new, match = saved
            if match.duplicate_of is not None:  # nothing stored: nothing to undo
                self.mneme.say(f"{match.notice()}; #{memory.id} is unchanged.")
                return
            undone = f"Undid the edit: #{memory.id} is active again, #{new.id} dismissed"
            self.mneme.undo_stack.append(Undo(undo_supersede(memory.id, new.id), undone, memory.id))
            self.mneme.say(f"Saved the edit as #{new.id}; #{memory.id} is superseded by it — press u to undo.")
            self.open_memory(new.id)

        write_in_worker(
            self,
            lambda store: store.supersede_checked(memory.id, text, reason=EDIT_REASON, source=TUI),
            done,
            self._write_failed,
            group="memory-detail-write",
        )


def toggle_pin(
    owner: DOMNode, memory_id: int, *, unpin: bool, then: Callable[[], None], failed: Callable[[str], None]
) -> None:
    """``p``: pin one memory (or unpin it) in a worker of ``owner``; a toast says what that means, then ``then``."""
    app: MnemeApp = owner.app  # type: ignore[assignment]

    def done(changed: list[int]) -> None:
        app.say(pin_message(memory_id, unpin, bool(changed)))
        then()

    write_in_worker(owner, lambda store: (store.unpin if unpin else store.pin)([memory_id]), done, failed, group="pin")


def pin_message(memory_id: int, unpinned: bool, changed: bool) -> str:
    """The toast after ``p``: what the pin now means, or that nothing changed."""
    if not changed:
        return f"#{memory_id} was already {'unpinned' if unpinned else 'pinned'}."
    if unpinned:
        return f"Unpinned #{memory_id}: it can be proposed as cold again; p pins it back."
    return f"Pinned #{memory_id} ({PIN_MARK}): never proposed as cold, listed first in a handshake; p unpins it."


def edit_suspended(app: App, text: str, name: str) -> str:
    """Edit ``text`` in the user's editor with the app suspended (the editor gets the terminal), and
    return the result; MnemeError when the editor fails. Where the driver cannot suspend (headless, the
    web) the editor runs without the terminal, which suits a GUI editor such as ``code --wait``."""
    failure: MnemeError | None = None
    edited = text
    with ExitStack() as stack:
        with suppress(SuspendNotSupported):
            stack.enter_context(app.suspend())
        try:
            edited = edit_text(text, name)
        except MnemeError as exc:  # caught inside, so the app resumes before the error is shown
            failure = exc
    if failure is not None:
        raise failure
    return edited


def undo_write(change: StatusChange, memory: Memory, relink: bool) -> Callable[[Store], StatusChange]:
    """The store write that undoes ``change`` to ``memory`` as it was before; with ``relink`` (a restore of
    a superseded memory) it is marked superseded by its newer version again, link included."""

    def write(store: Store) -> StatusChange:
        if relink and memory.superseded_by:
            return store.mark_superseded(memory.id, memory.superseded_by, reason=UNDO_REASON)
        return store.undo(change, reason=UNDO_REASON)

    return write


def undo_supersede(old_id: int, new_id: int) -> Callable[[Store], StatusChange]:
    """The store write that undoes an edit: the old memory active again, the new one dismissed."""

    def write(store: Store) -> StatusChange:
        def both() -> StatusChange:
            restored = store.restore([old_id], reason=UNDO_REASON)
            dismissed = store.dismiss([new_id], reason=UNDO_REASON)
            return StatusChange(restored.changed + dismissed.changed)

        return store.run_transaction(both)

    return write
