"""Parsed library stubs, cached: once per process in memory, and on disk across processes.

:func:`parse_stub_code` preprocesses and parses a stub's C code (labelling its
loops); :func:`defined_names` lists the functions a stub defines without
loading its tree when the disk cache (:func:`cache_dir`) knows them. Brokers
(:mod:`passman.brokers`) and the stub table (:mod:`passman.stubtable`) share it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast

from . import frontend
from .astutil import called_names, func_name, replace_child
from .fsutil import user_cache_dir
from .loop import unlabelled_fors


@dataclass
class ParsedStub:
    """A stub's code, preprocessed and parsed (shared by every workspace: never modify it)."""

    ast: c_ast.FileAST
    #: the file name in the tree's coordinates
    coord_name: str
    #: the functions the code defines
    funcs: dict[str, c_ast.FuncDef]
    #: for each defined function, the names it calls
    calls: dict[str, list[str]]

    def closure(self, name: str) -> list[str]:
        """``name`` and the functions of the same code it calls, transitively."""
        out, todo = [], [name]
        while todo:
            f = todo.pop()
            if f in out or f not in self.funcs:
                continue
            out.append(f)
            todo.extend(self.calls[f])
        return out


_PARSED: dict[tuple, ParsedStub] = {}
_DIGESTS: dict[tuple, str] = {}
#: bump when the parsed form changes (labels, fields of ParsedStub)
CACHE_VERSION = "1"


def cache_dir() -> Path | None:
    """Where parsed stubs persist between runs (``$PASSMAN_CACHE_DIR``, else the user cache);
    None when ``PASSMAN_CACHE_DIR`` is empty (no disk cache)."""
    env = os.environ.get("PASSMAN_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    return user_cache_dir() / "stubs"


def _headers_digest(dirs: tuple[str, ...]) -> str:
    """A digest of every header a stub may include (a change re-parses the stubs)."""
    if dirs not in _DIGESTS:
        h = hashlib.sha256()
        for d in dirs:
            for f in sorted(Path(d).rglob("*.h")):
                h.update(str(f).encode())
                h.update(f.read_bytes())
        _DIGESTS[dirs] = h.hexdigest()
    return _DIGESTS[dirs]


def _disk_key(code: str, origin: Path | None, include_dirs: list[Path]) -> str:
    import pycparser

    dirs = tuple(str(d) for d in [*frontend.SYSTEM_INCLUDE_DIRS, *include_dirs])
    h = hashlib.sha256()
    for part in (CACHE_VERSION, pycparser.__version__, str(origin), code, *dirs,
                 *frontend.PREDEFINED, _headers_digest(dirs)):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _load(path: Path) -> ParsedStub | None:
    try:
        with open(path, "rb") as f:
            value = pickle.load(f)
    except Exception:  # noqa: BLE001 - a missing or stale cache entry is re-parsed
        return None
    return value if isinstance(value, ParsedStub) else None


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # the cache is an optimisation only


def _store(path: Path, parsed: ParsedStub) -> None:
    """Write the tree (``.pickle``) and the names it defines (``.names``)."""
    try:
        data = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError):
        return
    _write_atomic(path, data)
    _write_atomic(path.with_suffix(".names"), "\n".join(parsed.funcs).encode())


_NAMES: dict[tuple, list[str]] = {}


def defined_names(code: str, origin: Path | None, include_dirs: list[Path]) -> list[str]:
    """The functions a stub's code defines, without loading its tree when the disk cache knows."""
    key = (code, str(origin), tuple(str(d) for d in include_dirs))
    if key in _PARSED:
        return list(_PARSED[key].funcs)
    if key not in _NAMES:
        where = cache_dir()
        path = where / f"{_disk_key(code, origin, include_dirs)}.names" if where else None
        try:
            _NAMES[key] = path.read_text().split() if path else None
        except OSError:
            _NAMES[key] = None
        if _NAMES[key] is None:
            _NAMES[key] = list(parse_stub_code(code, origin, include_dirs).funcs)
            if path is not None:
                _write_atomic(path, "\n".join(_NAMES[key]).encode())
    return list(_NAMES[key])


def parse_stub_code(code: str, origin: Path | None, include_dirs: list[Path]) -> ParsedStub:
    """Preprocess and parse a stub's code against passman's model headers.

    Cached in memory (the trees are shared by every workspace) and on disk
    (:func:`cache_dir`, keyed by the code, the headers and pycparser's
    version). Loops get labels ``<function>_l<k>``, so the shared trees need
    no labelling by the workspaces that use them.
    """
    key = (code, str(origin), tuple(str(d) for d in include_dirs))
    hit = _PARSED.get(key)
    if hit is not None:
        return hit
    where = cache_dir()
    disk = where / f"{_disk_key(code, origin, include_dirs)}.pickle" if where else None
    if disk is not None:
        hit = _load(disk)
        if hit is not None:
            _PARSED[key] = hit
            return hit
    flags: list[str] = []
    for d in include_dirs:
        flags += ["-I", str(d)]
    flags.append("-D__passman_stub__=1")
    if origin is not None and origin.is_file() and origin.read_text() == code:
        text = frontend.preprocess(origin, flags)
        coord_name = str(origin)
    else:
        coord_name = str(origin) if origin is not None else "<stub>"
        tmp = Path(tempfile.mkdtemp(prefix="passman-stub-"))
        try:
            f = tmp / "stub.c"
            f.write_text(f'#line 1 "{coord_name}"\n{code}\n')
            if origin is not None:
                flags += ["-I", str(origin.parent)]
            text = frontend.preprocess(f, flags)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    ast = frontend.parse_text(text, coord_name)
    funcs = {func_name(n): n for n in ast.ext if isinstance(n, c_ast.FuncDef)}
    for name, fd in funcs.items():
        pending = unlabelled_fors(fd)
        pending.sort(key=lambda pf: (pf[1].coord.line, pf[1].coord.column) if pf[1].coord else (0, 0))
        for k, (parent, loop) in enumerate(pending, 1):
            replace_child(parent, loop, c_ast.Label(f"{name}_l{k}", loop, loop.coord))
    calls = {name: [c for c in dict.fromkeys(called_names(fd.body)) if c != name]
             for name, fd in funcs.items()}
    parsed = ParsedStub(ast, coord_name, funcs, calls)
    _PARSED[key] = parsed
    if disk is not None:
        _store(disk, parsed)
    return parsed
