import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { freePort, waitFor } from "./servers.js";

/** Debian's SimpleSAMLphp (installed by .ci/run with php-cli, php-xml and php-mbstring). */
export const simpleSamlPhpDir = "/usr/share/simplesamlphp";
const phpFound = spawnSync("php", ["--version"]).status === 0;
export const simpleSamlPhpAvailable = phpFound && existsSync(path.join(simpleSamlPhpDir, "www/index.php"));
if (!simpleSamlPhpAvailable)
  console.log(
    `skipped: SAML journeys need SimpleSAMLphp at ${simpleSamlPhpDir} and php-cli (apt-get install simplesamlphp php-cli php-xml php-mbstring)`,
  );

export interface IdpUser {
  username: string;
  password: string;
  email: string;
  name: string;
  groups: string[];
}

export interface SimpleSamlPhp {
  url: string;
  entityId: string;
  signOnUrl: string;
  signOutUrl: string;
  /** The IdP's signing certificate (PEM), what Vexil's settings name. */
  certificate: string;
  /** The IdP's signing key (PEM): only for crafting answers the tests expect to be refused. */
  privateKey: string;
  /** Its configuration, read at each request (change a user's groups there). */
  configDir: string;
  stop(): Promise<void>;
}

const php = (value: unknown): string => JSON.stringify(value).replace(/\{/g, "[").replace(/\}/g, "]").replace(/":/g, '" => ');

/** A self-signed key pair (PEM) made with openssl. */
export async function selfSignedPair(
  dir: string,
  name: string,
  cn: string,
): Promise<{ key: string; cert: string; keyPath: string; certPath: string }> {
  const keyPath = path.join(dir, `${name}.pem`);
  const certPath = path.join(dir, `${name}.crt`);
  const made = spawnSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    keyPath,
    "-out",
    certPath,
    "-days",
    "2",
    "-subj",
    `/CN=${cn}`,
  ]);
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { key: await readFile(keyPath, "utf8"), cert: await readFile(certPath, "utf8"), keyPath, certPath };
}

/**
 * A real SAML 2.0 identity provider: SimpleSAMLphp under PHP's built-in web server on a free port,
 * with a generated configuration (its own key, the test users and their groups through
 * `exampleauth:UserPass`, and Vexil as a known service provider). `host` is the name the browser
 * reaches it by (mapped to loopback), so it is another site than Vexil.
 */
