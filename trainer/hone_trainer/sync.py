"""``hone-trainer sync``: keep in a vLLM server exactly the LoRA adapters Hone wants served there.

It runs beside a vLLM server started with ``vllm serve <base> --enable-lora`` and
``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`` (or ``hone-trainer serve``, which speaks the same wire).
Like ``work`` it only connects out: to Hone (``<url>/api/v1/trainer``, via
:class:`hone_trainer.work.HoneClient`, with its timeouts and retries) and to vLLM. One round:

1. ``GET {vllm}/v1/models``: entries with a ``parent`` are LoRA adapters (``root`` = the path they
   were loaded from), the others base models. No answer: ``served = []`` and an error.
2. ``POST /serving`` ``{vllmUrl, provider, host, served: [{id, parent, root}], error}``. Hone answers
   ``{provider: {slug, baseModel}, adapters: [{name, slug, files: [{path, sha256, bytes}]}],
   intervalSeconds}``. A 4xx (not 429) is a configuration error: exit 2.
3. When vLLM did not answer, the round stops here. When none of vLLM's base models has ``id`` or
   ``root`` equal to ``baseModel``, nothing is loaded (unloading still happens).
4. Each wanted adapter not served yet gets its files in ``<dir>/<name>/``: reused when the
   ``.hone-files.json`` manifest there equals the wanted list (and the sizes match), otherwise
   downloaded (``GET /adapters/{name}/files/{path}``) into ``<dir>/.tmp-<name>-*``, checked (sha256
   and bytes), and renamed into place. Then ``POST {vllm}/v1/load_lora_adapter``.
5. Each served adapter loaded from a directory directly inside ``<dir>`` that Hone no longer wants
   is unloaded (``POST /v1/unload_lora_adapter``; 404 = already gone) and its directory removed.
   Adapters loaded from anywhere else are never touched.
6. Leftover ``.tmp-*`` directories, and adapter directories (those with a manifest) that are neither
   wanted nor served, are removed.
7. When anything was loaded or unloaded, or the round found errors the first report did not carry,
   ``/v1/models`` is read again and ``POST /serving`` tells Hone the new state and the errors.

``--once``: one round; exit 0, or 1 when the round had an error. Otherwise a round every
``--interval`` seconds (default: Hone's ``intervalSeconds``, else 30) until SIGINT/SIGTERM (exit 0);
a failed round is logged and retried. The Hone token and the vLLM API key are never logged.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import socket
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from . import __version__
from .work import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, HoneClient, HoneError, Stopped, _safe_relpath,
                   _setup_logging)

log = logging.getLogger("hone_trainer.sync")

MANIFEST = ".hone-files.json"
TMP_PREFIX = ".tmp-"
MAX_SERVED = 1000
MAX_ERROR_CHARS = 2000
DEFAULT_INTERVAL = 30.0
FATAL_IN_LOOP = (400, 401, 403, 404)  # the configuration is wrong: retrying will not help
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$")  # an adapter name that is safe as a directory name
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
RUNTIME_OFF = ("vLLM at {url} does not accept adapters at run time: start it with --enable-lora and "
               "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True")


class SyncError(Exception):
    """Something went wrong for one adapter or with vLLM; the message is ready for Hone."""


def vllm_root(url: str) -> str:
    """``http://h:8000``, ``http://h:8000/`` and ``http://h:8000/v1/`` all give ``http://h:8000``."""
    if not re.match(r"^https?://[^/]", url or ""):
        raise ValueError(f"--vllm must start with http:// or https://, got {url!r}")
    root = url.rstrip("/")
    if root.endswith("/v1"):
        root = root[:-3].rstrip("/")
    return root


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return (f"{type(e).__name__}: {text}" if text else type(e).__name__)[:300]


