"""Checkpoints, resume (same result as an uninterrupted run) and cancellation (stops within one step)."""

from pathlib import Path

import torch
from conftest import QUESTIONS, lora_config, sft_entry
from safetensors.torch import load_file

from hone_trainer.train import train

TRAIN = [sft_entry(q) for q in QUESTIONS[:4]]
TEST = [sft_entry(q) for q in QUESTIONS[4:]]


def cfg(base):
    # 4 entries, batch 2 -> 2 steps per epoch; 5 epochs -> 10 steps; a checkpoint every 4 steps.
    # LoRA dropout is on so that resuming must also restore the RNG state to match.
    return lora_config(base, epochs=5, batch_size=2, checkpoint_every=4, learning_rate=2e-3, lr_scheduler="linear",
                       lora={"r": 8, "alpha": 16, "dropout": 0.1})


def test_resume_matches_uninterrupted_run(tiny_base, tmp_path):
    full = train(cfg(tiny_base), TRAIN, TEST, tmp_path / "full")
    assert full["status"] == "completed" and full["step"] == 10
    assert [Path(c).name for c in full["checkpoints"]] == ["checkpoint-4", "checkpoint-8", "checkpoint-10"]

    # Interrupted run: cancel as soon as step 5 is reported (checkpoint-4 is on disk by then).
    seen = []
    stopped = train(cfg(tiny_base), TRAIN, TEST, tmp_path / "run", on_event=seen.append,
                    should_cancel=lambda: any(e["type"] == "step" and e["step"] >= 5 for e in seen))
    assert stopped["status"] == "cancelled" and stopped["step"] == 5
    assert not (tmp_path / "run" / "adapter").exists()
    ckpt = tmp_path / "run" / "checkpoints" / "checkpoint-4"
    assert (ckpt / "adapter_model.safetensors").is_file() and (ckpt / "optimizer.pt").is_file()

    events = []
    resumed = train(cfg(tiny_base), TRAIN, TEST, tmp_path / "run", on_event=events.append, resume_from=ckpt)
    assert resumed["status"] == "completed" and resumed["step"] == 10
    assert [e["step"] for e in events if e["type"] == "step"] == [5, 6, 7, 8, 9, 10]
    assert (Path(resumed["adapter_dir"]) / "adapter_model.safetensors").is_file()

    a = load_file(Path(full["adapter_dir"]) / "adapter_model.safetensors")
    b = load_file(Path(resumed["adapter_dir"]) / "adapter_model.safetensors")
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-4, atol=1e-5)
    assert abs(full["eval_loss_final"] - resumed["eval_loss_final"]) < 1e-4


def test_cancel_stops_within_one_step(tiny_base, tmp_path):
    calls = {"n": 0, "cancel_at_step": None}
    steps = []

    def on_event(e):
        if e["type"] == "step":
            steps.append(e["step"])

    def should_cancel():
        calls["n"] += 1
        if steps and steps[-1] >= 2 and calls["cancel_at_step"] is None:
            calls["cancel_at_step"] = steps[-1]
        return calls["cancel_at_step"] is not None

    config = lora_config(tiny_base, epochs=50, batch_size=1, gradient_accumulation_steps=2)
    result = train(config, TRAIN, [], tmp_path, on_event=on_event, should_cancel=should_cancel)
    assert result["status"] == "cancelled"
    assert calls["cancel_at_step"] is not None
    assert result["step"] <= calls["cancel_at_step"] + 1
    assert result["total_steps"] == 100 and max(steps) == result["step"]
    assert "adapter_dir" not in result and not (tmp_path / "adapter").exists()
