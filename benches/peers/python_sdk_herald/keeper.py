"""The peer's Keeper client: one pooled httpx2 AsyncClient, the same resends as
Herald (429, 503 and an unreachable Keeper, at most ``max_retries`` times,
``Retry-After`` capped at ``retry_max_wait_s``, else exponential backoff with
jitter from 0.25 s), a bounded answer, and Keeper's problems turned into the
same ``[code] message`` / issues / ``next:`` text Herald renders.

httpx2 is the HTTP client the official ``mcp`` SDK 2.x itself depends on (the
successor of httpx, same API), so the peer adds no client of its own.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx2 as httpx

BACKOFF_BASE_S = 0.25
DEFAULT_RETRY_DELAY_S = 5
USER_AGENT = "python-sdk-herald/0.1.0"

_NEXT = {
    "review-required": "repeat with task and intent to open a Proposal, or run it on a work branch and open a Proposal",
    "protected-branch": "repeat with task and intent to open a Proposal, or run it on a work branch and open a Proposal",
    "agent-branch-limit": "merge or close one of your Proposals, or use another task",
    "already-exists": "merge or close one of your Proposals, or use another task",
    "not-found": "check refs with lorebase_search or lorebase_schema",
    "forbidden": "do not retry: the agent's key lacks the grant for this; ask an administrator for it",
    "unauthorized": "do not retry: the API key is missing or invalid; the key in the host's configuration must be fixed",
}
_STATUS_CODES = {400: "validation-failed", 422: "validation-failed", 401: "unauthorized", 403: "forbidden",
                 404: "not-found", 423: "branch-busy", 429: "rate-limited", 502: "keeper-unavailable",
                 503: "keeper-unavailable", 504: "keeper-unavailable"}


@dataclass
class ToolFailure(Exception):
    """A tool error as the model sees it: ``[code] message``, issues, ``next:``."""

    code: str
    message: str
    issues: list[dict[str, str]] = field(default_factory=list)
    head: str | None = None
    retry_after: int | None = None

    def render(self) -> str:
        out = [f"[{self.code}] {_one_line(self.message)}"]
        out += [f"  {_one_line(i.get('path', ''))}: {_one_line(i.get('message', ''))}" for i in self.issues]
        out.append(f"next: {self._next()}")
        return "\n".join(out)

    def _next(self) -> str:
        if self.code == "stale-head":
            if self.head:
                return (f"the branch head is now {self.head}; re-read what you are changing, "
                        f"then retry with expected_head: {self.head}")
            return ("the branch moved; re-read it (lorebase_branches gives the current head), "
                    "then retry with that head as expected_head")
        if self.code == "validation-failed":
            if self.issues:
                return "fix the issues above (one per line, with its path), then call again"
            return "fix the arguments named in the message, then call again"
        if self.code in ("rate-limited", "branch-busy", "keeper-unavailable"):
            wait = self.retry_after if self.retry_after is not None else DEFAULT_RETRY_DELAY_S
            return f"retry after {wait} s"
        return _NEXT.get(self.code, "")


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        return " ".join(part for part in text.replace("\r", "\n").split("\n") if part.strip())
    return text


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _delay(retry: int, hint: float | None, max_wait: float) -> float:
    if hint is not None:
        return min(hint, max_wait)
    step = min(BACKOFF_BASE_S * (2 ** min(retry, 16)), max_wait)
    return min(step / 2 + random.random() * step / 2, max_wait)


class Keeper:
    """Keeper's REST API under ``{base_url}/api/v1/domains/{domain}``."""

    def __init__(self, base_url: str, api_key: str | None, *, max_retries: int = 2,
                 retry_max_wait_s: float = 5, timeout_s: float = 30,
                 max_response_bytes: int = 16 * 1024 * 1024):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("LOREBASE_URL is not an http:// or https:// URL")
        self.base = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.max_wait = retry_max_wait_s
        self.max_bytes = max_response_bytes
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10))
        # One client for the process: one connection pool, proxies from the
        # environment ignored (Herald's trust_env: false default).
        self.http = httpx.AsyncClient(timeout=timeout, trust_env=False, headers={"User-Agent": USER_AGENT})

    def url(self, domain: str, *segments: str) -> str:
        for part in (domain, *segments):
            if part in ("", ".", ".."):
                raise ToolFailure("validation-failed", "a path segment must not be empty, . or ..")
        return "/".join([self.base, "api/v1/domains", *(quote(p, safe="") for p in (domain, *segments))])

    async def call(self, method: str, url: str, key: str | None, *, params: dict[str, Any] | None = None,
                   body: Any = None, resend: bool = True) -> Any:
        """Sends one call with the resends; the decoded JSON of a 2xx answer."""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        content = None
        if body is not None:
            content = json.dumps(body, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        params = {k: v for k, v in (params or {}).items() if v is not None}
        max_retries = self.max_retries if resend else 0
        retry = 0
        while True:
            try:
                status, answer_headers, raw = await self._attempt(method, url, params, headers, content)
            except httpx.TransportError as e:
                if retry >= max_retries:
                    n = retry + 1
                    raise ToolFailure("keeper-unavailable",
                                      f"cannot reach Keeper at {self.base}: {type(e).__name__} "
                                      f"({n} attempt{'' if n == 1 else 's'})") from None
                wait = _delay(retry, None, self.max_wait)
            else:
                if 200 <= status < 300:
                    try:
                        return json.loads(raw)
                    except ValueError as e:
                        raise ToolFailure("keeper-unavailable",
                                          f"unexpected answer from Keeper: cannot read the answer: {e}") from None
                failure = self._problem(status, answer_headers, raw, key)
                if status not in (429, 503) or retry >= max_retries:
                    raise failure
                hint = _retry_after(answer_headers.get("retry-after"))
                wait = _delay(retry, hint if hint is not None else failure.retry_after, self.max_wait)
            retry += 1
            await asyncio.sleep(wait)

    async def _attempt(self, method, url, params, headers, content):
        async with self.http.stream(method, url, params=params, headers=headers, content=content) as response:
            length = response.headers.get("content-length")
            if length is not None and int(length) > self.max_bytes:
                raise ToolFailure("validation-failed", "Keeper's answer is larger than max_response_bytes")
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    raise ToolFailure("validation-failed", "Keeper's answer is larger than max_response_bytes")
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks)

    def _problem(self, status: int, headers, raw: bytes, key: str | None) -> ToolFailure:
        wait = _retry_after(headers.get("retry-after"))
        try:
            p = json.loads(raw)
            code = p["code"]
        except (ValueError, KeyError, TypeError):
            code = _STATUS_CODES.get(status)
            if code is None:
                return ToolFailure("keeper-unavailable",
                                   f"unexpected answer from Keeper: HTTP {status} without a problem body")
            p = {"detail": f"Keeper answered {status}", "issues": []}
        message = p.get("detail") or p.get("title") or code
        issues = [{"path": i.get("path", ""), "message": i.get("message", "")} for i in p.get("issues") or []]
        if key and len(key) >= 4:
            message = message.replace(key, "***")
            issues = [{k: v.replace(key, "***") for k, v in i.items()} for i in issues]
        retry_after = p.get("retry_after")
        if retry_after is None and wait is not None:
            retry_after = int(wait)
        return ToolFailure(code, message, issues, p.get("head"), retry_after)

    async def aclose(self) -> None:
        await self.http.aclose()
