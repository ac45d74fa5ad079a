/**
 * Polls `read` until `done` holds, then returns the value; fails after `timeoutMs` naming `what`. The bound
 * is generous: the worker and the databases run on a busy machine, and a test waits for a state, never for
 * a time.
 */
export async function until<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`not reached within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
