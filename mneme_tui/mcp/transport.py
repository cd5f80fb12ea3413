"""The stdio transport of ``mneme mcp``: bounded messages, and an answer to every request.

The SDK's own stdio transport reads a line of any length into memory (``mneme mcp < /dev/zero`` grew to
gigabytes and died with a ``MemoryError`` traceback) and drops a line its JSON parser refuses without a
reply, so a client waits forever for a request holding a lone surrogate (``"\\ud800"``), a 5,000-digit
number or nesting 300 deep. This transport sits under the SDK's (which still parses and dispatches):

- A message is at most ``MAX_MESSAGE_BYTES``; a longer one is answered with a JSON-RPC error as soon as it
  passes the limit, and the rest of it is read and dropped without being kept.
- A line that is not JSON is answered ``-32700`` (parse error, id null); JSON the SDK cannot take (a lone
  surrogate, a huge number, deep nesting, not a JSON-RPC message) is answered ``-32600`` with the request's
  id. A notification (no id) gets no answer, as JSON-RPC says; each refusal is a warning on stderr.
- stdin and stdout are moved off file descriptors 0 and 1 while serving, so nothing a tool or a child
  process prints can land on the protocol stream.
"""

from __future__ import annotations

import json
import logging
import os
import re
import selectors
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from mneme_tui.errors import MnemeError
from mneme_tui.validation import check_document

MAX_MESSAGE_BYTES = 24 * 1024 * 1024
"""The longest JSON-RPC message read: room for a task report at its 10 MB limit, JSON-escaped in a call."""
_CHUNK = 1 << 16
DIRECT_WRITE_CHARS = 16 * 1024
"""Messages up to this length are written from the event loop (a pipe's buffer holds 64 KiB)."""
_ID_PATTERN = re.compile(rb'"id"\s*:\s*(-?\d{1,20}|"(?:[^"\\]|\\.){0,200}")')
"""A request id near a message's start (clients write ``jsonrpc`` and ``id`` first), read from a message
too large to parse, so its refusal reaches the caller waiting for it."""
PARSE_ERROR, INVALID_REQUEST = -32700, -32600

log = logging.getLogger("mneme_tui.mcp.transport")


class ProtocolOutput:
    """The protocol's output stream (a private copy of stdout): whole lines, one writer at a time."""

    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor
        self._lock = threading.Lock()

    def write_line(self, text: str) -> None:
        data = text.encode("utf-8", "backslashreplace")
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self._descriptor, view) :]

    async def write(self, text: str) -> None:
        """The SDK's writer interface (it writes each message with its newline in one call). A short message
        is written at once (a pipe takes it whole); a long one from a worker thread, so a slow reader does not
        hold up the event loop."""
        if len(text) <= DIRECT_WRITE_CHARS:
            self.write_line(text)
        else:
            await anyio.to_thread.run_sync(self.write_line, text)

    async def flush(self) -> None:
        """Nothing to flush: every write goes straight to the descriptor."""

    def error(self, request_id: Any, code: int, message: str) -> None:
        """Answer ``request_id`` (None: a message whose id is unknown) with a JSON-RPC error."""
        reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        self.write_line(json.dumps(reply, ensure_ascii=True) + "\n")


class BoundedLines:
    """Messages (lines without their newline) cut from chunks of input, each at most ``MAX_MESSAGE_BYTES``;
    a longer one is refused through ``output`` as soon as it passes the limit and the rest of it is skipped,
    never stored."""

    def __init__(self, output: ProtocolOutput) -> None:
        self._output = output
        self._pending = bytearray()
        self._skipping = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """The messages ``chunk`` completes (the start of the next one is kept for the next chunk)."""
        lines = []
        while chunk:
            line, newline, chunk = chunk.partition(b"\n")
            if not self._skipping:
                self._pending += line
                if len(self._pending) > MAX_MESSAGE_BYTES:
                    _refuse_oversized(bytes(self._pending[:4096]), self._output)
                    self._pending.clear()
                    self._skipping = True
            if newline:
                if not self._skipping:
                    lines.append(bytes(self._pending))
                self._pending.clear()
                self._skipping = False
        return lines

    def end(self) -> list[bytes]:
        """The last message when the input ended without a newline after it."""
        return [bytes(self._pending)] if self._pending and not self._skipping else []


