/**
 * Bad input through the running process: every malformed request gets a 4xx in the spec's error
 * shape (never a 500 or a hang), names that would act as object keys are refused, names that only
 * look like Object methods are plain data, and numbers the evaluator relies on are range-checked.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenSecret } from "@vexil/auth";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

let vexil: VexilProcess;
const admin = createTokenSecret({ projects: ["*"], environment: "*" });

beforeAll(async () => {
  vexil = await startVexilProcess({ env: { INIT_ADMIN_API_TOKENS: admin, LOG_LEVEL: "warn" } });
  const project = await api("/api/admin/projects", { method: "POST", body: JSON.stringify({ id: "fresh", name: "Fresh" }) });
  expect(project.status, await project.clone().text()).toBeLessThan(300);
}, 90_000);
afterAll(async () => {
  await vexil?.stop();
});

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${vexil.url}${path}`, {
    ...init,
    headers: { authorization: admin, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });
}

async function expectError(res: Response, status: number, name?: string): Promise<{ message: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  const body = JSON.parse(text);
  expect(body).toMatchObject({ id: expect.any(String), name: name ?? expect.any(String), message: expect.any(String) });
  return body;
}

/** Sends raw bytes and returns what the server answered before closing (or `timeout`). */
function raw(request: string | Buffer, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(vexil.port, "127.0.0.1", () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", () => resolve(answer));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(answer || "timeout");
    });
  });
}

