/**
 * The rules the deployment files keep, each a function from the files to the problems it finds
 * (one line each, naming the file and the object). `validate-deploy.ts` runs them all; the tests
 * in `deploy-rules.test.ts` break the shipped files one way at a time and expect the rule to say so.
 */
import { validateWorkflow } from "@action-validator/core";
import { ConfigError, loadConfig } from "@vexil/config";
import type { DeployFiles, Doc, Manifest } from "./deploy-files.js";
import { serviceSettings } from "./deploy-files.js";

const workloadKinds = new Set(["Deployment", "StatefulSet"]);
const where = ({ file, doc }: Manifest) => `${file}: ${doc.kind} ${doc.metadata?.name}`;

/** The Vexil service an image runs: `vexil-<service>` (any registry, tag or digest). */
export function vexilService(image: string): string | undefined {
  return /(?:^|\/)vexil-([a-z-]+)(?:[:@]|$)/.exec(image)?.[1];
}

/** Each Vexil container of a workload, with its service. */
function vexilContainers(manifests: Manifest[]) {
  return manifests
    .filter(({ doc }) => workloadKinds.has(doc.kind))
    .flatMap((manifest) =>
      (manifest.doc.spec?.template?.spec?.containers ?? []).flatMap((container: Doc) => {
        const service = vexilService(container.image ?? "");
        return service ? [{ manifest, container, service }] : [];
      }),
    );
}

/** Every ConfigMap's and Secret's keys and values, by `<Kind>/<name>`. */
function dataOf(manifests: Manifest[]): Map<string, Record<string, string>> {
  return new Map(
    manifests
      .filter(({ doc }) => doc.kind === "Secret" || doc.kind === "ConfigMap")
      .map(({ doc }) => [
        `${doc.kind}/${doc.metadata.name}`,
        {
          ...doc.data,
          // Secret `data` is base64; `stringData` is what the rules read.
          ...(doc.kind === "Secret"
            ? Object.fromEntries(Object.entries(doc.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), "base64").toString()]))
            : {}),
          ...doc.stringData,
        },
      ]),
  );
}

/**
 * A container's environment as the kubelet builds it: `envFrom` first, then `env`. Values from a
 * missing optional key are left out; `from` says where each came from.
 */
function environmentOf(container: Doc, data: Map<string, Record<string, string>>) {
  const env = new Map<string, { value: string | undefined; from: "literal" | "ConfigMap" | "Secret" | "field" }>();
  for (const source of container.envFrom ?? []) {
    const kind = source.secretRef ? "Secret" : "ConfigMap";
    const values = data.get(`${kind}/${(source.secretRef ?? source.configMapRef).name}`) ?? {};
    for (const [key, value] of Object.entries(values)) env.set(`${source.prefix ?? ""}${key}`, { value, from: kind });
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom;
    if (!ref) env.set(variable.name, { value: variable.value, from: "literal" });
    else if (ref.secretKeyRef)
      env.set(variable.name, { value: data.get(`Secret/${ref.secretKeyRef.name}`)?.[ref.secretKeyRef.key], from: "Secret" });
    else if (ref.configMapKeyRef)
      env.set(variable.name, { value: data.get(`ConfigMap/${ref.configMapKeyRef.name}`)?.[ref.configMapKeyRef.key], from: "ConfigMap" });
    else env.set(variable.name, { value: undefined, from: "field" });
  }
  return env;
}

/** The model class for an apiVersion and kind: `apps/v1` + `Deployment` → kubernetes-models/apps/v1/Deployment. */
async function modelFor({ apiVersion, kind }: Doc): Promise<new (data: object) => { validate(): void }> {
  const module = await import(`kubernetes-models/${apiVersion}/${kind}`).catch(() => {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  });
  return module[kind] ?? module.default;
}

