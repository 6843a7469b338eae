import { describe, expect, test } from "bun:test";
import { assignSplits } from "../../src/domain/datasets/internal";

// A seeded generator, so each case is reproducible.
function mulberry32(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("assignSplits", () => {
  test("exactly floor(20%) of the open entries become TEST when 20% is whole", () => {
    for (const n of [5, 10, 50, 100]) {
      const splits = assignSplits(Array(n).fill(undefined), mulberry32(n));
      expect(splits.filter((s) => s === "TEST")).toHaveLength(n / 5);
    }
  });

  test("given splits are kept and not counted", () => {
    const given = ["TRAIN", undefined, "TEST", undefined, undefined, undefined, undefined] as const;
    const splits = assignSplits([...given], mulberry32(1));
    expect(splits[0]).toBe("TRAIN");
    expect(splits[2]).toBe("TEST");
    expect(splits.filter((s, i) => given[i] === undefined && s === "TEST")).toHaveLength(1);
  });

  test("single entries land in TEST about one time in five", () => {
    const random = mulberry32(42);
    let test = 0;
    const runs = 5000;
    for (let i = 0; i < runs; i++) if (assignSplits([undefined], random)[0] === "TEST") test++;
    expect(test / runs).toBeGreaterThan(0.17);
    expect(test / runs).toBeLessThan(0.23);
  });

  test("which entries go to TEST is random, not always the first ones", () => {
    const random = mulberry32(7);
    const hits = new Array(10).fill(0);
    for (let i = 0; i < 2000; i++) {
      for (const [j, s] of assignSplits(Array(10).fill(undefined), random).entries()) if (s === "TEST") hits[j]!++;
    }
    // Each position is TEST ~20% of the time.
    for (const h of hits) expect(h / 2000).toBeGreaterThan(0.15);
  });
});
