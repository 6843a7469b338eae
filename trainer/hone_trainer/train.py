"""Training: SFT (TRL SFTTrainer) and DPO (TRL DPOTrainer), LoRA via PEFT or full fine-tune.

``train(config, train_entries, test_entries, output_dir, on_event, should_cancel, resume_from=None)``
is the single entry point; the CLI's ``train-local`` and a future ``work`` command (which leases
jobs from Hone) both call it.

Layout of ``output_dir``::

    checkpoints/checkpoint-<step>/   every config.checkpoint_every steps (HF Trainer checkpoints:
                                     adapter/model weights, optimizer, scheduler, RNG, trainer_state)
    adapter/                         LoRA result: adapter_model.safetensors, adapter_config.json,
                                     tokenizer files with the chat template   (LoRA runs)
    model/                           full fine-tune result (full fine-tune runs)
    merged/                          base + adapter merged into a full model (config.export == "merged")
    manifest.json                    every result file: path (relative to output_dir), sha256, size

Events: ``on_event(dict)`` receives dicts that all have the keys
``type`` ("start" | "step" | "eval" | "checkpoint" | "end"), ``step``, ``total_steps``, ``loss``,
``eval_loss``, ``learning_rate``, ``tokens_per_second``, ``eta_seconds``, ``gpu_memory_bytes``, ``epoch``
(None where a value does not apply: e.g. ``eval_loss`` on a "step" event, ``gpu_memory_bytes`` on CPU),
plus ``checkpoint_dir`` on "checkpoint" events and ``status`` on the "end" event. Eval runs on the TEST entries at step 0 (not when
resuming), every ``config.eval_every`` steps when set, and at the end.

Cancellation: ``should_cancel()`` is polled after every optimizer step and every gradient-accumulation
micro-step; once it returns True training stops before the next optimizer step, no result is written,
and the result has ``status == "cancelled"`` (checkpoints already written stay, so the job can be resumed).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .data import ConfigError, TrainConfig, parse_config, prepare_dpo, prepare_sft

EVENT_KEYS = (
    "type",
    "step",
    "total_steps",
    "loss",
    "eval_loss",
    "learning_rate",
    "tokens_per_second",
    "eta_seconds",
    "gpu_memory_bytes",
    "epoch",
)


def _event(kind: str, **values: Any) -> dict[str, Any]:
    ev = {k: None for k in EVENT_KEYS}
    ev["type"] = kind
    ev.update(values)
    return ev


def _gpu_memory_bytes() -> int | None:
    import torch

    if torch.cuda.is_available():
        return int(torch.cuda.max_memory_allocated())
    return None


def expected_total_steps(n_train: int, cfg: TrainConfig) -> int:
    """Optimizer steps HF Trainer will run (same formula as its epoch-based max_steps)."""
    batches = math.ceil(n_train / cfg.batch_size)
    per_epoch = max(batches // cfg.gradient_accumulation_steps + int(batches % cfg.gradient_accumulation_steps > 0), 1)
    return math.ceil(cfg.epochs * per_epoch)


def _make_callback(on_event: Callable[[dict], None], should_cancel: Callable[[], bool], total_steps: int):
    from transformers import TrainerCallback

    class HoneCallback(TrainerCallback):
        def __init__(self):
            self.total_steps = total_steps
            self.cancelled = False
            self.last_loss: float | None = None
            self._t_start: float | None = None
            self._step_start = 0
            self._t_last: float | None = None
            self._tokens_last = 0

        def _cancel_check(self, control):
            if not self.cancelled and should_cancel():
                self.cancelled = True
            if self.cancelled:
                control.should_training_stop = True
            return control

        def on_train_begin(self, args, state, control, **kw):
            if state.max_steps:
                self.total_steps = state.max_steps
            self._t_start = self._t_last = time.monotonic()
            self._step_start = state.global_step
            self._tokens_last = state.num_input_tokens_seen
            on_event(_event("start", step=state.global_step, total_steps=self.total_steps, epoch=state.epoch,
                            gpu_memory_bytes=_gpu_memory_bytes()))
            return control

        def on_step_begin(self, args, state, control, **kw):
            return self._cancel_check(control)

        def on_substep_end(self, args, state, control, **kw):
            return self._cancel_check(control)

        def on_step_end(self, args, state, control, **kw):
            return self._cancel_check(control)

        def on_log(self, args, state, control, logs=None, **kw):
            logs = logs or {}
            if "loss" not in logs:
                return control
            now = time.monotonic()
            tokens = state.num_input_tokens_seen
            tps = None
            if self._t_last is not None and now > self._t_last and tokens > self._tokens_last:
                tps = (tokens - self._tokens_last) / (now - self._t_last)
            self._t_last, self._tokens_last = now, tokens
            done = state.global_step - self._step_start
            eta = None
            if done > 0 and self._t_start is not None:
                eta = (now - self._t_start) / done * max(self.total_steps - state.global_step, 0)
            self.last_loss = float(logs["loss"])
            on_event(_event(
                "step",
                step=state.global_step,
                total_steps=self.total_steps,
                loss=self.last_loss,
                learning_rate=logs.get("learning_rate"),
                tokens_per_second=tps,
                eta_seconds=eta,
                gpu_memory_bytes=_gpu_memory_bytes(),
                epoch=state.epoch,
            ))
            # A cancel requested while handling this step's event stops before the next step starts.
            return self._cancel_check(control)

        def on_evaluate(self, args, state, control, metrics=None, **kw):
            metrics = metrics or {}
            if "eval_loss" in metrics:
                on_event(_event("eval", step=state.global_step, total_steps=self.total_steps,
                                eval_loss=float(metrics["eval_loss"]), epoch=state.epoch,
                                gpu_memory_bytes=_gpu_memory_bytes()))
            return control

        def on_save(self, args, state, control, **kw):
            ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            ev = _event("checkpoint", step=state.global_step, total_steps=self.total_steps, epoch=state.epoch)
            ev["checkpoint_dir"] = str(ckpt)
            on_event(ev)
            return control

    return HoneCallback()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_manifest(root: Path, dirs: list[Path]) -> list[dict[str, Any]]:
    """Every file under ``dirs`` with its path relative to ``root``, sha256 and size, sorted by path."""
    files = []
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.is_file():
                files.append({"path": p.relative_to(root).as_posix(), "sha256": sha256_file(p), "size": p.stat().st_size})
    return sorted(files, key=lambda f: f["path"])


def _load_tokenizer(base_model: str):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(base_model)
    if tok.chat_template is None:
        raise ConfigError(f"the tokenizer of {base_model!r} has no chat template; hone-trainer trains on chat entries")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def _sft_chat_template(tokenizer) -> str | None:
    """None when the tokenizer's template already has {% generation %} markers, else TRL's training variant."""
    from trl.chat_template_utils import get_training_chat_template, has_generation_markers

    if has_generation_markers(tokenizer.chat_template):
        return None
    try:
        return get_training_chat_template(tokenizer)
    except Exception as e:  # TRL only knows the templates of common model families
        raise ConfigError(
            "the base model's chat template has no {% generation %} markers and TRL has no training variant for it; "
            f"assistant-only loss is impossible ({e})"
        ) from None


def _load_model(base_model: str, use_cuda: bool):
    import torch
    from transformers import AutoModelForCausalLM

    dtype = torch.float32
    if use_cuda and torch.cuda.is_bf16_supported():
        dtype = torch.bfloat16
    return AutoModelForCausalLM.from_pretrained(base_model, dtype=dtype)


def build_trainer(
    config: dict[str, Any] | TrainConfig,
    train_entries: list[dict],
    test_entries: list[dict],
    output_dir: str | os.PathLike,
    on_event: Callable[[dict], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
):
    """Prepare data, model and the TRL trainer without training. Returns ``(trainer, info)``.

    ``info`` has ``callback`` (the event/cancel callback), ``tokenizer``, ``config`` (the parsed
    TrainConfig) and ``dropped``. Used by :func:`train`; tests use it to look at the batches the
    trainer really collates.
    """
    import torch
    from datasets import Dataset
    from transformers import set_seed
    from transformers.trainer_callback import PrinterCallback

    cfg = parse_config(config)
    on_event = on_event or (lambda e: None)
    should_cancel = should_cancel or (lambda: False)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_root = out / "checkpoints"
    if cfg.lora is None and cfg.export == "merged":
        raise ConfigError("config.export 'merged' only applies to LoRA runs (a full fine-tune is already a full model)")

    use_cuda = torch.cuda.is_available()
    tokenizer = _load_tokenizer(cfg.base_model)

    # Data: normalize, tokenize, drop (and count) entries over max_seq_length.
    if cfg.method == "sft":
        tpl = _sft_chat_template(tokenizer)
        train_rows, dropped_train = prepare_sft(train_entries, tokenizer, cfg.max_seq_length, tpl)
        test_rows, dropped_test = prepare_sft(test_entries or [], tokenizer, cfg.max_seq_length, tpl)
    else:
        train_rows, dropped_train = prepare_dpo(train_entries, tokenizer, cfg.max_seq_length)
        test_rows, dropped_test = prepare_dpo(test_entries or [], tokenizer, cfg.max_seq_length)
    if not train_rows:
        raise ConfigError(
            f"no train entries left: {len(train_entries)} given, {dropped_train} longer than max_seq_length "
            f"({cfg.max_seq_length}) dropped"
        )
    train_ds = Dataset.from_list(train_rows)
    test_ds = Dataset.from_list(test_rows) if test_rows else None

    set_seed(cfg.seed)
    model = _load_model(cfg.base_model, use_cuda)
    peft_config = None
    if cfg.lora is not None:
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=cfg.lora.r,
            lora_alpha=cfg.lora.alpha,
            lora_dropout=cfg.lora.dropout,
            target_modules=cfg.lora.target_modules,
            task_type="CAUSAL_LM",
        )

    total_steps = expected_total_steps(len(train_rows), cfg)
    callback = _make_callback(on_event, should_cancel, total_steps)
    bf16 = bool(use_cuda and torch.cuda.is_bf16_supported())
    common = dict(
        output_dir=str(ckpt_root),
        num_train_epochs=cfg.epochs,
        per_device_train_batch_size=cfg.batch_size,
        per_device_eval_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.gradient_accumulation_steps,
        learning_rate=cfg.learning_rate,
        lr_scheduler_type=cfg.lr_scheduler,
        warmup_steps=float(cfg.warmup_ratio),  # transformers 5: a float in [0, 1) is a ratio of total steps
        weight_decay=cfg.weight_decay,
        max_grad_norm=cfg.max_grad_norm,
        seed=cfg.seed,
        data_seed=cfg.seed,
        logging_steps=1,
        save_strategy="steps" if cfg.checkpoint_every else "no",
        save_steps=cfg.checkpoint_every or 500,
        eval_strategy="steps" if (cfg.eval_every and test_ds is not None) else "no",
        eval_steps=cfg.eval_every or None,
        report_to=[],
        disable_tqdm=True,
        bf16=bf16,
        fp16=False,
        use_cpu=not use_cuda,
        gradient_checkpointing=cfg.gradient_checkpointing,
        include_num_input_tokens_seen="non_padding",
        dataloader_num_workers=0,
        max_length=cfg.max_seq_length,
        save_only_model=False,
    )
    if cfg.method == "sft":
        from trl import SFTConfig, SFTTrainer

        args = SFTConfig(
            **common,
            # Rows are tokenized by hone_trainer.data with labels for the final assistant turn only.
            dataset_kwargs={"skip_prepare_dataset": True},
            packing=False,
        )
        trainer = SFTTrainer(
            model=model,
            args=args,
            train_dataset=train_ds,
            eval_dataset=test_ds,
            processing_class=tokenizer,
            peft_config=peft_config,
            callbacks=[callback],
        )
    else:
        from trl import DPOConfig, DPOTrainer

        class _PretokenizedDPOTrainer(DPOTrainer):
            # Rows already carry prompt_ids/chosen_ids/rejected_ids from hone_trainer.data (which renders tools
            # and drops over-long entries); TRL's own preparation would re-render them through a datasets map.
            def _prepare_dataset(self, dataset, processing_class, args, dataset_name):
                return dataset

        args = DPOConfig(**common, beta=cfg.dpo_beta)
        trainer = _PretokenizedDPOTrainer(
            model=model,
            args=args,
            train_dataset=train_ds,
            eval_dataset=test_ds,
            processing_class=tokenizer,
            peft_config=peft_config,
            callbacks=[callback],
        )

    trainer.remove_callback(PrinterCallback)  # events go to on_event, not stdout
    info = {"callback": callback, "tokenizer": tokenizer, "config": cfg,
            "dropped": {"train": dropped_train, "test": dropped_test}}
    return trainer, info


def train(
    config: dict[str, Any] | TrainConfig,
    train_entries: list[dict],
    test_entries: list[dict],
    output_dir: str | os.PathLike,
    on_event: Callable[[dict], None] | None = None,
    should_cancel: Callable[[], bool] | None = None,
    resume_from: str | os.PathLike | None = None,
    export: str | None = None,
) -> dict[str, Any]:
    """Train a LoRA adapter (or a full fine-tune) and write it to ``output_dir``.

    Returns a dict: ``status`` ("completed" | "cancelled"), ``method``, ``step``, ``total_steps``,
    ``dropped`` ({"train": n, "test": n}: entries over max_seq_length), ``train_entries``/``test_entries``
    (counts used), ``eval_loss_initial``/``eval_loss_final`` (None without test entries or when resuming
    for the initial one), ``train_loss``, ``checkpoints`` (list of dirs) and, when completed,
    ``adapter_dir`` (or ``model_dir``), ``merged_dir`` (if exported) and ``manifest``.
    """
    cfg = parse_config(config)
    if export is not None:
        cfg = parse_config({**cfg.to_dict(), "export": export})
    if resume_from is not None and not Path(resume_from).is_dir():
        raise ConfigError(f"resume_from {str(resume_from)!r} is not a checkpoint directory")
    on_event = on_event or (lambda e: None)
    out = Path(output_dir)
    ckpt_root = out / "checkpoints"
    trainer, info = build_trainer(cfg, train_entries, test_entries, output_dir, on_event, should_cancel)
    callback, tokenizer = info["callback"], info["tokenizer"]
    dropped_train, dropped_test = info["dropped"]["train"], info["dropped"]["test"]
    test_ds = trainer.eval_dataset
    train_rows, test_rows = trainer.train_dataset, (test_ds if test_ds is not None else [])

    eval_initial = None
    if test_ds is not None and resume_from is None:
        eval_initial = float(trainer.evaluate()["eval_loss"])

    train_output = trainer.train(resume_from_checkpoint=str(resume_from) if resume_from is not None else None)
    state = trainer.state
    checkpoints = sorted((str(p) for p in ckpt_root.glob("checkpoint-*")), key=lambda s: int(s.rsplit("-", 1)[1]))
    result: dict[str, Any] = {
        "method": cfg.method,
        "step": state.global_step,
        "total_steps": state.max_steps,
        "dropped": {"train": dropped_train, "test": dropped_test},
        "train_entries": len(train_rows),
        "test_entries": len(test_rows),
        "eval_loss_initial": eval_initial,
        "eval_loss_final": None,
        "train_loss": callback.last_loss,
        "checkpoints": checkpoints,
    }
    if callback.cancelled:
        result["status"] = "cancelled"
        on_event(_event("end", step=state.global_step, total_steps=state.max_steps, loss=callback.last_loss,
                        status="cancelled"))
        return result

    if test_ds is not None:
        result["eval_loss_final"] = float(trainer.evaluate()["eval_loss"])

    dirs = []
    model = trainer.model
    if cfg.lora is not None:
        adapter_dir = out / "adapter"
        model.save_pretrained(adapter_dir, safe_serialization=True)
        tokenizer.save_pretrained(adapter_dir)
        result["adapter_dir"] = str(adapter_dir)
        dirs.append(adapter_dir)
        if cfg.export == "merged":
            merged_dir = out / "merged"
            merged = model.merge_and_unload()
            merged.save_pretrained(merged_dir, safe_serialization=True)
            tokenizer.save_pretrained(merged_dir)
            result["merged_dir"] = str(merged_dir)
            dirs.append(merged_dir)
    else:
        model_dir = out / "model"
        model.save_pretrained(model_dir, safe_serialization=True)
        tokenizer.save_pretrained(model_dir)
        result["model_dir"] = str(model_dir)
        dirs.append(model_dir)

    manifest = build_manifest(out, dirs)
    (out / "manifest.json").write_text(json.dumps({"files": manifest}, indent=2) + "\n")
    result["manifest"] = manifest
    result["status"] = "completed"
    result["train_runtime_seconds"] = train_output.metrics.get("train_runtime")
    on_event(_event("end", step=state.global_step, total_steps=state.max_steps, loss=callback.last_loss,
                    eval_loss=result["eval_loss_final"], gpu_memory_bytes=_gpu_memory_bytes(), status="completed"))
    return result
