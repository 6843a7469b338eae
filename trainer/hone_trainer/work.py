"""``hone-trainer work``: lease training jobs from Hone over HTTP and run them.

The worker only connects out to Hone (it opens no port). Its loop:

1. ``POST /lease`` with this trainer's info (name, host, GPUs, versions). No job: wait and ask again.
2. Start a heartbeat thread at once (every ``leaseSeconds / 3``, at most 20 s apart). Each heartbeat
   carries the progress events collected since the previous one; its answer may say ``cancel``.
3. Download the entries (``GET /jobs/{id}/entries?split=TRAIN|TEST``) and, for a job with
   ``resumeFrom``, the checkpoint files (sha256 checked).
4. Run :func:`hone_trainer.train.train`. Each checkpoint it writes is uploaded by a background
   thread (``PUT /files/checkpoint/...`` then ``POST /checkpoint``), so Hone can hand the job to
   another trainer that resumes from it if this lease lapses.
5. Upload the result files (``PUT /files/result/...``) and ``POST /done`` with the manifest; on an
   error ``POST /fail``; on ``cancel: true`` stop within one step and ``POST /fail`` with
   ``cancelled: true``.

A ``409`` on any call about the job means the lease is lost (it lapsed, and another trainer has the
job): training stops at once, nothing more is reported for that job, and the worker leases again.

Every request has timeouts. Connection errors, timeouts, 5xx and 429 (honouring ``Retry-After``) are
retried with exponential backoff; other 4xx answers are never retried. The token is sent only in the
``Authorization`` header and is never logged.

The HTTP API is documented in the README ("Working for Hone").
"""

from __future__ import annotations

import collections
import hashlib
import logging
import math
import os
import random
import re
import shutil
import socket
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import httpx

from . import __version__
from .data import ConfigError, DataError, TrainConfig, read_jsonl
from .train import sha256_file, train

log = logging.getLogger("hone_trainer.work")

API_PREFIX = "/api/v1/trainer"
MAX_EVENTS_PER_HEARTBEAT = 100
MAX_BUFFERED_EVENTS = 10_000
MAX_HEARTBEAT_INTERVAL = 20.0
MAX_ERROR_CHARS = 1000

# Exit codes of `hone-trainer work --once` (and of the loop when it has to give up).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2  # bad arguments, or Hone refused the token (401/403)
EXIT_CANCELLED = 3
EXIT_LEASE_LOST = 4
EXIT_INTERRUPTED = 130


# --------------------------------------------------------------------------- errors


class HoneError(Exception):
    """Hone answered with a 4xx (other than 429) or gave up answering (transient errors past the retries)."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


class LeaseLost(HoneError):
    """409 on a call about a job: the lease lapsed or another trainer has the job."""


class Stopped(Exception):
    """The worker was asked to stop (Ctrl-C / SIGTERM) while waiting or retrying."""


class _Retry(Exception):
    def __init__(self, reason: str, delay: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.delay = delay


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _error_message(resp: httpx.Response) -> tuple[str, str | None]:
    """Hone's error body is {"message", "code", "issues"}; fall back to the status text."""
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        code = body.get("code") if isinstance(body.get("code"), str) else None
        return body["message"], code
    text = resp.text.strip().splitlines()[0][:200] if resp.text.strip() else resp.reason_phrase
    return text, None


# --------------------------------------------------------------------------- HTTP client


