"""A small OpenAI-compatible server for a base model and LoRA adapters (transformers + PEFT).

Endpoints:

* ``GET  /v1/models``: the base model and every loaded adapter (adapters have ``parent`` = base).
* ``POST /v1/chat/completions``: ``model`` is the base name or a loaded adapter name; ``messages``,
  optional ``tools`` (rendered by the chat template), ``temperature`` (0 = greedy; default 1.0),
  ``top_p``, ``max_tokens``/``max_completion_tokens``, ``seed``, ``stream`` (SSE chunks ending with
  ``data: [DONE]``; ``stream_options.include_usage`` adds a usage chunk). Returns usage counts.
  Only ``n == 1``. The reply is returned as text content; tool calls are not parsed out of it.
* ``POST /v1/load_lora_adapter`` ``{"lora_name", "lora_path"}`` and
  ``POST /v1/unload_lora_adapter`` ``{"lora_name"}``, with vLLM's wire: 200 and a plain-text
  ``Success: LoRA adapter '<name>' added successfully.`` / ``... removed successfully.``;
  400 ``InvalidUserInput`` when a field is missing or the name is already loaded; 404
  ``NotFoundError`` when unloading an unknown name or when the path holds no adapter; 400
  ``BadRequestError`` when the adapter does not fit the base model.

Errors use OpenAI's shape: ``{"error": {"message", "type", "param", "code"}}`` (code = HTTP status).

One model instance serves all requests; generation is serialized by a lock (adapters are switched on
the shared PEFT model). This is a development / small-deployment server, not a batching engine.
It loads adapters from paths on the server's own disk: bind it to 127.0.0.1 (the default) or a
trusted network only.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException


class APIError(Exception):
    def __init__(self, status: int, message: str, type_: str, param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.type, self.param = status, message, type_, param


def error_body(status: int, message: str, type_: str, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": status}}


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    n: int | None = 1
    seed: int | None = None
    stream: bool = False
    stream_options: dict[str, Any] | None = None


class LoadLoRAAdapterRequest(BaseModel):
    lora_name: str = ""
    lora_path: str = ""


class UnloadLoRAAdapterRequest(BaseModel):
    lora_name: str = ""
    lora_int_id: int | None = None


class ModelHost:
    """The base model plus named LoRA adapters on one PEFT-wrapped model."""

    def __init__(self, base_dir: str, served_model_name: str | None = None, default_max_tokens: int = 256):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.base_dir = base_dir
        self.name = served_model_name or base_dir
        self.default_max_tokens = default_max_tokens
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if self.device == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
        self.tokenizer = AutoTokenizer.from_pretrained(base_dir)
        if self.tokenizer.chat_template is None:
            raise ValueError(f"{base_dir}: the tokenizer has no chat template")
        self.model = AutoModelForCausalLM.from_pretrained(base_dir, dtype=dtype).to(self.device).eval()
        self.peft = None  # PeftModel once an adapter is loaded
        self.adapters: dict[str, str] = {}  # name -> path
        self.lock = threading.Lock()
        self.created = int(time.time())
        eos = self.model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if self.tokenizer.eos_token_id is not None:
            eos_ids.add(self.tokenizer.eos_token_id)
        self.eos_ids = sorted(eos_ids)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else (self.eos_ids or [0])[0]

    # ---- adapters

    def load_adapter(self, name: str, path: str) -> None:
        from peft import PeftModel

        if not name or not path:
            raise APIError(400, "Both 'lora_name' and 'lora_path' must be provided.", "InvalidUserInput")
        with self.lock:
            if name in self.adapters or name == self.name:
                raise APIError(400, f"The lora adapter '{name}' has already been loaded.", "InvalidUserInput")
            if not (Path(path) / "adapter_config.json").is_file():
                raise APIError(404, f"No adapter found for {path}", "NotFoundError")
            try:
                if self.peft is None:
                    self.peft = PeftModel.from_pretrained(self.model, path, adapter_name=name).eval()
                else:
                    self.peft.load_adapter(path, adapter_name=name)
                    self.peft.eval()
            except Exception as e:
                if self.peft is not None and not self.adapters:
                    self.model, self.peft = self.peft.unload(), None
                raise APIError(400, f"Loading LoRA adapter '{name}' from {path} failed: {e}", "BadRequestError") from None
            self.adapters[name] = path

    def unload_adapter(self, name: str) -> None:
        if not name:
            raise APIError(400, "either 'lora_name' and 'lora_int_id' needs to be provided.", "InvalidUserInput")
        with self.lock:
            if name not in self.adapters:
                raise APIError(404, f"The lora adapter '{name}' cannot be found.", "NotFoundError")
            del self.adapters[name]
            if self.adapters:
                self.peft.delete_adapter(name)
            else:  # last one: take the LoRA layers out again and serve the plain base model
                self.model, self.peft = self.peft.unload(), None

    def models(self) -> dict:
        data = [{"id": self.name, "object": "model", "created": self.created, "owned_by": "hone-trainer",
                 "root": self.base_dir, "parent": None}]
        for name, path in self.adapters.items():
            data.append({"id": name, "object": "model", "created": self.created, "owned_by": "hone-trainer",
                         "root": path, "parent": self.name})
        return {"object": "list", "data": data}

    # ---- generation

    def _prepare(self, req: ChatCompletionRequest) -> tuple[Any, dict]:
        import torch

        if req.model != self.name and req.model not in self.adapters:
            raise APIError(404, f"The model `{req.model}` does not exist.", "NotFoundError", "model")
        if req.n not in (None, 1):
            raise APIError(400, "Only n=1 is supported.", "BadRequestError", "n")
        from .data import DataError, normalize_message

        try:
            messages = [normalize_message(m, f"messages[{i}]") for i, m in enumerate(req.messages)]
        except DataError as e:
            raise APIError(400, str(e), "BadRequestError", "messages") from None
        try:
            enc = self.tokenizer.apply_chat_template(
                messages, tools=req.tools, add_generation_prompt=True, tokenize=True, return_dict=True
            )
        except Exception as e:
            raise APIError(400, f"The messages could not be rendered with the chat template: {e}", "BadRequestError", "messages") from None
        input_ids = torch.tensor([list(enc["input_ids"])], device=self.device)
        max_new = req.max_completion_tokens or req.max_tokens or self.default_max_tokens
        temperature = 1.0 if req.temperature is None else req.temperature
        gen: dict[str, Any] = {
            "input_ids": input_ids,
            "attention_mask": torch.ones_like(input_ids),
            "max_new_tokens": max_new,
            "eos_token_id": self.eos_ids or None,
            "pad_token_id": self.pad_id,
        }
        if temperature == 0:
            gen.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            gen.update(do_sample=True, temperature=temperature, top_p=req.top_p if req.top_p is not None else 1.0, top_k=0)
        return input_ids, gen

    def _run(self, model_name: str, gen: dict, seed: int | None, streamer=None):
        """Generate with the right adapter; the caller must hold self.lock."""
        import contextlib

        import torch

        if seed is not None:
            torch.manual_seed(seed)
        if model_name == self.name:
            model = self.peft if self.peft is not None else self.model
            ctx = self.peft.disable_adapter() if self.peft is not None else contextlib.nullcontext()
        else:
            if model_name not in self.adapters:  # unloaded between validation and now
                raise APIError(404, f"The model `{model_name}` does not exist.", "NotFoundError", "model")
            self.peft.set_adapter(model_name)
            model, ctx = self.peft, contextlib.nullcontext()
        with ctx, torch.no_grad():
            return model.generate(**gen, streamer=streamer)

    def _finish(self, completion_ids: list[int], max_new: int) -> tuple[list[int], str]:
        if completion_ids and completion_ids[-1] in self.eos_ids:
            return completion_ids[:-1], "stop"
        return completion_ids, "length" if len(completion_ids) >= max_new else "stop"

    def complete(self, req: ChatCompletionRequest) -> dict:
        input_ids, gen = self._prepare(req)
        with self.lock:
            out = self._run(req.model, gen, req.seed)
        completion = out[0, input_ids.shape[1]:].tolist()
        ids, finish = self._finish(completion, gen["max_new_tokens"])
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        n_prompt = input_ids.shape[1]
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": req.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": n_prompt, "completion_tokens": len(completion),
                      "total_tokens": n_prompt + len(completion)},
        }

    def stream(self, req: ChatCompletionRequest) -> Iterator[str]:
        """Validate now (errors raise before any byte is sent); return an iterator of SSE lines."""
        from transformers import TextIteratorStreamer

        input_ids, gen = self._prepare(req)
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True, timeout=600)
        result: dict[str, Any] = {}

        def work():
            try:
                with self.lock:
                    result["out"] = self._run(req.model, gen, req.seed, streamer=streamer)
            except BaseException as e:  # surfaced to the client as an error chunk
                result["error"] = e
                streamer.end()

        cid, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        include_usage = bool((req.stream_options or {}).get("include_usage"))

        def chunk(delta: dict, finish: str | None = None, usage: dict | None = None, choices: bool = True) -> str:
            body: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": req.model,
                                    "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}] if choices else []}
            if usage is not None:
                body["usage"] = usage
            return f"data: {json.dumps(body)}\n\n"

        def events() -> Iterator[str]:
            thread = threading.Thread(target=work, daemon=True)
            thread.start()
            yield chunk({"role": "assistant", "content": ""})
            for piece in streamer:
                if piece:
                    yield chunk({"content": piece})
            thread.join()
            if "error" in result:
                e = result["error"]
                err = error_body(e.status, e.message, e.type) if isinstance(e, APIError) else error_body(500, str(e), "InternalServerError")
                yield f"data: {json.dumps(err)}\n\n"
            else:
                completion = result["out"][0, input_ids.shape[1]:].tolist()
                _, finish = self._finish(completion, gen["max_new_tokens"])
                yield chunk({}, finish)
                if include_usage:
                    n_prompt = input_ids.shape[1]
                    yield chunk({}, usage={"prompt_tokens": n_prompt, "completion_tokens": len(completion),
                                           "total_tokens": n_prompt + len(completion)}, choices=False)
            yield "data: [DONE]\n\n"

        return events()


def create_app(host: ModelHost) -> FastAPI:
    app = FastAPI(title="hone-trainer serve")
    app.state.host = host

    @app.exception_handler(APIError)
    async def _api_error(request: Request, exc: APIError):
        return JSONResponse(error_body(exc.status, exc.message, exc.type, exc.param), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError):
        errs = exc.errors()
        first = errs[0] if errs else {}
        param = ".".join(str(p) for p in first.get("loc", ())[1:]) or None
        message = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ())[1:])}: {e.get('msg')}" for e in errs) or "invalid request"
        return JSONResponse(error_body(400, message, "BadRequestError", param), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        type_ = "NotFoundError" if exc.status_code == 404 else "BadRequestError"
        return JSONResponse(error_body(exc.status_code, str(exc.detail), type_), status_code=exc.status_code)

    @app.get("/health")
    def health():
        return PlainTextResponse("")

    @app.get("/v1/models")
    def models():
        return host.models()

    @app.post("/v1/chat/completions")
    def chat_completions(req: ChatCompletionRequest):
        if req.stream:
            return StreamingResponse(host.stream(req), media_type="text/event-stream")
        return host.complete(req)

    @app.post("/v1/load_lora_adapter")
    def load_lora_adapter(req: LoadLoRAAdapterRequest):
        host.load_adapter(req.lora_name, req.lora_path)
        return PlainTextResponse(f"Success: LoRA adapter '{req.lora_name}' added successfully.")

    @app.post("/v1/unload_lora_adapter")
    def unload_lora_adapter(req: UnloadLoRAAdapterRequest):
        host.unload_adapter(req.lora_name)
        return PlainTextResponse(f"Success: LoRA adapter '{req.lora_name}' removed successfully.")

    return app


def serve(base: str, host: str = "127.0.0.1", port: int = 8000, served_model_name: str | None = None,
          lora_modules: list[tuple[str, str]] | None = None) -> None:
    """Load the base model (and any ``name=path`` adapters) and run uvicorn until interrupted."""
    import uvicorn

    model_host = ModelHost(base, served_model_name)
    for name, path in lora_modules or []:
        model_host.load_adapter(name, path)
    uvicorn.run(create_app(model_host), host=host, port=port, log_level="info")
