import express, { type Router } from "express";
import { absolutePath } from "swagger-ui-dist";
import { buildOpenApiDocument } from "@vexil/contracts";

/** A page that renders the OpenAPI document with the bundled Swagger UI (no network needed). */
const docsPage = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Vexil API</title>
    <link rel="stylesheet" type="text/css" href="/docs/assets/swagger-ui.css">
    <link rel="stylesheet" type="text/css" href="/docs/assets/index.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

const initializer = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/docs/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    // Over a hundred operations: list the surfaces collapsed, with a filter by name.
    docExpansion: "none",
    filter: true,
    presets: [SwaggerUIBundle.presets.apis],
    // Without the standalone preset's top bar: its logo is an SVG with an inline style, which the CSP refuses,
    // and its box for loading another document has no use here.
    layout: "BaseLayout",
    // No badge from the public validator: the page loads nothing from elsewhere (its CSP allows only this server).
    validatorUrl: null,
  });
};
`;

export function createDocsRouter(): Router {
  const document = JSON.stringify(buildOpenApiDocument());
  const router = express.Router();
  router.get("/docs/openapi.json", (_req, res) => {
    res.type("application/json").send(document);
  });
  router.get(["/docs", "/docs/"], (_req, res) => {
    res.type("html").send(docsPage);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(initializer);
  });
  router.use("/docs/assets", express.static(absolutePath(), { index: false }));
  return router;
}