class HoneClient:
    """The trainer API (``<url>/api/v1/trainer``) with timeouts, retries and backoff.

    ``attempts`` is how many times a request is tried in all (transient errors only); ``retry_base`` is
    the first backoff delay in seconds, doubled on each retry up to ``retry_max``. Waits end early when
    ``stop`` is set (then :class:`Stopped` is raised).
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        attempts: int = 6,
        retry_base: float = 1.0,
        retry_max: float = 30.0,
        timeout: httpx.Timeout | None = None,
        stop: threading.Event | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        if not re.match(r"^https?://", url):
            raise ValueError(f"--url must start with http:// or https://, got {url!r}")
        self.base = url.rstrip("/") + API_PREFIX
        self.attempts = attempts
        self.retry_base = retry_base
        self.retry_max = retry_max
        self.stop = stop or threading.Event()
        # Every phase has a deadline: a stalled connect/read/write fails instead of hanging.
        self._http = httpx.Client(
            timeout=timeout or httpx.Timeout(connect=15.0, read=120.0, write=120.0, pool=30.0),
            headers={"Authorization": f"Bearer {token}", "User-Agent": f"hone-trainer/{__version__}"},
            follow_redirects=False,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    # -- retry machinery

    def _check(self, resp: httpx.Response, what: str) -> httpx.Response:
        status = resp.status_code
        if status < 400:
            return resp
        if status == 429 or status >= 500:
            resp.read()
            raise _Retry(f"HTTP {status}", _retry_after_seconds(resp.headers.get("retry-after")))
        resp.read()
        message, code = _error_message(resp)
        cls = LeaseLost if status == 409 and "/jobs/" in what else HoneError
        raise cls(f"{what}: HTTP {status}: {message}", status=status, code=code)

    def _wait(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise Stopped()

    def _backoff(self, attempt: int) -> float:
        delay = min(self.retry_max, self.retry_base * 2 ** (attempt - 1))
        return delay * (0.5 + random.random() / 2)

    def _with_retries(self, what: str, once, attempts: int | None = None):
        attempts = attempts or self.attempts
        for attempt in range(1, attempts + 1):
            if self.stop.is_set():
                raise Stopped()
            try:
                return once()
            except httpx.TransportError as e:  # connect/read/write errors and timeouts
                reason, delay = f"{type(e).__name__}", None
            except _Retry as e:
                reason, delay = e.reason, e.delay
            if attempt == attempts:
                raise HoneError(f"{what}: {reason} (gave up after {attempts} attempts)")
            delay = self._backoff(attempt) if delay is None else min(delay, 300.0)
            log.warning("%s: %s; retrying in %.1fs (attempt %d/%d)", what, reason, delay, attempt + 1, attempts)
            self._wait(delay)
        raise AssertionError("unreachable")

    # -- requests

    def request_json(self, method: str, path: str, *, json: Any = None, params: dict | None = None,
                     attempts: int | None = None, timeout: float | None = None) -> Any:
        what = f"{method} {path}"
        extra = {"timeout": httpx.Timeout(timeout)} if timeout is not None else {}

        def once():
            resp = self._check(self._http.request(method, self.base + path, json=json, params=params, **extra), what)
            if not resp.content:
                return None
            try:
                return resp.json()
            except ValueError:
                raise HoneError(f"{what}: the answer is not JSON", status=resp.status_code) from None

        return self._with_retries(what, once, attempts)

    def upload_file(self, path: str, file: Path, sha256: str, *, params: dict) -> Any:
        what = f"PUT {path}"

        def once():
            with open(file, "rb") as f:  # reopened on every attempt; httpx sends Content-Length from the file size
                resp = self._http.put(self.base + path, content=f, params=params, headers={
                    "Content-Type": "application/octet-stream", "x-hone-sha256": sha256})
            resp = self._check(resp, what)
            try:
                return resp.json()
            except ValueError:
                return None

        return self._with_retries(what, once)

    def download(self, path: str, dest: Path, *, params: dict) -> tuple[str, int]:
        """Stream a response body to ``dest``; returns (sha256, bytes)."""
        what = f"GET {path}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")

        def once():
            h, n = hashlib.sha256(), 0
            with self._http.stream("GET", self.base + path, params=params) as resp:
                self._check(resp, what)
                with open(tmp, "wb") as f:
                    for chunk in resp.iter_bytes(1 << 20):
                        f.write(chunk)
                        h.update(chunk)
                        n += len(chunk)
            tmp.replace(dest)
            return h.hexdigest(), n

        return self._with_retries(what, once)


# --------------------------------------------------------------------------- job helpers


def _camel_to_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_CONFIG_FIELDS = set(TrainConfig.__dataclass_fields__) - {"method", "base_model", "lora"}


def job_to_config(job: dict[str, Any], base_model: str | None = None) -> dict[str, Any]:
    """Map a leased job's ``method``/``baseModel``/``settings`` (camelCase) to :func:`train`'s config.

    ``settings.lora: null`` is a full fine-tune. A null setting keeps train()'s default. Settings that
    train() does not know are logged and ignored.
    """
    settings = job.get("settings") or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"job settings must be an object, got {type(settings).__name__}")
    config: dict[str, Any] = {"method": job.get("method"), "base_model": base_model or job.get("baseModel")}
    for key, value in settings.items():
        if key == "lora":
            if value is None:
                config["lora"] = None
                continue
            if not isinstance(value, dict):
                raise ConfigError(f"settings.lora must be an object or null, got {type(value).__name__}")
            lora = {}
            for k, v in value.items():
                if v is None:
                    continue
                if k == "targetModules" and v == ["all-linear"]:
                    v = "all-linear"
                lora[_camel_to_snake(k)] = v
            config["lora"] = lora
            continue
        name = _camel_to_snake(key)
        if name not in _CONFIG_FIELDS:
            log.warning("ignoring setting %r: hone-trainer %s does not know it", key, __version__)
            continue
        if value is not None:
            config[name] = value
    return config


def resolve_base_model(name: str) -> str:
    """A local directory, or the local-cache snapshot of a Hugging Face id. Never downloads."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("the job has no baseModel")
    p = Path(name).expanduser()
    if p.is_dir():
        return str(p)
    if name.startswith(("/", ".", "~")) or p.is_absolute():
        raise ConfigError(f"base model directory {name!r} does not exist on this trainer")
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(name, local_files_only=True)
    except Exception:
        raise ConfigError(
            f"base model {name!r} is not in this trainer's Hugging Face cache (hone-trainer never downloads models; "
            f"fetch it once with `hf download {name}`)"
        ) from None


