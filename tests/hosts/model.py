"""A scripted model endpoint on loopback, in place of a provider's API (Python stdlib only).

It speaks what the hosts under test speak to their model:
  - OpenAI Chat Completions (Copilot CLI; opencode and Qwen Code speak it too): POST .../chat/completions,
    streamed (`chat.completion.chunk`s, then `[DONE]`) or not;
  - the OpenAI Responses API (Codex CLI): POST .../responses, streamed as SSE
    (`response.created`, `response.output_item.added/done`, `response.completed`);
  - the Anthropic Messages API (Claude Code): POST /v1/messages, streamed as SSE
    (`message_start`, `content_block_start/delta/stop`, `message_delta`, `message_stop`) or as
    one JSON message, and POST /v1/messages/count_tokens;
  - the Gemini API (Gemini CLI): POST /v1beta/models/M:generateContent,
    :streamGenerateContent?alt=sse and :countTokens.

It plays a script: a list of steps, one per model turn of the main conversation. Step i answers
the request that already holds i model turns (assistant messages / `model` contents), so the host
decides the pace: first turn a tool call, the next (once the host sends the tool result back)
the next step, and so on. A step is {"tool": NAME, "args": {...}} (NAME matched against the
request's tools: exactly, or as the suffix of a host's prefixed name such as
`mcp__lorebase__lorebase_get`, `lorebase-lorebase_get`, or the tool of a namespace:
`mcp__lorebase.lorebase_get`) or
{"text": "..."}. A request past the end of the script, or one
the host sends on the side (no tools: a title, a routing classifier, a next-speaker check) gets a
short text whose JSON carries what those side questions expect.

Every request is recorded (path, parsed body) in `requests`, so a test asserts on what the model
would have seen. It binds 127.0.0.1 on an ephemeral port: nothing leaves loopback.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The answer to a side request. Gemini CLI's router asks for a JSON object with a
# `complexity_score` (>= 1 picks the main model) and, after a final text, may ask who speaks next.
SIDE_ANSWER = json.dumps(
    {
        "reasoning": "scripted",
        "complexity_reasoning": "scripted",
        "complexity_score": 80,
        "model_choice": "pro",
        "next_speaker": "user",
    }
)


class ScriptedModel:
    def __init__(self, steps: list[dict[str, Any]]) -> None:
        self.steps = steps
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedModel":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- what the tests read ------------------------------------------------------------------
    def main_requests(self) -> list[dict[str, Any]]:
        """The bodies of the requests of the main conversation (those that carry tools)."""
        with self.lock:
            return [r["body"] for r in self.requests if isinstance(r["body"], dict) and r["body"].get("tools")]

    def paths(self) -> list[str]:
        with self.lock:
            return [r["path"] for r in self.requests]

    # --- the script ---------------------------------------------------------------------------
    def step_for(self, turns: int, tool_names: list[str]) -> dict[str, Any]:
        if not tool_names or turns >= len(self.steps):
            return {"text": SIDE_ANSWER if not tool_names else "Done."}
        step = dict(self.steps[turns])
        if "tool" in step:
            step["tool"] = resolve(step["tool"], tool_names)
        return step

    def _handler(self):
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                model._record(self.path, None)
                self._json(404, {"error": {"type": "not_found", "message": "scripted model"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                model._record(self.path, body)
                path = self.path.split("?", 1)[0]
                if path.endswith("/messages/count_tokens"):
                    return self._json(200, {"input_tokens": 1000})
                if path.endswith("/messages"):
                    return self._anthropic(body)
                if path.endswith(":countTokens"):
                    return self._json(200, {"totalTokens": 1000})
                if path.endswith(":generateContent") or path.endswith(":streamGenerateContent"):
                    return self._gemini(body, stream=path.endswith(":streamGenerateContent"))
                if path.endswith("/responses"):
                    return self._responses(body)
                if path.endswith("/chat/completions"):
                    return self._chat(body)
                self._json(404, {"error": {"type": "not_found", "message": f"scripted model: {path}"}})

            # Anthropic Messages API
            def _anthropic(self, body: dict) -> None:
                tools = [t.get("name", "") for t in body.get("tools") or []]
                turns = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
                step = model.step_for(turns, tools)
                mid = f"msg_scripted_{len(model.requests)}"
                if "tool" in step:
                    block = {"type": "tool_use", "id": f"toolu_scripted_{len(model.requests)}", "name": step["tool"], "input": step["args"]}
                    stop = "tool_use"
                else:
                    block = {"type": "text", "text": step["text"]}
                    stop = "end_turn"
                usage = {"input_tokens": 1000, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
                if not body.get("stream"):
                    return self._json(200, {"id": mid, "type": "message", "role": "assistant", "model": body.get("model"),
                                            "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage})
                events = [("message_start", {"type": "message_start", "message": {
                    "id": mid, "type": "message", "role": "assistant", "model": body.get("model"), "content": [],
                    "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})]
                if block["type"] == "tool_use":
                    events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                                           "content_block": {**block, "input": {}}}))
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}))
                else:
                    events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                                           "content_block": {"type": "text", "text": ""}}))
                    events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                           "delta": {"type": "text_delta", "text": block["text"]}}))
                events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
                events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                                 "usage": {"output_tokens": 10}}))
                events.append(("message_stop", {"type": "message_stop"}))
                self._sse("".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events))

            # Gemini API
            def _gemini(self, body: dict, stream: bool) -> None:
                tools = [d.get("name", "") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
                turns = sum(1 for c in body.get("contents") or [] if c.get("role") == "model")
                step = model.step_for(turns, tools)
                part = {"functionCall": {"name": step["tool"], "args": step["args"]}} if "tool" in step else {"text": step["text"]}
                answer = {
                    "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 10, "totalTokenCount": 1010},
                    "modelVersion": "scripted",
                }
                if stream:
                    return self._sse(f"data: {json.dumps(answer)}\r\n\r\n")
                self._json(200, answer)

            # OpenAI Responses API (Codex CLI), streamed
            def _responses(self, body: dict) -> None:
                # Codex groups an MCP server's tools in a `namespace` tool (`mcp__SERVER`); a call
                # names the namespace and the tool.
                tools = []
                for t in body.get("tools") or []:
                    if t.get("type") == "namespace":
                        tools += [f"{t['name']}.{sub.get('name')}" for sub in t.get("tools") or []]
                    elif t.get("name"):
                        tools.append(t["name"])
                items = [i for i in body.get("input") or [] if isinstance(i, dict)]
                turns = sum(1 for i in items if i.get("type") in ("function_call", "tool_search_call")
                            or (i.get("type") == "message" and i.get("role") == "assistant"))
                step = model.step_for(turns, tools)
                n = len(model.requests)
                if "tool_search" in step:
                    # Codex's client-side tool search (a catalog model): Codex runs the search
                    # and sends a `tool_search_output` back.
                    item = {"type": "tool_search_call", "id": f"ts_{n}", "call_id": f"call_{n}", "execution": "client",
                            "arguments": step["tool_search"], "status": "completed"}
                elif "tool" in step:
                    namespace, _, name = step["tool"].rpartition(".")
                    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
                            "arguments": json.dumps(step["args"]), "status": "completed", **({"namespace": namespace} if namespace else {})}
                else:
                    item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": step["text"], "annotations": []}]}
                response = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "model": body.get("model"), "output": []}
                done = {**response, "status": "completed", "output": [item],
                        "usage": {"input_tokens": 1000, "output_tokens": 10, "total_tokens": 1010,
                                  "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}
                events = [("response.created", {"type": "response.created", "response": response}),
                          ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
                          ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                          ("response.completed", {"type": "response.completed", "response": done})]
                self._sse("".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events))

            # OpenAI Chat Completions (opencode, Qwen Code, Copilot CLI), streamed or not
            def _chat(self, body: dict) -> None:
                tools = [t.get("function", {}).get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]
                turns = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
                step = model.step_for(turns, tools)
                n = len(model.requests)
                if "tool" in step:
                    message = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": f"call_{n}", "type": "function",
                               "function": {"name": step["tool"], "arguments": json.dumps(step["args"])}}]}
                    finish = "tool_calls"
                else:
                    message = {"role": "assistant", "content": step["text"]}
                    finish = "stop"
                usage = {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}
                base = {"id": f"chatcmpl_{n}", "created": 1, "model": body.get("model") or "scripted"}
                if not body.get("stream"):
                    whole = {**message, "tool_calls": [{k: v for k, v in c.items() if k != "index"} for c in message.get("tool_calls") or []]}
                    if not whole["tool_calls"]:
                        del whole["tool_calls"]
                    return self._json(200, {**base, "object": "chat.completion", "usage": usage,
                                            "choices": [{"index": 0, "message": whole, "finish_reason": finish}]})
                chunks = [{**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
                          {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                          {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}]
                self._sse("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")

            def _json(self, status: int, data: dict) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _sse(self, text: str) -> None:
                raw = text.encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler

    def _record(self, path: str, body: Any) -> None:
        with self.lock:
            self.requests.append({"path": path, "body": body})


def resolve(name: str, tool_names: list[str]) -> str:
    """NAME as the host calls it: the exact name, or the one tool whose name ends with _NAME, .NAME or -NAME."""
    if name in tool_names:
        return name
    matches = [t for t in tool_names if any(t.endswith(sep + name) for sep in "_.-")]
    return matches[0] if len(matches) == 1 else name
