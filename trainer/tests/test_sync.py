"""`hone-trainer sync` against a fake Hone and a real OpenAI/vLLM-wire server (`hone_trainer.serve`).

The fake Hone implements `POST /serving` (bearer auth; answers the wanted list the test sets) and
`GET /adapters/{name}/files/{path}` (the bytes of a real trained adapter). The "vLLM" is the package's
own server run by uvicorn in a thread, so loads, unloads and chat completions are real.
"""

import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
import pytest
from conftest import ANSWER, QUESTIONS

from hone_trainer.cli import build_parser, main
from hone_trainer.serve import ModelHost, create_app
from hone_trainer.sync import MANIFEST, RUNTIME_OFF, VLLM, Syncer, SyncError, vllm_root
from hone_trainer.work import HoneClient

# unloading the adapter that served the last request: PEFT says so, which is expected here
pytestmark = pytest.mark.filterwarnings("ignore:Adapter .* was active which is now deleted")

TOKEN = "hone_sync_secret_token_456"
PREFIX = "/api/v1/trainer"
NAME = "ft_0193zorblax"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SyncHone:
    """Just enough of Hone's trainer API for `sync`."""

    def __init__(self, base_model):
        self.provider = {"slug": "tiny-vllm", "baseModel": str(base_model)}
        self.adapters = []  # the wanted list answered by /serving
        self.blobs = {}  # (name, path) -> bytes
        self.reports = []  # /serving bodies
        self.requests = []  # (method, path, authorized)
        self.interval = 30
        self.down = False  # answer 503 to everything
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def want(self, name, slug, adapter_dir, wrong_sha=None):
        """Serve every file of adapter_dir; `wrong_sha` names a file listed with a sha256 that does not match."""
        files = []
        for p in sorted(Path(adapter_dir).rglob("*")):
            if p.is_file():
                rel, data = p.relative_to(adapter_dir).as_posix(), p.read_bytes()
                self.blobs[(name, rel)] = data
                digest = hashlib.sha256(b"not these bytes" if rel == wrong_sha else data).hexdigest()
                files.append({"path": rel, "sha256": digest, "bytes": len(data)})
        self.adapters.append({"name": name, "slug": slug, "files": files})

    def gets(self):
        return [p for m, p, _ in self.requests if m == "GET"]

    def route(self, method, path, body, auth):
        if self.down:
            return 503, {"message": "unavailable", "code": "UNAVAILABLE"}
        if auth != f"Bearer {TOKEN}":
            return 401, {"message": "invalid trainer token", "code": "UNAUTHORIZED"}
        parts = [unquote(p) for p in path[len(PREFIX):].split("/")[1:]] if path.startswith(PREFIX) else []
        if parts == ["serving"] and method == "POST":
            self.reports.append(json.loads(body))
            return 200, {"provider": self.provider, "adapters": self.adapters, "intervalSeconds": self.interval}
        if len(parts) >= 4 and parts[0] == "adapters" and parts[2] == "files" and method == "GET":
            data = self.blobs.get((parts[1], "/".join(parts[3:])))
            return (200, data) if data is not None else (404, {"message": "no such file", "code": "NOT_FOUND"})
        return 404, {"message": "no such route", "code": "NOT_FOUND"}

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _serve(self):
                path = urlsplit(self.path).path
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                auth = self.headers.get("Authorization")
                with fake.lock:
                    fake.requests.append((self.command, path, auth == f"Bearer {TOKEN}"))
                    status, payload = fake.route(self.command, path, body, auth)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream" if isinstance(payload, bytes)
                                 else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

        return Handler