def _safe_relpath(path: Any) -> PurePosixPath:
    """A relative path from Hone, checked so that it cannot leave the directory it is written to."""
    if not isinstance(path, str) or not path:
        raise HoneError(f"bad file path from Hone: {path!r}")
    p = PurePosixPath(path)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or "\\" in path:
        raise HoneError(f"bad file path from Hone: {path!r}")
    return p


def _finite(v: Any) -> float | None:
    if v is None:
        return None
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def to_api_event(ev: dict[str, Any]) -> dict[str, Any]:
    """A train() event dict as the API's Event."""
    gpu = ev.get("gpu_memory_bytes")
    return {
        "step": int(ev.get("step") or 0),
        "totalSteps": int(ev.get("total_steps") or 0),
        "loss": _finite(ev.get("loss")),
        "evalLoss": _finite(ev.get("eval_loss")),
        "learningRate": _finite(ev.get("learning_rate")),
        "tokensPerSecond": _finite(ev.get("tokens_per_second")),
        "etaSeconds": _finite(ev.get("eta_seconds")),
        "gpuMemoryBytes": int(gpu) if gpu is not None else None,
    }


def trainer_info(name: str | None = None) -> dict[str, Any]:
    """What the lease request says about this trainer."""
    from importlib.metadata import PackageNotFoundError, version

    host = socket.gethostname()
    gpus = []
    try:
        import torch

        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(i)
                gpus.append({"name": props.name, "memoryBytes": int(props.total_memory)})
    except Exception as e:  # a broken CUDA setup still lets the trainer report itself
        log.warning("could not list GPUs: %s", e)
    versions = {"hone_trainer": __version__}
    for pkg in ("torch", "transformers", "trl", "peft"):
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = "unknown"
    return {"name": name or host, "host": host, "gpus": gpus, "versions": versions}


def _short_error(e: BaseException, token: str) -> str:
    """One line for /fail: the exception's type and message, never a stack trace or the token."""
    if isinstance(e, (ConfigError, DataError, HoneError)):
        msg = str(e)
    else:
        msg = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    msg = " ".join(msg.split())
    if token:
        msg = msg.replace(token, "***")
    return msg[:MAX_ERROR_CHARS]


# --------------------------------------------------------------------------- per-job state and threads


@dataclass
class JobOutcome:
    """How one leased job ended (``status``: done | failed | cancelled | lease_lost | stopped)."""

    job_id: str
    status: str
    error: str | None = None
    steps: list[int] = field(default_factory=list)  # the optimizer steps this lease ran
    cancel_step: int | None = None  # the last step reported when Hone's cancel arrived
    result: dict[str, Any] | None = None


class _Lease:
    def __init__(self, job: dict[str, Any]):
        self.job_id: str = job["id"]
        self.lease_id: str = job["leaseId"]
        self.lease_seconds = float(job.get("leaseSeconds") or 60)
        self.cancel = threading.Event()
        self.lost = threading.Event()
        self.cancel_step: int | None = None
        self.last_step: int | None = None
        self.events: collections.deque = collections.deque()
        self.lock = threading.Lock()

    def add_event(self, event: dict[str, Any]) -> None:
        with self.lock:
            if len(self.events) >= MAX_BUFFERED_EVENTS:
                self.events.popleft()  # Hone unreachable for long: keep the newest
            self.events.append(event)

    @property
    def heartbeat_interval(self) -> float:
        return max(0.05, min(self.lease_seconds / 3, MAX_HEARTBEAT_INTERVAL))


