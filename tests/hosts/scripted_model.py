"""A scripted OpenAI-compatible chat endpoint: the "model" a real agent host talks to in tests.

It serves `/v1/models` and `/v1/chat/completions` with `stream: true` server-sent events, and
answers each completion request with the next step of its script: a tool call or a final
reply. Every request body is recorded, so a test asserts on exactly what the agent showed its
model (the tool results as the host passed them on), not on what the server meant to send.

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
    """The conversation as the host last sent it (every request carries the whole history)."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    def exchanges(self) -> list[Exchange]:
        return pair_tool_calls(self.messages)

    def results_of(self, tool: str) -> list[str]:
        """The results of every call of one oraculum tool, in order."""
        name = MCP_PREFIX + tool
        return [e.result or "" for e in self.exchanges() if e.name == name]


def message_text(content: Any) -> str:
    """A chat message's text, whether the host sent a string or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


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


@dataclass(frozen=True)
class ToolCall:
    """Call an oraculum tool; ``arguments`` may be computed from the transcript so far."""

    tool: str
    arguments: dict[str, Any] | Callable[[Transcript], dict[str, Any]]
    before: Gate | None = None
    prefix: str = MCP_PREFIX  # how the host names the tool ("" for a pi extension's tools)


@dataclass(frozen=True)
class Reply:
    """End the agent's turn with this text."""

    text: str
    before: Gate | None = None


Step = ToolCall | Reply


def sse_event(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


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
    arguments = step.arguments(transcript) if callable(step.arguments) else step.arguments
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": step.prefix + step.tool, "arguments": ""},
    }
    # Arguments arrive as a separate delta, as real endpoints stream them.
    return [
        chunk({"role": "assistant", "content": None, "tool_calls": [call]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(arguments)}}]}),
        chunk({}, "tool_calls"),
        usage,
    ]


@dataclass
class ScriptedModel:
    """The endpoint: answers requests with ``steps`` in order and records every request."""

    steps: list[Step]
    requests: list[dict[str, Any]] = field(default_factory=list)
    overruns: int = 0  # requests that arrived after the script ended
    base_url: str = ""
    _runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/chat/completions", self._chat)
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
        return Transcript(self.requests[-1]["messages"] if self.requests else [])

    async def _models(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "tests"}]}
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        index = len(self.requests) - 1
        if index >= len(self.steps):
            self.overruns += 1
            step: Step = Reply("(the script has ended)")
        else:
            step = self.steps[index]
        if step.before is not None:
            await step.before()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for chunk in completion_chunks(step, Transcript(body["messages"]), f"call_{index}"):
            await response.write(sse_event(chunk))
        await response.write(sse_event("[DONE]"))
        await response.write_eof()
        return response
