import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPassThrough, postJson, readAnswer } from "../../src/providers/http";

// An answer larger than Hone holds is passed on as it arrives; its log must be written (spooled)
// before the client has the last byte, also when the upstream keeps the connection open a while
// after its last byte: the body holds back its latest piece until the upstream has ended and the
// caller's beforeEnd has run.

const BYTES = 300_000;
let upstream: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  const bytes = new TextEncoder().encode(`"${"z".repeat(BYTES - 2)}"`);
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      let at = 0;
      return new Response(
        new ReadableStream({
          async pull(c) {
            if (at >= bytes.length) {
              // Every byte sent; the end comes later: the fake upstream holds the connection open a while.
              await Bun.sleep(300);
              return c.close();
            }
            c.enqueue(bytes.slice(at, at + 65_536));
            at += 65_536;
          },
        }),
        { headers: { "content-type": "application/json" } },
      );
    },
  });
});
afterAll(() => upstream.stop(true));

describe("a passed-through answer", () => {
  test("beforeEnd runs, and done has settled, before the body's last byte is read", async () => {
    const call = await postJson(`http://127.0.0.1:${upstream.port}/`, {}, {}, "the upstream", new AbortController().signal, {
      timeoutMs: 5_000,
      fetch: globalThis.fetch,
    });
    const answer = await readAnswer(call, "the upstream", 5_000, 1_024, true);
    if (!isPassThrough(answer)) throw new Error("expected a pass-through answer");
    const events: string[] = [];
    answer.beforeEnd = (o) => events.push(`beforeEnd ${o.bytes}`);
    let settled = false;
    void answer.done.then(() => {
      settled = true;
    });
    const reader = answer.body.getReader();
    let got = 0;
    let whenWhole: { events: string[]; settled: boolean } | null = null;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got += value.byteLength;
      if (got >= BYTES && !whenWhole) whenWhole = { events: [...events], settled };
    }
    expect(got).toBe(BYTES);
    // The outcome counts every byte, the held-back piece included.
    expect(whenWhole).toEqual({ events: [`beforeEnd ${BYTES}`], settled: true });
    expect((await answer.done).error).toBeNull();
  });
});
