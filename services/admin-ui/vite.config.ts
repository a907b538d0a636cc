import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

// The contracts are bundled from their TypeScript sources ("vexil-source"), so the UI needs no
// separate build of them. `npm run dev` proxies the API to a gateway started with `npm start`.
const apiPrefixes = ["/api", "/auth", "/logout", "/invite"];

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ["vexil-source", ...defaultClientConditions] },
  build: { outDir: "dist", emptyOutDir: true, reportCompressedSize: true, chunkSizeWarningLimit: 500 },
  server: { proxy: Object.fromEntries(apiPrefixes.map((prefix) => [prefix, "http://localhost:4242"])) },
});
