"""Training data and training configuration: shapes, validation, rendering, tokenization.

Entry shapes (one JSON object per line in a .jsonl file)
--------------------------------------------------------

SFT entry -- the chat format Hone records::

    {"messages": [{"role": "system"|"user"|"assistant"|"tool", "content": str|null,
                   "tool_calls"?: [...], "tool_call_id"?: str, "name"?: str}, ...],
     "tools"?: [{"type": "function", "function": {...}}, ...]}

The last message must be the assistant's: it is the output the model learns. Only its
tokens (its content or tool calls, and the end-of-turn token) carry loss; every earlier
message, including earlier assistant turns, is context with label -100.

DPO (preference) entry::

    {"prompt": [messages...],              # the conversation so far; must not end with an assistant turn
     "chosen": {"role": "assistant", ...}, # the preferred reply (one assistant message)
     "rejected": {"role": "assistant", ...},
     "tools"?: [...]}

``chosen``/``rejected`` may also be given as a one-element list ``[{"role": "assistant", ...}]``
(TRL's conversational preference shape); they are normalized to that list form for TRL.

Message content may be a string, null (only for an assistant message with ``tool_calls``), or
a list of OpenAI text parts ``[{"type": "text", "text": ...}]`` which are joined. Other part
types (images, audio) are rejected.

Rule for long entries
---------------------

An entry whose full rendering (chat template with its tools, including the learned reply;
for DPO the longer of prompt+chosen and prompt+rejected) is longer than ``max_seq_length``
tokens is DROPPED, never truncated: truncating would cut the reply being learned (or the
context it depends on) and teach the wrong thing. Dropped entries are counted, and the
counts are part of the training result. If every train entry is dropped, training fails
with a clear error.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROLES = ("system", "user", "assistant", "tool")
DEFAULT_TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class ConfigError(ValueError):
    """A training config value is missing or invalid."""


class DataError(ValueError):
    """A training entry does not have the expected shape."""


# --------------------------------------------------------------------------- config


@dataclass
class LoraSettings:
    r: int = 16
    alpha: int = 32
    dropout: float = 0.05
    target_modules: list[str] | str = field(default_factory=lambda: list(DEFAULT_TARGET_MODULES))


@dataclass
class TrainConfig:
    method: str
    base_model: str
    lora: LoraSettings | None  # None: full fine-tune
    epochs: float = 1.0
    learning_rate: float = 2e-4
    batch_size: int = 4
    gradient_accumulation_steps: int = 1
    max_seq_length: int = 2048
    seed: int = 0
    checkpoint_every: int = 0  # 0: no intermediate checkpoints
    eval_every: int = 0  # 0: evaluate on the test entries only at step 0 and at the end
    lr_scheduler: str = "linear"
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    dpo_beta: float = 0.1
    gradient_checkpointing: bool = False
    export: str = "adapter"  # "adapter" or "merged" (also write a merged full model)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_SCHEDULERS = ("linear", "constant", "constant_with_warmup", "cosine")
_EXPORTS = ("adapter", "merged")


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise ConfigError(message)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse_config(raw: dict[str, Any] | TrainConfig) -> TrainConfig:
    """Validate a training config (a dict, e.g. from JSON) and return a TrainConfig.

    Raises ConfigError naming the offending key and the accepted values.
    """
    if isinstance(raw, TrainConfig):
        raw = raw.to_dict()
    if not isinstance(raw, dict):
        raise ConfigError(f"config must be a JSON object, got {type(raw).__name__}")
    known = set(TrainConfig.__dataclass_fields__) | {"full_finetune"}
    unknown = sorted(set(raw) - known)
    _require(not unknown, f"unknown config key(s): {', '.join(unknown)}; known keys: {', '.join(sorted(known))}")

    method = raw.get("method")
    _require(method in ("sft", "dpo"), f"config.method must be 'sft' or 'dpo', got {method!r}")
    base = raw.get("base_model")
    _require(isinstance(base, str) and base.strip() != "", "config.base_model must be a non-empty string (a local directory or a Hugging Face model id present in the local cache)")

    full = raw.get("full_finetune", False)
    _require(isinstance(full, bool), f"config.full_finetune must be true or false, got {full!r}")
    lora_raw = raw.get("lora", {} if not full else None)
    if full:
        _require(lora_raw is None, "config.full_finetune is true but config.lora is set; choose one")
        lora = None
    elif lora_raw is None:
        lora = None  # "lora": null means full fine-tune
    else:
        _require(isinstance(lora_raw, dict), f"config.lora must be an object or null, got {type(lora_raw).__name__}")
        unknown_lora = sorted(set(lora_raw) - set(LoraSettings.__dataclass_fields__))
        _require(not unknown_lora, f"unknown config.lora key(s): {', '.join(unknown_lora)}; known: r, alpha, dropout, target_modules")
        lora = LoraSettings(**lora_raw)
        _require(_is_int(lora.r) and lora.r > 0, f"config.lora.r must be a positive integer, got {lora.r!r}")
        _require(_is_num(lora.alpha) and lora.alpha > 0, f"config.lora.alpha must be a positive number, got {lora.alpha!r}")
        _require(_is_num(lora.dropout) and 0 <= lora.dropout < 1, f"config.lora.dropout must be in [0, 1), got {lora.dropout!r}")
        tm = lora.target_modules
        _require(
            tm == "all-linear" or (isinstance(tm, list) and tm and all(isinstance(m, str) and m for m in tm)),
            f"config.lora.target_modules must be a non-empty list of module names or 'all-linear', got {tm!r}",
        )

    kw = {k: v for k, v in raw.items() if k not in ("lora", "full_finetune")}
    cfg = TrainConfig(**{**kw, "lora": lora})
    _require(_is_num(cfg.epochs) and cfg.epochs > 0, f"config.epochs must be a positive number, got {cfg.epochs!r}")
    _require(_is_num(cfg.learning_rate) and 0 < cfg.learning_rate < 1, f"config.learning_rate must be in (0, 1), got {cfg.learning_rate!r}")
    _require(_is_int(cfg.batch_size) and cfg.batch_size > 0, f"config.batch_size must be a positive integer, got {cfg.batch_size!r}")
    _require(
        _is_int(cfg.gradient_accumulation_steps) and cfg.gradient_accumulation_steps > 0,
        f"config.gradient_accumulation_steps must be a positive integer, got {cfg.gradient_accumulation_steps!r}",
    )
    _require(_is_int(cfg.max_seq_length) and cfg.max_seq_length >= 16, f"config.max_seq_length must be an integer >= 16, got {cfg.max_seq_length!r}")
    _require(_is_int(cfg.seed) and cfg.seed >= 0, f"config.seed must be a non-negative integer, got {cfg.seed!r}")
    _require(_is_int(cfg.checkpoint_every) and cfg.checkpoint_every >= 0, f"config.checkpoint_every must be a non-negative integer (steps; 0 = off), got {cfg.checkpoint_every!r}")
    _require(_is_int(cfg.eval_every) and cfg.eval_every >= 0, f"config.eval_every must be a non-negative integer (steps; 0 = start and end only), got {cfg.eval_every!r}")
    _require(cfg.lr_scheduler in _SCHEDULERS, f"config.lr_scheduler must be one of {', '.join(_SCHEDULERS)}, got {cfg.lr_scheduler!r}")
    _require(_is_num(cfg.warmup_ratio) and 0 <= cfg.warmup_ratio < 1, f"config.warmup_ratio must be in [0, 1), got {cfg.warmup_ratio!r}")
    _require(_is_num(cfg.weight_decay) and cfg.weight_decay >= 0, f"config.weight_decay must be >= 0, got {cfg.weight_decay!r}")
    _require(_is_num(cfg.max_grad_norm) and cfg.max_grad_norm >= 0, f"config.max_grad_norm must be >= 0 (0 = no clipping), got {cfg.max_grad_norm!r}")
    _require(_is_num(cfg.dpo_beta) and cfg.dpo_beta > 0, f"config.dpo_beta must be a positive number, got {cfg.dpo_beta!r}")
    _require(isinstance(cfg.gradient_checkpointing, bool), f"config.gradient_checkpointing must be true or false, got {cfg.gradient_checkpointing!r}")
    _require(cfg.export in _EXPORTS, f"config.export must be one of {', '.join(_EXPORTS)}, got {cfg.export!r}")
    return cfg


# --------------------------------------------------------------------------- entries


def _norm_content(content: Any, where: str) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                raise DataError(f"{where}.content[{i}]: only text parts ({{'type': 'text', 'text': ...}}) are supported")
            parts.append(part["text"])
        return "".join(parts)
    raise DataError(f"{where}.content must be a string, null or a list of text parts, got {type(content).__name__}")


def _norm_tool_calls(calls: Any, where: str) -> list[dict]:
    if not isinstance(calls, list) or not calls:
        raise DataError(f"{where}.tool_calls must be a non-empty list")
    out = []
    for i, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            raise DataError(f"{where}.tool_calls[{i}] must look like {{'type': 'function', 'function': {{'name': ..., 'arguments': ...}}}}")
        args = fn.get("arguments", {})
        if not isinstance(args, (str, dict)):
            raise DataError(f"{where}.tool_calls[{i}].function.arguments must be a JSON string or an object")
        norm = {"type": "function", "function": {"name": fn["name"], "arguments": args}}
        if isinstance(call.get("id"), str):
            norm["id"] = call["id"]
        out.append(norm)
    return out


def normalize_message(msg: Any, where: str) -> dict:
    if not isinstance(msg, dict):
        raise DataError(f"{where} must be an object with 'role' and 'content'")
    role = msg.get("role")
    if role not in ROLES:
        raise DataError(f"{where}.role must be one of {', '.join(ROLES)}, got {role!r}")
    content = _norm_content(msg.get("content"), where)
    out: dict[str, Any] = {"role": role, "content": content}
    if msg.get("tool_calls") is not None:
        if role != "assistant":
            raise DataError(f"{where}: only assistant messages may have tool_calls")
        out["tool_calls"] = _norm_tool_calls(msg["tool_calls"], where)
    if content is None:
        if "tool_calls" not in out:
            raise DataError(f"{where}.content is null; only an assistant message with tool_calls may have no content")
        out["content"] = ""
    if role == "tool":
        if isinstance(msg.get("tool_call_id"), str):
            out["tool_call_id"] = msg["tool_call_id"]
        if isinstance(msg.get("name"), str):
            out["name"] = msg["name"]
    return out


def _norm_tools(tools: Any, where: str) -> list[dict] | None:
    if tools is None:
        return None
    if isinstance(tools, str):
        try:
            tools = json.loads(tools)
        except json.JSONDecodeError as e:
            raise DataError(f"{where}.tools is a string but not JSON: {e}") from None
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise DataError(f"{where}.tools must be a list of tool objects")
    return tools or None


def normalize_sft_entry(entry: Any, index: int = 0) -> dict:
    """Check an SFT entry's shape and return a normalized copy ``{"messages": [...], "tools": [...]|None}``."""
    where = f"entry {index}"
    if not isinstance(entry, dict) or not isinstance(entry.get("messages"), list) or not entry["messages"]:
        raise DataError(f"{where}: expected {{'messages': [...], 'tools'?: [...]}} with at least one message")
    messages = [normalize_message(m, f"{where}.messages[{i}]") for i, m in enumerate(entry["messages"])]
    if messages[-1]["role"] != "assistant":
        raise DataError(f"{where}: the last message must be the assistant's reply to learn, got role {messages[-1]['role']!r}")
    last = messages[-1]
    if not last["content"] and not last.get("tool_calls"):
        raise DataError(f"{where}: the last (assistant) message is empty")
    return {"messages": messages, "tools": _norm_tools(entry.get("tools"), where)}


