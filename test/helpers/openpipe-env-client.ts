// Run as a child process by the openpipe SDK test: the SDK configured only through its
// environment variables (OPENPIPE_BASE_URL, OPENPIPE_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL),
// exactly as an application would be. Prints the completion as JSON.
import OpenAI from "openpipe/openai";

const client = new OpenAI({ maxRetries: 0 });
const model = process.argv[2]!;
const completion = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "configured by environment" }],
  openpipe: { tags: { via: "env" }, cache: "readWrite" },
} as never);
process.stdout.write(JSON.stringify(completion));
