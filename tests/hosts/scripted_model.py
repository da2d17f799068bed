"""A scripted model endpoint: the "model" a real agent host talks to in tests.

It speaks the three wire protocols the hosts use, each streamed as server-sent events:
OpenAI chat completions (`/v1/chat/completions`: pi, opencode), the OpenAI Responses API
(`/v1/responses`: Codex) and Anthropic Messages (`/v1/messages`: Claude Code). It answers each
agent request with the next step of its script: a tool call or a final reply. Every request body
is recorded, so a test asserts on exactly what the agent showed its model (the tool results as
the host passed them on), not on what the server meant to send. A host's side requests (a
request declaring no tools, such as Claude Code's title and quota probes) may be answered
aside: with `side_without_tools` they get a short reply, are kept in `side_requests` and do
not advance the script.

A step may wait for something before it answers (`before`), e.g. for a job to finish, which
lets a test order events across processes without sleeping blindly.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

MODEL_ID = "scripted"
MCP_PREFIX = "mcp__oraculum__"

Gate = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class Exchange:
    """One tool call the model made and the result the host sent back for it."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    result: str | None  # None while the host has not answered it


class Transcript:
    """The conversation as the host last sent it (every request carries the whole history),
    in any of the three protocols (``protocol``: `chat`, `responses` or `messages`)."""

    def __init__(self, messages: list[dict[str, Any]], protocol: str = "chat") -> None:
        self.messages = messages
        self.protocol = protocol

    def exchanges(self) -> list[Exchange]:
        pair = {"chat": pair_tool_calls, "responses": pair_responses_items}.get(
            self.protocol, pair_tool_uses
        )
        return pair(self.messages)

    def results_of(self, tool: str) -> list[str]:
        """The results of every call of one oraculum tool, in order, whatever prefix the host
        gives it (`mcp__oraculum__`, opencode's `oraculum_`, none for a pi extension)."""
        return [e.result or "" for e in self.exchanges() if tool_named(e.name, tool)]

    def user_text(self) -> str:
        """Everything the user's side of the conversation said in words (prompts expanded)."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return "\n".join(message_text(m.get("content")) for m in users)


def tool_named(name: str, tool: str) -> bool:
    return name == tool or name.endswith("_" + tool)


def message_text(content: Any) -> str:
    """A message's text, whether the host sent a string or a list of parts (a tool result's
    nested content included: Anthropic's `tool_result` holds a string or text blocks)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text") or message_text(part.get("content"))
        for part in content
        if isinstance(part, dict)
    )


def pair_tool_calls(messages: list[dict[str, Any]]) -> list[Exchange]:
    """Each assistant tool call with the `tool` message that answers it."""
    results = {
        m.get("tool_call_id"): message_text(m.get("content"))
        for m in messages
        if m.get("role") == "tool"
    }
    exchanges = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            exchanges.append(
                Exchange(
                    call_id=call["id"],
                    name=function.get("name", ""),
                    arguments=json.loads(function.get("arguments") or "{}"),
                    result=results.get(call["id"]),
                )
            )
    return exchanges


def pair_tool_uses(messages: list[dict[str, Any]]) -> list[Exchange]:
    """Anthropic Messages: each `tool_use` block with the `tool_result` block answering it."""
    blocks = [
        block
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict)
    ]
    results = {
        b.get("tool_use_id"): message_text(b.get("content"))
        for b in blocks
        if b.get("type") == "tool_result"
    }
    return [
        Exchange(b["id"], b.get("name", ""), b.get("input") or {}, results.get(b["id"]))
        for b in blocks
        if b.get("type") == "tool_use"
    ]


def pair_responses_items(items: list[dict[str, Any]]) -> list[Exchange]:
    """OpenAI Responses: each `function_call` item with its `function_call_output`."""
    results = {
        i.get("call_id"): message_text(i.get("output"))
        for i in items
        if i.get("type") == "function_call_output"
    }
    return [
        Exchange(
            i["call_id"],
            i.get("name", ""),
            json.loads(i.get("arguments") or "{}"),
            results.get(i["call_id"]),
        )
        for i in items
        if i.get("type") == "function_call"
    ]


@dataclass(frozen=True)
class ToolCall:
    """Call an oraculum tool; ``arguments`` may be computed from the transcript so far."""

    tool: str
    arguments: dict[str, Any] | Callable[[Transcript], dict[str, Any]]
    before: Gate | None = None
    prefix: str = MCP_PREFIX  # how the host names the tool ("" for a pi extension's tools)
    # The Responses API's tool namespace the host declared it in (Codex: `mcp__oraculum`).
    namespace: str | None = None


@dataclass(frozen=True)
class Reply:
    """End the agent's turn with this text."""

    text: str
    before: Gate | None = None


Step = ToolCall | Reply


def sse_event(payload: dict[str, Any] | str, event: str | None = None) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    named = f"event: {event}\n" if event else ""
    return f"{named}data: {data}\n\n".encode()


def step_arguments(step: ToolCall, transcript: Transcript) -> dict[str, Any]:
    return step.arguments(transcript) if callable(step.arguments) else step.arguments


