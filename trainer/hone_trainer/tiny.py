"""A tiny Llama-architecture model with a locally trained tokenizer.

Nothing here is downloaded: the tokenizer is a byte-level BPE trained with the
`tokenizers` library on a small fixture text that ships with the package, and the
model is a 2-layer LlamaForCausalLM built from a LlamaConfig with seeded random
weights. It exists so the training and serving code can be exercised end to end
on a CPU in seconds (tests, development, CI).

The chat template is ChatML-like (``<|im_start|>role ... <|im_end|>``), renders
OpenAI-style ``tools`` and assistant ``tool_calls``, and wraps each assistant turn
(its content and its closing ``<|im_end|>``) in ``{% generation %}`` markers, so
``apply_chat_template(..., return_assistant_tokens_mask=True)`` yields the
assistant-only loss mask that TRL and :mod:`hone_trainer.data` use.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
PAD = "<|endoftext|>"
SPECIAL_TOKENS = [PAD, IM_START, IM_END]

# ChatML with tools. The assistant's text (or tool calls) and its <|im_end|> are inside
# {% generation %}: those are the tokens the model learns to produce; the role header and
# the newline after <|im_end|> are not.
CHAT_TEMPLATE = (
    "{%- if tools %}"
    "{{- '<|im_start|>system\\n' }}"
    "{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}"
    "{{- '# Tools\\n\\nYou may call one or more functions. Their signatures are within <tools></tools>:\\n<tools>' }}"
    "{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}"
    "{{- '\\n</tools>\\n\\nFor each function call, return a JSON object with the function name and arguments "
    "within <tool_call></tool_call> tags.<|im_end|>\\n' }}"
    "{%- elif messages[0].role == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'system' and loop.first %}"
    "{%- elif message.role == 'assistant' %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- generation %}"
    "{%- if message.content %}{{- message.content }}{%- endif %}"
    "{%- if message.tool_calls %}"
    "{%- for tc in message.tool_calls %}"
    "{%- if tc.function is defined %}{%- set fn = tc.function %}{%- else %}{%- set fn = tc %}{%- endif %}"
    "{%- if message.content or not loop.first %}{{- '\\n' }}{%- endif %}"
    "{{- '<tool_call>\\n{\"name\": \"' + fn.name + '\", \"arguments\": ' }}"
    "{%- if fn.arguments is string %}{{- fn.arguments }}{%- else %}{{- fn.arguments | tojson }}{%- endif %}"
    "{{- '}\\n</tool_call>' }}"
    "{%- endfor %}"
    "{%- endif %}"
    "{{- '<|im_end|>' }}"
    "{%- endgeneration %}"
    "{{- '\\n' }}"
    "{%- else %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

TINY_DEFAULTS = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "max_position_embeddings": 1024,
}


def _corpus_lines() -> list[str]:
    text = resources.files("hone_trainer").joinpath("fixtures/tiny_corpus.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


def make_tiny_tokenizer(vocab_size: int = 512):
    """Train a byte-level BPE on the fixture text and wrap it as a PreTrainedTokenizerFast."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(_corpus_lines(), trainer=trainer)

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token=None,
        eos_token=IM_END,
        pad_token=PAD,
        unk_token=None,
        additional_special_tokens=[IM_START],
        model_max_length=TINY_DEFAULTS["max_position_embeddings"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def make_tiny_model(dir: str | Path, seed: int = 0, vocab_size: int = 512) -> Path:
    """Write a tiny random-weight Llama model and its tokenizer to ``dir`` (save_pretrained).

    The same ``seed`` always gives the same weights. Returns the directory.
    """
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    out = Path(dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tiny_tokenizer(vocab_size=vocab_size)
    eos_id = tokenizer.convert_tokens_to_ids(IM_END)
    pad_id = tokenizer.convert_tokens_to_ids(PAD)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        bos_token_id=pad_id,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        tie_word_embeddings=False,
        **TINY_DEFAULTS,
    )
    generator_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    finally:
        torch.random.set_rng_state(generator_state)
    model.generation_config = GenerationConfig(eos_token_id=eos_id, pad_token_id=pad_id, do_sample=False)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    (out / "hone_tiny.json").write_text(json.dumps({"seed": seed, "vocab_size": len(tokenizer)}) + "\n")
    return out
