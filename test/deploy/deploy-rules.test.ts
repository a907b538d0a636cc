import { beforeAll, describe, expect, it } from "vitest";
import { type DeployFiles, type Doc, loadDeployFiles } from "./deploy-files.js";
import {
  checkCompose,
  checkDeploy,
  checkDisruptionBudgets,
  checkEnvironment,
  checkNatsAuthentication,
  checkProbes,
  checkSchemas,
  checkSecretValues,
  checkWorkflows,
} from "./deploy-rules.js";

let shipped: DeployFiles;
beforeAll(() => {
  shipped = loadDeployFiles();
});

/** A copy of the shipped files, to break one way. */
const copy = (): DeployFiles => structuredClone(shipped);
const find = (files: DeployFiles, kind: string, name: string): Doc => {
  const manifest = files.manifests.find(({ doc }) => doc.kind === kind && doc.metadata.name === name);
  if (!manifest) throw new Error(`no ${kind} ${name}`);
  return manifest.doc;
};
const container = (files: DeployFiles, name: string): Doc => find(files, "Deployment", name).spec.template.spec.containers[0];
const secret = (files: DeployFiles, name: string): Record<string, string> => find(files, "Secret", name).stringData;

describe("the deployment files", () => {
  it("keep every rule as shipped, with the secrets generate-secrets.sh writes", async () => {
    expect(await checkDeploy(shipped)).toEqual([]);
    expect(find(shipped, "Deployment", "admin").spec.replicas).toBeGreaterThan(1);
    expect(find(shipped, "Deployment", "signal-ingest").spec.replicas).toBeGreaterThan(1);
  });

  it("follow the Kubernetes API schemas", async () => {
    const files = copy();
    find(files, "Deployment", "admin").spec.replicas = "two";
    const problems = await checkSchemas(files);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^admin\.yaml: Deployment admin: .*replicas/);
  });

  it("need a disruption budget for every workload with more than one pod, one that lets a drain take a pod", () => {
    const files = copy();
    files.manifests = files.manifests.filter(
      ({ doc }) => !(doc.kind === "PodDisruptionBudget" && ["admin", "frontend-eval"].includes(doc.metadata.name)),
    );
    expect(checkDisruptionBudgets(files)).toEqual([
      "admin.yaml: Deployment admin runs 2 replicas and no PodDisruptionBudget selects its pods",
      // frontend-eval has no replicas field: its autoscaler's minimum counts.
      "frontend-eval.yaml: Deployment frontend-eval runs 2 replicas and no PodDisruptionBudget selects its pods",
    ]);

    const blocking = copy();
    find(blocking, "PodDisruptionBudget", "signal-ingest").spec.minAvailable = 2;
    expect(checkDisruptionBudgets(blocking)).toEqual([
      "pod-disruption-budgets.yaml: PodDisruptionBudget signal-ingest keeps 2 of 2 pods of signal-ingest: it blocks every drain",
    ]);
  });

  it("give each process only variables it reads, credentials only from Secrets, values it accepts", () => {
    const files = copy();
    container(files, "gateway").env.push({
      name: "MONGODB_URL",
      valueFrom: { secretKeyRef: { name: "vexil-secrets", key: "MONGODB_URL" } },
    });
    container(files, "frontend-eval").envFrom = [{ configMapRef: { name: "vexil-config" } }, { secretRef: { name: "vexil-secrets" } }];
    const ingest = container(files, "signal-ingest").env.find((v: Doc) => v.name === "NATS_URL");
    delete ingest.valueFrom;
    ingest.value = "nats://nats:4222";
    find(files, "ConfigMap", "vexil-config").data.NATS_STREAM_REPLICAS = "three";
    const problems = checkEnvironment(files);
    expect(problems).toContain("gateway.yaml: Deployment gateway container gateway is given MONGODB_URL, which gateway does not read");
    expect(problems).toContain(
      "frontend-eval.yaml: Deployment frontend-eval container frontend-eval is given ADDONS_ALLOW_PRIVATE_URLS, which frontend-eval does not read",
    );
    expect(problems).toContain(
      "frontend-eval.yaml: Deployment frontend-eval container frontend-eval is given MONGODB_URL, which frontend-eval does not read",
    );
    expect(problems).toContain(
      "signal-ingest.yaml: Deployment signal-ingest container signal-ingest takes NATS_URL from a literal value: it carries a credential, so it comes from a Secret",
    );
    expect(problems.filter((p) => p.includes("refuses its settings: NATS_STREAM_REPLICAS"))).toHaveLength(4);
  });

  it("probe readiness on /ready and liveness on /health, on a port the container listens on", () => {
    const files = copy();
    container(files, "gateway").readinessProbe.httpGet.path = "/health";
    container(files, "admin").livenessProbe.httpGet.port = 9999;
    delete container(files, "addon-delivery").startupProbe;
    expect(checkProbes(files)).toEqual([
      "gateway.yaml: Deployment gateway container gateway: readinessProbe asks /health, not /ready",
      "admin.yaml: Deployment admin container admin: livenessProbe port 9999 is none of its ports",
      "addon-delivery.yaml: Deployment addon-delivery container addon-delivery has no startupProbe on /health",
    ]);
  });

  it("run NATS with authentication from a Secret or a required setting, and connect with it", () => {
    const files = copy();
    files.natsConfigs[1].text = files.natsConfigs[1].text.replace(/authorization \{[^}]*\}/, "");
    files.natsConfigs[0].text = files.natsConfigs[0].text.replace("password: $NATS_PASSWORD", "password: s3cret");
    expect(checkNatsAuthentication(files)).toEqual([
      "deploy/nats.conf: the NATS configuration must take its user and password from environment variables ($NAME), never spell them out",
      "deploy/k8s/nats.yaml: the NATS configuration has no authorization block: any client may connect",
    ]);

    const plain = copy();
    const nats = find(plain, "StatefulSet", "nats").spec.template.spec.containers[0];
    nats.env = nats.env.map((v: Doc) => (v.name === "NATS_PASSWORD" ? { name: v.name, value: "s3cret" } : v));
    secret(plain, "vexil-secrets").NATS_URL = "nats://nats:4222";
    plain.compose.doc.services.admin.environment.NATS_URL = "nats://nats:4222";
    expect(checkNatsAuthentication(plain)).toEqual([
      "deploy/compose.yaml: admin's NATS_URL does not carry a user and a required password",
      "deploy/k8s/nats.yaml: the NATS server's NATS_PASSWORD does not come from a Secret",
      "vexil-secrets NATS_URL does not carry the NATS_USER and NATS_PASSWORD of vexil-engine-secrets",
    ]);
  });

  it("hold no placeholder secret, a key file mongod takes, and the engines' passwords in the URLs", () => {
    const files = copy();
    secret(files, "vexil-engine-secrets").MONGO_KEYFILE = "change-me-and-make-it-a-long-random-base64-string";
    secret(files, "vexil-secrets").INIT_ADMIN_PASSWORD = "unleash4all";
    secret(files, "vexil-secrets").INIT_CLIENT_API_TOKENS = "default:development.change-me-client-secret";
    secret(files, "vexil-secrets").REDIS_URL = "redis://:another-password@redis:6379";
    secret(files, "vexil-secrets").SECRETS_ENCRYPTION_KEY = "";
    expect(checkSecretValues(files)).toEqual([
      "kustomization.yaml: Secret vexil-secrets: INIT_CLIENT_API_TOKENS holds a placeholder; generate-secrets.sh writes random values",
      "kustomization.yaml: Secret vexil-secrets: INIT_ADMIN_PASSWORD holds a placeholder; generate-secrets.sh writes random values",
      "kustomization.yaml: Secret vexil-secrets: SECRETS_ENCRYPTION_KEY has an empty secret",
      "kustomization.yaml: Secret vexil-engine-secrets: MONGO_KEYFILE holds a placeholder; generate-secrets.sh writes random values",
      "kustomization.yaml: Secret vexil-engine-secrets: MONGO_KEYFILE is not a MongoDB key file (6 to 1024 base64 characters); mongod would refuse to start",
      "vexil-secrets REDIS_URL does not carry REDIS_PASSWORD of vexil-engine-secrets",
    ]);
  });

  it("keep compose from starting on a default password, and give each service only what it reads", () => {
    const files = copy();
    files.compose.text = files.compose.text.replace(/\$\{REDIS_PASSWORD:\?[^}]*\}/, "${REDIS_PASSWORD:-change-me-redis}");
    files.compose.doc.services.gateway.environment.REDIS_URL = "redis://redis:6379";
    expect(checkCompose(files)).toEqual([
      "deploy/compose.yaml: gateway is given REDIS_URL, which gateway does not read",
      "deploy/compose.yaml: ${REDIS_PASSWORD} must be ${REDIS_PASSWORD:?message}: compose would start without it, or on a default",
    ]);
  });

  it("keep the CI workflow valid and running .ci/run and the MongoDB suites", () => {
    const files = copy();
    files.workflows[0].text = files.workflows[0].text.replace(
      "runs-on: ubuntu-24.04\n    container:",
      "runs-on: ubuntu-24.04\n    needs-a-cluster: true\n    container:",
    );
    files.workflows[0].text = files.workflows[0].text.replace("run: npm run test:mongo", "run: npm test");
    const problems = checkWorkflows(files);
    expect(problems.some((p) => p.startsWith(".github/workflows/ci.yml: "))).toBe(true);
    expect(problems).toContain(".github/workflows: no step runs npm run test:mongo");
  });
});
