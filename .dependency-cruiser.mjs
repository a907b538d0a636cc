/**
 * Layering and cycle rules, checked by `npm run check:deps` (part of `npm test`).
 * Services are independent deployables: they share code only through contracts/ and libs/.
 * The gateway is the one host that runs every service in one process, through each package's entry.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-folder-cycle",
      comment: "Folders of a package depend on each other one way; pass a narrow interface (a port) instead of importing back.",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-module-cycle",
      comment: "A module cycle makes load order decide what is defined.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "evaluator-is-pure",
      comment:
        "The evaluator runs on every request and in tests without servers: no network, disk, clock sources or other vexil packages with I/O.",
      severity: "error",
      from: { path: "^libs/evaluator/", pathNot: "\\.test\\.ts$" },
      to: {
        pathNot: ["^libs/evaluator/", "^contracts/"],
        dependencyTypesNot: ["type-only"],
        path: [
          "^libs/",
          "^services/",
          "^node:",
          "^(fs|net|http|https|http2|dgram|dns|tls|child_process|cluster|worker_threads)$",
          "node_modules/(nats|ioredis|redis|mongodb|express|pino|undici|@nats-io)/",
        ],
      },
    },
    {
      name: "actor-knows-no-http",
      comment: "Who acts is recorded by every slice, through HTTP or not (jobs, change requests): the Actor module knows no Express.",
      severity: "error",
      from: { path: "^services/admin/src/access/actor\\.ts$" },
      to: { path: "node_modules/(express|@types/express|@ts-rest)/" },
    },
    {
      name: "lib-not-to-service",
      comment: "contracts/ and libs/ serve every service and never know one.",
      severity: "error",
      from: { path: "^(contracts|libs)/" },
      to: { path: "^services/" },
    },
    {
      name: "service-not-to-service",
      comment: "A service never imports another; shared shapes live in contracts/, shared code in libs/.",
      severity: "error",
      from: { path: "^services/([^/]+)/", pathNot: "^services/gateway/" },
      to: { path: "^services/", pathNot: "^services/$1/" },
    },
    {
      name: "tests-drive-processes",
      comment: "The e2e tier starts the system as users run it and talks HTTP; importing a service would hide wiring bugs.",
      severity: "error",
      from: { path: "^test/", pathNot: "^test/deploy/" },
      to: { path: "^services/" },
    },
    {
      name: "deploy-checks-read-settings",
      comment:
        "The deployment checks read what each service reads from its environment (its settings schema) through the package entry, nothing else of it.",
      severity: "error",
      from: { path: "^test/deploy/" },
      to: { path: "^services/", pathNot: "^services/[^/]+/src/index\\.ts$" },
    },
    {
      name: "gateway-through-entry",
      comment: "The gateway hosts the services through their package entry, never their internals.",
      severity: "error",
      from: { path: "^services/gateway/" },
      to: { path: "^services/(?!gateway/)[^/]+/", pathNot: "^services/[^/]+/src/index\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      conditionNames: ["vexil-source", "import", "require", "node", "default", "types"],
      exportsFields: ["exports"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".json"],
    },
  },
};