def _vllm_message(resp: httpx.Response) -> tuple[str, bool]:
    """vLLM's error message, and whether the body has vLLM's error shape (``{"error": {...}}`` or flat)."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        err = body["error"] if isinstance(body.get("error"), dict) else body
        if isinstance(err.get("message"), str) and ("type" in err or "code" in err):
            return " ".join(err["message"].split())[:500], True
        if "detail" in body:
            return str(body["detail"])[:500], False
    return " ".join(resp.text.split())[:500] or resp.reason_phrase, False


class VLLM:
    """vLLM's model list and its runtime LoRA endpoints, with deadlines on every request."""

    def __init__(self, url: str, api_key: str | None = None, *, transport: httpx.BaseTransport | None = None):
        self.url = vllm_root(url)
        headers = {"User-Agent": f"hone-trainer/{__version__}"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(timeout=httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0),
                                  headers=headers, follow_redirects=False, transport=transport)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, what: str, **kw: Any) -> httpx.Response:
        try:
            return self._http.request(method, self.url + path, **kw)
        except httpx.HTTPError as e:
            raise SyncError(f"{what}: {_reason(e)}") from None

    def models(self) -> list[dict[str, Any]]:
        """``[{id, parent, root}]``; raises :class:`SyncError` when vLLM does not answer."""
        what = f"vLLM at {self.url} did not answer"
        resp = self._request("GET", "/v1/models", what, timeout=httpx.Timeout(15.0, connect=10.0))
        if not resp.is_success:
            raise SyncError(f"{what}: HTTP {resp.status_code}: {_vllm_message(resp)[0]}")
        try:
            data = resp.json()["data"]
            if not isinstance(data, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise SyncError(f"{what}: the answer is not a model list") from None
        def text(v: Any) -> str | None:
            return v if isinstance(v, str) else None

        return [{"id": m["id"], "parent": text(m.get("parent")), "root": text(m.get("root"))}
                for m in data if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"]]

    def load(self, name: str, path: str, slug: str) -> None:
        what = f"loading hone:{slug} ({name}) into vLLM at {self.url} failed"
        resp = self._request("POST", "/v1/load_lora_adapter", what, json={"lora_name": name, "lora_path": path})
        if resp.is_success or (resp.status_code == 400 and "already been loaded" in resp.text):
            return
        message, is_vllm = _vllm_message(resp)
        if resp.status_code == 404 and (not is_vllm or message == "Not Found"):  # no such route
            raise SyncError(RUNTIME_OFF.format(url=self.url))
        raise SyncError(f"{what}: HTTP {resp.status_code}: {message}")

    def unload(self, name: str) -> None:
        what = f"unloading {name} from vLLM at {self.url} failed"
        resp = self._request("POST", "/v1/unload_lora_adapter", what, json={"lora_name": name})
        if not resp.is_success and resp.status_code != 404:  # 404: already gone
            raise SyncError(f"{what}: HTTP {resp.status_code}: {_vllm_message(resp)[0]}")


def _replace_dir(src: Path, target: Path) -> None:
    """Rename ``src`` to ``target``; an old ``target`` is moved aside first, then removed."""
    old = None
    if os.path.lexists(target):
        old = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{target.name}-old-", dir=target.parent)) / "old"
        os.rename(target, old)
    os.rename(src, target)
    if old is not None:
        shutil.rmtree(old.parent, ignore_errors=True)


@dataclass
class Wanted:
    name: str
    slug: str
    files: list[dict[str, Any]]  # [{path, sha256, bytes}], as the manifest stores them


@dataclass
class Plan:
    """Hone's answer to ``POST /serving``."""

    slug: str
    base: str
    adapters: list[Wanted] = field(default_factory=list)
    names: set[str] = field(default_factory=set)  # every wanted name, even of entries with bad files
    interval: float | None = None
    errors: list[str] = field(default_factory=list)


def _files(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise ValueError("no files")
    files = []
    for f in raw:
        f = f if isinstance(f, dict) else {}
        path = str(_safe_relpath(f.get("path")))
        if path == MANIFEST:
            raise ValueError(f"bad file path from Hone: {path!r}")
        if not isinstance(f.get("sha256"), str) or not _SHA256.match(f["sha256"]):
            raise ValueError(f"{path}: bad sha256 {f.get('sha256')!r}")
        if not isinstance(f.get("bytes"), int) or isinstance(f["bytes"], bool) or f["bytes"] < 0:
            raise ValueError(f"{path}: bad byte count {f.get('bytes')!r}")
        files.append({"path": path, "sha256": f["sha256"].lower(), "bytes": f["bytes"]})
    return files


def parse_plan(answer: Any) -> Plan:
    provider = answer.get("provider") if isinstance(answer, dict) else None
    if not isinstance(provider, dict) or not all(isinstance(provider.get(k), str) for k in ("slug", "baseModel")):
        raise HoneError("POST /serving: the answer has no provider {slug, baseModel}")
    adapters = answer.get("adapters")
    if not isinstance(adapters, list):
        raise HoneError("POST /serving: the answer has no adapters list")
    interval = answer.get("intervalSeconds")
    ok_interval = isinstance(interval, (int, float)) and not isinstance(interval, bool) and interval > 0
    plan = Plan(provider["slug"], provider["baseModel"], interval=float(interval) if ok_interval else None)
    for a in adapters:
        a = a if isinstance(a, dict) else {}
        name, slug = a.get("name"), a.get("slug") if isinstance(a.get("slug"), str) else "?"
        if isinstance(name, str):
            plan.names.add(name)
        try:
            if not isinstance(name, str) or not _NAME.match(name):
                raise ValueError(f"bad adapter name {name!r}")
            plan.adapters.append(Wanted(name, slug, _files(a.get("files"))))
        except (ValueError, HoneError) as e:
            plan.errors.append(f"hone:{slug} ({name}): {e}")
    return plan


class Syncer:
    """One vLLM server, one adapters directory: rounds of read, report, load/unload, report."""

    def __init__(self, client: HoneClient, vllm: VLLM, adapters_dir: str | os.PathLike, *, provider: str | None = None,
                 stop: threading.Event | None = None, secrets: tuple[str | None, ...] = ()):
        self.client, self.vllm, self.provider = client, vllm, provider
        self.dir = Path(os.path.abspath(adapters_dir))
        self.stop = stop or client.stop
        self.secrets = [s for s in secrets if s]

    def _scrub(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "***")
        return text

    def _error(self, errors: list[str], message: str) -> None:
        message = self._scrub(message)
        log.error("%s", message)
        errors.append(message)

    def _read(self) -> tuple[list[dict[str, Any]], str | None]:
        try:
            return self.vllm.models(), None
        except SyncError as e:
            return [], str(e)

    def _report(self, served: list[dict[str, Any]], errors: list[str]) -> Any:
        error = self._scrub("; ".join(errors))[:MAX_ERROR_CHARS] if errors else None
        body = {"vllmUrl": self.vllm.url, "provider": self.provider, "host": socket.gethostname(),
                "served": served[:MAX_SERVED], "error": error}
        return self.client.request_json("POST", "/serving", json=body)

    def round(self) -> tuple[list[str], float | None]:
        """One round; returns its errors and Hone's interval. Raises HoneError when Hone refuses or is away."""
        self.dir.mkdir(parents=True, exist_ok=True)
        served, vllm_error = self._read()
        errors: list[str] = []
        if vllm_error:
            self._error(errors, vllm_error)
        plan = parse_plan(self._report(served, errors))
        reported = len(errors)
        for e in plan.errors:
            self._error(errors, e)
        if vllm_error:
            return errors, plan.interval
        changed = False
        base_error = self._base_error(served, plan)
        if base_error:
            self._error(errors, base_error)
        else:
            changed |= self._load_missing(plan, {m["id"] for m in served}, errors)
        changed |= self._unload_unwanted(served, plan.names, errors)
        if changed or len(errors) > reported:
            if changed:
                served, vllm_error = self._read()
                if vllm_error:
                    self._error(errors, vllm_error)
            self._report(served, errors)
        if not vllm_error:
            self._cleanup(served, plan.names)
        return errors, plan.interval

    def _base_error(self, served: list[dict[str, Any]], plan: Plan) -> str | None:
        bases = [m for m in served if m["parent"] is None]
        if any(plan.base in (m["id"], m["root"]) for m in bases):
            return None
        ids = ", ".join(m["id"] for m in bases) or "no base model"
        return f"vLLM at {self.vllm.url} serves {ids}, not {plan.base} (the base of custom provider {plan.slug})"

    def _load_missing(self, plan: Plan, served_ids: set[str], errors: list[str]) -> bool:
        changed = False
        for a in plan.adapters:
            if a.name in served_ids:
                continue
            try:
                path = self._ensure_files(a)
                self.vllm.load(a.name, str(path), a.slug)
            except (SyncError, HoneError, OSError) as e:
                prefix = "" if isinstance(e, SyncError) else f"hone:{a.slug} ({a.name}): "
                self._error(errors, prefix + (_reason(e) if isinstance(e, OSError) else str(e)))
                if str(e) == RUNTIME_OFF.format(url=self.vllm.url):
                    break  # every other load would fail the same way
                continue
            log.info("loaded hone:%s (%s) into %s", a.slug, a.name, self.vllm.url)
            changed = True
        return changed

    def _ensure_files(self, a: Wanted) -> Path:
        target = self.dir / a.name
        if self._have(target, a.files):
            return target
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{a.name}-", dir=self.dir))
        try:
            for f in a.files:
                url = f"/adapters/{quote(a.name, safe='')}/files/{quote(f['path'], safe='/')}"
                sha, size = self.client.download(url, tmp / f["path"], params={})
                if sha != f["sha256"] or size != f["bytes"]:
                    raise SyncError(f"hone:{a.slug} ({a.name}): {f['path']} has sha256 {sha} ({size} bytes), "
                                    f"expected {f['sha256']} ({f['bytes']} bytes)")
            (tmp / MANIFEST).write_text(json.dumps(a.files), encoding="utf-8")
            _replace_dir(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        log.info("downloaded hone:%s (%s): %d files, %d bytes", a.slug, a.name, len(a.files),
                 sum(f["bytes"] for f in a.files))
        return target

    @staticmethod
    def _have(target: Path, files: list[dict[str, Any]]) -> bool:
        try:
            if json.loads((target / MANIFEST).read_text(encoding="utf-8")) != files:
                return False
            return all((target / f["path"]).stat().st_size == f["bytes"] for f in files)
        except (OSError, ValueError):
            return False

    def _ours(self, root: Any) -> bool:
        """Loaded from a directory directly inside the adapters directory."""
        if not isinstance(root, str) or not root:
            return False
        return os.path.dirname(os.path.realpath(root)) == os.path.realpath(self.dir)

    def _unload_unwanted(self, served: list[dict[str, Any]], wanted: set[str], errors: list[str]) -> bool:
        changed = False
        for m in served:
            if m["parent"] is None or m["id"] in wanted or not self._ours(m["root"]):
                continue
            try:
                self.vllm.unload(m["id"])
            except SyncError as e:
                self._error(errors, str(e))
                continue
            log.info("unloaded %s from %s", m["id"], self.vllm.url)
            changed = True
            if _NAME.match(m["id"]):
                self._remove(self.dir / m["id"])
        return changed

    def _cleanup(self, served: list[dict[str, Any]], wanted: set[str]) -> None:
        keep = wanted | {m["id"] for m in served}
        keep |= {os.path.basename(os.path.realpath(m["root"])) for m in served if self._ours(m["root"])}
        for entry in sorted(self.dir.iterdir()):
            if entry.is_symlink() or not entry.is_dir():
                continue
            if entry.name.startswith(TMP_PREFIX) or (entry.name not in keep and (entry / MANIFEST).is_file()):
                self._remove(entry)

    @staticmethod
    def _remove(path: Path) -> None:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            log.info("removed %s", path)

    def run(self, *, once: bool = False, interval: float | None = None) -> int:
        """Rounds until stopped (or one with ``once``); returns the exit code."""
        hone_interval = None
        while True:
            try:
                errors, hone_interval = self.round()
                rc = EXIT_FAILED if errors else EXIT_OK
            except Stopped:
                return EXIT_OK
            except HoneError as e:
                log.error("%s", self._scrub(str(e)))
                if e.status is not None and (once or e.status in FATAL_IN_LOOP):
                    return EXIT_USAGE
                rc = EXIT_FAILED
            except Exception as e:  # e.g. the adapters directory cannot be written; never fatal in loop mode
                log.error("round failed: %s", self._scrub(_reason(e)), exc_info=log.isEnabledFor(logging.DEBUG))
                rc = EXIT_FAILED
            if once:
                return rc
            if self.stop.wait(interval or hone_interval or DEFAULT_INTERVAL):
                return EXIT_OK


# --------------------------------------------------------------------------- CLI


def _cmd_sync(args: Any) -> int:
    import signal

    _setup_logging(args.verbose)
    token = args.token or os.environ.get("HONE_TRAINER_TOKEN")
    url = args.url or os.environ.get("HONE_URL")
    api_key = args.vllm_api_key or os.environ.get("VLLM_API_KEY") or None
    if not url or not token:
        log.error("sync needs --url (or HONE_URL) and --token (or HONE_TRAINER_TOKEN)")
        return EXIT_USAGE
    if args.interval is not None and args.interval <= 0:
        log.error("--interval must be positive")
        return EXIT_USAGE
    stop = threading.Event()
    try:
        root = vllm_root(args.vllm)
        client = HoneClient(url, token, stop=stop)
    except ValueError as e:
        log.error("%s", e)
        return EXIT_USAGE
    vllm = VLLM(root, api_key)
    syncer = Syncer(client, vllm, args.dir, provider=args.provider, stop=stop, secrets=(token, api_key))

    def on_signal(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        log.info("stopping after this round (signal again to abort)")

    handlers = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handlers[sig] = signal.signal(sig, on_signal)
    try:
        return syncer.run(once=args.once, interval=args.interval)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        for sig, previous in handlers.items():
            signal.signal(sig, previous)
        client.close()
        vllm.close()


def _add_sync(sub) -> None:
    p = sub.add_parser("sync", help="keep a vLLM server's LoRA adapters in step with what Hone serves there")
    p.add_argument("--url", default=None, help="Hone's base URL, e.g. https://hone.example.com (or $HONE_URL)")
    p.add_argument("--token", default=None,
                   help="trainer token (or $HONE_TRAINER_TOKEN, which keeps it out of the process list)")
    p.add_argument("--dir", required=True, help="adapters directory; vLLM must be able to read it at the same path")
    p.add_argument("--vllm", required=True, help="vLLM's URL, e.g. http://127.0.0.1:8000 (a trailing /v1 is fine)")
    p.add_argument("--provider", default=None, help="slug of the custom provider in Hone (default: Hone matches one)")
    p.add_argument("--vllm-api-key", default=None, help="vLLM's --api-key, if it has one (or $VLLM_API_KEY)")
    p.add_argument("--interval", type=float, default=None,
                   help=f"seconds between rounds (default: Hone's intervalSeconds, else {DEFAULT_INTERVAL:g})")
    p.add_argument("--once", action="store_true", help="one round; exit 0, or 1 when it had an error")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.set_defaults(func=_cmd_sync)
