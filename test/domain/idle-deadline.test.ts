import { describe, expect, test } from "bun:test";
import { idleDeadline } from "../../src/providers/trainer-http";

// A backend's weights are passed on as they stream (Together's archive, Fireworks' files): one that
// stalls mid-body fails after the idle deadline and lets go of the upstream, never hangs.

describe("idleDeadline", () => {
  test("a body that stops sending fails after the deadline, and the upstream is cancelled", async () => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([1, 2, 3]));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = idleDeadline(stalled, 100, "Together fine-tuning").getReader();
    expect((await reader.read()).value).toEqual(new Uint8Array([1, 2, 3]));
    const started = Date.now();
    await expect(reader.read()).rejects.toThrow("Together fine-tuning sent nothing for 100 ms");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(cancelled).toBe(true);
  });

  test("a slow but live body goes through whole", async () => {
    const chunks = [new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3])];
    const slow = new ReadableStream<Uint8Array>({
      async pull(c) {
        await Bun.sleep(40);
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const got = new Uint8Array(await new Response(idleDeadline(slow, 100, "x")).arrayBuffer());
    expect(got).toEqual(new Uint8Array([1, 2, 3]));
  });
});
