import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectJson as json, startTestSystem, type TestSystem } from "../src/harness.js";

/**
 * Export and import keep private projects private: a signed-in person who is not a member gets no
 * flag of one in an export of everything, and 404 when naming the project, as on every admin path.
 */
let vexil: TestSystem;
let outsider: { id: number; token: string };
const exportAll = { environment: "development", features: [] as string[] };

beforeAll(async () => {
  vexil = await startTestSystem();
  await json(await vexil.api("/api/admin/projects", { method: "POST", body: { id: "vault", name: "Vault", mode: "private" } }), 201);
  for (const [project, name] of [
    ["vault", "vault-flag"],
    ["default", "open-flag"],
  ]) {
    await json(await vexil.api(`/api/admin/projects/${project}/features`, { method: "POST", body: { name } }), 201);
  }
  outsider = await vexil.createPerson({ username: "outsider", rootRole: "Editor" });
}, 240_000);
afterAll(() => vexil?.stop());

describe("export and import of a private project", () => {
  it("shows its flags to admins and members only", async () => {
    const names = (data: { features: { name: string }[] }) => data.features.map((f) => f.name).sort();
    const asAdmin = await json(await vexil.api("/api/admin/features-batch/export", { method: "POST", body: exportAll }), 200);
    expect(names(asAdmin)).toEqual(["open-flag", "vault-flag"]);
    const asOutsider = await json(
      await vexil.api("/api/admin/features-batch/export", { method: "POST", body: exportAll, token: outsider.token }),
      200,
    );
    expect(names(asOutsider)).toEqual(["open-flag"]);

    const byProject = { environment: "development", project: "vault" };
    await json(await vexil.api("/api/admin/features-batch/export", { method: "POST", body: byProject, token: outsider.token }), 404);
    const intoVault = { project: "vault", environment: "development", data: { ...asAdmin, features: [], featureStrategies: [] } };
    await json(await vexil.api("/api/admin/features-batch/validate", { method: "POST", body: intoVault, token: outsider.token }), 404);
    await json(await vexil.api("/api/admin/features-batch/import", { method: "POST", body: intoVault, token: outsider.token }), 404);

    await json(
      await vexil.api("/api/admin/projects/vault/access", { method: "POST", body: { roles: [5], users: [{ id: outsider.id }] } }),
      200,
    );
    const asMember = await json(
      await vexil.api("/api/admin/features-batch/export", { method: "POST", body: exportAll, token: outsider.token }),
      200,
    );
    expect(names(asMember)).toEqual(["open-flag", "vault-flag"]);
  });
});
