/** What stops a question from being asked (a plain module: unit tests read it). */

/** The number options and the least each takes (the server's own limits). */
export const OPTION_MINIMUM = { topK: 1, chunkTopK: 1, totalTokens: 256 } as const;
export type NumberOption = keyof typeof OPTION_MINIMUM;

export interface AskProblem {
  field: "question" | NumberOption;
  message: string;
}

/**
 * The first thing wrong with a question and its options, or undefined when it can be asked: the
 * question is empty, or an option filled in is not a whole number at least its minimum. Ask and
 * Enter both check with this, so neither sends what the server would refuse.
 */
export function askProblem(
  question: string,
  options: Readonly<Record<NumberOption, string>>,
): AskProblem | undefined {
  if (!question.trim()) return { field: "question", message: "Type a question first." };
  for (const field of Object.keys(OPTION_MINIMUM) as NumberOption[]) {
    const text = options[field].trim();
    if (text === "") continue;
    const value = Number(text);
    const minimum = OPTION_MINIMUM[field];
    if (!Number.isInteger(value) || value < minimum)
      return { field, message: `${field} must be a whole number of at least ${minimum}, not ${text}.` };
  }
  return undefined;
}
