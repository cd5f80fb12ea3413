"""``mneme mcp``: the MCP server over stdio, its tools built from the operation declarations.

Built on the official ``mcp`` SDK's low-level ``Server``: ``tools/list`` shows each declared operation's
schema, title and annotations; ``tools/call`` checks the arguments against the declaration (unknown,
missing or mistyped ones are one ``ERR_VALIDATION_FAILED`` line), does the work and answers compact JSON
(the CLI's ``--json`` document; a recall without ``detail`` and a save answer leaner). A ``MnemeError`` is a
tool error whose text is the CLI's one-line error after the SDK's usual prefix (``Error executing tool
show: ERR_NOT_FOUND: no memory with id 99``).

One ``Store`` lives as long as the server, so its index stays warm; every recall refreshes it from the
database's revision table first, so writes by other processes are seen by the next answer. Once the index
is loaded, what the process holds is frozen out of the cyclic GC, so no full collection lands in a call. A
store that cannot be opened does not stop the server: every call answers why. stdout belongs to the
protocol: the bounded transport (:mod:`mneme_tui.mcp.transport`) takes it over under the SDK's, and logs go
to stderr.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from mneme_tui import __version__, display
from mneme_tui.errors import MnemeError
from mneme_tui.mcp import prompts, transport
from mneme_tui.mcp.context import Call, ServerContext
from mneme_tui.mcp.tool_schema import tool
from mneme_tui.mcp.tools import TOOLS, answer, error_text
from mneme_tui.validation import check_text

INSTRUCTIONS = (
    "mneme is long-lived memory for coding work: reflections, decisions, learned pitfalls and verified "
    "patterns, ranked for a question without any model. Call `handshake` when a task starts, `recall` "
    "before changing unfamiliar code, and `save` when you learn something the next session should know."
)

__all__ = ["ServerContext", "build_server", "serve"]


def serve(ctx: ServerContext) -> None:
    """Serve over stdio until the client closes stdin; the index loads in the background meanwhile."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(message)s")
    threading.Thread(target=_warm, args=(ctx,), name="mneme-index", daemon=True).start()
    transport.run(build_server(ctx))  # the SDK's stdio protocol with bounded, always-answered messages


def _warm(ctx: ServerContext) -> None:
    """Load the index, then freeze what the process holds (the SDK, pydantic's schemas, the index) out of the
    cyclic GC: a full collection would otherwise walk those 100,000 objects during a call now and then."""
    try:
        ctx.store.refresh_index()
    except MnemeError as exc:  # the first tool call meets the same error and reports it
        logging.getLogger("mneme_tui.mcp").warning("mneme: %s", exc)
    gc.freeze()


def client_name(request: ServerRequestContext[Any]) -> str:
    """The client's name from its MCP initialize request ("" when it gave none): a memory's provenance detail."""
    params = request.session.client_params
    return check_text(params.client_info.name, "client name") if params is not None else ""


def build_server(ctx: ServerContext) -> Server[Any]:
    """The MCP server with every declared tool, the ``handshake`` prompt and the memory resource on ``ctx``."""
    listed = [tool(operation) for operation in TOOLS.values()]

    async def list_tools(request: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        request: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            text = answer(Call(ctx, client_name(request)), params.name, dict(params.arguments or {}))
        except MnemeError as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=error_text(params.name, exc))], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def list_prompts(request: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[prompts.HANDSHAKE_PROMPT])

    async def get_prompt(request: ServerRequestContext[Any], params: types.GetPromptRequestParams) -> Any:
        return _or_protocol_error(lambda: prompts.handshake_prompt(Call(ctx), params.arguments))

    async def list_resources(request: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_templates(request: ServerRequestContext[Any], params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[prompts.MEMORY_TEMPLATE])

    async def read_resource(request: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> Any:
        return _or_protocol_error(lambda: prompts.read_memory(Call(ctx), str(params.uri)))

    return Server(
        "mneme",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _or_protocol_error(work: Callable[[], Any]) -> Any:
    """``work()``, or its MnemeError as the JSON-RPC error prompts and resources answer with (invalid params)."""
    try:
        return work()
    except MnemeError as exc:
        raise MCPError(code=types.INVALID_PARAMS, message=display.printable(str(exc))) from None
