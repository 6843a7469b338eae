/**
 * Lets every other waiting task run before going on. On PGlite a query resolves without a turn of
 * the event loop, so a verb reading page after page (an export of hundreds of megabytes) would run
 * as one chain no other request, /health included, could interrupt; a turn between pages lets them in.
 */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
