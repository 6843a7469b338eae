import { expect, test } from "bun:test";
import { DomainError } from "../../src/core/errors";
import { openAiErrorResponse } from "../../src/http/rest/errors";
import { sseResponse } from "../../src/http/rest/sse";

test("a stream's error event carries the same OpenAI error object as a JSON error answer", async () => {
  const err = new DomainError("UPSTREAM_TIMEOUT", "the upstream sent nothing for 300 ms");
  async function* failing(): AsyncGenerator<unknown> {
    yield { id: "c1" };
    throw err;
  }
  const events = (await sseResponse(failing(), 15_000).text()).split("\n\n").filter(Boolean);
  const streamed = JSON.parse(events.at(-1)!.slice("data: ".length)).error;
  const answered = ((await openAiErrorResponse(err).json()) as { error: unknown }).error;
  expect(streamed).toEqual(answered);
  expect(streamed).toEqual({ message: "the upstream sent nothing for 300 ms", type: "upstream_timeout", code: "UPSTREAM_TIMEOUT", param: null });
});
