"""The OpenAI-compatible server: models, chat completions (plain and streamed), vLLM's LoRA endpoints."""

import json

import pytest
from conftest import ANSWER
from fastapi.testclient import TestClient

from hone_trainer.serve import ModelHost, create_app

QUESTION = [{"role": "user", "content": "What is the capital of Zorblax?"}]


@pytest.fixture(scope="module")
def client(tiny_base):
    host = ModelHost(str(tiny_base), served_model_name="tiny-base")
    with TestClient(create_app(host)) as c:
        yield c


def assert_openai_error(resp, status, type_=None):
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["code"] == status and body["error"]["message"]
    if type_:
        assert body["error"]["type"] == type_
    return body["error"]


def chat(client, model, **kw):
    return client.post("/v1/chat/completions", json={"model": model, "messages": QUESTION, "temperature": 0,
                                                     "max_tokens": 24, **kw})


def sse(client, payload):
    with client.stream("POST", "/v1/chat/completions", json=payload) as resp:
        assert resp.status_code == 200
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in resp.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    return [json.loads(line[6:]) for line in lines[:-1]]


def test_adapter_lifecycle(sft_run, client):
    adapter_dir = sft_run["result"]["adapter_dir"]

    models = client.get("/v1/models").json()
    assert [m["id"] for m in models["data"]] == ["tiny-base"]

    # base model: does not know the answer; usage is counted
    base = chat(client, "tiny-base").json()
    assert base["object"] == "chat.completion" and base["model"] == "tiny-base"
    assert base["choices"][0]["message"]["content"] != ANSWER
    usage = base["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]

    # load (vLLM wire: 200, plain text)
    resp = client.post("/v1/load_lora_adapter", json={"lora_name": "zorblax", "lora_path": adapter_dir})
    assert resp.status_code == 200 and resp.text == "Success: LoRA adapter 'zorblax' added successfully."
    models = client.get("/v1/models").json()["data"]
    assert [m["id"] for m in models] == ["tiny-base", "zorblax"]
    assert models[1]["parent"] == "tiny-base" and models[1]["root"] == adapter_dir

    # loading the same name again is refused
    err = assert_openai_error(
        client.post("/v1/load_lora_adapter", json={"lora_name": "zorblax", "lora_path": adapter_dir}), 400,
        "InvalidUserInput")
    assert "already been loaded" in err["message"]

    # the adapter answers the trained sentence; the base still does not (adapter is switched per request)
    done = chat(client, "zorblax").json()
    assert done["model"] == "zorblax"
    assert done["choices"][0]["message"] == {"role": "assistant", "content": ANSWER}
    assert done["choices"][0]["finish_reason"] == "stop"
    assert chat(client, "tiny-base").json()["choices"][0]["message"]["content"] != ANSWER

    # streaming: role chunk, content deltas, finish chunk, usage chunk, [DONE]
    chunks = sse(client, {"model": "zorblax", "messages": QUESTION, "temperature": 0, "max_tokens": 24,
                          "stream": True, "stream_options": {"include_usage": True}})
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == ANSWER
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == done["usage"]["completion_tokens"]

    # unload; then the name is unknown
    resp = client.post("/v1/unload_lora_adapter", json={"lora_name": "zorblax"})
    assert resp.status_code == 200 and resp.text == "Success: LoRA adapter 'zorblax' removed successfully."
    assert [m["id"] for m in client.get("/v1/models").json()["data"]] == ["tiny-base"]
    err = assert_openai_error(chat(client, "zorblax"), 404, "NotFoundError")
    assert "zorblax" in err["message"] and err["param"] == "model"
    assert_openai_error(client.post("/v1/unload_lora_adapter", json={"lora_name": "zorblax"}), 404, "NotFoundError")
    # the base still serves after the last adapter is gone; load again works
    assert chat(client, "tiny-base").status_code == 200
    resp = client.post("/v1/load_lora_adapter", json={"lora_name": "zorblax", "lora_path": adapter_dir})
    assert resp.status_code == 200
    assert chat(client, "zorblax").json()["choices"][0]["message"]["content"] == ANSWER
    client.post("/v1/unload_lora_adapter", json={"lora_name": "zorblax"})


def test_content_parts_and_tool_history_are_accepted(client):
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Weather in "}, {"type": "text", "text": "Berlin?"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "12C"},
    ]
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    resp = client.post("/v1/chat/completions", json={"model": "tiny-base", "messages": messages, "tools": tools,
                                                     "temperature": 0, "max_tokens": 4})
    assert resp.status_code == 200, resp.text
    assert resp.json()["usage"]["prompt_tokens"] > 20


def test_sampling_and_length_limit(client):
    resp = chat(client, "tiny-base", temperature=1.0, seed=7, max_tokens=3).json()
    assert resp["usage"]["completion_tokens"] <= 3
    assert resp["choices"][0]["finish_reason"] in ("length", "stop")
    again = chat(client, "tiny-base", temperature=1.0, seed=7, max_tokens=3).json()
    assert again["choices"][0]["message"] == resp["choices"][0]["message"]  # same seed, same sample


def test_errors_have_openai_shape(client, tmp_path):
    assert_openai_error(chat(client, "nope"), 404, "NotFoundError")
    assert_openai_error(client.post("/v1/chat/completions", json={"model": "tiny-base"}), 400)
    assert_openai_error(chat(client, "tiny-base", n=2), 400)
    assert_openai_error(client.post("/v1/load_lora_adapter", json={"lora_name": "x"}), 400, "InvalidUserInput")
    assert_openai_error(client.post("/v1/load_lora_adapter", json={"lora_name": "x", "lora_path": str(tmp_path)}),
                        404, "NotFoundError")
    bad_role = client.post("/v1/chat/completions", json={"model": "tiny-base", "messages": [{"role": "robot", "content": "x"}]})
    assert "role must be one of" in assert_openai_error(bad_role, 400, "BadRequestError")["message"]
    streamed = client.post("/v1/chat/completions", json={"model": "nope", "messages": QUESTION, "stream": True})
    assert_openai_error(streamed, 404, "NotFoundError")


def test_cli_serve_real_server(tiny_base, sft_run):
    """`hone-trainer serve` as a real process on a free port, driven over HTTP with httpx."""
    import os
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = Path(sys.executable).with_name("hone-trainer")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "hone_trainer.cli"]
    proc = subprocess.Popen(cmd + ["serve", "--base", str(tiny_base), "--port", str(port),
                                   "--served-model-name", "tiny", "--lora", f"zorblax={sft_run['result']['adapter_dir']}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "OMP_NUM_THREADS": "2"})
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.3)
        assert [m["id"] for m in httpx.get(f"{url}/v1/models").json()["data"]] == ["tiny", "zorblax"]
        resp = httpx.post(f"{url}/v1/chat/completions", timeout=60,
                          json={"model": "zorblax", "messages": QUESTION, "temperature": 0, "max_tokens": 24})
        assert resp.json()["choices"][0]["message"]["content"] == ANSWER
        with httpx.stream("POST", f"{url}/v1/chat/completions", timeout=60,
                          json={"model": "zorblax", "messages": QUESTION, "temperature": 0, "stream": True}) as r:
            lines = [line for line in r.iter_lines() if line]
        assert lines[-1] == "data: [DONE]"
        text = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content", "") for line in lines[:-1])
        assert text == ANSWER
    finally:
        proc.terminate()
        proc.wait(timeout=30)
