"""hone-trainer: LoRA fine-tuning (SFT, DPO) and a small OpenAI-compatible server for Hone."""

__version__ = "0.1.0"
