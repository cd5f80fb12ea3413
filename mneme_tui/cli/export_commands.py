"""``mneme export`` and ``mneme import``: memories with their links, provenance and history as JSONL (the
interchange format) or Markdown (for people), and back into a store (issue 23). See docs/export.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mneme_tui import config
from mneme_tui.cli import arguments, output
from mneme_tui.errors import ERR_IO, ERR_VALIDATION_FAILED, MnemeError
from mneme_tui.memory import kinds as K

FORMATS = ("jsonl", "markdown")


def register(sub: argparse._SubParsersAction) -> None:
    export = arguments.add_command(
        sub,
        "export",
        "write memories with their links, provenance and history as JSONL (to import elsewhere) or Markdown (to read)",
    )
    export.add_argument("--format", choices=FORMATS, default="jsonl", help="jsonl (default) or markdown")
    export.add_argument("-p", "--project", metavar="REPO", help="repository (default: the active repo)")
    export.add_argument("-A", "--all", dest="all_repos", action="store_true", help="every repository")
    export.add_argument(
        "--status",
        choices=(*K.STATUSES, "all"),
        default=K.ACTIVE,
        help="which memories (default: active; `all` for a lossless copy)",
    )
    export.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="the file to write (jsonl) or the folder for one file per repo (markdown); default: standard output",
    )
    export.set_defaults(func=cmd_export)
    imported = arguments.add_command(
        sub,
        "import",
        "add the memories of a JSONL export to the store (new ids; memories it already holds are skipped)",
    )
    imported.add_argument("file", metavar="FILE", help="a `mneme export` JSONL file (`-` reads standard input)")
    imported.set_defaults(func=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from mneme_tui.memory.exchange.export_lines import to_jsonl
    from mneme_tui.memory.exchange.markdown import file_name, markdown_by_repo
    from mneme_tui.memory.exchange.transfer import exported_memories

    if args.json and not args.output:
        raise MnemeError(ERR_VALIDATION_FAILED, "--json prints a summary: give -o PATH for the export itself")
    repo = None if args.all_repos else config.resolve_repo(args.project)
    records = exported_memories(arguments.open_store(args), repo_id=repo, status=args.status)
    if args.format == "jsonl":
        written = _write({args.output: to_jsonl(records)} if args.output else {"-": to_jsonl(records)})
    else:
        documents = markdown_by_repo(records)
        folder = Path(args.output) if args.output else None
        written = _write({str(folder / file_name(repo)) if folder else "-": text for repo, text in documents.items()})
    summary: dict[str, Any] = {
        "format": args.format,
        "memories": len(records),
        "repos": sorted({record.memory.repo_id for record in records}),
        "files": written,
    }
    if args.json:
        output.print_json(summary)
    elif args.output:
        where = ", ".join(map(output.literal, written)) or "nothing written"
        print(f"Exported {len(records)} memories ({where}).", file=sys.stderr)
    return 0


def _write(texts: dict[str, str]) -> list[str]:
    """Each text to its path (``-``: standard output), files written whole (temp file, fsync, rename)."""
    from mneme_tui.legion.markdown.storage import atomic_write

    for path, text in texts.items():
        if path == "-":
            sys.stdout.write(text)
            continue
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(Path(path), text)
        except OSError as exc:
            raise MnemeError(ERR_IO, f"cannot write {path}: {exc.strerror or exc}") from None
    return [path for path in texts if path != "-"]


def cmd_import(args: argparse.Namespace) -> int:
    from mneme_tui.memory.exchange.export_lines import parse_jsonl
    from mneme_tui.memory.exchange.transfer import import_memories

    source = "standard input" if args.file == "-" else args.file
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        text = data.decode("utf-8")
    except OSError as exc:
        raise MnemeError(ERR_IO, f"cannot read {args.file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise MnemeError(ERR_VALIDATION_FAILED, f"{source} is not UTF-8 text") from None
    result = import_memories(arguments.open_store(args, create=True), parse_jsonl(text, source), source)
    if args.json:
        output.print_json({"file": source, **result.to_json()})
    else:
        print(
            f"Imported {result.imported} memories ({result.history} history entries) from "
            f"{output.literal(source)}; {result.skipped} already in the store."
        )
    return 0
