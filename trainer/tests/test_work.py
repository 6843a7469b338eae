"""`hone-trainer work` against a fake Hone: an in-memory http.server implementing the trainer API.

The fake follows the API contract: Bearer auth, /lease, entries as JSON lines, heartbeats that may
answer cancel or 409, file uploads checked against x-hone-sha256, /checkpoint, checkpoint downloads,
/done (each file must have been uploaded with that sha256) and /fail. A lost lease re-queues the job
with resumeFrom = its last posted checkpoint, as Hone does.
"""

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, parse_qsl, unquote, urlsplit

import pytest
from conftest import QUESTIONS, sft_entry

import hone_trainer.work as work
from hone_trainer.cli import main
from hone_trainer.work import HoneClient, HoneError, Worker, job_to_config

TOKEN = "hone_trainer_secret_token_123"
PREFIX = "/api/v1/trainer"
TRAIN = [sft_entry(q) for q in QUESTIONS[:4]]
TEST = [sft_entry(q) for q in QUESTIONS[4:]]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FakeHone:
    def __init__(self, lease_seconds=1):
        self.lease_seconds = lease_seconds
        self.lock = threading.RLock()
        self.queue = []  # job ids waiting for a trainer
        self.jobs = {}  # id -> {"job", "entries", "lease_id", "checkpoints", "resume"}
        self.files = {}  # (job id, kind, path) -> bytes
        self.requests = []  # (method, path, query, authorized)
        self.leases = []  # lease request bodies
        self.heartbeats = []  # (job id, body)
        self.checkpoint_posts = []  # (job id, body)
        self.done = {}
        self.failed = {}
        self.faults = []  # {"method", "contains", "status", "headers", "times"}
        self.on_heartbeat = None  # fn(rec, body) -> None | "cancel" | "conflict"
        self._n = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def add_job(self, job_id, base, settings=None, method="sft", train=TRAIN, test=TEST):
        s = {"epochs": 5, "learningRate": 5e-3, "batchSize": 2, "gradientAccumulationSteps": 1, "maxSeqLength": 128,
             "seed": 0, "checkpointEvery": 2, "lora": {"r": 8, "alpha": 16, "dropout": 0.0, "targetModules": ["all-linear"]},
             "dpoBeta": None, "export": "adapter"}
        s.update(settings or {})
        job = {"id": job_id, "slug": job_id.replace("mdl_", ""), "method": method, "baseModel": str(base), "settings": s,
               "entries": {"train": len(train), "test": len(test)}}
        with self.lock:
            self.jobs[job_id] = {"job": job, "entries": {"TRAIN": train, "TEST": test}, "lease_id": None,
                                 "checkpoints": [], "resume": None}
            self.queue.append(job_id)

    def count(self, method, contains):
        return sum(1 for m, p, _, _ in self.requests if m == method and contains in p)

    # -- routes

    def route(self, method, path, query, body, headers):
        if headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, {"message": "unauthorized", "code": "UNAUTHORIZED"}, {}
        for f in self.faults:
            if f["times"] > 0 and f["method"] == method and f["contains"] in path:
                f["times"] -= 1
                return f["status"], {"message": "injected", "code": "INJECTED"}, f.get("headers", {})
        if not path.startswith(PREFIX):
            return 404, {"message": "not found", "code": "NOT_FOUND"}, {}
        parts = [unquote(p) for p in path[len(PREFIX):].split("/")[1:]]
        if parts == ["lease"] and method == "POST":
            return self.lease(json.loads(body))
        if len(parts) < 3 or parts[0] != "jobs" or parts[1] not in self.jobs:
            return 404, {"message": "no such route", "code": "NOT_FOUND"}, {}
        rec, action = self.jobs[parts[1]], parts[2]
        lease_id = query.get("leaseId", [None])[0] if method in ("GET", "PUT") else json.loads(body).get("leaseId")
        if lease_id is None or lease_id != rec["lease_id"]:
            return 409, {"message": "the lease lapsed or another trainer has the job", "code": "CONFLICT"}, {}
        if action == "entries" and method == "GET":
            lines = "".join(json.dumps(e) + "\n" for e in rec["entries"][query["split"][0]])
            return 200, lines.encode(), {"Content-Type": "application/x-ndjson"}
        if action == "heartbeat" and method == "POST":
            data = json.loads(body)
            self.heartbeats.append((parts[1], data))
            verdict = self.on_heartbeat(rec, data) if self.on_heartbeat else None
            if verdict == "conflict":
                self.lapse(parts[1])
                return 409, {"message": "the lease lapsed", "code": "CONFLICT"}, {}
            return 200, {"cancel": verdict == "cancel", "leaseSeconds": self.lease_seconds}, {}
        if action == "files" and method == "PUT":
            kind, rel = parts[3], "/".join(parts[4:])
            if sha(body) != headers.get("x-hone-sha256"):
                return 400, {"message": "sha256 mismatch", "code": "BAD_REQUEST"}, {}
            self.files[(parts[1], kind, rel)] = body
            return 201, {"path": rel, "sha256": sha(body), "bytes": len(body)}, {}
        if action == "files" and method == "GET" and parts[3] == "checkpoint":
            data = self.files.get((parts[1], "checkpoint", "/".join(parts[4:])))
            return (200, data, {"Content-Type": "application/octet-stream"}) if data is not None else (404, {"message": "no file"}, {})
        if action in ("checkpoint", "done"):
            data = json.loads(body)
            kind = "checkpoint" if action == "checkpoint" else "result"
            for f in data["files"]:
                got = self.files.get((parts[1], kind, f["path"]))
                if got is None or sha(got) != f["sha256"] or len(got) != f["bytes"]:
                    return 400, {"message": f"{f['path']} was not uploaded with that sha256", "code": "BAD_REQUEST"}, {}
            if action == "checkpoint":
                self.checkpoint_posts.append((parts[1], data))
                rec["checkpoints"].append({"step": data["step"], "files": data["files"]})
                return 200, {}, {}
            self.done[parts[1]] = data
            rec["lease_id"] = None
            return 200, {"status": "DEPLOYED"}, {}
        if action == "fail" and method == "POST":
            self.failed[parts[1]] = json.loads(body)
            rec["lease_id"] = None
            return 200, {}, {}
        return 404, {"message": "no such route", "code": "NOT_FOUND"}, {}

    def lease(self, body):
        self.leases.append(body)
        if not self.queue:
            return 200, {"job": None, "retryAfterSeconds": 5}, {}
        job_id = self.queue.pop(0)
        rec = self.jobs[job_id]
        self._n += 1
        rec["lease_id"] = f"lease_{self._n}"
        job = dict(rec["job"], leaseId=rec["lease_id"], leaseSeconds=self.lease_seconds, resumeFrom=rec["resume"])
        return 200, {"job": job}, {}

    def lapse(self, job_id):
        """The lease lapsed: the job waits again, resuming from its last checkpoint."""
        rec = self.jobs[job_id]
        rec["lease_id"] = None
        rec["resume"] = rec["checkpoints"][-1] if rec["checkpoints"] else None
        self.queue.append(job_id)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def _serve(self):
                url = urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with fake.lock:
                    fake.requests.append((self.command, url.path, url.query,
                                          self.headers.get("Authorization") == f"Bearer {TOKEN}"))
                    status, payload, headers = fake.route(self.command, url.path, parse_qs(url.query), body, self.headers)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = _serve

        return Handler


