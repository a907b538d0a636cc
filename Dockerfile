# syntax=docker/dockerfile:1
#
# One build, one image target per Vexil service:
#   docker build --target admin -t vexil-admin .
# Targets: admin, frontend-eval, signal-ingest, addon-delivery, gateway.
# Without --target the last stage (gateway) is built.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
# manifests: the lockfile and every workspace's package.json, nothing else.
# Source edits change this stage's input but not its output, so the `npm ci`
# layers below stay cached until a manifest really changes. Collecting them
# with find (rather than one COPY per workspace) keeps new workspaces working.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json -delete \
 && find . -type d -empty -delete

# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
# swagger-ui-dist pulls in @scarf/scarf, whose install script reports to an
# analytics endpoint; turbo has telemetry too. Builds should not phone home.
ENV SCARF_ANALYTICS=false \
    DO_NOT_TRACK=1 \
    TURBO_TELEMETRY_DISABLED=1 \
    NPM_CONFIG_AUDIT=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app

# ---------------------------------------------------------------------------
# build: all dependencies (tsc, turbo), then `turbo run build` (tsc per
# package into dist/). Only the dist/ folders leave this stage, gathered
# under /dist-tree with their workspace paths kept.
FROM base AS build
COPY --from=manifests /app/ ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
RUN npm run build \
 && mkdir /dist-tree \
 && find contracts libs services -mindepth 1 -maxdepth 2 -type d -name dist \
      -exec cp -r --parents {} /dist-tree/ \;

# ---------------------------------------------------------------------------
# prod-deps: a clean production install. A fresh `npm ci --omit=dev` is used
# instead of `npm prune` on the build tree: it keeps the workspace symlinks
# (node_modules/@vexil/* -> ../../libs/*) and leaves no dev leftovers in the
# nested workspace node_modules folders.
FROM base AS prod-deps
COPY --from=manifests /app/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev

# ---------------------------------------------------------------------------
# runtime: shared by every service target. All five images carry the same
# tree (the gateway depends on every service package anyway), so they share
# these layers and differ only in PORT and CMD.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    LOG_LEVEL=info \
    DATA_DIR=/data
WORKDIR /app
# The embedded store writes to DATA_DIR when MONGODB_URL is not set; the app
# itself stays root-owned and read-only for the service user.
RUN mkdir -p /data && chown node:node /data
COPY --from=prod-deps /app/ ./
COPY --from=build /dist-tree/ ./
COPY deploy/healthcheck.mjs deploy/healthcheck.mjs
USER node
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs"]

# ---------------------------------------------------------------------------
FROM runtime AS admin
ENV PORT=4243
EXPOSE 4243
CMD ["node", "services/admin/dist/main.js"]

FROM runtime AS frontend-eval
ENV PORT=4244
EXPOSE 4244
CMD ["node", "services/frontend-eval/dist/main.js"]

FROM runtime AS signal-ingest
ENV PORT=4245
EXPOSE 4245
CMD ["node", "services/signal-ingest/dist/main.js"]

FROM runtime AS addon-delivery
ENV PORT=4246
EXPOSE 4246
CMD ["node", "services/addon-delivery/dist/main.js"]

# Last, so it is the default target. With GATEWAY_MODE unset the gateway runs
# every service in one process on embedded engines (keep /data on a volume);
# with GATEWAY_MODE=cluster it proxies to the other services.
FROM runtime AS gateway
ENV PORT=4242
EXPOSE 4242
CMD ["node", "services/gateway/dist/main.js"]
