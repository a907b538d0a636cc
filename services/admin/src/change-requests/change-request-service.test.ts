import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { author, reviewer, startChangeRequestSlice } from "./change-request.fixture.js";

describe("ChangeRequestService: proposing and the author's edits", () => {
  let slice: Awaited<ReturnType<typeof startChangeRequestSlice>>;
  const enable = (enabled: boolean) => [{ action: "updateEnabled" as const, feature: "flag", payload: { enabled } }];
  beforeEach(async () => {
    slice = await startChangeRequestSlice();
    await slice.features.create("default", { name: "flag" }, author);
  });
  afterEach(() => slice.stop());

  it("refuses proposals for an environment that does not require change requests", async () => {
    await expect(slice.service.addChanges("default", "production", enable(true), author)).rejects.toMatchObject({
      name: "ValidationError",
      message: "Change requests are not enabled for environment production in project default",
    });
  });

  it("gathers one author's proposals in one draft, which only the author sees", async () => {
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
    const first = await slice.service.addChanges("default", "production", enable(true), author);
    const second = await slice.service.addChanges(
      "default",
      "production",
      [{ action: "addStrategy", feature: "flag", payload: { name: "default", parameters: {}, constraints: [] } }],
      author,
    );
    expect(second.id).toBe(first.id);
    expect(second.features.flatMap((f) => f.changes.map((c) => c.action))).toEqual(["updateEnabled", "addStrategy"]);
    expect((await slice.service.list("default", author)).map((r) => r.id)).toEqual([first.id]);
    expect(await slice.service.list("default", reviewer)).toEqual([]);
  });

  it("lets only the author retitle, remove a change and discard the draft", async () => {
    await slice.config.putConfig("default", "production", { changeRequestsEnabled: true }, author);
    const draft = await slice.service.addChanges("default", "production", enable(true), author);
    const changeId = draft.features[0]?.changes[0]?.id as number;
    await expect(slice.service.updateTitle("default", draft.id, "Mine now", reviewer)).rejects.toMatchObject({ name: "NoAccessError" });
    expect((await slice.service.updateTitle("default", draft.id, "Launch", author)).title).toBe("Launch");
    expect((await slice.service.removeChange("default", draft.id, changeId, author)).features).toEqual([]);
    await expect(slice.service.discard("default", draft.id, reviewer)).rejects.toMatchObject({ name: "NoAccessError" });
    await slice.service.discard("default", draft.id, author);
    await expect(slice.service.get("default", draft.id)).rejects.toMatchObject({ name: "NotFoundError" });
  });
});