@pytest.fixture
def hone():
    server = FakeHone()
    yield server
    server.close()


@pytest.fixture
def slow_steps(monkeypatch):
    """Make every optimizer step take a little longer, so heartbeats land mid-training on any machine."""
    real_train = work.train

    def train(*args, on_event, **kw):
        def slowed(ev):
            on_event(ev)
            if ev["type"] == "step":
                time.sleep(0.05)
        return real_train(*args, on_event=slowed, **kw)

    monkeypatch.setattr(work, "train", train)


def worker(hone, tmp_path, **kw):
    return Worker(hone.url, TOKEN, tmp_path / "work", name="test-trainer",
                  client=HoneClient(hone.url, TOKEN, retry_base=0.01), **kw)


def heartbeat_events(hone, job_id):
    return [e for jid, hb in hone.heartbeats if jid == job_id for e in hb["events"]]


def test_work_once_trains_uploads_and_reports_done(hone, tiny_base, tmp_path, capsys):
    # 4 train entries, batch 2, 5 epochs: 10 steps; the merged model is exported too.
    hone.add_job("mdl_1", tiny_base, {"checkpointEvery": 4, "export": "merged"})
    hone.faults += [
        {"method": "POST", "contains": "/lease", "status": 429, "headers": {"Retry-After": "0"}, "times": 1},
        {"method": "PUT", "contains": "/files/result/adapter/adapter_model.safetensors", "status": 500, "times": 1},
        {"method": "PUT", "contains": "/files/checkpoint/", "status": 503, "times": 1},
    ]
    rc = main(["work", "--url", hone.url, "--token", TOKEN, "--once", "--work-dir", str(tmp_path / "w"),
               "--name", "t1", "--keep", "--log-every", "5"])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert TOKEN not in err
    assert "leased job mdl_1" in err and "step 5/10" in err and "job mdl_1: done" in err
    assert all(authorized for *_, authorized in hone.requests)

    # The lease carried the trainer's info; the 429 was retried.
    assert len(hone.leases) == 1 and hone.count("POST", "/lease") == 2
    trainer = hone.leases[0]["trainer"]
    assert trainer["name"] == "t1" and trainer["host"] and isinstance(trainer["gpus"], list)
    assert set(trainer["versions"]) == {"hone_trainer", "torch", "transformers", "trl", "peft"}

    # Both splits downloaded with the lease id.
    entry_queries = sorted(sorted(parse_qsl(q)) for m, p, q, _ in hone.requests if p.endswith("/jobs/mdl_1/entries"))
    assert entry_queries == [[("leaseId", "lease_1"), ("split", "TEST")], [("leaseId", "lease_1"), ("split", "TRAIN")]]

    # Progress: every step (and evals) arrived in heartbeats, in the API's Event shape.
    events = heartbeat_events(hone, "mdl_1")
    keys = {"step", "totalSteps", "loss", "evalLoss", "learningRate", "tokensPerSecond", "etaSeconds", "gpuMemoryBytes"}
    assert events and all(set(e) == keys for e in events)
    assert all(len(hb["events"]) <= 100 and hb["leaseId"] == "lease_1" for _, hb in hone.heartbeats)
    steps = [e["step"] for e in events if e["loss"] is not None]
    assert steps == list(range(1, 11)) and all(e["totalSteps"] == 10 for e in events)
    assert any(e["evalLoss"] is not None for e in events)

    # Checkpoints 4 and 8 uploaded (with a 503 retried) and posted; the final one (10) is skipped.
    posts = [body for jid, body in hone.checkpoint_posts if jid == "mdl_1"]
    assert [p["step"] for p in posts] == [4, 8]
    for post in posts:
        paths = {f["path"] for f in post["files"]}
        assert f"checkpoint-{post['step']}/optimizer.pt" in paths
        assert f"checkpoint-{post['step']}/adapter_model.safetensors" in paths
        for f in post["files"]:
            data = hone.files[("mdl_1", "checkpoint", f["path"])]
            assert f["sha256"] == sha(data) and f["bytes"] == len(data)

    # The result: every adapter and merged-model file uploaded (a 500 retried), /done with a manifest that matches.
    done = hone.done["mdl_1"]
    assert hone.count("PUT", "/files/result/adapter/adapter_model.safetensors") == 2
    paths = [f["path"] for f in done["files"]]
    assert {"adapter/adapter_model.safetensors", "adapter/adapter_config.json", "merged/model.safetensors",
            "merged/config.json"} <= set(paths)
    assert all(p.startswith(("adapter/", "merged/")) for p in paths)
    assert {("mdl_1", "result", p) for p in paths} == {k for k in hone.files if k[1] == "result"}
    out = next((tmp_path / "w").glob("mdl_1-*")) / "out"
    for f in done["files"]:
        data = hone.files[("mdl_1", "result", f["path"])]
        assert f["sha256"] == sha(data) == sha((out / f["path"]).read_bytes()) and f["bytes"] == len(data)
    assert done["dropped"] == {"train": 0, "test": 0}
    assert done["metrics"]["evalLoss"] > 0 and done["metrics"]["trainLoss"] > 0
    assert "mdl_1" not in hone.failed


