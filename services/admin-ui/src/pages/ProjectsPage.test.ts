import { describe, expect, it } from "vitest";
import { projectIdFrom } from "./ProjectsPage.js";

describe("projectIdFrom", () => {
  it("makes a URL-friendly id of a name", () => {
    expect(projectIdFrom("Web Shop (EU)")).toBe("web-shop-eu");
    expect(projectIdFrom("  Café Crème ")).toBe("cafe-creme");
    expect(projectIdFrom("")).toBe("");
  });
});
