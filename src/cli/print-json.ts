/**
 * JSON output of commands, apart from the table helpers in output.ts: those load string-width,
 * whose Unicode tables cost tens of milliseconds of start-up that `kgrag index --json` and the
 * other JSON-only commands need not pay.
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
