import { fileURLToPath } from "node:url";

/** Where the console's files are served from. */
export const ASSETS_PATH = "/console/assets/";
const ENTRY = fileURLToPath(new URL("../../console/main.tsx", import.meta.url));

/** How the console is bundled: minified, split per page, hashed names (cached forever). */
export function bundleOptions() {
  return {
    entrypoints: [ENTRY],
    target: "browser" as const,
    splitting: true,
    minify: true,
    publicPath: ASSETS_PATH,
    naming: { entry: "[name]-[hash].[ext]", chunk: "chunk-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  };
}
