"""What an operation is: its parameters (type, help, choices, default, bounds, the surfaces that have them)
and what it does to the store (for the MCP annotations). The CLI's argparse commands, the MCP tools and the
CLI reference page are all built from these declarations; nothing here knows argparse or MCP."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

TEXT, INT, BOOL, TEXT_LIST, INT_LIST, OBJECT = "text", "integer", "boolean", "text list", "integer list", "object"
MEMORY_ID, MEMORY_IDS = "memory id", "memory ids"
"""Parameter types. A memory id is an integer that both surfaces check the same way (``not a memory id``)."""

CLI, MCP = "cli", "mcp"
BOTH: frozenset[str] = frozenset({CLI, MCP})


class Effect(Enum):
    """What an operation does to its world, as the MCP annotations say it (read-only, destructive, idempotent),
    and whether it can be undone (the fourth value: only a purge cannot)."""

    READ = (True, False, True, True)
    """Reads (a ``task_id`` may record that the task read a memory: bookkeeping, never content or status)."""
    ADD = (False, False, False, True)
    """Adds something new each time it runs."""
    ADD_ONCE = (False, False, True, True)
    """Adds something, but the same call again adds nothing more (a known item is recognised)."""
    CHANGE = (False, True, True, True)
    """Changes the status of what exists (audited and undoable, never deleted); repeating it changes nothing."""
    REPLACE = (False, True, False, True)
    """Adds a new item and may change or move old ones (a supersession; an outcome that sets off the project's
    auto-prune, which moves old outcomes to ARCHIVE.md)."""
    DELETE = (False, True, False, False)
    """Removes text for good (``purge``, the one deletion: audited, never undoable)."""

    @property
    def read_only(self) -> bool:
        return self.value[0]

    @property
    def destructive(self) -> bool:
        return self.value[1]

    @property
    def idempotent(self) -> bool:
        return self.value[2]

    @property
    def creates_store(self) -> bool:
        """Whether the operation only adds, needing nothing that exists: a store that does not exist yet is
        created for it (every other operation refuses a missing store with one line and creates nothing)."""
        return self in (Effect.ADD, Effect.ADD_ONCE)


@dataclass(frozen=True)
class Param:
    """One parameter of an operation.

    ``name`` is the MCP argument and the keyword the operation's code receives; ``flags`` are the CLI's option
    strings (none: a positional argument shown as ``metavar``). ``default_note`` is what the CLI's help says of
    the default (``(default: …)``), for defaults the schema cannot show (``the active repo``). ``choices`` are
    listed in the schema as an enum; ``checked_by`` says who refuses other values: ``"parser"`` (argparse and the
    MCP argument check) or ``"operation"`` (the store, with its own message, the same on both surfaces)."""

    name: str
    type: str
    help: str
    flags: tuple[str, ...] = ()
    metavar: str | None = None
    default: Any = None
    default_note: str = ""
    choices: tuple[str, ...] = ()
    checked_by: str = "parser"
    required: bool = False
    minimum: int | None = None
    surfaces: frozenset[str] = BOTH
    dest: str | None = None
    """The argparse destination when it differs from ``name`` (``-A/--cross-repo`` fills ``cross_repo``)."""
    comma_list: bool = False
    """A list given on the CLI as one comma-separated value (``--tags a,b``) instead of several words."""
    repeated: bool = False
    """A list given on the CLI by repeating the flag (``--kind cold --kind stale``), one value each, so a word after
    it is never taken as one more value (``review --kind cold accept P``)."""
    negatable: bool = False
    """A yes/no/unset flag: ``--x`` / ``--no-x`` (default None)."""
    negated_flag: bool = False
    """The CLI flag sets the value to False (``--unresolved`` for ``resolved``); the MCP default is True."""
    reads_stdin: bool = False
    """On the CLI, ``-`` reads the value from standard input (the CLI's help says so)."""

    @property
    def positional(self) -> bool:
        return not self.flags

    @property
    def cli_dest(self) -> str:
        return self.dest or self.name

    def on(self, surface: str) -> bool:
        return surface in self.surfaces

    def cli_help(self) -> str:
        """The CLI's help line: the help, the choices when argparse does not list them, what ``-`` and commas
        do, then what the default is when the declaration says so."""
        text = f"{self.help}: {', '.join(self.choices)}" if self.choices and self.checked_by != "parser" else self.help
        text = f"{text}; '-' reads standard input" if self.reads_stdin else text
        text = f"{text} (comma-separated)" if self.comma_list else text
        text = f"{text} (repeat the option for more)" if self.repeated else text
        return f"{text} (default: {self.default_note})" if self.default_note else text

    def mcp_help(self) -> str:
        """The MCP description: the CLI's help, worded for a value (a negated flag's help is what ``false``
        means); the choices (the schema's enum) and a default the schema shows itself are not repeated."""
        text = f"false: {self.help}" if self.negated_flag else self.help
        if self.default_note and self.default is None:
            return f"{text} (default: {self.default_note})"
        return text


REDACT_PARAM = Param(
    "redact",
    BOOL,
    "store a secret found in the text as [REDACTED:<type>] instead of refusing the write",
    flags=("--redact",),
    default=False,
    default_note="the config file's secrets setting, else refuse",
)
"""Every write of text takes it: a secret is otherwise refused (ERR_SECRET), never stored or echoed."""


@dataclass(frozen=True)
class Operation:
    """One operation: its CLI command words and MCP tool name, what it is for, its parameters and effect.

    ``summary`` is the CLI's one-line help and the start of the tool's description; ``details`` is the rest
    of the tool's description (plain sentences, no indentation). ``past`` completes ``nothing …`` in the
    message about a bad memory id (``not a memory id: x; nothing shown``)."""

    tool: str
    command: tuple[str, ...]
    title: str
    summary: str
    params: tuple[Param, ...]
    effect: Effect
    details: str = ""
    past: str = ""
    run: Callable[..., Any] | None = field(default=None, compare=False)
    """The work, shared by both surfaces: ``run(session, **values)`` → the result object (None: each surface
    does the work itself, because the two differ in what they read, such as a report file or an object)."""
    to_json: Callable[[Any, dict[str, Any]], Any] = field(
        default=lambda result, values: result.to_json(), compare=False
    )
    """The JSON result builder: (the result object, the values) → the document ``--json`` prints and MCP
    answers (by default the result's own ``to_json()``)."""
    mcp_json: Callable[[Any, dict[str, Any]], Any] | None = field(default=None, compare=False)
    """What MCP answers instead, when it is leaner than ``--json`` (``save``: the id and a short echo)."""

    def param(self, name: str) -> Param:
        """The parameter called ``name``."""
        return next(param for param in self.params if param.name == name)

    def params_on(self, surface: str) -> tuple[Param, ...]:
        """The parameters one surface has, in declaration order."""
        return tuple(param for param in self.params if param.on(surface))

    def mcp_document(self, result: Any, values: dict[str, Any]) -> Any:
        """The MCP tool's answer: ``mcp_json`` if the operation has one, else its ``--json`` document."""
        return (self.mcp_json or self.to_json)(result, values)

    def description(self) -> str:
        """The MCP tool's description: the summary as a sentence, then the details."""
        first = self.summary[:1].upper() + self.summary[1:]
        return f"{first}. {self.details}".strip() if self.details else f"{first}."