def _norm_reply(reply: Any, where: str) -> dict:
    if isinstance(reply, list):
        if len(reply) != 1:
            raise DataError(f"{where} must be one assistant message (or a one-element list of it)")
        reply = reply[0]
    msg = normalize_message(reply, where)
    if msg["role"] != "assistant":
        raise DataError(f"{where} must be an assistant message, got role {msg['role']!r}")
    if not msg["content"] and not msg.get("tool_calls"):
        raise DataError(f"{where} is empty")
    return msg


def normalize_dpo_entry(entry: Any, index: int = 0) -> dict:
    """Check a preference entry and return ``{"prompt": [...], "chosen": [msg], "rejected": [msg], "tools"}``."""
    where = f"entry {index}"
    if not isinstance(entry, dict) or not all(k in entry for k in ("prompt", "chosen", "rejected")):
        raise DataError(f"{where}: expected {{'prompt': [messages], 'chosen': assistant message, 'rejected': assistant message, 'tools'?: [...]}}")
    if not isinstance(entry["prompt"], list) or not entry["prompt"]:
        raise DataError(f"{where}.prompt must be a non-empty list of messages")
    prompt = [normalize_message(m, f"{where}.prompt[{i}]") for i, m in enumerate(entry["prompt"])]
    if prompt[-1]["role"] == "assistant":
        raise DataError(f"{where}.prompt must not end with an assistant message (the replies are chosen/rejected)")
    return {
        "prompt": prompt,
        "chosen": [_norm_reply(entry["chosen"], f"{where}.chosen")],
        "rejected": [_norm_reply(entry["rejected"], f"{where}.rejected")],
        "tools": _norm_tools(entry.get("tools"), where),
    }