class _Heartbeat(threading.Thread):
    """Renews the lease every leaseSeconds/3 (≤ 20 s), sending the events collected since the last beat."""

    def __init__(self, client: HoneClient, lease: _Lease):
        super().__init__(name=f"heartbeat-{lease.job_id}", daemon=True)
        self.client, self.lease = client, lease
        self._halt = threading.Event()
        self._beat_lock = threading.Lock()

    def run(self) -> None:
        while not self._halt.wait(self.lease.heartbeat_interval):
            self.beat()
            if self.lease.lost.is_set():
                return

    def beat(self, attempts: int = 3) -> bool:
        """One heartbeat (more while over 100 events wait). False when it could not be delivered."""
        lease = self.lease
        with self._beat_lock:
            while not lease.lost.is_set():
                with lease.lock:
                    batch = list(lease.events)[:MAX_EVENTS_PER_HEARTBEAT]
                try:
                    answer = self.client.request_json(
                        "POST", f"/jobs/{quote(lease.job_id, safe='')}/heartbeat",
                        json={"leaseId": lease.lease_id, "events": batch}, attempts=attempts,
                        # a hung heartbeat must not outlive the lease it is renewing
                        timeout=max(5.0, min(30.0, lease.lease_seconds / 3))) or {}
                except LeaseLost as e:
                    log.warning("job %s: lease lost (%s); stopping it", lease.job_id, e)
                    lease.lost.set()
                    return False
                except Stopped:
                    return False
                except HoneError as e:
                    log.warning("job %s: heartbeat failed: %s (events kept for the next one)", lease.job_id, e)
                    return False
                with lease.lock:
                    for _ in range(min(len(batch), len(lease.events))):
                        lease.events.popleft()
                    more = len(lease.events) >= MAX_EVENTS_PER_HEARTBEAT
                if isinstance(answer.get("leaseSeconds"), (int, float)) and answer["leaseSeconds"] > 0:
                    lease.lease_seconds = float(answer["leaseSeconds"])
                if answer.get("cancel") is True and not lease.cancel.is_set():
                    lease.cancel.set()  # set first, then read the step: training stops within one step of it
                    lease.cancel_step = lease.last_step
                    log.info("job %s: Hone asked to cancel (at step %s)", lease.job_id, lease.cancel_step)
                if not more:
                    return True
            return False

    def flush(self) -> bool:
        """Send every event still buffered (before /done or /fail)."""
        for _ in range(1 + MAX_BUFFERED_EVENTS // MAX_EVENTS_PER_HEARTBEAT):
            if not self.beat(attempts=self.client.attempts):
                return False
            with self.lease.lock:
                if not self.lease.events:
                    return True
        return False

    def halt(self) -> None:
        self._halt.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout=10)  # a beat still in flight ends on its own (daemon thread, bounded timeouts)


