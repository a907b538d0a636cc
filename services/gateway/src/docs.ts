import { readFileSync } from "node:fs";
import path from "node:path";
import express, { type Router } from "express";
import { absolutePath } from "swagger-ui-dist";
import { buildOpenApiDocument } from "@vexil/contracts";

/** A page that renders the OpenAPI document with the bundled Swagger UI (no network needed). */
function docsPage(): string {
  return readFileSync(path.join(absolutePath(), "index.html"), "utf8")
    .replaceAll("./", "/docs/assets/")
    .replace("<title>Swagger UI</title>", "<title>Vexil API</title>")
    .replace(
      '<script src="/docs/assets/swagger-initializer.js" charset="UTF-8"> </script>',
      '<script src="/docs/init.js" charset="UTF-8"></script>',
    );
}

const initializer = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/docs/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
  });
};
`;

export function createDocsRouter(): Router {
  const document = JSON.stringify(buildOpenApiDocument());
  const page = docsPage();
  const router = express.Router();
  router.get("/docs/openapi.json", (_req, res) => {
    res.type("application/json").send(document);
  });
  router.get(["/docs", "/docs/"], (_req, res) => {
    res.type("html").send(page);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(initializer);
  });
  router.use("/docs/assets", express.static(absolutePath(), { index: false }));
  return router;
}
