import { userInfo } from "node:os";

/** Who makes an edit when none is named, for the history: $KGRAG_USER, else the OS user. */
export function currentUser(): string {
  try {
    return process.env.KGRAG_USER || userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}