export async function startSimpleSamlPhp({
  host,
  sp,
  users,
}: {
  host: string;
  sp: { entityId: string; acsUrl: string; sloUrl: string; certificate?: string };
  users: IdpUser[];
}): Promise<SimpleSamlPhp> {
  const dir = await mkdtemp(path.join(tmpdir(), "vexil-simplesamlphp-"));
  for (const sub of ["config", "metadata", "cert", "log", "data", "tmp", "sessions"]) await mkdir(path.join(dir, sub));
  const port = await freePort();
  const url = `http://${host}:${port}`;
  const idp = await selfSignedPair(path.join(dir, "cert"), "idp", host);

  await copyFile(path.join(simpleSamlPhpDir, "config/config.php"), path.join(dir, "config/config.php"));
  const overrides = {
    baseurlpath: `${url}/`,
    certdir: `${dir}/cert/`,
    loggingdir: `${dir}/log/`,
    datadir: `${dir}/data/`,
    tempdir: `${dir}/tmp/`,
    metadatadir: `${dir}/metadata/`,
    secretsalt: "vexil-test-salt-" + port,
    "auth.adminpassword": "vexil-test-admin-" + port,
    "logging.handler": "errorlog",
    "enable.saml20-idp": true,
    "module.enable": { exampleauth: true, core: true, saml: true, admin: true },
    "store.type": "phpsession",
    "session.cookie.secure": false,
    // Its default, SameSite=None, needs HTTPS: over plain HTTP the browser drops the cookie.
    "session.cookie.samesite": "Lax",
    "metadata.sources": [{ type: "flatfile", directory: `${dir}/metadata/` }],
  };
  await writeFile(
    path.join(dir, "config/config.php"),
    (await readFile(path.join(dir, "config/config.php"), "utf8")) +
      "\n" +
      Object.entries(overrides)
        .map(([key, value]) => `$config[${JSON.stringify(key)}] = ${php(value)};`)
        .join("\n") +
      "\n",
  );
  const userEntries = Object.fromEntries(
    users.map((u) => [`${u.username}:${u.password}`, { email: [u.email], displayName: [u.name], groups: u.groups }]),
  );
  await writeFile(
    path.join(dir, "config/authsources.php"),
    `<?php\n$config = ${php({ admin: ["core:AdminPassword"], "example-userpass": { 0: "exampleauth:UserPass", ...userEntries } })};\n`,
  );
  const emailFormat = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
  await writeFile(
    path.join(dir, "metadata/saml20-idp-hosted.php"),
    `<?php\n$metadata['__DYNAMIC:1__'] = ${php({
      host: "__DEFAULT__",
      privatekey: "idp.pem",
      certificate: "idp.crt",
      auth: "example-userpass",
      NameIDFormat: emailFormat,
      authproc: { 10: { class: "saml:AttributeNameID", attribute: "email", Format: emailFormat } },
    })};\n`,
  );
  await writeFile(
    path.join(dir, "metadata/saml20-sp-remote.php"),
    `<?php\n$metadata[${JSON.stringify(sp.entityId)}] = ${php({
      AssertionConsumerService: sp.acsUrl,
      SingleLogoutService: sp.sloUrl,
      NameIDFormat: emailFormat,
      ...(sp.certificate ? { certData: sp.certificate.replace(/-----[^-]+-----|\s/g, ""), "validate.logout": true } : {}),
    })};\n`,
  );
  await writeFile(path.join(dir, "metadata/saml20-idp-remote.php"), "<?php\n");

  const child: ChildProcess = spawn(
    "php",
    [
      "-d",
      `session.save_path=${dir}/sessions`,
      "-d",
      "display_errors=stderr",
      "-S",
      `127.0.0.1:${port}`,
      "-t",
      path.join(simpleSamlPhpDir, "www"),
    ],
    { env: { ...process.env, SIMPLESAMLPHP_CONFIG_DIR: `${dir}/config` }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const entityId = `${url}/saml2/idp/metadata.php`;
  const ready = await waitFor(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/saml2/idp/metadata.php`, { headers: { host: `${host}:${port}` } })).ok;
    } catch {
      return false;
    }
  }, 30_000);
  if (!ready) {
    child.kill("SIGTERM");
    throw new Error(`SimpleSAMLphp did not start:\n${output}`);
  }
  return {
    url,
    entityId,
    signOnUrl: `${url}/saml2/idp/SSOService.php`,
    signOutUrl: `${url}/saml2/idp/SingleLogoutService.php`,
    certificate: idp.cert,
    privateKey: idp.key,
    configDir: `${dir}/config`,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs `user` in at the IdP from Vexil's sign-in page, as a person does: opens `wanted` at
 * `vexilUrl`, follows "Sign in with SSO", gives the IdP the password, and waits to be back.
 */
export async function signInThroughIdp(page: Page, vexilUrl: string, idpHost: string, user: IdpUser, wanted = "/"): Promise<Page> {
  await page.goto(`${vexilUrl}${wanted}`);
  await page.getByRole("link", { name: /Sign in with SSO/ }).click();
  await page.waitForURL((url) => url.hostname === idpHost);
  await page.locator("input[name=username]").fill(user.username);
  await page.locator("input[name=password]").fill(user.password);
  await page.locator("#submit_button").click();
  await page.waitForURL((url) => url.origin === vexilUrl, { timeout: 30_000 });
  return page;
}
