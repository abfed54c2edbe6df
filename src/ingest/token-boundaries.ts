import type { Tiktoken, TiktokenEncoding } from "js-tiktoken";
import { encoder, encodeTokens } from "../util/tokens.js";

/** Tokens either side of a boundary that are decoded to test it; a character spans at most 4 bytes. */
const PROBE_TOKENS = 4;
const SENTINEL_TEXT = "a";

/**
 * Token positions of one text and the character offsets between them. Byte-level BPE can split a
 * character (often a CJK one) across tokens; such positions are not clean and are never cut at.
 */
export class TokenBoundaries {
  readonly ids: number[];
  private readonly enc: Tiktoken;
  private readonly sentinel: number;
  private cursor = { token: 0, char: 0 };

  constructor(encoding: TiktokenEncoding, text: string) {
    this.enc = encoder(encoding);
    this.sentinel = this.enc.encode(SENTINEL_TEXT)[0]!;
    this.ids = encodeTokens(text, encoding);
  }

  /**
   * A cut is clean when decoding both sides apart gives the same text as decoding them together;
   * a split character would decode to replacement characters on each side instead.
   */
  isClean(position: number): boolean {
    if (position <= 0 || position >= this.ids.length) return true;
    const left = this.ids.slice(Math.max(0, position - PROBE_TOKENS), position);
    const right = this.ids.slice(position, position + PROBE_TOKENS);
    return this.decode(left) + this.decode(right) === this.decode([...left, ...right]);
  }

  /**
   * The nearest clean position at or before `position` that is still after `floor`, else the first
   * clean one after both, so a window always moves forward.
   */
  snap(position: number, floor: number): number {
    for (let p = position; p > floor; p -= 1) if (this.isClean(p)) return p;
    for (let p = Math.max(position, floor) + 1; p < this.ids.length; p += 1) if (this.isClean(p)) return p;
    return this.ids.length;
  }

  /** Character offset of a clean position. Positions must be asked for in increasing order. */
  charOffset(position: number): number {
    if (position < this.cursor.token) throw new Error("TokenBoundaries.charOffset: positions must increase");
    const span = this.decode(this.ids.slice(this.cursor.token, position));
    this.cursor = { token: position, char: this.cursor.char + span.length };
    return this.cursor.char;
  }

  /** The leading sentinel keeps TextDecoder from dropping a byte-order mark that starts the span. */
  private decode(ids: number[]): string {
    return this.enc.decode([this.sentinel, ...ids]).slice(SENTINEL_TEXT.length);
  }
}