/** Every document against the Kubernetes API schemas shipped in `kubernetes-models`. */
export async function checkSchemas({ manifests }: DeployFiles): Promise<string[]> {
  const problems: string[] = [];
  for (const manifest of manifests) {
    try {
      const Model = await modelFor(manifest.doc);
      new Model(manifest.doc).validate();
    } catch (err) {
      problems.push(`${where(manifest)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}

/** Every `secretKeyRef`/`configMapKeyRef` and `secretRef`/`configMapRef` in an object, wherever it is nested. */
function references(node: unknown, found: Array<{ kind: "Secret" | "ConfigMap"; name: string; key?: string; optional?: boolean }> = []) {
  if (Array.isArray(node)) node.forEach((item) => references(item, found));
  else if (node && typeof node === "object") {
    for (const [field, value] of Object.entries(node)) {
      const ref = value as { name?: string; key?: string; optional?: boolean };
      if (field === "secretKeyRef" || field === "secretRef")
        found.push({ kind: "Secret", name: ref.name!, key: ref.key, optional: ref.optional });
      else if (field === "configMapKeyRef" || field === "configMapRef")
        found.push({ kind: "ConfigMap", name: ref.name!, key: ref.key, optional: ref.optional });
      else if (field === "secret" && ref && typeof ref === "object" && "secretName" in ref) {
        found.push({ kind: "Secret", name: (ref as { secretName: string }).secretName });
      } else references(value, found);
    }
  }
  return found;
}

/** Every file listed, read without error, and every Secret and ConfigMap key a workload reads defined (unless optional). */
export function checkReferences({ manifests, unlisted, parseErrors }: DeployFiles): string[] {
  const problems = [...parseErrors, ...unlisted.map((file) => `${file} is not listed in kustomization.yaml`)];
  const data = dataOf(manifests);
  for (const manifest of manifests) {
    for (const ref of references(manifest.doc.spec)) {
      const keys = data.get(`${ref.kind}/${ref.name}`);
      if (!keys) problems.push(`${where(manifest)} reads ${ref.kind} ${ref.name}, which no manifest defines`);
      else if (ref.key && !(ref.key in keys) && !ref.optional)
        problems.push(`${where(manifest)} reads ${ref.kind} ${ref.name} key ${ref.key}, which it lacks`);
    }
  }
  return problems;
}

/**
 * Every workload running more than one pod (its `replicas`, or its autoscaler's `minReplicas`)
 * has a PodDisruptionBudget selecting its pods, and the budget lets a drain take one of them.
 */
export function checkDisruptionBudgets({ manifests }: DeployFiles): string[] {
  const problems: string[] = [];
  const autoscaled = new Map(
    manifests
      .filter(({ doc }) => doc.kind === "HorizontalPodAutoscaler")
      .map(({ doc }) => [`${doc.spec.scaleTargetRef.kind}/${doc.spec.scaleTargetRef.name}`, doc.spec.minReplicas ?? 1]),
  );
  const budgets = manifests.filter(({ doc }) => doc.kind === "PodDisruptionBudget");
  for (const workload of manifests.filter(({ doc }) => workloadKinds.has(doc.kind))) {
    const { doc } = workload;
    const replicas: number = doc.spec.replicas ?? autoscaled.get(`${doc.kind}/${doc.metadata.name}`) ?? 1;
    if (replicas <= 1) continue;
    const labels: Record<string, string> = doc.spec.template?.metadata?.labels ?? {};
    const budget = budgets.find(({ doc: pdb }) => {
      const selector = pdb.spec?.selector ?? {};
      const matchLabels: Record<string, string> = selector.matchLabels ?? {};
      return (
        !selector.matchExpressions && Object.keys(matchLabels).length > 0 && Object.entries(matchLabels).every(([k, v]) => labels[k] === v)
      );
    });
    if (!budget) problems.push(`${where(workload)} runs ${replicas} replicas and no PodDisruptionBudget selects its pods`);
    else if (typeof budget.doc.spec.minAvailable === "number" && budget.doc.spec.minAvailable >= replicas) {
      problems.push(
        `${where(budget)} keeps ${budget.doc.spec.minAvailable} of ${replicas} pods of ${doc.metadata.name}: it blocks every drain`,
      );
    }
  }
  return problems;
}

/** Variables that carry a credential: they come from a Secret, never a ConfigMap or the manifest. */
const credentialVariables =
  /^(MONGODB_URL|REDIS_URL|NATS_URL|METRICS_TOKEN|SECRETS_ENCRYPTION_KEY|SECRETS_PREVIOUS_KEYS|INIT_\w+_(TOKENS|PASSWORD))$/;

/**
 * Each Vexil container is given only variables its service reads (the keys of its settings
 * schema), credentials only from Secrets, and the values its settings schema accepts.
 */
export function checkEnvironment({ manifests }: DeployFiles): string[] {
  const problems: string[] = [];
  const data = dataOf(manifests);
  for (const { manifest, container, service } of vexilContainers(manifests)) {
    const at = `${where(manifest)} container ${container.name}`;
    const schema = serviceSettings[service];
    if (!schema) {
      problems.push(`${at} runs vexil-${service}, which is no Vexil service`);
      continue;
    }
    const env = environmentOf(container, data);
    for (const [name, { from }] of env) {
      if (!(name in schema.shape)) problems.push(`${at} is given ${name}, which ${service} does not read`);
      else if (credentialVariables.test(name) && from !== "Secret")
        problems.push(
          `${at} takes ${name} from a ${from === "literal" ? "literal value" : from}: it carries a credential, so it comes from a Secret`,
        );
    }
    const values = Object.fromEntries(
      [...env].filter(([name, { value }]) => value !== undefined && name in schema.shape).map(([name, { value }]) => [name, value]),
    );
    try {
      loadConfig(schema, values);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(`${at}: ${service} refuses its settings: ${err.problems.join("; ")}`);
    }
  }
  return problems;
}

/**
 * Each Vexil container is probed as deploy/README.md says: readiness on `/ready` ("send me
 * traffic"), liveness and start-up on `/health` (the process answers), on a port it listens on.
 */
export function checkProbes({ manifests }: DeployFiles): string[] {
  const problems: string[] = [];
  const expected = { readinessProbe: "/ready", livenessProbe: "/health", startupProbe: "/health" } as const;
  for (const { manifest, container } of vexilContainers(manifests)) {
    const ports = (container.ports ?? []).flatMap((p: Doc) => [p.name, p.containerPort]);
    for (const [probe, path] of Object.entries(expected)) {
      const httpGet = container[probe]?.httpGet;
      if (!httpGet) problems.push(`${where(manifest)} container ${container.name} has no ${probe} on ${path}`);
      else if (httpGet.path !== path)
        problems.push(`${where(manifest)} container ${container.name}: ${probe} asks ${httpGet.path}, not ${path}`);
      else if (!ports.includes(httpGet.port))
        problems.push(`${where(manifest)} container ${container.name}: ${probe} port ${httpGet.port} is none of its ports`);
    }
  }
  return problems;
}

/** The variables a NATS configuration takes its client credentials from, or the reason there are none. */
export function natsCredentialVariables(config: string): { user: string; password: string } | string {
  const text = config.replace(/#.*$/gm, "");
  const block = /\bauthorization\s*[:=]?\s*\{([^}]*)\}/.exec(text)?.[1];
  if (block === undefined) return "has no authorization block: any client may connect";
  const user = /\buser\s*[:=]\s*\$(\w+)/.exec(block)?.[1];
  const password = /\bpassword\s*[:=]\s*\$(\w+)/.exec(block)?.[1];
  if (!user || !password) return "must take its user and password from environment variables ($NAME), never spell them out";
  return { user, password };
}

/**
 * NATS requires authentication wherever it is deployed, with credentials from a Secret (Kubernetes)
 * or required settings (compose), and the services connect with them.
 */
export function checkNatsAuthentication({ natsConfigs, manifests, compose }: DeployFiles): string[] {
  const problems: string[] = [];
  const data = dataOf(manifests);
  for (const { file, text } of natsConfigs) {
    const variables = natsCredentialVariables(text);
    if (typeof variables === "string") {
      problems.push(`${file}: the NATS configuration ${variables}`);
      continue;
    }
    if (file.includes("k8s")) {
      const nats = manifests.find(({ doc }) => doc.kind === "StatefulSet" && doc.metadata.name === "nats");
      const container = nats?.doc.spec.template.spec.containers.find((c: Doc) => c.name === "nats");
      const env = container ? environmentOf(container, data) : new Map();
      for (const name of [variables.user, variables.password]) {
        if (env.get(name)?.from !== "Secret") problems.push(`${file}: the NATS server's ${name} does not come from a Secret`);
      }
      const secrets = data.get("Secret/vexil-secrets") ?? {};
      const engine = data.get("Secret/vexil-engine-secrets") ?? {};
      const credentials = urlCredentials(secrets.NATS_URL ?? "");
      if (credentials?.user !== engine.NATS_USER || credentials?.password !== engine.NATS_PASSWORD) {
        problems.push("vexil-secrets NATS_URL does not carry the NATS_USER and NATS_PASSWORD of vexil-engine-secrets");
      }
    } else {
      const environment = compose.doc.services?.nats?.environment ?? {};
      for (const name of [variables.user, variables.password]) {
        if (!(name in environment)) problems.push(`${compose.file}: the nats service is not given ${name}, which ${file} requires`);
      }
      for (const [service, definition] of Object.entries<Doc>(compose.doc.services ?? {})) {
        const natsUrl: string | undefined = definition.environment?.NATS_URL;
        if (natsUrl !== undefined && !/^nats:\/\/\$\{[^}]+\}:\$\{[^}]+:\?[^}]+\}@/.test(natsUrl)) {
          problems.push(`${compose.file}: ${service}'s NATS_URL does not carry a user and a required password`);
        }
      }
    }
  }
  return problems;
}