def completion_chunks(step: Step, transcript: Transcript, call_id: str) -> list[dict[str, Any]]:
    """The streamed chunks of one answer, in the OpenAI chat-completions chunk format."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{call_id}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL_ID,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    usage = {
        "id": f"chatcmpl-{call_id}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL_ID,
        "choices": [],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    if isinstance(step, Reply):
        return [
            chunk({"role": "assistant", "content": step.text}),
            chunk({}, "stop"),
            usage,
        ]
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": step.prefix + step.tool, "arguments": ""},
    }
    # Arguments arrive as a separate delta, as real endpoints stream them.
    arguments = json.dumps(step_arguments(step, transcript))
    return [
        chunk({"role": "assistant", "content": None, "tool_calls": [call]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
        chunk({}, "tool_calls"),
        usage,
    ]


def message_events(step: Step, transcript: Transcript, call_id: str) -> list[dict[str, Any]]:
    """The streamed events of one answer in Anthropic's Messages format (event name = type)."""
    if isinstance(step, Reply):
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": step.text}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": f"toolu_{call_id}", "name": step.prefix + step.tool}
        block["input"] = {}
        arguments = json.dumps(step_arguments(step, transcript))
        delta = {"type": "input_json_delta", "partial_json": arguments}
        stop = "tool_use"
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {
        "id": f"msg_{call_id}",
        "type": "message",
        "role": "assistant",
        "model": MODEL_ID,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]


def response_events(step: Step, transcript: Transcript, call_id: str) -> list[dict[str, Any]]:
    """The streamed events of one answer in the OpenAI Responses format (event name = type)."""
    if isinstance(step, Reply):
        item: dict[str, Any] = {
            "type": "message",
            "id": f"msg_{call_id}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": step.text, "annotations": []}],
        }
    else:
        item = {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": step.prefix + step.tool,
            "arguments": json.dumps(step_arguments(step, transcript)),
            "status": "completed",
        }
        if step.namespace is not None:
            item["namespace"] = step.namespace
    response: dict[str, Any] = {
        "id": f"resp_{call_id}",
        "object": "response",
        "created_at": 0,
        "model": MODEL_ID,
        "status": "in_progress",
        "output": [],
    }
    done = {
        **response,
        "status": "completed",
        "output": [item],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        },
    }
    return [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": done},
    ]


@dataclass(frozen=True)
class Protocol:
    """One wire protocol: where a request keeps its conversation and how an answer streams."""

    name: str
    history: str  # the request field holding the conversation
    events: Callable[[Step, Transcript, str], list[dict[str, Any]]]
    named_events: bool  # `event: <type>` lines (Anthropic, Responses) or bare `data:` (chat)
    done_marker: bool  # a final `data: [DONE]` (chat only)


CHAT = Protocol("chat", "messages", completion_chunks, named_events=False, done_marker=True)
MESSAGES = Protocol("messages", "messages", message_events, named_events=True, done_marker=False)
RESPONSES = Protocol("responses", "input", response_events, named_events=True, done_marker=False)


@dataclass
class ScriptedModel:
    """The endpoint: answers requests with ``steps`` in order and records every request."""

    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    side_requests: list[dict[str, Any]] = field(default_factory=list)
    overruns: int = 0  # requests that arrived after the script ended
    # Answer requests that declare no tools aside (for hosts that make side requests).
    side_without_tools: bool = False
    base_url: str = ""
    protocol: Protocol = CHAT  # of the latest agent request
    _runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._handler(CHAT))
        app.router.add_post("/v1/messages", self._handler(MESSAGES))
        app.router.add_post("/v1/responses", self._handler(RESPONSES))
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def transcript(self) -> Transcript:
        """The latest request's conversation (empty before the first request)."""
        if not self.requests:
            return Transcript([], self.protocol.name)
        return Transcript(self.requests[-1].get(self.protocol.history) or [], self.protocol.name)

    async def _models(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "tests"}]}
        )

    def _handler(
        self, protocol: Protocol
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handle(request: web.Request) -> web.StreamResponse:
            return await self._answer(request, protocol)

        return handle

    async def _answer(self, request: web.Request, protocol: Protocol) -> web.StreamResponse:
        body = await request.json()
        step: Step
        if self.side_without_tools and not body.get("tools"):
            self.side_requests.append(body)
            step, call_id = Reply("OK"), f"side_{len(self.side_requests)}"
        else:
            self.requests.append(body)
            self.protocol = protocol
            index = len(self.requests) - 1
            call_id = f"call_{index}"
            if index >= len(self.steps):
                self.overruns += 1
                step = Reply("(the script has ended)")
            else:
                step = self.steps[index]
            if step.before is not None:
                await step.before()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        transcript = Transcript(body.get(protocol.history) or [], protocol.name)
        for event in protocol.events(step, transcript, call_id):
            name = event["type"] if protocol.named_events else None
            await response.write(sse_event(event, name))
        if protocol.done_marker:
            await response.write(sse_event("[DONE]"))
        await response.write_eof()
        return response
