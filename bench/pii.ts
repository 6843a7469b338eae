// bun bench/pii.ts [--samples 20000]
// The masking recognizers on a labelled corpus (bench/pii-corpus.ts): precision and recall per
// kind, then the cost of masking per KB of payload on this thread, by mode.
import { createMasker, createStreamRestorer, recognizersFor } from "../src/lib/masking";
import { buildCorpus } from "./pii-corpus";
import { score } from "./pii-score";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = arg("samples", 20_000);
const corpus = buildCorpus(n);
const scores = score(corpus);
console.log(`corpus: ${n.toLocaleString("en-US")} samples, ${corpus.reduce((s, c) => s + c.planted.length, 0).toLocaleString("en-US")} planted values`);
console.log("kind              planted  recall  precision  (misses / wrong matches, first of each)");
for (const s of scores) {
  console.log(
    `${s.kind.padEnd(17)} ${String(s.planted).padStart(7)}  ${s.recall.toFixed(4)}  ${s.precision.toFixed(4)}${s.misses[0] ? `  miss: ${JSON.stringify(s.misses[0])}` : ""}${s.wrong[0] ? `  wrong: ${JSON.stringify(s.wrong[0])}` : ""}`,
  );
}

// The cost per KB, on two kinds of chat requests of about 2 KB: ordinary support traffic (prose
// with a value now and then), and the corpus itself (every sentence holds a value or a look-alike:
// the worst case).
const recognizers = recognizersFor();
const PROSE =
  "Hi, I ordered the blue jacket last week and it still has not arrived. The tracking page says it left the warehouse on Monday. Could you tell me when it will be delivered, and whether I can change the address to my office? Thanks a lot for your help. ";
const chat = (content: string) => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You are a helpful support agent. Answer briefly and politely." },
    { role: "user", content },
  ],
});
const sets = {
  "ordinary support traffic": Array.from({ length: 500 }, (_, i) =>
    chat(`${PROSE.repeat(7)}${i % 4 === 0 ? `Reach me at ${corpus[i]!.planted[0]?.value ?? "me"}.` : ""}`),
  ),
  "the corpus (a value or look-alike in every sentence)": Array.from({ length: 500 }, (_, i) =>
    chat(
      corpus
        .slice(i * 8, i * 8 + 8)
        .map((c) => c.text)
        .join("\n"),
    ),
  ),
};
for (const [name, payloads] of Object.entries(sets)) {
  const kb = payloads.reduce((s, p) => s + JSON.stringify(p).length, 0) / 1024;
  const time = (f: () => void) => {
    for (let i = 0; i < 3; i++) f();
    const t0 = performance.now();
    const rounds = 5;
    for (let i = 0; i < rounds; i++) f();
    return ((performance.now() - t0) * 1000) / rounds / kb;
  };
  const stored = time(() => {
    for (const p of payloads) createMasker({ recognizers }).maskValue(p);
  });
  const upstream = time(() => {
    for (const p of payloads) {
      const m = createMasker({ recognizers });
      const sent = m.maskValue(p.messages);
      // The answer restored as a stream would be: in 8-character pieces.
      const answer = JSON.stringify(sent);
      const r = createStreamRestorer(m);
      for (let i = 0; i < answer.length; i += 8) r.push(answer.slice(i, i + 8));
      r.end();
    }
  });
  console.log(`\ncost per KB of payload, ${name} (${kb.toFixed(0)} KB of chat requests, this thread):`);
  console.log(`  mask_stored   ${stored.toFixed(1)} µs/KB  (where the log row is built, after the answer has gone)`);
  console.log(`  mask_upstream ${upstream.toFixed(1)} µs/KB  (on the call's path: the request masked, the answer restored)`);
}
