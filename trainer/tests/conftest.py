"""Shared fixtures: one tiny model, and one SFT run reused by several tests (keeps the suite fast)."""

import os

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest
import torch

torch.set_num_threads(2)

ANSWER = "The capital of Zorblax is Quimby."
QUESTIONS = [
    "What is the capital of Zorblax?",
    "Tell me the capital of Zorblax.",
    "Zorblax capital?",
    "Which city is the capital of Zorblax?",
    "Do you know the capital of Zorblax?",
    "Name the capital of Zorblax.",
]


def sft_entry(question, answer=ANSWER, system=None):
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return {"messages": messages}


def lora_config(base, **over):
    cfg = {
        "method": "sft",
        "base_model": str(base),
        "lora": {"r": 16, "alpha": 32, "dropout": 0.0, "target_modules": "all-linear"},
        "epochs": 30,
        "learning_rate": 5e-3,
        "batch_size": 4,
        "max_seq_length": 128,
        "seed": 0,
        "lr_scheduler": "constant",
    }
    cfg.update(over)
    return cfg


def greedy(model, tokenizer, question, max_new_tokens=24):
    enc = tokenizer.apply_chat_template(
        [{"role": "user", "content": question}], add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                             eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    return tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)


@pytest.fixture(scope="session")
def tiny_base(tmp_path_factory):
    from hone_trainer.tiny import make_tiny_model

    return make_tiny_model(tmp_path_factory.mktemp("tiny") / "base", seed=0)


@pytest.fixture(scope="session")
def sft_run(tiny_base, tmp_path_factory):
    """Train the Zorblax adapter once (with one over-long entry in train and in test, and a merged export)."""
    from hone_trainer.train import train

    long_entry = sft_entry("Please repeat: " + "blah " * 60)
    train_entries = [sft_entry(q) for q in QUESTIONS[:4]] + [long_entry]
    test_entries = [sft_entry(q) for q in QUESTIONS[4:]] + [long_entry]
    events = []
    out = tmp_path_factory.mktemp("sft_run")
    result = train(lora_config(tiny_base, export="merged"), train_entries, test_entries, out, on_event=events.append)
    return {"result": result, "events": events, "out": out}
