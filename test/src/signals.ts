/**
 * Signal endpoints as the end-to-end tests set them up and send to them: through the admin API of
 * a running Vexil and `POST /api/signal-endpoint/<name>`, as an external system would.
 */
import { expect } from "vitest";
import type { TestSystem } from "./harness.js";

export interface CreatedEndpoint {
  id: number;
  name: string;
}

/** Sends a signal to `baseUrl` (the gateway, or a signal-ingest process of its own). */
export function sendSignal(
  baseUrl: string,
  name: string,
  { token, body, headers = {} }: { token?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${baseUrl}/api/signal-endpoint/${name}`, {
    method: "POST",
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body,
  });
}

export function signalAdmin(vexil: () => TestSystem) {
  return {
    async createEndpoint(name: string, body: Record<string, unknown> = {}): Promise<CreatedEndpoint> {
      const res = await vexil().api("/api/admin/signal-endpoints", { method: "POST", body: { name, ...body } });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as CreatedEndpoint;
    },

    async createToken(endpointId: number, name: string): Promise<string> {
      const res = await vexil().api(`/api/admin/signal-endpoints/${endpointId}/tokens`, { method: "POST", body: { name } });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { token: string }).token;
    },

    /**
     * Sends until accepted (202), waiting out the endpoint's one-signal-a-second budget when told
     * to (429). A loaded machine only makes the wait longer, so there is no deadline of its own:
     * the test's timeout bounds it.
     */
    async sendAccepted(name: string, token: string, payload: unknown): Promise<void> {
      for (;;) {
        const res = await sendSignal(vexil().url, name, { token, body: JSON.stringify(payload) });
        if (res.status === 202) return;
        expect(res.status, await res.text()).toBe(429);
        await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after")) * 1000));
      }
    },
  };
}