def test_cancel_from_heartbeat_stops_within_one_step(hone, tiny_base, tmp_path, slow_steps):
    # 4 entries, batch 1, 50 epochs: 200 steps. Hone cancels once it has seen step 3.
    hone.add_job("mdl_c", tiny_base, {"epochs": 50, "batchSize": 1, "checkpointEvery": 0})
    hone.on_heartbeat = lambda rec, body: "cancel" if any(e["step"] >= 3 for e in body["events"]) else None
    w = worker(hone, tmp_path)
    assert w.run(once=True) == work.EXIT_CANCELLED
    outcome = w.last_outcome
    assert outcome.status == "cancelled" and outcome.cancel_step is not None
    assert outcome.steps[-1] <= outcome.cancel_step + 1 < 200
    assert hone.failed["mdl_c"]["cancelled"] is True and hone.failed["mdl_c"]["leaseId"] == "lease_1"
    assert "mdl_c" not in hone.done and not any(k[1] == "result" for k in hone.files)


def test_lost_lease_stops_the_job_and_the_next_lease_resumes(hone, tiny_base, tmp_path, slow_steps):
    # 4 entries, batch 1, 5 epochs: 20 steps; a checkpoint every 3. Hone answers 409 to the first heartbeat
    # after a checkpoint was posted and re-queues the job with resumeFrom = that checkpoint.
    hone.add_job("mdl_r", tiny_base, {"epochs": 5, "batchSize": 1, "checkpointEvery": 3})
    state = {"conflicts": 0}

    def on_heartbeat(rec, body):
        if rec["checkpoints"] and state["conflicts"] == 0:
            state["conflicts"] += 1
            return "conflict"
        return None

    hone.on_heartbeat = on_heartbeat
    w = worker(hone, tmp_path)

    job, _ = w.lease()
    first = w.run_job(job)
    assert first.status == "lease_lost" and first.steps[-1] < 20
    assert "mdl_r" not in hone.done and "mdl_r" not in hone.failed
    assert not any(k[1] == "result" for k in hone.files)

    job, _ = w.lease()
    resume = job["resumeFrom"]
    assert job["leaseId"] == "lease_2" and resume and resume["step"] % 3 == 0
    second = w.run_job(job)
    assert second.status == "done"
    downloaded = {unquote(p.split("/files/checkpoint/", 1)[1]) for m, p, _, _ in hone.requests
                  if m == "GET" and "/files/checkpoint/" in p}
    assert downloaded == {f["path"] for f in resume["files"]}
    assert second.steps == list(range(resume["step"] + 1, 21))  # fewer steps: it resumed
    done = hone.done["mdl_r"]
    assert done["leaseId"] == "lease_2"
    for f in done["files"]:
        assert f["sha256"] == sha(hone.files[("mdl_r", "result", f["path"])])
    # This lease's progress starts after the checkpoint.
    lease2_steps = [e["step"] for _, hb in hone.heartbeats if hb["leaseId"] == "lease_2" for e in hb["events"]
                    if e["loss"] is not None]
    assert lease2_steps == list(range(resume["step"] + 1, 21))


