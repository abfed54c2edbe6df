/** What stops a question from being asked (a plain module: unit tests read it). */

/** The number options and the least each takes (the server's own limits). */
export const OPTION_MINIMUM = { topK: 1, chunkTopK: 1, totalTokens: 256 } as const;
export type NumberOption = keyof typeof OPTION_MINIMUM;

/** The most each takes, as the server's src/query/option-limits.ts says (it refuses more with a 400). */
export const OPTION_MAXIMUM: Readonly<Record<NumberOption, number>> = {
  topK: 10_000,
  chunkTopK: 10_000,
  totalTokens: 2_000_000,
};

export interface AskProblem {
  field: "question" | NumberOption;
  message: string;
}

/** What the check reads of an option's `type="number"` input besides its value (an HTMLInputElement is one). */
export interface NumberInput {
  readonly validity: { readonly badInput: boolean };
}

/**
 * Whether the browser could not read the text typed in a number input as a number ("ten", "1e",
 * "--"): its value is then "", as if nothing were typed, and only `validity.badInput` tells.
 */
export function unreadableNumber(input: NumberInput | null | undefined): boolean {
  return input?.validity.badInput === true;
}

/**
 * The first thing wrong with a question and its options, or undefined when it can be asked: the
 * question is empty, or an option filled in is not a whole number from its minimum to its maximum (or not a
 * number the browser could read, as its input in `inputs` tells). Ask and Enter both check with
 * this, so neither sends what the server would refuse, nor the server's default for what was typed.
 */
export function askProblem(
  question: string,
  options: Readonly<Record<NumberOption, string>>,
  inputs: Readonly<Partial<Record<NumberOption, NumberInput | null>>> = {},
): AskProblem | undefined {
  if (!question.trim()) return { field: "question", message: "Type a question first." };
  for (const field of Object.keys(OPTION_MINIMUM) as NumberOption[]) {
    if (unreadableNumber(inputs[field]))
      return {
        field,
        message: `${field} must be a whole number of at least ${OPTION_MINIMUM[field]}; what is typed there is not a number.`,
      };
    const text = options[field].trim();
    if (text === "") continue;
    const value = Number(text);
    const minimum = OPTION_MINIMUM[field];
    if (!Number.isInteger(value) || value < minimum)
      return { field, message: `${field} must be a whole number of at least ${minimum}, not ${text}.` };
    const maximum = OPTION_MAXIMUM[field];
    if (value > maximum)
      return { field, message: `${field} must be at most ${maximum.toLocaleString("en-US")}, not ${text}.` };
  }
  return undefined;
}
