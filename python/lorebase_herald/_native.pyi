"""Type stubs of the native module ``lorebase_herald._native`` (pyo3)."""

from typing import Any, Callable, List, Optional, Tuple

def run_cli(argv: List[str]) -> int:
    """Runs the ``lorebase-herald`` command line (program name first); returns its exit code."""

def version() -> str:
    """The version of the Rust crates inside the wheel."""

def setting_keywords() -> List[Tuple[str, str]]:
    """The keywords that stand for a settings key, with the key (``("url", "keeper.base_url")``)."""

def close_for_exit() -> None:
    """The ``atexit`` hook: from now on no native thread calls into Python."""

class NativeHerald:
    """The tools of one Herald, in process."""

    def __init__(self, options_json: str) -> None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def domain(self) -> Optional[str]: ...
    @property
    def branch(self) -> Optional[str]: ...
    @property
    def has_api_key(self) -> bool: ...
    def definitions_json(self) -> str: ...
    def call(
        self, name: str, arguments_json: str, api_key: Optional[str] = None
    ) -> Tuple[str, bool, Optional[str]]: ...
    def call_async(
        self,
        name: str,
        arguments_json: str,
        api_key: Optional[str],
        on_done: Callable[[Any], None],
    ) -> NativeCall: ...

class NativeCall:
    """A tool call started by :meth:`NativeHerald.call_async`."""

    def cancel(self) -> None: ...
    def done(self) -> bool: ...