/** What no deployed secret may be: the placeholders and defaults found in docs and examples. */
const placeholder = /change[-_ ]?me|unleash4all|placeholder|^(password|secret|admin|vexil|example)$/i;
/**
 * The user and password of a connection URL (by hand: WHATWG URLs refuse MongoDB's list of hosts),
 * or undefined when it carries none.
 */
function urlCredentials(value: string): { user: string; password: string } | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^:@/]*):([^@/]*)@/i.exec(value);
  return match ? { user: decodeURIComponent(match[1]), password: decodeURIComponent(match[2]) } : undefined;
}
const urlPassword = (value: string) => urlCredentials(value)?.password;

/** mongod's key file: 6 to 1024 base64 characters. */
const keyFile = /^[A-Za-z0-9+/=]{6,1024}$/;

/** The Secrets hold no placeholder, a valid MongoDB key file, and the same passwords in the engines and in the URLs. */
export function checkSecretValues({ manifests }: DeployFiles): string[] {
  const problems: string[] = [];
  for (const manifest of manifests.filter(({ doc }) => doc.kind === "Secret")) {
    const values: Record<string, string> = dataOf([manifest]).get(`Secret/${manifest.doc.metadata.name}`) ?? {};
    for (const [key, value] of Object.entries(values)) {
      if (!/PASSWORD|KEY|TOKEN|_URL$/.test(key)) continue;
      // A URL's secret is its password; a token list's, the part after each `<project>:<environment>.`.
      const parts = /_URL$/.test(key) ? [urlPassword(value) ?? ""] : String(value).split(/[,.]/);
      if (value === "" && /TOKENS$/.test(key)) continue; // no seed tokens: allowed
      if (value === "" || parts.includes("")) problems.push(`${where(manifest)}: ${key} has an empty secret`);
      else if (parts.some((part) => placeholder.test(part)))
        problems.push(`${where(manifest)}: ${key} holds a placeholder; generate-secrets.sh writes random values`);
    }
    if ("MONGO_KEYFILE" in values && !keyFile.test(values.MONGO_KEYFILE)) {
      problems.push(
        `${where(manifest)}: MONGO_KEYFILE is not a MongoDB key file (6 to 1024 base64 characters); mongod would refuse to start`,
      );
    }
  }
  const data = dataOf(manifests);
  const secrets = data.get("Secret/vexil-secrets") ?? {};
  const engine = data.get("Secret/vexil-engine-secrets") ?? {};
  const password = (url: string | undefined) => (url ? urlPassword(url) : undefined);
  if (password(secrets.MONGODB_URL) !== engine.MONGO_ROOT_PASSWORD)
    problems.push("vexil-secrets MONGODB_URL does not carry MONGO_ROOT_PASSWORD of vexil-engine-secrets");
  if (password(secrets.REDIS_URL) !== engine.REDIS_PASSWORD)
    problems.push("vexil-secrets REDIS_URL does not carry REDIS_PASSWORD of vexil-engine-secrets");
  return problems;
}

