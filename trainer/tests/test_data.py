"""Data shapes, the long-entry rule, config validation, and the assistant-only loss mask."""

import pytest
from conftest import ANSWER, lora_config, sft_entry

from hone_trainer.data import (
    ConfigError,
    DataError,
    normalize_dpo_entry,
    normalize_sft_entry,
    parse_config,
    prepare_dpo,
    prepare_sft,
)

TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


def tool_entry():
    return {
        "tools": TOOLS,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Berlin?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "12C and cloudy"},
            {"role": "assistant", "content": [{"type": "text", "text": "It is 12C and cloudy."}]},
        ],
    }


@pytest.fixture(scope="module")
def tok(tiny_base):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_base)


def test_long_entries_are_dropped_and_counted(tok):
    entries = [sft_entry("Short?"), sft_entry("Long? " + "word " * 100), sft_entry("Also short?")]
    rows, dropped = prepare_sft(entries, tok, max_seq_length=64)
    assert dropped == 1 and len(rows) == 2
    assert all(len(r["input_ids"]) <= 64 for r in rows)
    # DPO: the longer reply decides
    pref = {"prompt": [{"role": "user", "content": "Hi"}], "chosen": {"role": "assistant", "content": "Hello."},
            "rejected": {"role": "assistant", "content": "x " * 100}}
    rows, dropped = prepare_dpo([pref], tok, max_seq_length=64)
    assert (rows, dropped) == ([], 1)


def test_sft_labels_cover_only_the_final_assistant_turn(tok):
    rows, dropped = prepare_sft([tool_entry()], tok, max_seq_length=1024)
    assert dropped == 0
    ids, labels = rows[0]["input_ids"], rows[0]["labels"]
    learned = [i for i, lab in zip(ids, labels) if lab != -100]
    assert tok.decode(learned) == "It is 12C and cloudy.<|im_end|>"
    # the tools block, the earlier tool call, and the tool result are in the input but carry no loss
    text = tok.decode(ids)
    assert "get_weather" in text and '"city": "Berlin"' in text and "12C and cloudy" in text


def test_collated_batch_masks_non_assistant_tokens(tiny_base, tmp_path):
    """Look at the batch the SFTTrainer really builds: labels are -100 outside the assistant reply."""
    import torch

    from hone_trainer.train import build_trainer

    entries = [tool_entry(), sft_entry("What is the capital of Zorblax?", system="You know geography.")]
    trainer, info = build_trainer(lora_config(tiny_base, batch_size=2, max_seq_length=1024), entries, [], tmp_path)
    tok = info["tokenizer"]
    batch = next(iter(trainer.get_train_dataloader()))
    assert batch["input_ids"].shape == batch["labels"].shape and batch["input_ids"].shape[0] == 2
    answers = set()
    for ids, labels, mask in zip(batch["input_ids"], batch["labels"], batch["attention_mask"]):
        keep = labels != -100
        assert keep.any()
        assert torch.equal(ids[keep], labels[keep])
        # every padding position is masked from the loss
        assert not keep[mask == 0].any()
        # the learned tokens are one contiguous span: the final reply and its end-of-turn token
        pos = keep.nonzero().flatten()
        assert pos[-1] - pos[0] + 1 == len(pos)
        answers.add(tok.decode(ids[keep]))
        # everything before the span (system, user, tools, earlier assistant turn) is masked
        assert "<|im_start|>" not in tok.decode(ids[keep])
    assert answers == {"It is 12C and cloudy.<|im_end|>", ANSWER + "<|im_end|>"}


def test_entry_validation_errors():
    with pytest.raises(DataError, match="last message must be the assistant"):
        normalize_sft_entry({"messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(DataError, match="role must be one of"):
        normalize_sft_entry({"messages": [{"role": "robot", "content": "hi"}]})
    with pytest.raises(DataError, match="only text parts"):
        normalize_sft_entry({"messages": [{"role": "user", "content": [{"type": "image_url"}]},
                                          {"role": "assistant", "content": "x"}]})
    with pytest.raises(DataError, match="must not end with an assistant"):
        normalize_dpo_entry({"prompt": [{"role": "assistant", "content": "a"}],
                             "chosen": {"role": "assistant", "content": "b"},
                             "rejected": {"role": "assistant", "content": "c"}})
    ok = normalize_dpo_entry({"prompt": [{"role": "user", "content": "a"}],
                              "chosen": [{"role": "assistant", "content": "b"}],
                              "rejected": {"role": "assistant", "content": "c"}})
    assert ok["chosen"] == [{"role": "assistant", "content": "b"}]


@pytest.mark.parametrize(
    "override, message",
    [
        ({"method": "ppo"}, "method must be 'sft' or 'dpo'"),
        ({"base_model": ""}, "base_model must be a non-empty string"),
        ({"learning_rate": 0}, "learning_rate must be in"),
        ({"batch_size": 0}, "batch_size must be a positive integer"),
        ({"batch_size": 2.5}, "batch_size must be a positive integer"),
        ({"epochs": -1}, "epochs must be a positive number"),
        ({"max_seq_length": 8}, "max_seq_length must be an integer >= 16"),
        ({"checkpoint_every": -5}, "checkpoint_every must be a non-negative integer"),
        ({"lora": {"r": 0}}, "lora.r must be a positive integer"),
        ({"lora": {"dropout": 1.5}}, "lora.dropout must be in"),
        ({"lora": {"rank": 8}}, "unknown config.lora key"),
        ({"lora": {"target_modules": []}}, "target_modules must be a non-empty list"),
        ({"batchsize": 4}, "unknown config key"),
        ({"export": "gguf"}, "export must be one of"),
        ({"full_finetune": True}, "full_finetune is true but config.lora is set"),
    ],
)
def test_config_validation(override, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(lora_config("/some/model", **override))


def test_config_defaults_and_full_finetune():
    cfg = parse_config({"method": "sft", "base_model": "m"})
    assert cfg.lora is not None and cfg.lora.r == 16 and cfg.checkpoint_every == 0
    full = parse_config({"method": "dpo", "base_model": "m", "lora": None})
    assert full.lora is None
    assert parse_config({"method": "dpo", "base_model": "m", "full_finetune": True}).lora is None
