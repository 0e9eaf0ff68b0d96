/**
 * Waits until `condition` holds, checking it every `intervalMs`; fails naming `what` after
 * `timeoutMs`. For tests that need something to have happened before they go on: a slower machine
 * takes longer to get there, so the deadline is generous and the wait is for the condition itself,
 * never a fixed sleep.
 */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, intervalMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
