/**
 * A runner that starts each piece of work once the previous one has settled (resolved or
 * rejected), in call order, and hands back its own result.
 */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>) => {
    const run = last.then(work, work);
    last = run.catch(() => undefined);
    return run;
  };
}