def test_no_job_once_exits_zero(hone, tmp_path, capsys):
    rc = main(["work", "--url", hone.url, "--token", TOKEN, "--once", "--work-dir", str(tmp_path / "w")])
    assert rc == 0
    err = capsys.readouterr().err
    assert "no job available" in err and TOKEN not in err
    assert len(hone.leases) == 1


def test_refused_token_is_not_retried(hone, tmp_path, capsys):
    rc = main(["work", "--url", hone.url, "--token", "wrong", "--once", "--work-dir", str(tmp_path / "w")])
    assert rc == work.EXIT_USAGE
    assert hone.count("POST", "/lease") == 1 and "refused" in capsys.readouterr().err


def test_client_retries_5xx_and_429_but_not_other_4xx(hone):
    client = HoneClient(hone.url, TOKEN, retry_base=0.01, attempts=3)
    hone.faults += [{"method": "POST", "contains": "/lease", "status": 502, "times": 1},
                    {"method": "POST", "contains": "/lease", "status": 429, "headers": {"Retry-After": "0"}, "times": 1}]
    assert client.request_json("POST", "/lease", json={"trainer": {}}) == {"job": None, "retryAfterSeconds": 5}
    assert hone.count("POST", "/lease") == 3
    hone.faults.append({"method": "POST", "contains": "/lease", "status": 400, "times": 1})
    with pytest.raises(HoneError) as e:
        client.request_json("POST", "/lease", json={"trainer": {}})
    assert e.value.status == 400 and hone.count("POST", "/lease") == 4
    hone.faults.append({"method": "POST", "contains": "/lease", "status": 503, "times": 5})
    with pytest.raises(HoneError, match="gave up after 3 attempts"):
        client.request_json("POST", "/lease", json={"trainer": {}})
    assert hone.count("POST", "/lease") == 7
    client.close()