def _refuse_oversized(start: bytes, output: ProtocolOutput) -> None:
    found = _ID_PATTERN.search(start)
    request_id = json.loads(found.group(1)) if found else None
    _refuse(
        output, request_id, INVALID_REQUEST, f"message refused: longer than the limit of {MAX_MESSAGE_BYTES:,} bytes"
    )


def checked_message(line: bytes, output: ProtocolOutput) -> str | None:
    """``line`` as text when the SDK can take it as a JSON-RPC message; otherwise None, after answering it
    (``-32700`` for what is not JSON, ``-32600`` with the request's id for the rest)."""
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
        document = json.loads(text, parse_int=_id_or_digits)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        _refuse(output, None, PARSE_ERROR, f"parse error: {_short(exc)}")
        return None
    request_id = document.get("id") if isinstance(document, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    try:
        check_document(document, "the request")
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except MnemeError as exc:  # a lone surrogate escape: the SDK's parser says only "unexpected end of hex escape"
        reason = exc.message
    except ValueError as exc:  # a number out of range, nesting too deep, not a JSON-RPC message
        reason = _short(exc).split(" [type=")[0]
    else:
        return text
    if request_id is not None or not (isinstance(document, dict) and "method" in document):
        _refuse(output, request_id, INVALID_REQUEST, f"invalid request: {reason}")  # notifications get no answer
    return None


def _id_or_digits(digits: str) -> int | str:
    """``parse_int`` for the check: a number of id size as an int, a longer one left as its digits (Python
    refuses to convert over 4,300 digits, and the request's id must still be found)."""
    return int(digits) if len(digits) <= 20 else digits


def _short(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return (lines[1] if len(lines) > 1 and "validation error" in lines[0] else lines[0] if lines else "")[:200]


def _refuse(output: ProtocolOutput, request_id: Any, code: int, message: str) -> None:
    log.warning("mneme: refused a message (id %s): %s", request_id, message)
    output.error(request_id, code, message)


class CheckedInput:
    """The SDK's reader interface over ``descriptor``: each message it can take, as one line of text (the
    others answered on the way). A pipe or a terminal is read in the event loop once it has input, with no
    thread hop; what the loop cannot wait for (a file, ``/dev/zero``, any input on Windows) from a worker
    thread, a chunk at a time."""

    def __init__(self, descriptor: int, output: ProtocolOutput) -> None:
        self._descriptor = descriptor
        self._output = output
        self._lines = BoundedLines(output)
        self._ready: deque[bytes] = deque()
        self._ended = False
        self._pollable = _pollable(descriptor)

    def __aiter__(self) -> CheckedInput:
        return self

    async def __anext__(self) -> str:
        while True:
            while self._ready:
                text = checked_message(self._ready.popleft(), self._output)
                if text is not None:
                    return text
            if self._ended:
                raise StopAsyncIteration
            chunk = await self._read()
            self._ready.extend(self._lines.feed(chunk) if chunk else self._lines.end())
            self._ended = not chunk

    async def _read(self) -> bytes:
        """The next chunk of input (empty at its end)."""
        if self._pollable:
            await anyio.wait_readable(self._descriptor)
            return os.read(self._descriptor, _CHUNK)  # readable: it returns what is there without waiting
        return await anyio.to_thread.run_sync(os.read, self._descriptor, _CHUNK)


def _pollable(descriptor: int) -> bool:
    """Whether the event loop can wait for ``descriptor`` to be readable (its selector takes it)."""
    if os.name == "nt":  # the loop there waits for sockets only
        return False
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(descriptor, selectors.EVENT_READ)
        except (OSError, ValueError):  # a regular file or /dev/zero: epoll refuses it
            return False
    return True


@contextmanager
def _private_stdio() -> Iterator[tuple[int, int]]:
    """Private copies of stdin and stdout for the protocol; fd 0 reads the null device and fd 1 writes to
    stderr meanwhile (restored at the end)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for descriptor in (null, wire_in, wire_out):
            os.close(descriptor)


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio streams (read, write) over the bounded, checked reader and the locked writer."""
    with _private_stdio() as (wire_in, wire_out):
        output = ProtocolOutput(wire_out)
        async with stdio_server(stdin=CheckedInput(wire_in, output), stdout=output) as streams:  # type: ignore[arg-type]
            yield streams


def run(server: Server[Any]) -> None:
    """Serve ``server`` over the bounded stdio transport until the client closes stdin."""
    anyio.run(_serve, server)


async def _serve(server: Server[Any]) -> None:
    async with bounded_stdio() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
