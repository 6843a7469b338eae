// Snippets for calling this server: what "Get started" shows and the usage page's empty state.
// They carry the placeholder $HONE_API_KEY, never a real key.

/** The gateway's base URL as the browser reaches this server (OpenAI-compatible, /api/v1). */
export const gatewayBaseUrl = () => `${window.location.origin}/api/v1`;

export const EXAMPLE_MODEL = "gpt-4o-mini";

export function curlSnippet(base: string, model: string = EXAMPLE_MODEL): string {
  return [
    `curl ${base}/chat/completions \\`,
    `  -H "Authorization: Bearer $HONE_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H 'op-tags: {"prompt_id": "get-started"}' \\`,
    `  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Say hello"}]}'`,
  ].join("\n");
}

export function openaiSnippet(base: string, model: string = EXAMPLE_MODEL): string {
  return `// npm install openai
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: "${base}",
  apiKey: process.env.HONE_API_KEY,
});

const completion = await client.chat.completions.create(
  { model: "${model}", messages: [{ role: "user", content: "Say hello" }] },
  // optional: tags to filter and split usage by (also op-cache, op-criteria)
  { headers: { "op-tags": JSON.stringify({ prompt_id: "get-started" }) } },
);
console.log(completion.choices[0]?.message.content);`;
}

export function openpipeSnippet(base: string, model = `openai:${EXAMPLE_MODEL}`): string {
  return `// npm install openpipe
import OpenAI from "openpipe/openai";

const client = new OpenAI({
  apiKey: process.env.OPENAI_API_KEY, // for calls the SDK makes to OpenAI directly
  openpipe: { apiKey: process.env.HONE_API_KEY, baseUrl: "${base}" },
});

// openai:/anthropic:/gemini:/openpipe: models, and calls with a cache setting, go through Hone;
// other models go to OpenAI directly and are reported to Hone afterwards.
const completion = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Say hello" }],
  openpipe: { tags: { prompt_id: "get-started" } },
});
console.log(completion.choices[0]?.message.content);`;
}

export function openaiPythonSnippet(base: string, model: string = EXAMPLE_MODEL): string {
  return `# pip install openai
import json
import os

from openai import OpenAI

client = OpenAI(
    base_url="${base}",
    api_key=os.environ["HONE_API_KEY"],
)

completion = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Say hello"}],
    # optional: tags to filter and split usage by (also op-cache, op-criteria)
    extra_headers={"op-tags": json.dumps({"prompt_id": "get-started"})},
)
print(completion.choices[0].message.content)`;
}

export function openpipePythonSnippet(base: string, model = `openai:${EXAMPLE_MODEL}`): string {
  return `# pip install openpipe
import os

from openpipe import OpenAI

client = OpenAI(
    api_key=os.environ.get("OPENAI_API_KEY"),  # for calls the SDK makes to OpenAI directly
    openpipe={"api_key": os.environ["HONE_API_KEY"], "base_url": "${base}"},
)

# openai:/anthropic:/gemini:/openpipe: models, and calls with a cache setting, go through Hone;
# other models go to OpenAI directly and are reported to Hone afterwards.
completion = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Say hello"}],
    metadata={"prompt_id": "get-started"},
)
print(completion.choices[0].message.content)`;
}
