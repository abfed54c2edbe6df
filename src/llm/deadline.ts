import { RequestTimeoutError } from "./retry.js";

/**
 * Runs `work` with an AbortSignal that fires after `timeoutMs`. Unlike the openai client's own
 * timeout (which stops once headers arrive), this covers reading the whole body or stream, so a
 * server that stalls mid-answer is also cut off. The abort surfaces as RequestTimeoutError; `stop`
 * (the caller ending the run) cancels it as well and surfaces as its own reason.
 */
export async function withDeadline<T>(
  label: string,
  timeoutMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  stop?: AbortSignal,
): Promise<T> {
  stop?.throwIfAborted();
  const controller = new AbortController();
  // Made only when the time runs out: most requests never need one (and its stack trace).
  let timeout: RequestTimeoutError | undefined;
  const timer = setTimeout(() => {
    timeout = new RequestTimeoutError(label, timeoutMs);
    controller.abort(timeout);
  }, timeoutMs);
  // The caller's stop cancels the request too, and surfaces as its own reason, not as a timeout.
  const signal = stop ? AbortSignal.any([controller.signal, stop]) : controller.signal;
  try {
    const result = await work(signal);
    stop?.throwIfAborted();
    // The openai client ends an aborted stream quietly; a cut-off answer must not pass as whole.
    if (timeout) throw timeout;
    return result;
  } catch (error) {
    stop?.throwIfAborted();
    throw timeout ?? error;
  } finally {
    clearTimeout(timer);
  }
}
