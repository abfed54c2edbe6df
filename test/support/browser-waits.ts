import { vi } from "vitest";

/**
 * How long a browser test waits for the state it looks for. CI runs about five vitest workers on
 * two cores (load 10 and more), where a render after a click has taken seconds: a wait that ends
 * as soon as its condition holds costs nothing more when the machine is idle.
 */
export const LOADED_MACHINE_WAIT_MS = 30_000;

/**
 * Gives every `expect.poll` of the calling test file the bound above, instead of vitest's one
 * second (which a busy machine overran). Called at the top of the file: vitest resets its config
 * after each file.
 */
export function pollAsOnALoadedMachine(): void {
  vi.setConfig({ expect: { poll: { timeout: LOADED_MACHINE_WAIT_MS, interval: 50 } } });
}
