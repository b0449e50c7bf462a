"""A small OAuth 2.1 authorization server on loopback for the resource-server
tests, built on PyJWT and cryptography (maintained libraries; both already in
the venv through the MCP SDK):

- RFC 8414 metadata and a JWKS (RS256 keys; `rotate()` publishes a new key
  and signs with it from then on);
- dynamic client registration (RFC 7591);
- authorization_code with PKCE (S256): GET /authorize answers 302 to the
  redirect URI with a code; POST /token checks the verifier and mints a JWT
  whose `aud` is the `resource` asked for (RFC 8707);
- token exchange (RFC 8693) for Herald's confidential client: the subject
  token (a JWT it issued, or an opaque one) traded for a JWT whose `aud` is
  the `audience` asked for;
- introspection (RFC 7662) of the opaque tokens `opaque()` hands out.

Everything it was asked is recorded (`paths()`, `times(path)`, `exchanges`).
Knobs for the hostile cases: `jwks_hold` (an Event: a slow JWKS, each answer
held until it is set, 30 s at most; `jwks_pending` counts the answers held)
and `exchange_expires_in` (the `expires_in` of exchange answers);
`exchange_answer` (a status and raw body every exchange is answered with,
its subject token refused or not), `exchange_hold` (an Event: each exchange
held until it is set, 30 s at most) and `jwks_status` (the JWKS answered
with this status and no keys).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from fake_services import _Quiet, _Service
from jwt.algorithms import RSAAlgorithm

EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"
HERALD_CLIENT = ("herald", "herald-client-secret")


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class AuthorizationServer(_Service):
    """The authorization server; `subject` is the `sub` of the tokens it mints."""

    def __init__(self, subject: str = "agt_reader", scope: str = "lorebase:read") -> None:
        self.subject = subject
        self.scope = scope
        self.keys: list[tuple[str, rsa.RSAPrivateKey]] = [("key-1", new_key())]
        self.codes: dict[str, dict] = {}
        self.opaque_tokens: dict[str, dict] = {}
        self.exchanges: list[dict] = []
        self.seen: list[tuple[str, str, float]] = []
        self.jwks_hold: threading.Event | None = None
        self.jwks_pending = 0
        self.exchange_expires_in: int = 300
        self.exchange_answer: tuple[int, bytes] | None = None
        self.exchange_hold: threading.Event | None = None
        self.jwks_status: int | None = None
        self.lock = threading.Lock()
        self.jwks_file = Path(tempfile.mkdtemp(prefix="herald-as-")) / "jwks.json"
        super().__init__(_AuthorizationHandler)
        self._write_jwks()

    # -- keys and tokens -------------------------------------------------
    def jwks(self) -> dict:
        keys = []
        for kid, key in self.keys:
            jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "alg": "RS256", "use": "sig"})
        return {"keys": keys}

    def _write_jwks(self) -> None:
        self.jwks_file.write_text(json.dumps(self.jwks()))

    def rotate(self) -> str:
        """Publishes a new key and signs with it from now on; its kid."""
        with self.lock:
            kid = f"key-{len(self.keys) + 1}"
            self.keys.append((kid, new_key()))
            self._write_jwks()
        return kid

    def mint(
        self,
        aud: str | list[str],
        *,
        sub: str | None = None,
        scope: str | None = None,
        lifetime: int = 600,
        kid: str | None = None,
        key: rsa.RSAPrivateKey | None = None,
        **claims,
    ) -> str:
        """A JWT signed with the current key (or `key`, under `kid`)."""
        now = int(time.time())
        current_kid, current_key = self.keys[-1]
        body = {
            "iss": self.url,
            "sub": sub or self.subject,
            "aud": aud,
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
            "scope": self.scope if scope is None else scope,
            "jti": secrets.token_hex(8),
            **claims,
        }
        return jwt.encode(body, key or current_key, algorithm="RS256", headers={"kid": kid or current_kid})

    def opaque(self, aud: str, *, active: bool = True, scope: str | None = None) -> str:
        """An opaque token the introspection endpoint knows."""
        token = "opq_" + secrets.token_urlsafe(24)
        self.opaque_tokens[token] = {
            "active": active,
            "aud": aud,
            "sub": self.subject,
            "scope": self.scope if scope is None else scope,
            "iss": self.url,
            "exp": int(time.time()) + 600,
        }
        return token

    def subject_of(self, token: str) -> dict | None:
        """The claims of a token it issued (signature checked), else None."""
        if token in self.opaque_tokens:
            return self.opaque_tokens[token] if self.opaque_tokens[token]["active"] else None
        try:
            kid = jwt.get_unverified_header(token).get("kid")
            key = dict(self.keys)[kid]
            return jwt.decode(token, key.public_key(), algorithms=["RS256"], options={"verify_aud": False})
        except (jwt.PyJWTError, KeyError):
            return None

    def metadata(self) -> dict:
        return {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/authorize",
            "token_endpoint": self.url + "/token",
            "registration_endpoint": self.url + "/register",
            "jwks_uri": self.url + "/jwks",
            "introspection_endpoint": self.url + "/introspect",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", EXCHANGE],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
        }

    def paths(self) -> list[str]:
        with self.lock:
            return [f"{method} {path}" for method, path, _ in self.seen]

    def times(self, request: str) -> list[float]:
        """When each `request` ("GET /jwks") arrived (time.monotonic())."""
        with self.lock:
            return [at for method, path, at in self.seen if f"{method} {path}" == request]


def _basic_auth(header: str | None) -> tuple[str, str] | None:
    if not header or not header.lower().startswith("basic "):
        return None
    user, _, password = base64.b64decode(header[6:]).decode().partition(":")
    return user, password


class _AuthorizationHandler(_Quiet):
    def _owner(self) -> AuthorizationServer:
        owner: AuthorizationServer = self.server.owner  # type: ignore[attr-defined]
        with owner.lock:
            owner.seen.append((self.command, urlsplit(self.path).path, time.monotonic()))
        return owner

    def do_GET(self) -> None:
        owner = self._owner()
        url = urlsplit(self.path)
        if url.path == "/.well-known/oauth-authorization-server":
            return self._json(200, owner.metadata())
        if url.path == "/jwks":
            hold = owner.jwks_hold
            if hold is not None:
                with owner.lock:
                    owner.jwks_pending += 1
                hold.wait(30)
                with owner.lock:
                    owner.jwks_pending -= 1
            if owner.jwks_status is not None:
                return self._json(owner.jwks_status, {"error": "temporarily_unavailable"})
            return self._json(200, owner.jwks())
        if url.path == "/authorize":
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
                return self._json(400, {"error": "invalid_request", "error_description": "PKCE S256 required"})
            code = secrets.token_urlsafe(16)
            owner.codes[code] = q
            self.send_response(302)
            self.send_header("location", q["redirect_uri"] + "?" + urlencode({"code": code, "state": q.get("state", "")}))
            self.send_header("content-length", "0")
            self.end_headers()
            return None
        self._json(404, {})

    def do_POST(self) -> None:
        owner = self._owner()
        path = urlsplit(self.path).path
        body = self._body()
        if path == "/register":
            client = json.loads(body)
            client.update({"client_id": "client-" + secrets.token_hex(4), "token_endpoint_auth_method": "none"})
            return self._json(201, client)
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if path == "/token" and form.get("grant_type") == "authorization_code":
            asked = owner.codes.pop(form.get("code", ""), None)
            if asked is None:
                return self._json(400, {"error": "invalid_grant"})
            verifier = form.get("code_verifier", "").encode()
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
            if challenge != asked["code_challenge"]:
                return self._json(400, {"error": "invalid_grant", "error_description": "PKCE verifier"})
            audience = form.get("resource") or asked.get("resource")
            token = owner.mint(audience)
            return self._json(200, {"access_token": token, "token_type": "Bearer", "expires_in": 600})
        if _basic_auth(self.headers.get("authorization")) != HERALD_CLIENT:
            return self._json(401, {"error": "invalid_client"})
        if path == "/token" and form.get("grant_type") == EXCHANGE:
            claims = owner.subject_of(form.get("subject_token", ""))
            with owner.lock:
                owner.exchanges.append(form)
            hold = owner.exchange_hold
            if hold is not None:
                hold.wait(30)
            if owner.exchange_answer is not None:
                status, raw = owner.exchange_answer
                return self._reply(status, raw)
            if claims is None or form.get("subject_token_type") != ACCESS_TOKEN or not form.get("audience"):
                return self._json(400, {"error": "invalid_grant"})
            token = owner.mint(form["audience"], sub=claims["sub"], scope=claims.get("scope", ""), lifetime=300)
            return self._json(
                200,
                {
                    "access_token": token,
                    "issued_token_type": ACCESS_TOKEN,
                    "token_type": "Bearer",
                    "expires_in": owner.exchange_expires_in,
                },
            )
        if path == "/introspect":
            known = owner.opaque_tokens.get(form.get("token", ""))
            return self._json(200, known if known and known["active"] else {"active": False})
        self._json(404, {})