def test_bad_settings_fail_the_job(hone, tmp_path):
    hone.add_job("mdl_bad", "/nonexistent/base-model")
    w = worker(hone, tmp_path)
    assert w.run(once=True) == work.EXIT_FAILED
    assert "does not exist" in hone.failed["mdl_bad"]["error"] and "cancelled" not in hone.failed["mdl_bad"]
    assert hone.count("GET", "/entries") == 0


def test_settings_mapping():
    job = {"method": "dpo", "baseModel": "/m", "settings": {
        "epochs": 2, "learningRate": 1e-4, "batchSize": 8, "gradientAccumulationSteps": 2, "maxSeqLength": 512,
        "seed": 7, "checkpointEvery": 50, "lora": {"r": 4, "alpha": 8, "dropout": 0.1, "targetModules": ["q_proj"]},
        "dpoBeta": 0.2, "export": "merged", "somethingNew": 1}}
    assert job_to_config(job) == {
        "method": "dpo", "base_model": "/m", "epochs": 2, "learning_rate": 1e-4, "batch_size": 8,
        "gradient_accumulation_steps": 2, "max_seq_length": 512, "seed": 7, "checkpoint_every": 50,
        "lora": {"r": 4, "alpha": 8, "dropout": 0.1, "target_modules": ["q_proj"]}, "dpo_beta": 0.2, "export": "merged"}
    full = job_to_config({"method": "sft", "baseModel": "/m", "settings": {"lora": None, "dpoBeta": None}})
    assert full == {"method": "sft", "base_model": "/m", "lora": None}
    assert job_to_config({"method": "sft", "baseModel": "/m", "settings": {
        "lora": {"r": 8, "alpha": 16, "dropout": 0.0, "targetModules": ["all-linear"]}}})["lora"]["target_modules"] == "all-linear"
