"""``hone-trainer`` command line.

Commands:

* ``hone-trainer serve --base DIR --port N [--host 127.0.0.1] [--served-model-name NAME] [--lora NAME=PATH ...]``
* ``hone-trainer tiny --dir DIR [--seed N]``: write the tiny random-weight Llama model + tokenizer.
* ``hone-trainer train-local --config cfg.json --train train.jsonl [--test test.jsonl] --out DIR
  [--resume-from CHECKPOINT_DIR] [--export merged]``: run :func:`hone_trainer.train.train` on files,
  print every event as one JSON line on stdout and the result as the last line. Ctrl-C cancels at the
  next step (checkpoints stay for ``--resume-from``).

* ``hone-trainer work --url URL --token TOKEN [--work-dir DIR] [--once] [--poll-seconds N] [--name NAME]``:
  lease training jobs from Hone and run them (:mod:`hone_trainer.work`).
* ``hone-trainer sync --url URL --token TOKEN --dir DIR --vllm URL [--provider SLUG] [--vllm-api-key KEY]
  [--interval SECONDS] [--once]``: keep in a vLLM server exactly the LoRA adapters Hone wants served
  there (:mod:`hone_trainer.sync`).

Extension point: each command lives in its own module (like ``work`` and ``sync``) and adds a
``_add_<name>(subparsers)`` function registered in :data:`COMMANDS` below.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Callable


def _cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    loras = []
    for spec in args.lora or []:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            print(f"--lora expects NAME=PATH, got {spec!r}", file=sys.stderr)
            return 2
        loras.append((name, path))
    serve(args.base, host=args.host, port=args.port, served_model_name=args.served_model_name, lora_modules=loras)
    return 0


def _add_serve(sub) -> None:
    p = sub.add_parser("serve", help="OpenAI-compatible server for a base model and LoRA adapters")
    p.add_argument("--base", required=True, help="base model directory (or HF id in the local cache)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--served-model-name", default=None, help="name of the base model in the API (default: --base)")
    p.add_argument("--lora", action="append", metavar="NAME=PATH", help="adapter to load at start (repeatable)")
    p.set_defaults(func=_cmd_serve)


def _cmd_tiny(args: argparse.Namespace) -> int:
    from .tiny import make_tiny_model

    print(make_tiny_model(args.dir, seed=args.seed))
    return 0


def _add_tiny(sub) -> None:
    p = sub.add_parser("tiny", help="write a tiny random-weight Llama model and tokenizer (for development/tests)")
    p.add_argument("--dir", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_tiny)


def _cmd_train_local(args: argparse.Namespace) -> int:
    from .data import ConfigError, DataError, read_jsonl
    from .train import train

    try:
        with open(args.config, encoding="utf-8") as f:
            config = json.load(f)
        train_entries = read_jsonl(args.train)
        test_entries = read_jsonl(args.test) if args.test else []
    except (OSError, json.JSONDecodeError, DataError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    cancel = {"flag": False}

    def on_sigint(signum, frame):
        if cancel["flag"]:
            raise KeyboardInterrupt
        cancel["flag"] = True
        print("cancelling at the next step (Ctrl-C again to abort)", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        result = train(
            config,
            train_entries,
            test_entries,
            args.out,
            on_event=lambda ev: print(json.dumps({"event": ev}), flush=True),
            should_cancel=lambda: cancel["flag"],
            resume_from=args.resume_from,
            export=args.export,
        )
    except (ConfigError, DataError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGINT, previous)
    print(json.dumps({"result": result}), flush=True)
    return 0 if result["status"] == "completed" else 3


def _add_train_local(sub) -> None:
    p = sub.add_parser("train-local", help="train on local files (development)")
    p.add_argument("--config", required=True, help="training config JSON (see README)")
    p.add_argument("--train", required=True, help="train entries, .jsonl")
    p.add_argument("--test", default=None, help="test entries, .jsonl (eval loss)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--resume-from", default=None, help="checkpoint directory to resume from")
    p.add_argument("--export", choices=["adapter", "merged"], default=None, help="override config.export")
    p.set_defaults(func=_cmd_train_local)


def _add_work(sub) -> None:
    from .work import _add_work as add

    add(sub)


def _add_sync(sub) -> None:
    from .sync import _add_sync as add

    add(sub)


COMMANDS: list[Callable] = [_add_serve, _add_tiny, _add_train_local, _add_work, _add_sync]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hone-trainer", description="Hone's trainer for open models")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
