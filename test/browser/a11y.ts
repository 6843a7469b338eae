// Accessibility in both themes: axe-core's serious and critical WCAG A/AA violations of a page,
// checked in light and then dark (each after a reload, so `ready` waits for what must be shown).
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import { a11yViolations, setColorScheme, shot } from "./harness";

export async function expectAccessible(page: Page, name: string, ready: () => Promise<unknown>): Promise<void> {
  const found: string[] = [];
  for (const scheme of ["light", "dark"] as const) {
    await setColorScheme(page, scheme);
    await ready();
    // Transitions and fonts settle before colours are measured.
    await page.waitForTimeout(150);
    for (const v of await a11yViolations(page)) found.push(`${scheme}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.join(" | ")}`);
    await shot(page, `${name}-${scheme}`);
  }
  expect(found).toEqual([]);
}
