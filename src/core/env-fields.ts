import { resolve } from "node:path";
import { z } from "zod";

// Shapes the environment variables share (src/core/env-*.ts), and defaults computed from the tree.

export const boolFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes" || v === "on");

export const splitList = (v: string) =>
  v
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);

/** The project's own cache directory (beside its dependencies, where `bun install` puts them). */
export const DEFAULT_PGLITE_TEMPLATE_DIR = resolve(import.meta.dir, "../../node_modules/.cache/hone/pglite");

export const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);
