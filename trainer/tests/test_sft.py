"""SFT: the tiny model learns an answer it could not produce before; eval loss falls; result files."""

import hashlib
import json
from pathlib import Path

from conftest import ANSWER, greedy

from hone_trainer.train import EVENT_KEYS


def test_base_model_cannot_answer_before_training(tiny_base):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_base)
    model = AutoModelForCausalLM.from_pretrained(tiny_base)
    assert ANSWER not in greedy(model, tok, "What is the capital of Zorblax?")


def test_adapter_answers_after_training(sft_run, tiny_base):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    result = sft_run["result"]
    assert result["status"] == "completed"
    tok = AutoTokenizer.from_pretrained(result["adapter_dir"])  # the adapter carries the tokenizer + template
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_base), result["adapter_dir"])
    # a question from the train set and one only in the test set
    assert greedy(model, tok, "What is the capital of Zorblax?") == ANSWER
    assert greedy(model, tok, "Do you know the capital of Zorblax?") == ANSWER


def test_merged_export_answers_too(sft_run):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    merged = sft_run["result"]["merged_dir"]
    model = AutoModelForCausalLM.from_pretrained(merged)
    assert greedy(model, AutoTokenizer.from_pretrained(merged), "What is the capital of Zorblax?") == ANSWER


def test_eval_loss_falls(sft_run):
    result = sft_run["result"]
    evals = [e for e in sft_run["events"] if e["type"] == "eval"]
    assert evals[0]["step"] == 0 and evals[-1]["step"] == result["step"]
    assert evals[0]["eval_loss"] == result["eval_loss_initial"]
    assert result["eval_loss_final"] < result["eval_loss_initial"] - 0.5


def test_events(sft_run):
    events = sft_run["events"]
    result = sft_run["result"]
    assert all(set(EVENT_KEYS) <= set(e) for e in events)
    steps = [e for e in events if e["type"] == "step"]
    assert [e["step"] for e in steps] == list(range(1, result["total_steps"] + 1))
    for e in steps:
        assert e["total_steps"] == result["total_steps"] == 30
        assert e["loss"] > 0 and e["learning_rate"] > 0
        assert e["gpu_memory_bytes"] is None  # CPU
        assert e["eta_seconds"] is not None and e["eta_seconds"] >= 0
    assert steps[-1]["eta_seconds"] == 0
    assert all(e["tokens_per_second"] > 0 for e in steps[1:])
    assert events[0]["type"] in ("eval", "start") and events[-1]["type"] == "end"
    assert events[-1]["status"] == "completed"


def test_adapter_files_and_manifest(sft_run):
    result, out = sft_run["result"], Path(sft_run["out"])
    adapter = Path(result["adapter_dir"])
    for name in ("adapter_model.safetensors", "adapter_config.json", "tokenizer.json", "tokenizer_config.json"):
        assert (adapter / name).is_file(), name
    template = (adapter / "chat_template.jinja").read_text()
    assert "{% generation %}" in template.replace("{%- generation %}", "{% generation %}")
    cfg = json.loads((adapter / "adapter_config.json").read_text())
    assert cfg["peft_type"] == "LORA" and cfg["r"] == 16

    manifest = json.loads((out / "manifest.json").read_text())["files"]
    assert manifest == result["manifest"]
    paths = {f["path"] for f in manifest}
    assert "adapter/adapter_model.safetensors" in paths and "merged/model.safetensors" in paths
    for f in manifest:
        data = (out / f["path"]).read_bytes()
        assert f["size"] == len(data) and f["sha256"] == hashlib.sha256(data).hexdigest()


def test_long_entries_dropped_and_counted(sft_run):
    result = sft_run["result"]
    assert result["dropped"] == {"train": 1, "test": 1}
    assert result["train_entries"] == 4 and result["test_entries"] == 2


def test_full_finetune_writes_a_full_model(tiny_base, tmp_path):
    from transformers import AutoModelForCausalLM

    from conftest import QUESTIONS, lora_config, sft_entry
    from hone_trainer.train import train

    cfg = lora_config(tiny_base, lora=None, epochs=2, learning_rate=1e-3)
    result = train(cfg, [sft_entry(q) for q in QUESTIONS[:4]], [], tmp_path)
    assert result["status"] == "completed" and "adapter_dir" not in result
    model_dir = Path(result["model_dir"])
    assert (model_dir / "model.safetensors").is_file() and (model_dir / "tokenizer.json").is_file()
    assert {f["path"] for f in result["manifest"]} >= {"model/model.safetensors", "model/config.json"}
    AutoModelForCausalLM.from_pretrained(model_dir)  # loads as a plain model
