"""A TLS proxy for tests: TLS on a loopback port with the test-only
certificate of tls/ (localhost, 127.0.0.1; signed by tls/ca.pem), forwarded
to a plain-HTTP upstream port (the sandbox Keeper). Stdlib only."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from pathlib import Path

TLS = Path(__file__).resolve().parent / "tls"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class TlsProxy:
    """TLS on a loopback port, forwarded to a plain-HTTP upstream port."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ctx.load_cert_chain(TLS / "keeper.pem", TLS / "keeper.key")
        self.loop = asyncio.new_event_loop()
        # Handshakes the client refuses are expected here: keep them quiet.
        self.loop.set_exception_handler(lambda _loop, _ctx: None)
        self.port = 0
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        assert started.wait(10), "the TLS proxy did not start"

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.ctx)
        )
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()
        server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
