/**
 * The deployment files as the rules in `deploy-rules.ts` read them: every Kubernetes document
 * kustomization.yaml lists plus the Secrets its secretGenerator makes, the NATS configurations,
 * the compose file, the CI workflow; and what each service reads from its environment.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import type { z } from "zod";
import { addonDeliveryEnv } from "@vexil/addon-delivery";
import { adminEnv } from "@vexil/admin";
import { frontendEvalEnv } from "@vexil/frontend-eval";
import { clusterGatewayEnv } from "@vexil/gateway";
import { signalIngestEnv } from "@vexil/signal-ingest";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const k8sDir = path.join(repoRoot, "deploy/k8s");

// Plain JSON-like data read from YAML: the rules walk it field by field.
export type Doc = any;
export interface Manifest {
  file: string;
  doc: Doc;
}

export interface DeployFiles {
  /** Every Kubernetes document, the generated Secrets included (file `kustomization.yaml`). */
  manifests: Manifest[];
  /** Files in deploy/k8s that kustomization.yaml does not list. */
  unlisted: string[];
  /** YAML errors met while reading. */
  parseErrors: string[];
  /** Where the Secrets' values came from, for the report. */
  secretsSource: string;
  /** Each NATS configuration a deployment runs: deploy/nats.conf and the one in k8s/nats.yaml. */
  natsConfigs: Array<{ file: string; text: string }>;
  /** deploy/compose.yaml, raw (its `${...}` not interpolated) and parsed with its merge keys applied. */
  compose: { file: string; text: string; doc: Doc };
  /** .github/workflows/*.yml, raw. */
  workflows: Array<{ file: string; text: string }>;
}

/**
 * What each service's process reads from its environment: the settings schema its `main.ts` loads
 * (the single source of truth; its keys are the variables). The gateway is deployed in cluster
 * mode, where it loads `clusterGatewayEnv`.
 */
export const serviceSettings: Record<string, z.AnyZodObject> = {
  gateway: clusterGatewayEnv,
  admin: adminEnv,
  "frontend-eval": frontendEvalEnv,
  "signal-ingest": signalIngestEnv,
  "addon-delivery": addonDeliveryEnv,
};

/** `KEY=value` lines, as kustomize reads an env file (the value is everything after the first `=`). */
function readEnvFile(file: string): Record<string, string> {
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]);
  return Object.fromEntries(entries);
}

/**
 * The Secrets kustomization.yaml generates, from the operator's env files when they exist (so
 * `validate:deploy` checks the secrets about to be applied), else from a fresh run of
 * generate-secrets.sh (what CI checks: the script writes what the rules accept).
 */
function generatedSecrets(kustomization: Doc): { manifests: Manifest[]; source: string } {
  const generators: Array<{ name: string; envs: string[] }> = kustomization.secretGenerator ?? [];
  const files = generators.flatMap((g) => g.envs);
  const present = files.every((file) => existsSync(path.join(k8sDir, file)));
  const dir = present ? k8sDir : mkdtempSync(path.join(tmpdir(), "vexil-secrets-"));
  try {
    if (!present) execFileSync(path.join(k8sDir, "generate-secrets.sh"), [dir], { stdio: "ignore" });
    const manifests = generators.map((g) => ({
      file: "kustomization.yaml",
      doc: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: g.name },
        type: "Opaque",
        stringData: Object.assign({}, ...g.envs.map((file) => readEnvFile(path.join(dir, file)))),
      },
    }));
    return {
      manifests,
      source: present ? `deploy/k8s/${files.join(", ")}` : "a fresh run of generate-secrets.sh (no secrets.env in deploy/k8s)",
    };
  } finally {
    if (!present) rmSync(dir, { recursive: true, force: true });
  }
}

export function loadDeployFiles(): DeployFiles {
  const parseErrors: string[] = [];
  const kustomization = parse(readFileSync(path.join(k8sDir, "kustomization.yaml"), "utf8")) as Doc;
  const resources: string[] = kustomization.resources;
  const onDisk = readdirSync(k8sDir).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
  const manifests: Manifest[] = [];
  for (const file of resources) {
    for (const document of parseAllDocuments(readFileSync(path.join(k8sDir, file), "utf8"))) {
      if (document.errors.length > 0) parseErrors.push(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
      const doc = document.toJS();
      if (doc) manifests.push({ file, doc });
    }
  }
  const secrets = generatedSecrets(kustomization);
  manifests.push(...secrets.manifests);

  const natsConfigMap = manifests.find(({ doc }) => doc.kind === "ConfigMap" && doc.metadata.name === "nats-config");
  const composeFile = path.join(repoRoot, "deploy/compose.yaml");
  const composeText = readFileSync(composeFile, "utf8");
  const workflowDir = path.join(repoRoot, ".github/workflows");
  return {
    manifests,
    unlisted: onDisk.filter((file) => !resources.includes(file)),
    parseErrors,
    secretsSource: secrets.source,
    natsConfigs: [
      { file: "deploy/nats.conf", text: readFileSync(path.join(repoRoot, "deploy/nats.conf"), "utf8") },
      { file: "deploy/k8s/nats.yaml", text: natsConfigMap?.doc.data?.["nats.conf"] ?? "" },
    ],
    compose: { file: "deploy/compose.yaml", text: composeText, doc: parse(composeText, { merge: true }) },
    workflows: readdirSync(workflowDir)
      .filter((file) => /\.ya?ml$/.test(file))
      .map((file) => ({ file: `.github/workflows/${file}`, text: readFileSync(path.join(workflowDir, file), "utf8") })),
  };
}
