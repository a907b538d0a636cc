/**
 * The two servers the parity harness compares, started side by side with the same tokens: the
 * reference unleash-server 8.2.0 (`test/src/reference-unleash.ts`) and Vexil as users run it
 * (`startVexilProcess`). Each is a `ParityTarget`: a name, an address, its tokens and a fetch
 * helper, so a check drives both through the same code. Kept separate from the suite so other
 * comparisons (an Unleash export imported into Vexil) start the same pair.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { installReferenceUnleash, localPostgres, startReferenceUnleash, type ReferenceUnleash } from "../src/reference-unleash.js";
import { tokenSecret } from "../src/tokens.js";
import { startVexilProcess, type VexilProcess } from "../src/vexil-process.js";

export type TargetName = "unleash" | "vexil";
export type TokenKind = "admin" | "client" | "frontend" | "none";

export interface ParityTarget {
  name: TargetName;
  url: string;
  tokens: Record<Exclude<TokenKind, "none">, string>;
  /** fetch with the given token (admin by default) and a JSON body when one is given. */
  call(pathname: string, init?: { method?: string; body?: unknown; token?: TokenKind }): Promise<Response>;
  /**
   * Creates a project with every environment. Unleash's open-source edition has no project API
   * (POST /api/admin/projects answers 404), so the reference gets its row in its own database,
   * as its enterprise edition would store it; Vexil gets it through its admin API.
   */
  createProject(id: string): Promise<void>;
}

export interface ParityServers {
  unleash: ParityTarget;
  vexil: ParityTarget;
  targets: [ParityTarget, ParityTarget];
  stop(): Promise<void>;
}

/** The same tokens for both: admin for everything, client and frontend for every project in development. */
function parityTokens() {
  return { admin: tokenSecret("*", "*"), client: tokenSecret("*", "development"), frontend: tokenSecret("*", "development") };
}

function target(name: TargetName, url: string, tokens: ParityTarget["tokens"], createProject: ParityTarget["createProject"]): ParityTarget {
  return {
    name,
    url,
    tokens,
    createProject,
    call(pathname, { method = "GET", body, token = "admin" } = {}) {
      return fetch(`${url}${pathname}`, {
        method,
        headers: {
          ...(token === "none" ? {} : { authorization: tokens[token] }),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
  };
}

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

/** SQL in the reference's database, with the `pg` driver that unleash-server installs. */
async function inReferenceDatabase(database: string, statements: Array<[string, unknown[]]>): Promise<void> {
  const installDir = await installReferenceUnleash();
  const pg = createRequire(path.join(installDir, "package.json"))("pg") as { Client: new (config: object) => PgClient };
  const client = new pg.Client({ ...localPostgres, database });
  await client.connect();
  try {
    for (const [sql, values] of statements) await client.query(sql, values);
  } finally {
    await client.end();
  }
}

export async function startParityServers(): Promise<ParityServers> {
  const tokens = parityTokens();
  const init = { adminTokens: [tokens.admin], clientTokens: [tokens.client], frontendTokens: [tokens.frontend] };
  const [reference, vexilProcess] = await Promise.allSettled([
    startReferenceUnleash({
      ...init,
      database: `parity_unleash_${process.pid}`,
      // Environment variants (PUT .../environments/:environment/variants) are refused by 8.2.0 unless this is on.
      env: { UNLEASH_EXPERIMENTAL_ENABLE_LEGACY_VARIANTS: "true" },
    }),
    startVexilProcess({
      env: {
        LOG_LEVEL: "warn",
        INIT_ADMIN_API_TOKENS: tokens.admin,
        INIT_CLIENT_API_TOKENS: tokens.client,
        INIT_FRONTEND_API_TOKENS: tokens.frontend,
      },
    }),
  ]);
  if (reference.status === "rejected" || vexilProcess.status === "rejected") {
    if (reference.status === "fulfilled") await reference.value.stop();
    if (vexilProcess.status === "fulfilled") await vexilProcess.value.stop();
    throw reference.status === "rejected" ? reference.reason : (vexilProcess as PromiseRejectedResult).reason;
  }
  const unleashServer: ReferenceUnleash = reference.value;
  const vexilServer: VexilProcess = vexilProcess.value;

  const unleash = target("unleash", unleashServer.url, tokens, async (id) => {
    await inReferenceDatabase(unleashServer.database, [
      ["INSERT INTO projects (id, name, description) VALUES ($1, $1, NULL)", [id]],
      ["INSERT INTO project_settings (project, project_mode, default_stickiness) VALUES ($1, 'open', 'default')", [id]],
      ["INSERT INTO project_environments (project_id, environment_name) SELECT $1, name FROM environments WHERE enabled", [id]],
    ]);
  });
  const vexil = target("vexil", vexilServer.url, tokens, async (id) => {
    const res = await vexil.call("/api/admin/projects", { method: "POST", body: { id, name: id } });
    if (res.status !== 201) throw new Error(`creating project ${id} in Vexil: ${res.status} ${await res.text()}`);
  });
  return {
    unleash,
    vexil,
    targets: [unleash, vexil],
    async stop() {
      await Promise.all([unleashServer.stop(), vexilServer.stop()]);
    },
  };
}