def read_jsonl(path: str | Path) -> list[dict]:
    """Read a .jsonl file (blank lines ignored). Errors name the line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise DataError(f"{path}:{n}: not valid JSON: {e}") from None
    return out


# --------------------------------------------------------------------------- rendering / tokenization


def render(entry: dict, tokenizer, chat_template: str | None = None) -> str:
    """The text the model is trained on for a (normalized) SFT entry."""
    return tokenizer.apply_chat_template(
        entry["messages"], tools=entry.get("tools"), chat_template=chat_template, tokenize=False
    )


def _last_run(mask: list[int]) -> tuple[int, int] | None:
    end = None
    for i in range(len(mask) - 1, -1, -1):
        if mask[i]:
            if end is None:
                end = i + 1
        elif end is not None:
            return i + 1, end
    return (0, end) if end is not None else None


def tokenize_sft(entry: dict, tokenizer, chat_template: str | None = None) -> dict[str, list[int]]:
    """Tokenize a normalized SFT entry into ``input_ids`` and ``labels``.

    Labels are -100 everywhere except the final assistant turn, which is found with the chat
    template's ``{% generation %}`` mask (``return_assistant_tokens_mask``).
    """
    out = tokenizer.apply_chat_template(
        entry["messages"],
        tools=entry.get("tools"),
        chat_template=chat_template,
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    ids = list(out["input_ids"])
    span = _last_run(list(out["assistant_masks"]))
    if span is None:
        raise DataError(
            "the chat template marked no assistant tokens; it needs {% generation %}...{% endgeneration %} "
            "around assistant turns for assistant-only loss"
        )
    start, end = span
    labels = [-100] * len(ids)
    labels[start:end] = ids[start:end]
    return {"input_ids": ids, "labels": labels}


def prepare_sft(entries: list, tokenizer, max_seq_length: int, chat_template: str | None = None) -> tuple[list[dict], int]:
    """Normalize and tokenize SFT entries; drop (and count) those longer than max_seq_length.

    Returns ``(rows, dropped)`` where each row has ``input_ids`` and ``labels``.
    """
    rows, dropped = [], 0
    for i, raw in enumerate(entries):
        row = tokenize_sft(normalize_sft_entry(raw, i), tokenizer, chat_template)
        if len(row["input_ids"]) > max_seq_length:
            dropped += 1
            continue
        rows.append(row)
    return rows, dropped


def _ids(tokenizer, messages, tools, add_generation_prompt=False) -> list[int]:
    out = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=True, return_dict=True, add_generation_prompt=add_generation_prompt
    )
    return list(out["input_ids"])


def tokenize_dpo(entry: dict, tokenizer) -> dict[str, list[int]]:
    """Tokenize a normalized preference entry into ``prompt_ids``, ``chosen_ids``, ``rejected_ids``."""
    tools = entry.get("tools")
    prompt_ids = _ids(tokenizer, entry["prompt"], tools, add_generation_prompt=True)
    out = {"prompt_ids": prompt_ids}
    for key in ("chosen", "rejected"):
        full = _ids(tokenizer, entry["prompt"] + entry[key], tools)
        if full[: len(prompt_ids)] != prompt_ids:
            raise DataError(
                f"the chat template does not render prompt+{key} as an extension of the prompt with the generation "
                "prompt; DPO needs that to split the reply from the prompt"
            )
        out[f"{key}_ids"] = full[len(prompt_ids):]
    return out


def prepare_dpo(entries: list, tokenizer, max_seq_length: int) -> tuple[list[dict], int]:
    """Normalize and tokenize preference entries; drop (and count) those longer than max_seq_length."""
    rows, dropped = [], 0
    for i, raw in enumerate(entries):
        row = tokenize_dpo(normalize_dpo_entry(raw, i), tokenizer)
        longest = len(row["prompt_ids"]) + max(len(row["chosen_ids"]), len(row["rejected_ids"]))
        if longest > max_seq_length:
            dropped += 1
            continue
        rows.append(row)
    return rows, dropped