describe("malformed requests", () => {
  it("refuses a body that is not what its Content-Encoding says (400)", async () => {
    const res = await api("/api/admin/projects/default/features", {
      method: "POST",
      headers: { "content-encoding": "gzip" },
      body: JSON.stringify({ name: "not-gzip" }),
    });
    await expectError(res, 400, "ValidationError");
  });

  it.each(["default", "fresh"])("refuses a lone surrogate in a name in project %s (400), creating nothing", async (project) => {
    const res = await api(`/api/admin/projects/${project}/features`, { method: "POST", body: '{"name":"a\\ud800b"}' });
    await expectError(res, 400, "ValidationError");
    const list = await (await api(`/api/admin/projects/${project}/features`)).json();
    expect(list.features.map((f: { name: string }) => f.name)).not.toContain("a\ud800b");
  });

  it("refuses a body that is not valid UTF-8 (400) instead of storing U+FFFD in its place, creating nothing", async () => {
    // "café" in Latin-1 in the description of an otherwise valid flag.
    const body = Buffer.concat([Buffer.from('{"name":"not-utf8","description":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await api("/api/admin/projects/default/features", { method: "POST", body });
    const { message } = await expectError(res, 400, "ValidationError");
    expect(message).toBe("Request body is not valid UTF-8");
    await expectError(await api("/api/admin/projects/default/features/not-utf8"), 404);
    // The same flag in UTF-8 is taken.
    const created = await api("/api/admin/projects/default/features", { method: "POST", body: '{"name":"not-utf8","description":"café"}' });
    expect(created.status, await created.clone().text()).toBe(201);
    expect((await created.json()).description).toBe("café");
  });

  it.each(["%", "%E0%A4%A", "%ED%A0%80"])("refuses the path .../features/%s (400)", async (segment) => {
    await expectError(await api(`/api/admin/projects/default/features/${segment}`), 400, "ValidationError");
  });

  it("answers 408 with a body when the body is shorter than its Content-Length", async () => {
    const answer = await raw(
      `POST /api/admin/projects/default/features HTTP/1.1\r\nHost: x\r\nAuthorization: ${admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"short"`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('"name":"RequestTimeout"');
  }, 40_000);

  it("answers 414 for a long URL and 431 for long headers, each with a body", async () => {
    const longUrl = await api(`/api/admin/projects/default/features?x=${"a".repeat(10_000)}`);
    await expectError(longUrl, 414, "UriTooLong");
    const hugeUrl = await raw(`GET /api/admin/strategies?x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(hugeUrl).toMatch(/^HTTP\/1\.1 414/);
    expect(hugeUrl).toContain('"name":"UriTooLong"');
    const hugeHeaders = await raw(`GET /api/admin/strategies HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`);
    expect(hugeHeaders).toMatch(/^HTTP\/1\.1 431/);
    expect(hugeHeaders).toContain('"name":"HeadersTooLarge"');
  });
});

describe("names are data", () => {
  it.each([
    ["an environment", "/api/admin/environments", (name: string) => ({ name, type: "development" })],
    ["a flag", "/api/admin/projects/default/features", (name: string) => ({ name })],
    ["a flag in a new project", "/api/admin/projects/fresh/features", (name: string) => ({ name })],
    ["a project", "/api/admin/projects", (name: string) => ({ id: name, name })],
    ["a context field", "/api/admin/context", (name: string) => ({ name })],
    ["a tag type", "/api/admin/tag-types", (name: string) => ({ name })],
    ["a strategy", "/api/admin/strategies", (name: string) => ({ name, parameters: [] })],
  ])("refuses %s named __proto__, constructor or prototype (400)", async (_what, path, body) => {
    for (const name of ["__proto__", "constructor", "prototype"]) {
      const res = await api(path, { method: "POST", body: JSON.stringify(body(name)) });
      const error = await expectError(res, 400, "ValidationError");
      expect(error.message).toMatch(/reserved/);
    }
  });

  it("serves flags, search and the health report with an environment named like an Object method", async () => {
    const env = await api("/api/admin/environments", { method: "POST", body: JSON.stringify({ name: "toString", type: "test" }) });
    expect(env.status, await env.clone().text()).toBeLessThan(300);
    for (const project of ["default", "fresh"]) {
      const on = await api(`/api/admin/projects/${project}/environments`, {
        method: "POST",
        body: JSON.stringify({ environment: "toString" }),
      });
      expect(on.status, await on.clone().text()).toBeLessThan(300);
      const flag = await api(`/api/admin/projects/${project}/features`, {
        method: "POST",
        body: JSON.stringify({ name: `obj-${project}` }),
      });
      expect(flag.status, await flag.clone().text()).toBe(201);
      for (const path of [
        `/api/admin/projects/${project}/features`,
        `/api/admin/projects/${project}/features/obj-${project}`,
        `/api/admin/projects/${project}`,
        `/api/admin/projects/${project}/health-report`,
      ]) {
        const res = await api(path);
        expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
      }
    }
    for (const path of ["/api/admin/features", "/api/admin/search/features"]) {
      const res = await api(path);
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
    }
  });
});

describe("ranges the evaluator relies on", () => {
  beforeAll(async () => {
    for (const project of ["default", "fresh"]) {
      await api(`/api/admin/projects/${project}/features`, { method: "POST", body: JSON.stringify({ name: `ranged-${project}` }) });
    }
  });

  it.each(["default", "fresh"])(
    "refuses a rollout outside 0..100 or not whole, and a sortOrder that is not a finite integer (%s)",
    async (project) => {
      const url = `/api/admin/projects/${project}/features/ranged-${project}/environments/development/strategies`;
      for (const rollout of ["150", -5, "abc", "12.5", "1e309"]) {
        const res = await api(url, {
          method: "POST",
          body: JSON.stringify({ name: "flexibleRollout", parameters: { rollout, stickiness: "default", groupId: "g" } }),
        });
        await expectError(res, 400, "ValidationError");
      }
      const overflow = await api(url, { method: "POST", body: '{"name":"default","sortOrder":1e309}' });
      await expectError(overflow, 400, "ValidationError");
      const ok = await api(url, { method: "POST", body: JSON.stringify({ name: "flexibleRollout", parameters: { rollout: "100" } }) });
      expect(ok.status, await ok.clone().text()).toBe(200);
      // A patch and a reorder are writes too: the same checks on what they would store.
      const { id } = (await ok.json()) as { id: string };
      const patch = await api(`${url}/${id}`, {
        method: "PATCH",
        body: JSON.stringify([{ op: "replace", path: "/parameters/rollout", value: "150" }]),
      });
      await expectError(patch, 400, "ValidationError");
      const reorder = await api(`${url}/set-sort-order`, { method: "POST", body: `[{"id":"${id}","sortOrder":1e309}]` });
      await expectError(reorder, 400, "ValidationError");
      const stored = (await (await api(`${url}/${id}`)).json()) as { parameters: { rollout: string }; sortOrder: number };
      expect(stored).toMatchObject({ parameters: { rollout: "100" }, sortOrder: expect.any(Number) });
    },
  );

  it("refuses segment names and constraint context names longer than Unleash takes", async () => {
    const longName = await api("/api/admin/segments", {
      method: "POST",
      body: JSON.stringify({ name: "s".repeat(10_000), constraints: [] }),
    });
    await expectError(longName, 400, "ValidationError");
    const longContext = await api("/api/admin/segments", {
      method: "POST",
      body: JSON.stringify({ name: "ok", constraints: [{ contextName: "c".repeat(10_000), operator: "IN", values: ["a"] }] }),
    });
    await expectError(longContext, 400, "ValidationError");
  });
});

describe("addon targets", () => {
  it.each(["http://[::127.0.0.1]:8080/", "http://[::ffff:7f00:1]/", "http://[64:ff9b::10.0.0.1]/", "http://[2002:c0a8:101::1]/"])(
    "refuses %s, an IPv6 form of a private IPv4 address (400)",
    async (url) => {
      const res = await api("/api/admin/addons", {
        method: "POST",
        body: JSON.stringify({ provider: "webhook", enabled: true, parameters: { url }, events: ["feature-created"] }),
      });
      await expectError(res, 400, "ValidationError");
    },
  );
});
