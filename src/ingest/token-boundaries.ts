import type { TiktokenEncoding } from "js-tiktoken";
import {
  decodeRun,
  decodeWholePieces,
  encodePieces,
  lastAtOrBefore,
  lastIndexAtOrBefore,
} from "../util/tokens.js";

/** Tokens either side of a boundary that are decoded to test it; a character spans at most 4 bytes. */
const PROBE_TOKENS = 4;

/**
 * Token positions of one text and the character offsets between them. Cuts go between the
 * tokenizer's pieces (words with their leading space, runs of punctuation or of CJK characters),
 * which are always whole characters. Only where no piece starts inside a window (one piece longer
 * than the window) is a cut made inside a piece: byte-level BPE can split a character (often a CJK
 * one) across tokens, so such a position is tested by decoding and split characters are never cut.
 */
export class TokenBoundaries {
  readonly ids: number[];
  private readonly pieceStarts: number[];
  private readonly pieceStartSet: Set<number>;
  /** Character offset of each piece start, when the tokenizer gives them (else found by decoding). */
  private readonly pieceChars: number[] | undefined;
  private cursor = { token: 0, char: 0 };

  constructor(
    private readonly encoding: TiktokenEncoding,
    text: string,
    /** The text's tokens and pieces; a test passes those of another tokenizer build. */
    pieces: ReturnType<typeof encodePieces> = encodePieces(text, encoding),
  ) {
    const { ids, pieceStarts, pieceChars } = pieces;
    this.ids = ids;
    this.pieceStarts = pieceStarts;
    this.pieceChars = pieceChars;
    this.pieceStartSet = new Set(pieceStarts);
  }

  /**
   * A cut is clean when decoding both sides apart gives the same text as decoding them together;
   * a split character would decode to replacement characters on each side instead.
   */
  isClean(position: number): boolean {
    if (position <= 0 || position >= this.ids.length || this.pieceStartSet.has(position)) return true;
    const left = this.ids.slice(Math.max(0, position - PROBE_TOKENS), position);
    const right = this.ids.slice(position, position + PROBE_TOKENS);
    return this.decode(left) + this.decode(right) === this.decode([...left, ...right]);
  }

  /**
   * The last piece start at or before `position` that is still after `floor`; else the nearest
   * clean position inside the piece, or the first clean one after both, so a window always moves
   * forward.
   */
  snap(position: number, floor: number): number {
    const pieceStart = lastAtOrBefore(this.pieceStarts, position);
    if (pieceStart > floor) return pieceStart;
    for (let p = position; p > floor; p -= 1) if (this.isClean(p)) return p;
    for (let p = Math.max(position, floor) + 1; p < this.ids.length; p += 1) if (this.isClean(p)) return p;
    return this.ids.length;
  }

  /** Character offset of a clean position. Positions must be asked for in increasing order. */
  charOffset(position: number): number {
    if (position < this.cursor.token) throw new Error("TokenBoundaries.charOffset: positions must increase");
    if (this.pieceChars) return this.charOffsetFromPieces(position, this.pieceChars);
    const ids = this.ids.slice(this.cursor.token, position);
    const whole = this.pieceStartSet.has(this.cursor.token) && this.pieceStartSet.has(position);
    const span = whole ? decodeWholePieces(ids, this.encoding) : this.decode(ids);
    this.cursor = { token: position, char: this.cursor.char + span.length };
    return this.cursor.char;
  }

  /** The offset of the piece the position is in, plus the decoded length of the tokens before it inside the piece. */
  private charOffsetFromPieces(position: number, pieceChars: number[]): number {
    const piece = lastIndexAtOrBefore(this.pieceStarts, position);
    const pieceStart = this.pieceStarts[piece]!;
    const inside = pieceStart === position ? 0 : this.decode(this.ids.slice(pieceStart, position)).length;
    this.cursor = { token: position, char: pieceChars[piece]! + inside };
    return this.cursor.char;
  }

  private decode(ids: number[]): string {
    return decodeRun(ids, this.encoding);
  }
}