class _CheckpointUploader(threading.Thread):
    """Uploads each checkpoint train() writes, then POSTs /checkpoint, without holding up training."""

    def __init__(self, client: HoneClient, lease: _Lease, ckpt_root: Path, flush_progress=None):
        super().__init__(name=f"checkpoints-{lease.job_id}", daemon=True)
        self.client, self.lease, self.ckpt_root = client, lease, ckpt_root
        # Sends the progress buffered so far: a job resumed from this checkpoint then has every step before it.
        self.flush_progress = flush_progress
        self.queue: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self._abort = threading.Event()
        self.posted: list[int] = []

    def put(self, step: int, directory: Path) -> None:
        with self._cond:
            self.queue.append((step, directory))
            self._cond.notify()

    def run(self) -> None:
        while True:
            with self._cond:
                while not self.queue and not self._closed:
                    self._cond.wait()
                if not self.queue:
                    return
                step, directory = self.queue.popleft()
            if self._aborted():
                continue
            try:
                self._upload(step, directory)
            except LeaseLost as e:
                log.warning("job %s: lease lost while uploading checkpoint-%d (%s)", self.lease.job_id, step, e)
                self.lease.lost.set()
            except Stopped:
                return
            except Exception as e:  # a missing checkpoint only means an earlier resume point
                log.warning("job %s: checkpoint-%d not uploaded: %s", self.lease.job_id, step,
                            _short_error(e, ""))

    def _aborted(self) -> bool:
        return self._abort.is_set() or self.lease.lost.is_set() or self.lease.cancel.is_set()

    def _upload(self, step: int, directory: Path) -> None:
        lease = self.lease
        job = quote(lease.job_id, safe="")
        files = []
        for p in sorted(directory.rglob("*")):
            if not p.is_file():
                continue
            if self._aborted():
                return
            rel = p.relative_to(self.ckpt_root).as_posix()
            sha, size = sha256_file(p), p.stat().st_size
            self.client.upload_file(f"/jobs/{job}/files/checkpoint/{quote(rel, safe='/')}", p, sha,
                                    params={"leaseId": lease.lease_id})
            files.append({"path": rel, "sha256": sha, "bytes": size})
        if self._aborted():
            return
        if self.flush_progress is not None:
            self.flush_progress()
        self.client.request_json("POST", f"/jobs/{job}/checkpoint",
                                 json={"leaseId": lease.lease_id, "step": step, "files": files})
        self.posted.append(step)
        log.info("job %s: uploaded checkpoint-%d (%d files, %d bytes)", lease.job_id, step, len(files),
                 sum(f["bytes"] for f in files))

    def finish(self, drain: bool) -> None:
        """drain: upload what is queued first; else drop it (after the file in flight)."""
        if not drain:
            self._abort.set()
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self.is_alive():
            # Aborting does not wait long for a big file in flight: the thread stops after it on its own.
            self.join(timeout=None if drain else 5)


# --------------------------------------------------------------------------- the worker


