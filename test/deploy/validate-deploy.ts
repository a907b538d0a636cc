/**
 * `npm run validate:deploy -w @vexil/test` (`.ci/run` runs it): the deployment files checked
 * without a cluster, an engine or the network, against the rules in `deploy-rules.ts`: the
 * Kubernetes API schemas, disruption budgets, each service given only what it reads, probes, NATS
 * authentication, the secrets, the compose file's required passwords and the CI workflow.
 * Run it before `kubectl apply -k deploy/k8s`: it checks your secrets.env and engine-secrets.env.
 */
import { checkDeploy } from "./deploy-rules.js";
import { loadDeployFiles } from "./deploy-files.js";

const files = loadDeployFiles();
const problems = await checkDeploy(files);
if (problems.length > 0) {
  console.error(`deploy: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
console.log(
  `deploy: ${files.manifests.length} Kubernetes manifests (secrets from ${files.secretsSource}), ${files.natsConfigs.length} NATS ` +
    `configurations, ${files.compose.file} and ${files.workflows.length} workflow(s) keep every rule`,
);