@pytest.fixture(scope="module")
def vllm_server(tiny_base):
    """hone_trainer.serve on a free port, in a thread; the base is named by its path, as vLLM does."""
    import uvicorn

    host = ModelHost(str(tiny_base), served_model_name=str(tiny_base))
    server = uvicorn.Server(uvicorn.Config(create_app(host), host="127.0.0.1", port=free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.config.port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield {"url": url, "host": host}
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def vllm(vllm_server):
    host = vllm_server["host"]
    for name in list(host.adapters):  # every test starts with the base model only
        host.unload_adapter(name)
    return vllm_server


@pytest.fixture
def hone(tiny_base):
    fake = SyncHone(tiny_base)
    yield fake
    fake.close()


def run_sync(hone, vllm_url, adapters, *extra, token=TOKEN):
    args = ["sync", "--url", hone.url, "--dir", str(adapters), "--vllm", vllm_url, "--once", *extra]
    return main(args + (["--token", token] if token else []))


def served(vllm):
    return {m["id"]: m for m in httpx.get(vllm["url"] + "/v1/models").json()["data"]}


def chat(vllm, model):
    resp = httpx.post(vllm["url"] + "/v1/chat/completions", timeout=60, json={
        "model": model, "messages": [{"role": "user", "content": QUESTIONS[0]}], "temperature": 0, "max_tokens": 24})
    return resp.json()["choices"][0]["message"]["content"]


def test_once_downloads_checks_loads_then_reuses(hone, vllm, sft_run, tiny_base, tmp_path, capsys):
    adapter_dir = Path(sft_run["result"]["adapter_dir"])
    hone.want(NAME, "zorblax", adapter_dir)
    adapters = tmp_path / "adapters"

    # (a) one round: download, check, load; the second report tells Hone at once
    assert run_sync(hone, vllm["url"] + "/v1/", adapters) == 0
    err = capsys.readouterr().err
    target = adapters / NAME
    assert f"loaded hone:zorblax ({NAME}) into {vllm['url']}" in err and TOKEN not in err
    assert len(hone.gets()) == len(hone.adapters[0]["files"]) >= 3
    for f in hone.adapters[0]["files"]:
        assert (target / f["path"]).read_bytes() == (adapter_dir / f["path"]).read_bytes()
    assert json.loads((target / MANIFEST).read_text()) == hone.adapters[0]["files"]
    assert not list(adapters.glob(".tmp-*"))
    models = served(vllm)
    assert models[NAME]["root"] == str(target) and models[NAME]["parent"] == str(tiny_base)
    assert chat(vllm, NAME) == ANSWER

    first, second = hone.reports
    assert first["vllmUrl"] == vllm["url"] and first["provider"] is None and first["host"] == socket.gethostname()
    assert [m["id"] for m in first["served"]] == [str(tiny_base)] and first["error"] is None
    assert first["served"][0] == {"id": str(tiny_base), "parent": None, "root": str(tiny_base)}
    assert {"id": NAME, "parent": str(tiny_base), "root": str(target)} in second["served"]
    assert second["error"] is None
    assert all(authorized for _, _, authorized in hone.requests)

    # (b) nothing changed: no download, no load, one report that lists the adapter
    hone.requests.clear()
    hone.reports.clear()
    assert run_sync(hone, vllm["url"], adapters, "--provider", "tiny-vllm") == 0
    assert hone.gets() == [] and "loaded" not in capsys.readouterr().err
    assert len(hone.reports) == 1 and hone.reports[0]["provider"] == "tiny-vllm"
    assert NAME in [m["id"] for m in hone.reports[0]["served"]]

    # a manifest that no longer matches the wanted list: downloaded again (the adapter is not served)
    vllm["host"].unload_adapter(NAME)
    (target / MANIFEST).write_text("[]")
    assert run_sync(hone, vllm["url"], adapters) == 0
    assert len(hone.gets()) == len(hone.adapters[0]["files"]) and NAME in served(vllm)


def test_unwanted_adapters_are_unloaded_but_not_foreign_ones(hone, vllm, sft_run, tmp_path, capsys):
    adapter_dir = sft_run["result"]["adapter_dir"]
    adapters = tmp_path / "adapters"
    hone.want(NAME, "zorblax", adapter_dir)
    assert run_sync(hone, vllm["url"], adapters) == 0
    # loaded by someone else, from outside the adapters dir
    assert httpx.post(vllm["url"] + "/v1/load_lora_adapter",
                      json={"lora_name": "foreign", "lora_path": adapter_dir}).status_code == 200
    (adapters / ".tmp-x-abc").mkdir()  # a leftover of an interrupted download
    (adapters / "ft_stale").mkdir()  # an old adapter of ours, no longer wanted nor served
    (adapters / "ft_stale" / MANIFEST).write_text("[]")
    (adapters / "notes").mkdir()  # not ours: no manifest

    hone.adapters = []
    hone.reports.clear()
    assert run_sync(hone, vllm["url"], adapters) == 0
    err = capsys.readouterr().err
    assert f"unloaded {NAME}" in err
    assert set(served(vllm)) == {vllm["host"].name, "foreign"}
    assert chat(vllm, "foreign") == ANSWER
    assert sorted(p.name for p in adapters.iterdir()) == ["notes"]
    assert [m["id"] for m in hone.reports[-1]["served"]] == [vllm["host"].name, "foreign"]


def test_sha256_mismatch_is_not_loaded_and_reported(hone, vllm, sft_run, tmp_path, capsys):
    hone.want(NAME, "zorblax", sft_run["result"]["adapter_dir"], wrong_sha="adapter_model.safetensors")
    adapters = tmp_path / "adapters"
    assert run_sync(hone, vllm["url"], adapters) == 1
    assert NAME not in served(vllm)
    assert list(adapters.iterdir()) == []  # the temporary directory is gone too
    first, second = hone.reports
    assert first["error"] is None
    assert "adapter_model.safetensors has sha256" in second["error"] and NAME in second["error"]
    assert "hone:zorblax" in capsys.readouterr().err


def test_vllm_down_is_reported(hone, sft_run, tmp_path, capsys):
    hone.want(NAME, "zorblax", sft_run["result"]["adapter_dir"])
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    assert run_sync(hone, url, tmp_path / "adapters") == 1
    assert len(hone.reports) == 1 and hone.reports[0]["served"] == []
    assert hone.reports[0]["error"].startswith(f"vLLM at {url} did not answer: ConnectError")
    assert hone.gets() == [] and "did not answer" in capsys.readouterr().err


def test_wrong_base_loads_nothing(hone, vllm, sft_run, tiny_base, tmp_path):
    hone.provider = {"slug": "llama-box", "baseModel": "meta-llama/Llama-3.1-8B-Instruct"}
    hone.want(NAME, "zorblax", sft_run["result"]["adapter_dir"])
    assert run_sync(hone, vllm["url"], tmp_path / "adapters") == 1
    assert set(served(vllm)) == {str(tiny_base)} and hone.gets() == []
    assert hone.reports[-1]["error"] == (f"vLLM at {vllm['url']} serves {tiny_base}, not "
                                         "meta-llama/Llama-3.1-8B-Instruct (the base of custom provider llama-box)")


def test_refused_token_exits_2_and_is_never_printed(hone, vllm, tmp_path, capsys):
    wrong = "wrong_secret_token_789"
    assert run_sync(hone, vllm["url"], tmp_path / "a", token=wrong) == 2
    assert main(["sync", "--url", hone.url, "--token", wrong, "--dir", str(tmp_path / "a"),
                 "--vllm", vllm["url"], "--interval", "0.05"]) == 2  # loop mode gives up too
    err = capsys.readouterr().err
    assert "HTTP 401: invalid trainer token" in err and wrong not in err
    assert len(hone.requests) == 2  # a 401 is not retried


def test_cli_parses_and_token_from_environment(hone, vllm, tmp_path, capsys, monkeypatch):
    with pytest.raises(SystemExit) as exc:
        main(["sync", "--help"])
    assert exc.value.code == 0 and "--vllm-api-key" in capsys.readouterr().out
    args = build_parser().parse_args(["sync", "--dir", "d", "--vllm", "http://v:8000"])
    assert (args.url, args.token, args.interval, args.once, args.provider) == (None, None, None, False, None)
    monkeypatch.setenv("HONE_TRAINER_TOKEN", TOKEN)
    monkeypatch.setenv("VLLM_API_KEY", "vllm_key_secret")
    assert run_sync(hone, vllm["url"], tmp_path / "a", token=None) == 0
    assert hone.requests and all(authorized for _, _, authorized in hone.requests)
    err = capsys.readouterr().err
    assert TOKEN not in err and "vllm_key_secret" not in err
    monkeypatch.delenv("HONE_TRAINER_TOKEN")
    assert run_sync(hone, vllm["url"], tmp_path / "a", token=None) == 2
    assert "HONE_TRAINER_TOKEN" in capsys.readouterr().err


def test_vllm_client_answers():
    seen = []

    def handler(request):
        seen.append(request)
        name = json.loads(request.content or b"{}").get("lora_name")
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "b", "root": "/m/b", "parent": None}, "junk", {"id": ""}]})
        answers = {
            "dup": (400, {"error": {"message": "The lora adapter 'dup' has already been loaded.",
                                    "type": "InvalidUserInput", "code": 400}}),
            "off": (404, {"detail": "Not Found"}),  # FastAPI: the route is not there
            "off2": (404, {"error": {"message": "Not Found", "type": "NotFoundError", "code": 404}}),  # hone serve
            "missing": (404, {"message": "No adapter found for /x", "type": "NotFoundError", "code": 404}),
            "broken": (500, "Internal Server Error"),
        }
        status, body = answers.get(name, (200, "Success"))
        return httpx.Response(status, json=body) if isinstance(body, dict) else httpx.Response(status, text=body)

    v = VLLM("http://v:8000/v1/", "key123", transport=httpx.MockTransport(handler))
    assert v.url == "http://v:8000" and vllm_root("http://v:8000/") == "http://v:8000"
    assert v.models() == [{"id": "b", "parent": None, "root": "/m/b"}]
    v.load("ok", "/a/ok", "s")
    v.load("dup", "/a/dup", "s")  # already loaded counts as loaded
    with pytest.raises(SyncError, match="does not accept adapters at run time") as exc:
        v.load("off", "/a/off", "s")
    assert str(exc.value) == RUNTIME_OFF.format(url="http://v:8000")
    with pytest.raises(SyncError, match="does not accept adapters at run time"):
        v.load("off2", "/a/off2", "s")
    with pytest.raises(SyncError, match=r"loading hone:s \(missing\) .* HTTP 404: No adapter found for /x"):
        v.load("missing", "/a/missing", "s")
    with pytest.raises(SyncError, match="HTTP 500: Internal Server Error"):
        v.load("broken", "/a/broken", "s")
    v.unload("missing")  # 404 on unload: already gone
    assert all(r.headers["Authorization"] == "Bearer key123" for r in seen)
    assert "Authorization" not in VLLM("http://v:8000")._http.headers


def test_loop_survives_failed_rounds_and_stops_cleanly(hone, tmp_path, caplog):
    stop = threading.Event()
    down = f"http://127.0.0.1:{free_port()}"
    client = HoneClient(hone.url, TOKEN, stop=stop, attempts=1)
    syncer = Syncer(client, VLLM(down), tmp_path / "a", stop=stop)
    result = {}
    thread = threading.Thread(target=lambda: result.update(rc=syncer.run(interval=0.02)))
    thread.start()
    deadline = time.monotonic() + 10
    while len(hone.reports) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    hone.down = True  # Hone goes away: rounds fail, the loop goes on
    time.sleep(0.1)
    assert thread.is_alive()
    n = len(hone.reports)
    stop.set()
    thread.join(timeout=5)
    assert result == {"rc": 0} and len(hone.reports) == n >= 3
    assert all(r["error"].startswith(f"vLLM at {down} did not answer") for r in hone.reports)
    assert "POST /serving: HTTP 503 (gave up after 1 attempts)" in caplog.text
    client.close()
