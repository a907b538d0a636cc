import { describe, expect, it } from "vitest";
import { spreadWeights, toVariants, weightProblem, type EditableVariant } from "./VariantsEditor.js";

const variant = (name: string, weightType: "fix" | "variable", weight = 0): EditableVariant => ({
  name,
  weightType,
  weight,
  stickiness: "default",
  payloadType: "",
  payloadValue: "",
  overrides: [],
});

describe("variant weights", () => {
  it("splits 1000 evenly over variable variants, the remainder to the first ones", () => {
    expect(spreadWeights([variant("a", "variable"), variant("b", "variable"), variant("c", "variable")])).toEqual([334, 333, 333]);
  });

  it("keeps fixed weights and spreads what they leave", () => {
    expect(spreadWeights([variant("a", "fix", 500), variant("b", "variable"), variant("c", "variable")])).toEqual([500, 250, 250]);
    expect(spreadWeights([variant("a", "fix", 1200), variant("b", "variable")])).toEqual([1200, 0]);
  });

  it("names what is wrong before the API is asked", () => {
    expect(weightProblem([])).toBeUndefined();
    expect(weightProblem([variant("a", "fix", 1000), variant("b", "variable")])).toMatch(/below 100%/);
    expect(weightProblem([variant("a", "fix", 300), variant("b", "fix", 300)])).toBe(
      "Fixed weights add up to 60%: they must add up to 100%.",
    );
    expect(weightProblem([variant("a", "fix", 400), variant("b", "fix", 600)])).toBeUndefined();
  });

  it("sends a payload only when it has a type", () => {
    const [plain, withPayload] = toVariants([
      variant("a", "variable"),
      { ...variant("b", "variable"), payloadType: "json", payloadValue: "{}" },
    ]);
    expect(plain).not.toHaveProperty("payload");
    expect(withPayload?.payload).toEqual({ type: "json", value: "{}" });
  });
});
