"""DPO moves the preference: log p(chosen) - log p(rejected) grows, also on a held-out prompt."""

import torch
from conftest import lora_config

from hone_trainer.data import normalize_dpo_entry, tokenize_dpo

PROMPTS = ["What color is the sky?", "Tell me the sky's color.", "Sky color?", "Which color has the sky?"]


def pref(prompt):
    return {"prompt": [{"role": "user", "content": prompt}],
            "chosen": {"role": "assistant", "content": "The sky is blue."},
            "rejected": {"role": "assistant", "content": "The sky is green."}}


def margin(model, tok, entry):
    row = tokenize_dpo(normalize_dpo_entry(entry), tok)
    logps = []
    for key in ("chosen_ids", "rejected_ids"):
        ids = torch.tensor([row["prompt_ids"] + row[key]])
        with torch.no_grad():
            logprobs = model(ids).logits[0, :-1].log_softmax(-1)
        token_lp = logprobs.gather(-1, ids[0, 1:, None])[:, 0]
        logps.append(token_lp[len(row["prompt_ids"]) - 1:].sum().item())
    return logps[0] - logps[1]


def test_dpo_increases_chosen_minus_rejected(tiny_base, tmp_path):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from hone_trainer.train import train

    cfg = lora_config(tiny_base, method="dpo", epochs=10, batch_size=2, dpo_beta=0.1,
                      lora={"r": 8, "alpha": 16, "dropout": 0.0})
    events = []
    result = train(cfg, [pref(p) for p in PROMPTS[:3]], [pref(PROMPTS[3])], tmp_path, on_event=events.append)
    assert result["status"] == "completed" and result["method"] == "dpo"
    assert result["eval_loss_final"] < result["eval_loss_initial"]

    tok = AutoTokenizer.from_pretrained(tiny_base)
    base = AutoModelForCausalLM.from_pretrained(tiny_base)
    before = [margin(base, tok, pref(p)) for p in PROMPTS]
    tuned = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_base), result["adapter_dir"])
    after = [margin(tuned, tok, pref(p)) for p in PROMPTS]
    for b, a in zip(before, after):
        assert a > b + 1.0
    assert after[3] > 0  # held-out prompt now prefers the chosen reply
    assert any(e["type"] == "step" and e["loss"] is not None for e in events)
