"""Untrusted input, checked and bounded before it is used: text that must be valid UTF-8, files and streams
read only up to a documented limit, and numbers in JSON documents of bounded size.

Python decodes command-line arguments (and, in the C locale, standard input) with ``surrogateescape``: a
byte that is not UTF-8 becomes a lone surrogate such as ``\\udcff``, which later breaks SQLite, JSON output
and printing. JSON's ``"\\udcff"`` escape produces the same. Every such text is refused here, up front.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError

MAX_CONTENT_CHARS = 100_000
"""The longest memory content, in characters."""
MAX_ID = 2**63 - 1
"""SQLite's largest INTEGER: no memory id can be above it."""
MAX_JSON_INT_DIGITS = 20
"""The longest integer a JSON input may hold (a 64-bit integer has at most 20 digits)."""
MAX_TOPIC_BYTES = 1024
"""The longest memory topic, in bytes of UTF-8 (PostgreSQL's btree indexes refuse a row over about 2,700 bytes,
and the topic and task id are in two of them, so both are bounded on every backend)."""
MAX_TASK_ID_BYTES = 512
"""The longest task id, in bytes of UTF-8 (see ``MAX_TOPIC_BYTES``)."""


def check_text(value: str, name: str) -> str:
    """``value`` unchanged; ERR_VALIDATION_FAILED naming ``name`` when it is not valid UTF-8 text
    (a lone surrogate: an undecodable byte under ``surrogateescape``, or a JSON ``\\udcff`` escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(value[exc.start])
        byte = f" (byte 0x{char - 0xDC00:02x})" if 0xDC80 <= char <= 0xDCFF else ""
        raise MnemeError(
            ERR_VALIDATION_FAILED,
            f"{name} is not valid UTF-8 text: lone surrogate \\u{char:04x}{byte} at character {exc.start}",
        ) from None
    return value


def check_document(document: Any, name: str) -> None:
    """ERR_VALIDATION_FAILED when any key or string in a decoded JSON document is not valid UTF-8 text."""
    pending = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            check_text(value, name)
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)


def json_int(digits: str) -> int:
    """``parse_int`` hook for ``json.loads``: an integer of at most MAX_JSON_INT_DIGITS digits, else ValueError
    (which ``json.loads`` passes on; catch it after ``json.JSONDecodeError``)."""
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        count = len(digits.lstrip("-"))
        raise ValueError(f"a number with {count} digits exceeds the limit of {MAX_JSON_INT_DIGITS} digits")
    return int(digits)


def too_large(what: str, limit_name: str, limit: int, unit: str = "bytes") -> MnemeError:
    """The error for input past a documented limit, naming the limit."""
    return MnemeError(ERR_VALIDATION_FAILED, f"{what} exceeds the {limit_name} limit of {limit:,} {unit}")


def check_size(value: str, name: str, limit: int) -> str:
    """``value`` unchanged; ERR_VALIDATION_FAILED naming the ``name`` size limit when ``value`` is longer than
    ``limit`` bytes of UTF-8."""
    if len(value) * 4 > limit:  # (at most 4 bytes a character: a short text needs no encoding)
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise too_large(f"the {name} ({size:,} bytes of UTF-8)", f"{name} size", limit)
    return value


def cut_to_size(value: str, limit: int) -> str:
    """``value`` cut to at most ``limit`` bytes of UTF-8 (on a character boundary, ending in ``…``) when longer."""
    data = value.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return value
    ellipsis = "…".encode()
    return data[: limit - len(ellipsis)].decode("utf-8", "ignore") + "…"


def read_stream(stream: BinaryIO, limit: int, refusal: MnemeError) -> bytes:
    """At most ``limit`` bytes of ``stream``: reads ``limit + 1`` bytes at most and raises ``refusal`` past that."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise refusal
    return data


def read_file(path: str | os.PathLike[str], limit: int, what: str, limit_name: str) -> bytes:
    """The bytes of the regular file ``path``, refused before reading when larger than ``limit`` bytes.

    ERR_IO when it is missing, unreadable or not a regular file (a folder, a FIFO, a device: a FIFO is
    opened without blocking, so it cannot hang); ERR_VALIDATION_FAILED naming the limit when too large.
    """
    source = Path(path)
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot read {what} {source}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise MnemeError(ERR_IO, f"{what} {source} is {kind}; only regular files are read")
        refusal = too_large(f"{what} {source}", limit_name, limit)
        if info.st_size > limit:
            raise refusal
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return read_stream(stream, limit, refusal)
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot read {what} {source}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def user_path(raw: str | os.PathLike[str], name: str) -> Path:
    """``raw`` as a Path with ``~`` expanded; ERR_VALIDATION_FAILED naming ``name`` when it is not valid UTF-8
    text or names the home folder (``~user``) of no known user."""
    check_text(os.fspath(raw), name)
    try:
        return Path(raw).expanduser()
    except RuntimeError:
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{name} {os.fspath(raw)!r} names a home folder that does not exist"
        ) from None


def is_folder(path: Path, name: str) -> bool:
    """Whether ``path`` is a folder (False when nothing is there); ERR_VALIDATION_FAILED naming ``name`` when
    it cannot even be looked at (a name too long for the file system, a parent without permission)."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{name} cannot be used: {exc.strerror or exc}") from None


def decode_utf8(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark is dropped); ERR_VALIDATION_FAILED when it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MnemeError(
            ERR_VALIDATION_FAILED, f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def strip_one_newline(text: str) -> str:
    """``text`` without one trailing newline (``\\n`` or ``\\r\\n``)."""
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text