/**
 * The compose file gives each Vexil service only what it reads, and never starts on a password it
 * spells out: every password and key is `${NAME:?message}`, required from deploy/.env.
 */
export function checkCompose({ compose }: DeployFiles): string[] {
  const problems: string[] = [];
  for (const [name, definition] of Object.entries<Doc>(compose.doc.services ?? {})) {
    const service = vexilService(definition.image ?? "");
    if (!service) continue;
    const schema = serviceSettings[service];
    for (const variable of Object.keys(definition.environment ?? {})) {
      if (!schema || !(variable in schema.shape))
        problems.push(`${compose.file}: ${name} is given ${variable}, which ${service} does not read`);
    }
  }
  for (const [, variable, operator] of compose.text.matchAll(/\$\{(\w*(?:PASSWORD|ENCRYPTION_KEY))(:?[-?+]|\})/g)) {
    if (operator !== ":?")
      problems.push(`${compose.file}: \${${variable}} must be \${${variable}:?message}: compose would start without it, or on a default`);
  }
  return problems;
}

/** The CI workflows are valid GitHub Actions workflows and run what the project's CI is. */
export function checkWorkflows({ workflows }: DeployFiles): string[] {
  const problems: string[] = [];
  for (const { file, text } of workflows) {
    for (const error of validateWorkflow(text).errors) {
      problems.push(`${file}: ${error.title}${"path" in error ? ` at ${error.path}` : ""}${error.detail ? `: ${error.detail}` : ""}`);
    }
  }
  const all = workflows.map(({ text }) => text).join("\n");
  if (!/^\s*run: \.ci\/run\s*$/m.test(all)) problems.push(".github/workflows: no step runs .ci/run");
  if (!/^\s*run: npm run test:mongo\s*$/m.test(all)) problems.push(".github/workflows: no step runs npm run test:mongo");
  return problems;
}

/** Every rule, in the order a reader fixes them. */
export async function checkDeploy(files: DeployFiles): Promise<string[]> {
  return [
    ...checkReferences(files),
    ...(await checkSchemas(files)),
    ...checkDisruptionBudgets(files),
    ...checkEnvironment(files),
    ...checkProbes(files),
    ...checkNatsAuthentication(files),
    ...checkSecretValues(files),
    ...checkCompose(files),
    ...checkWorkflows(files),
  ];
}
