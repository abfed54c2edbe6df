/**
 * A sentence opening with a pronoun or a definite reference speaks of what the passage is about:
 * "It was founded in 1987 by Tomas Arkwright", "He left in 2016", "The company's main product",
 * "她于1981年出生在白湾镇", "该公司". Possessives ("Its", "Her") count: "Its best-known product".
 */
export const ENGLISH_REFERENCE =
  /^(it|he|she|they|its|his|her|their|(this|that|the)\s+(company|firm|business|band|group|film|movie|city|town|village|institute|school|university|team|club|album|song|book|novel|series|show|organi[sz]ation|airport|river|station|building|magazine|newspaper|game|brand|party|church|museum|species|plant|product|ship|chip|lens))\b/i;
const CHINESE_REFERENCE = /^(他们|她们|它们|他|她|它|其|该|这家|此|本|公司|这座|这所|这个)/;

/** Words that open a sentence in a bracket or quote are skipped: "(She later) ..." reads the same. */
export const LEADING_PUNCTUATION = /^[\s"'“‘(（「『]+/;

/** Whether the sentence opens with a pronoun or a definite reference, whose subject a sentence before it names. */
export function opensWithReference(sentence: string): boolean {
  const start = sentence.replace(LEADING_PUNCTUATION, "");
  return ENGLISH_REFERENCE.test(start) || CHINESE_REFERENCE.test(start);
}

/** He, she and their possessives open a sentence about one person; "they", "it" may be anything's. */
const ENGLISH_PERSONAL_PRONOUN = /^(he|she|his|her|him)\b/i;
const CHINESE_PERSONAL_PRONOUN = /^[他她](?!们)/;

/** Whether the sentence opens with a pronoun that stands for one person: "She studied...", "他生于...". */
export function opensWithPersonalPronoun(sentence: string): boolean {
  const start = sentence.replace(LEADING_PUNCTUATION, "");
  return ENGLISH_PERSONAL_PRONOUN.test(start) || CHINESE_PERSONAL_PRONOUN.test(start);
}

const ENGLISH_SUBJECT_PRONOUN = /^(he|she)\b/i;

/** Whether the sentence opens with he or she (他, 她): its subject is a person. */
export function opensWithSubjectPronoun(sentence: string): boolean {
  const start = sentence.replace(LEADING_PUNCTUATION, "");
  return ENGLISH_SUBJECT_PRONOUN.test(start) || CHINESE_PERSONAL_PRONOUN.test(start);
}
