"""The command line: tiny, train-local (events as JSON lines, result last), and argument errors."""

import json

import pytest
from conftest import QUESTIONS, lora_config, sft_entry

from hone_trainer.cli import build_parser, main


def test_tiny_command(tmp_path, capsys):
    assert main(["tiny", "--dir", str(tmp_path / "m"), "--seed", "3"]) == 0
    for name in ("config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja"):
        assert (tmp_path / "m" / name).is_file()
    assert capsys.readouterr().out.strip() == str(tmp_path / "m")


def test_train_local(tiny_base, tmp_path, capsys):
    (tmp_path / "cfg.json").write_text(json.dumps(lora_config(tiny_base, epochs=2, batch_size=2)))
    (tmp_path / "train.jsonl").write_text("\n".join(json.dumps(sft_entry(q)) for q in QUESTIONS[:4]) + "\n")
    (tmp_path / "test.jsonl").write_text(json.dumps(sft_entry(QUESTIONS[4])) + "\n")
    rc = main(["train-local", "--config", str(tmp_path / "cfg.json"), "--train", str(tmp_path / "train.jsonl"),
               "--test", str(tmp_path / "test.jsonl"), "--out", str(tmp_path / "out")])
    assert rc == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    events = [line["event"] for line in lines[:-1]]
    result = lines[-1]["result"]
    assert [e["step"] for e in events if e["type"] == "step"] == [1, 2, 3, 4]
    assert result["status"] == "completed" and (tmp_path / "out" / "adapter" / "adapter_model.safetensors").is_file()


def test_train_local_reports_bad_config(tiny_base, tmp_path, capsys):
    (tmp_path / "cfg.json").write_text(json.dumps(lora_config(tiny_base, method="ppo")))
    (tmp_path / "train.jsonl").write_text(json.dumps(sft_entry("q")) + "\n")
    rc = main(["train-local", "--config", str(tmp_path / "cfg.json"), "--train", str(tmp_path / "train.jsonl"),
               "--out", str(tmp_path / "out")])
    assert rc == 2 and "config.method must be 'sft' or 'dpo'" in capsys.readouterr().err


def test_serve_arguments():
    args = build_parser().parse_args(["serve", "--base", "/m", "--port", "8123"])
    assert (args.base, args.port, args.host) == ("/m", 8123, "127.0.0.1")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["sync"])  # not implemented: no such command yet
    args = build_parser().parse_args(["work", "--url", "http://h", "--token", "t", "--once"])
    assert (args.url, args.token, args.once, args.poll_seconds) == ("http://h", "t", True, None)
