/**
 * Validates deploy/k8s without a cluster and without network: every document of every resource
 * kustomization.yaml lists is checked against the Kubernetes API schemas shipped in the
 * `kubernetes-models` package, and every Secret and ConfigMap key a workload reads must exist.
 * `npm run validate:deploy -w @vexil/test`; `.ci/run` runs it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy/k8s");
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

/** The model class for an apiVersion and kind: `apps/v1` + `Deployment` → kubernetes-models/apps/v1/Deployment. */
async function modelFor({ apiVersion, kind }: Manifest): Promise<new (data: object) => { validate(): void }> {
  const module = await import(`kubernetes-models/${apiVersion}/${kind}`).catch(() => {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  });
  return module[kind] ?? module.default;
}

/** Every `secretKeyRef`/`configMapKeyRef` and `secretRef`/`configMapRef` in an object, wherever it is nested. */
function references(node: unknown, found: Array<{ kind: "Secret" | "ConfigMap"; name: string; key?: string }> = []) {
  if (Array.isArray(node)) node.forEach((item) => references(item, found));
  else if (node && typeof node === "object") {
    for (const [field, value] of Object.entries(node)) {
      const ref = value as { name?: string; key?: string };
      if (field === "secretKeyRef" || field === "secretRef") found.push({ kind: "Secret", name: ref.name!, key: ref.key });
      else if (field === "configMapKeyRef" || field === "configMapRef") found.push({ kind: "ConfigMap", name: ref.name!, key: ref.key });
      else if (field === "secret" && ref && typeof ref === "object" && "secretName" in ref) {
        found.push({ kind: "Secret", name: (ref as { secretName: string }).secretName });
      } else references(value, found);
    }
  }
  return found;
}

const problems: string[] = [];
const kustomization = parse(readFileSync(path.join(dir, "kustomization.yaml"), "utf8")) as { resources: string[] };
const onDisk = readdirSync(dir).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
for (const file of onDisk) if (!kustomization.resources.includes(file)) problems.push(`${file} is not listed in kustomization.yaml`);

const manifests: Array<{ file: string; doc: Manifest }> = [];
for (const file of kustomization.resources) {
  const documents = parseAllDocuments(readFileSync(path.join(dir, file), "utf8"));
  for (const document of documents) {
    if (document.errors.length > 0) problems.push(`${file}: ${document.errors.map((e) => e.message).join("; ")}`);
    const doc = document.toJS() as Manifest | null;
    if (doc) manifests.push({ file, doc });
  }
}

for (const { file, doc } of manifests) {
  const where = `${file}: ${doc.kind} ${doc.metadata?.name}`;
  try {
    const Model = await modelFor(doc);
    new Model(doc).validate();
  } catch (err) {
    problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const data = new Map(
  manifests
    .filter(({ doc }) => doc.kind === "Secret" || doc.kind === "ConfigMap")
    .map(({ doc }) => [
      `${doc.kind}/${doc.metadata.name}`,
      new Set(Object.keys({ ...(doc.data as object), ...(doc.stringData as object) })),
    ]),
);
for (const { file, doc } of manifests) {
  for (const ref of references(doc.spec)) {
    const keys = data.get(`${ref.kind}/${ref.name}`);
    if (!keys) problems.push(`${file}: ${doc.kind} ${doc.metadata.name} reads ${ref.kind} ${ref.name}, which no manifest defines`);
    else if (ref.key && !keys.has(ref.key))
      problems.push(`${file}: ${doc.kind} ${doc.metadata.name} reads ${ref.kind} ${ref.name} key ${ref.key}, which it lacks`);
  }
}

if (problems.length > 0) {
  console.error(`deploy/k8s: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
console.log(`deploy/k8s: ${manifests.length} manifests in ${kustomization.resources.length} files valid against the Kubernetes schemas`);
