import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpApp, listen, type RunningServer } from "@vexil/http";
import { createLogger } from "@vexil/logger";
import { createAdminUiRouter } from "./admin-ui.js";

const logger = createLogger({ service: "test", level: "silent" });

describe("the admin UI router", () => {
  let directory: string;
  let running: RunningServer;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "vexil-admin-ui-"));
    await mkdir(path.join(directory, "assets"));
    await writeFile(path.join(directory, "index.html"), "<!doctype html><title>Vexil</title>");
    await writeFile(path.join(directory, "assets", "app-1234.js"), "console.log('app')");
    const router = createAdminUiRouter(logger, directory);
    if (!router) throw new Error("expected a router for a built UI");
    running = await listen(createHttpApp({ logger, routers: [router] }), 0, "127.0.0.1");
  });
  afterAll(async () => {
    await running?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("serves index.html at / and at deep links, uncached", async () => {
    for (const pathname of ["/", "/projects/default/features/checkout"]) {
      const res = await fetch(`${running.url}${pathname}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toContain("<title>Vexil</title>");
    }
  });

  it("serves hashed assets with a long cache and answers a missing one with 404", async () => {
    const asset = await fetch(`${running.url}/assets/app-1234.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    const missing = await fetch(`${running.url}/assets/gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ name: "NotFoundError" });
  });

  it("leaves the API, the docs and the probes alone", async () => {
    for (const pathname of ["/api/admin/nothing", "/api/frontend/x", "/auth/simple/nothing", "/docs/nothing", "/internal-backstage/x"]) {
      const res = await fetch(`${running.url}${pathname}`);
      expect(res.status, pathname).toBe(404);
      expect(await res.json()).toMatchObject({ name: "NotFoundError" });
    }
  });

  it("is absent, not broken, when the UI has not been built", () => {
    expect(createAdminUiRouter(logger, path.join(directory, "missing"))).toBeUndefined();
  });
});
