/** A failed API request: its HTTP status, the API's error code (for programs) and its message (for people). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