class Worker:
    """Leases jobs from Hone one at a time and runs them. See the module docstring."""

    def __init__(
        self,
        url: str,
        token: str,
        work_dir: str | os.PathLike,
        *,
        name: str | None = None,
        poll_seconds: float | None = None,
        log_every: int = 10,
        keep: bool = False,
        client: HoneClient | None = None,
        stop: threading.Event | None = None,
    ):
        self.stop = stop or (client.stop if client else threading.Event())
        self.client = client or HoneClient(url, token, stop=self.stop)
        self.client.stop = self.stop
        self.token = token
        self.work_dir = Path(work_dir).expanduser()
        self.name = name
        self.poll_seconds = poll_seconds
        self.log_every = max(1, int(log_every))
        self.keep = keep
        self._info: dict[str, Any] | None = None
        self.last_outcome: JobOutcome | None = None

    @property
    def info(self) -> dict[str, Any]:
        if self._info is None:
            self._info = trainer_info(self.name)
        return self._info

    # -- leasing

    def lease(self) -> tuple[dict[str, Any] | None, float]:
        """One lease request: (job or None, seconds to wait before asking again)."""
        answer = self.client.request_json("POST", "/lease", json={"trainer": self.info}) or {}
        job = answer.get("job")
        retry = answer.get("retryAfterSeconds")
        wait = float(retry) if isinstance(retry, (int, float)) and retry >= 0 else 5.0
        if job is not None and (not isinstance(job, dict) or not job.get("id") or not job.get("leaseId")):
            raise HoneError(f"POST /lease: the job in the answer has no id/leaseId: {str(job)[:200]}")
        return job, wait

    def run(self, once: bool = False) -> int:
        """Lease and run jobs until stopped (``once``: one lease attempt, at most one job). Returns an exit code."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        log.info("trainer %s on %s: %d GPU(s), hone_trainer %s, torch %s; asking %s for jobs",
                 self.info["name"], self.info["host"], len(self.info["gpus"]), __version__,
                 self.info["versions"].get("torch"), self.client.base)
        failures = 0
        while not self.stop.is_set():
            try:
                job, wait = self.lease()
                failures = 0
            except Stopped:
                break
            except HoneError as e:
                if e.status in (401, 403):
                    log.error("Hone refused the trainer token: %s", e)
                    return EXIT_USAGE
                if once:
                    log.error("could not lease a job: %s", e)
                    return EXIT_FAILED
                failures += 1
                wait = min(300.0, 5.0 * 2 ** min(failures, 6))
                log.warning("could not lease a job: %s; trying again in %.0fs", e, wait)
                if self.stop.wait(wait):
                    break
                continue
            if job is None:
                if once:
                    log.info("no job available")
                    return EXIT_OK
                if self.stop.wait(self.poll_seconds if self.poll_seconds is not None else wait):
                    break
                continue
            outcome = self.last_outcome = self.run_job(job)
            if once or outcome.status == "stopped":
                return {
                    "done": EXIT_OK, "failed": EXIT_FAILED, "cancelled": EXIT_CANCELLED,
                    "lease_lost": EXIT_LEASE_LOST, "stopped": EXIT_INTERRUPTED,
                }[outcome.status]
        return EXIT_INTERRUPTED

    # -- one job

    def run_job(self, job: dict[str, Any]) -> JobOutcome:
        lease = _Lease(job)
        jid = quote(lease.job_id, safe="")
        outcome = JobOutcome(job_id=lease.job_id, status="failed")
        safe_name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{lease.job_id}-{lease.lease_id}")
        job_dir = self.work_dir / safe_name
        log.info("leased job %s (%s, %s, %s; %s train / %s test entries%s)", lease.job_id, job.get("slug"),
                 job.get("method"), job.get("baseModel"), (job.get("entries") or {}).get("train"),
                 (job.get("entries") or {}).get("test"),
                 f"; resuming from step {job['resumeFrom'].get('step')}" if job.get("resumeFrom") else "")
        heartbeat = _Heartbeat(self.client, lease)
        heartbeat.start()
        uploader: _CheckpointUploader | None = None
        try:
            if job_dir.exists():
                shutil.rmtree(job_dir)
            job_dir.mkdir(parents=True)
            config = job_to_config(job)
            config["base_model"] = resolve_base_model(config["base_model"])
            from .data import parse_config

            parse_config(config)  # a bad config fails before anything is downloaded

            train_entries = self._entries(lease, "TRAIN", job_dir / "train.jsonl")
            test_entries = self._entries(lease, "TEST", job_dir / "test.jsonl")
            resume_dir = self._resume_files(lease, job.get("resumeFrom"), job_dir / "resume")
            self._check_lease(lease)

            out = job_dir / "out"
            uploader = _CheckpointUploader(self.client, lease, out / "checkpoints", flush_progress=heartbeat.flush)
            uploader.start()

            def on_event(ev: dict[str, Any]) -> None:
                kind, step, total = ev.get("type"), ev.get("step"), ev.get("total_steps")
                if kind == "step":
                    lease.last_step = step
                    outcome.steps.append(step)
                    if step % self.log_every == 0 or step == total:
                        log.info("job %s: step %d/%d loss %.4f", lease.job_id, step, total,
                                 ev["loss"] if ev.get("loss") is not None else float("nan"))
                elif kind == "eval" and ev.get("eval_loss") is not None:
                    log.info("job %s: eval loss %.4f at step %s", lease.job_id, ev["eval_loss"], step)
                if kind in ("start", "step", "eval"):
                    lease.add_event(to_api_event(ev))
                elif kind == "checkpoint":
                    if total is not None and step >= total:
                        return  # the result follows at once; the final checkpoint is not worth uploading
                    uploader.put(step, Path(ev["checkpoint_dir"]))

            def should_cancel() -> bool:
                return lease.cancel.is_set() or lease.lost.is_set() or self.stop.is_set()

            result = train(config, train_entries, test_entries, out, on_event=on_event,
                           should_cancel=should_cancel, resume_from=resume_dir)
            outcome.result = result
            completed = result["status"] == "completed"
            # Until /done lands the uploaded checkpoints are the job's resume points: let queued ones finish.
            # After a cancel or a lost lease they are worth nothing.
            uploader.finish(drain=completed and not should_cancel())
            if lease.lost.is_set():
                outcome.status = "lease_lost"
                log.warning("job %s: lease lost at step %d; dropping the job", lease.job_id, result["step"])
            elif not completed and lease.cancel.is_set():
                outcome.status = "cancelled"
                outcome.cancel_step = lease.cancel_step
                heartbeat.flush()
                self._fail(lease, "cancelled by Hone", cancelled=True)
                log.info("job %s: cancelled at step %d", lease.job_id, result["step"])
            elif not completed:
                outcome.status = "stopped"
                log.info("job %s: stopped at step %d; the lease will lapse and Hone can hand the job out again",
                         lease.job_id, result["step"])
            else:
                log.info("job %s: trained %d steps; uploading the result", lease.job_id, result["step"])
                heartbeat.flush()
                self._check_lease(lease)
                self._finish(lease, jid, out, result)
                outcome.status = "done"
                log.info("job %s: done", lease.job_id)
        except (LeaseLost, _LeaseGone) as e:
            lease.lost.set()
            outcome.status = "lease_lost"
            log.warning("job %s: lease lost; dropping the job (%s)", lease.job_id, e)
        except (Stopped, KeyboardInterrupt) as e:
            outcome.status = "stopped"
            log.info("job %s: stopped", lease.job_id)
            if isinstance(e, KeyboardInterrupt):
                raise
        except Exception as e:
            if lease.lost.is_set():
                outcome.status = "lease_lost"
                log.warning("job %s: lease lost; dropping the job", lease.job_id)
            elif lease.cancel.is_set() and not isinstance(e, HoneError):
                # Cancelled while something failed (e.g. during the download): report the cancel.
                outcome.status = "cancelled"
                self._fail(lease, "cancelled by Hone", cancelled=True)
            else:
                message = _short_error(e, self.token)
                outcome.status, outcome.error = "failed", message
                log.error("job %s: failed: %s", lease.job_id, message)
                log.debug("%s", "".join(traceback.format_exception(e)))
                self._fail(lease, message)
        finally:
            if uploader is not None:
                uploader.finish(drain=False)
            heartbeat.halt()
            if outcome.status == "done" and not self.keep:
                shutil.rmtree(job_dir, ignore_errors=True)
            elif job_dir.exists() and outcome.status != "done":
                log.info("job %s: files kept in %s", lease.job_id, job_dir)
        return outcome

    def _check_lease(self, lease: _Lease) -> None:
        if lease.lost.is_set():
            raise _LeaseGone("the lease was lost")
        if self.stop.is_set():
            raise Stopped()
        if lease.cancel.is_set():
            raise _CancelledLate()

    def _entries(self, lease: _Lease, split: str, dest: Path) -> list[dict]:
        self._check_lease(lease)
        _, size = self.client.download(f"/jobs/{quote(lease.job_id, safe='')}/entries", dest,
                                       params={"split": split, "leaseId": lease.lease_id})
        entries = read_jsonl(dest)
        log.info("job %s: downloaded %d %s entries (%d bytes)", lease.job_id, len(entries), split.lower(), size)
        return entries

    def _resume_files(self, lease: _Lease, resume: Any, root: Path) -> Path | None:
        if not resume:
            return None
        files = resume.get("files") if isinstance(resume, dict) else None
        if not isinstance(files, list) or not files:
            raise HoneError("resumeFrom has no files")
        jid = quote(lease.job_id, safe="")
        rels = []
        for f in files:
            rel = _safe_relpath(f.get("path") if isinstance(f, dict) else None)
            rels.append(rel)
            dest = root.joinpath(*rel.parts)
            for attempt in (1, 2, 3):
                self._check_lease(lease)
                sha, size = self.client.download(f"/jobs/{jid}/files/checkpoint/{quote(str(rel), safe='/')}", dest,
                                                 params={"leaseId": lease.lease_id})
                if sha == f.get("sha256") and (f.get("bytes") is None or size == f.get("bytes")):
                    break
                log.warning("job %s: checkpoint file %s has sha256 %s, expected %s (attempt %d/3)",
                            lease.job_id, rel, sha, f.get("sha256"), attempt)
            else:
                raise HoneError(f"checkpoint file {rel} does not match its sha256 after 3 downloads")
        # Paths look like "checkpoint-40/optimizer.pt": the checkpoint is their common top directory.
        tops = {r.parts[0] for r in rels if len(r.parts) > 1}
        resume_dir = root / tops.pop() if len(tops) == 1 and all(len(r.parts) > 1 for r in rels) else root
        log.info("job %s: downloaded checkpoint of step %s (%d files); resuming", lease.job_id,
                 resume.get("step"), len(files))
        return resume_dir

    def _finish(self, lease: _Lease, jid: str, out: Path, result: dict[str, Any]) -> None:
        files = []
        for f in result["manifest"]:
            if lease.lost.is_set():
                raise _LeaseGone("the lease was lost during the upload")
            if lease.cancel.is_set():
                raise _CancelledLate()
            path = out / f["path"]
            self.client.upload_file(f"/jobs/{jid}/files/result/{quote(f['path'], safe='/')}", path, f["sha256"],
                                    params={"leaseId": lease.lease_id})
            files.append({"path": f["path"], "sha256": f["sha256"], "bytes": f["size"]})
        log.info("job %s: uploaded the result (%d files, %d bytes)", lease.job_id, len(files),
                 sum(f["bytes"] for f in files))
        body = {
            "leaseId": lease.lease_id,
            "files": files,
            "dropped": {"train": int(result["dropped"]["train"]), "test": int(result["dropped"]["test"])},
            "metrics": {"evalLoss": _finite(result.get("eval_loss_final")), "trainLoss": _finite(result.get("train_loss"))},
        }
        answer = self.client.request_json("POST", f"/jobs/{jid}/done", json=body) or {}
        log.info("job %s: Hone says %s", lease.job_id, answer.get("status", "ok"))

    def _fail(self, lease: _Lease, error: str, cancelled: bool = False) -> None:
        body: dict[str, Any] = {"leaseId": lease.lease_id, "error": error}
        if cancelled:
            body["cancelled"] = True
        try:
            self.client.request_json("POST", f"/jobs/{quote(lease.job_id, safe='')}/fail", json=body)
            log.info("job %s: reported %s", lease.job_id, "cancelled" if cancelled else "failed")
        except Stopped:
            pass
        except HoneError as e:
            log.warning("job %s: could not report the %s: %s", lease.job_id, "cancel" if cancelled else "failure", e)


class _LeaseGone(Exception):
    """Raised inside a job when the heartbeat (or uploader) thread found the lease lost."""


class _CancelledLate(Exception):
    """Hone cancelled the job outside training (while downloading or uploading)."""


# --------------------------------------------------------------------------- CLI


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time of the log call."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def _setup_logging(verbose: bool) -> None:
    logger = logging.getLogger("hone_trainer")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s hone-trainer %(levelname)s %(message)s",
                                               datefmt="%Y-%m-%dT%H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    logging.getLogger("httpcore").setLevel(logging.WARNING)


def _default_work_dir() -> str:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "hone-trainer", "work")


def _cmd_work(args) -> int:
    import signal

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # base models come from the local cache only
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    _setup_logging(args.verbose)
    token = args.token or os.environ.get("HONE_TRAINER_TOKEN")
    url = args.url or os.environ.get("HONE_URL")
    if not url or not token:
        log.error("work needs --url (or HONE_URL) and --token (or HONE_TRAINER_TOKEN)")
        return EXIT_USAGE
    try:
        worker = Worker(url, token, args.work_dir or _default_work_dir(), name=args.name,
                        poll_seconds=args.poll_seconds, log_every=args.log_every, keep=args.keep)
    except ValueError as e:
        log.error("%s", e)
        return EXIT_USAGE

    def on_signal(signum, frame):
        if worker.stop.is_set():
            raise KeyboardInterrupt
        worker.stop.set()
        log.info("stopping: the current job stops at the next step and is left to lapse (signal again to abort)")

    handlers = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            handlers[sig] = signal.signal(sig, on_signal)
    try:
        return worker.run(once=args.once)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        for sig, previous in handlers.items():
            signal.signal(sig, previous)
        worker.client.close()


def _add_work(sub) -> None:
    p = sub.add_parser("work", help="lease training jobs from Hone and run them (connects out; opens no port)")
    p.add_argument("--url", default=None, help="Hone's base URL, e.g. https://hone.example.com (or $HONE_URL)")
    p.add_argument("--token", default=None,
                   help="trainer token: an API key with the 'trainer' scope (or $HONE_TRAINER_TOKEN, which keeps it "
                        "out of the process list)")
    p.add_argument("--work-dir", default=None, help=f"where jobs download and train (default: {_default_work_dir()})")
    p.add_argument("--once", action="store_true",
                   help="one lease attempt and at most one job; exit 0 when it is done or no job waits")
    p.add_argument("--poll-seconds", type=float, default=None,
                   help="wait between lease attempts when no job waits (default: Hone's retryAfterSeconds)")
    p.add_argument("--name", default=None, help="trainer name shown in Hone (default: the host name)")
    p.add_argument("--log-every", type=int, default=10, help="log a progress line every N steps (default 10)")
    p.add_argument("--keep", action="store_true", help="keep a finished job's files in the work dir")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging (stack traces of failures)")
    p.set_defaults(func=_cmd_work)
