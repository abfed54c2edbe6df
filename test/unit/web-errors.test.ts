import { describe, expect, it } from "vitest";
import { ApiError } from "../../web/src/api-error.js";
import { errorText } from "../../web/src/components/errors.js";

describe("web app: error messages shown to users", () => {
  it("shows the server's message without its error code", () => {
    const error = new ApiError(404, "not_found", "Community c0-1a2b3c4d5e6f not found");
    expect(errorText(error)).toBe("Community c0-1a2b3c4d5e6f not found");
    expect(errorText(new ApiError(409, "name_taken", "The name Ada is taken"))).toBe("The name Ada is taken");
  });

  it("shows other failures' messages as they are", () => {
    expect(errorText(new Error("Failed to fetch"))).toBe("Failed to fetch");
    expect(errorText("plain")).toBe("plain");
  });
});
