import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine } from "@vexil/store";
import { tempEngine, type TempEngine } from "@vexil/store/testing";
import { systemActor } from "../access/actor.js";
import { EventStore } from "./event-store.js";
import { EventStreamHub, lastEventIdFrom, type EventStreamOptions } from "./event-stream.js";
import { UnitOfWork } from "./unit-of-work.js";

interface Message {
  id?: string;
  event?: string;
  data?: unknown;
}

/** Reads a server-sent event stream into messages (comments kept as `{ event: ":" }`). */
async function open(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const reader = res.body!.getReader();
  const messages: Message[] = [];
  let buffer = "";
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return true;
      buffer += new TextDecoder().decode(value);
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: Message = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) message.event = ":";
          else if (line.startsWith("id: ")) message.id = line.slice(4);
          else if (line.startsWith("event: ")) message.event = line.slice(7);
          else if (line.startsWith("data: ")) message.data = JSON.parse(line.slice(6));
        }
        if (message.event || message.data !== undefined) messages.push(message);
      }
    }
  })();
  return { res, messages, ended, cancel: () => reader.cancel().catch(() => undefined) };
}

const featuresOf = (messages: Message[]) => messages.filter((m) => !m.event).map((m) => (m.data as { featureName: string }).featureName);

describe("EventStreamHub", () => {
  let temp: TempEngine;
  let engine: StoreEngine;
  let events: EventStore;
  let unitOfWork: UnitOfWork;
  let hub: EventStreamHub;
  let server: Server;
  let url: string;
  const streams: Array<{ cancel(): Promise<unknown> }> = [];

  async function serve(options: EventStreamOptions = {}) {
    hub = new EventStreamHub(
      { onCommitted: (l) => unitOfWork.onCommitted(l), since: (a, l) => events.since(a, l), latestId: () => events.latestId() },
      // "secret" stands for a private project the caller is no member of.
      async (_req, project) => project !== "secret",
      options,
    );
    hub.start();
    const app = express();
    app.get("/stream", (req, res) => {
      const project = typeof req.query.project === "string" ? req.query.project : undefined;
      hub.connect(req, res, { lastEventId: lastEventIdFrom(req.get("last-event-id")), project });
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`;
  }

  const stream = async (query = "", headers: Record<string, string> = {}) => {
    const opened = await open(`${url}${query}`, headers);
    streams.push(opened);
    await expect.poll(() => opened.messages.some((m) => m.event === "connected")).toBe(true);
    return opened;
  };
  const write = (featureName: string, project: string | null = "default") =>
    unitOfWork.run((tx) => tx.record({ type: "feature-updated", actor: systemActor, project, featureName }));

  beforeEach(async () => {
    temp = await tempEngine("event-stream");
    engine = temp.engine;
    events = await EventStore.create(engine);
    unitOfWork = new UnitOfWork(engine, events);
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) await s.cancel();
    hub.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await temp.remove();
  });

  it("sends each commit the caller may see, in commit order, as the event log shows it", async () => {
    await serve();
    await write("before");
    const all = await stream();
    const onlyTeam = await stream("?project=team");
    expect(all.res.headers.get("content-type")).toBe("text/event-stream");
    expect(all.messages[0]).toEqual({ id: "1", event: "connected", data: { latestEventId: 1, resumed: false } });

    await write("a");
    await write("hidden", "secret");
    await write("b", "team");
    await write("global", null);
    await expect.poll(() => featuresOf(all.messages)).toEqual(["a", "b", "global"]);
    await expect.poll(() => featuresOf(onlyTeam.messages)).toEqual(["b"]);
    const entry = all.messages.find((m) => !m.event && (m.data as { featureName: string }).featureName === "b")!;
    expect(entry.id).toBe("4");
    expect(entry.data).toMatchObject({ id: 4, type: "feature-updated", project: "team", createdBy: "system" });
  });

  it("resumes from Last-Event-ID with the events missed, and says reset when they are too many", async () => {
    await serve({ maxReplay: 3 });
    for (const name of ["one", "two", "three", "four", "five"]) await write(name);

    const resumed = await stream("", { "last-event-id": "2" });
    expect(resumed.messages[0]).toEqual({ event: "connected", data: { latestEventId: 5, resumed: true } });
    await expect.poll(() => featuresOf(resumed.messages)).toEqual(["three", "four", "five"]);
    await write("six");
    await expect.poll(() => featuresOf(resumed.messages)).toEqual(["three", "four", "five", "six"]);

    const tooFarBehind = await stream("", { "last-event-id": "1" });
    expect(tooFarBehind.messages.map((m) => m.event)).toEqual(["connected", "reset"]);
    expect(tooFarBehind.messages[0]).toMatchObject({ id: "6", data: { resumed: false } });
    // An id from another installation (ahead of this log) cannot be resumed either.
    const unknown = await stream("", { "last-event-id": "99" });
    expect(unknown.messages.map((m) => m.event)).toEqual(["connected", "reset"]);
  });

  it("ends, saying so, the streams whose caller is no longer signed in, and only those", async () => {
    const signedOut = new Set<string>();
    await serve({ stillSignedIn: async (req) => !signedOut.has(req.get("x-caller") ?? ""), recheckMs: 20 });
    const leaving = await stream("", { "x-caller": "leaving" });
    const staying = await stream("", { "x-caller": "staying" });
    signedOut.add("leaving");
    await leaving.ended;
    expect(leaving.messages.at(-1)).toEqual({ event: "ended", data: { message: expect.any(String) } });
    await write("after");
    await expect.poll(() => featuresOf(staying.messages)).toEqual(["after"]);
    expect(hub.size).toBe(1);
  });

  it("keeps quiet streams alive with comments", async () => {
    await serve({ keepAliveMs: 20 });
    const quiet = await stream();
    await expect.poll(() => quiet.messages.filter((m) => m.event === ":").length).toBeGreaterThanOrEqual(2);
  });

  it("ends open streams and stops listening to commits when stopped, and listens again when started", async () => {
    await serve();
    const open1 = await stream();
    const open2 = await stream("?project=default");
    expect(hub.size).toBe(2);
    hub.stop();
    await expect(open1.ended).resolves.toBe(true);
    await expect(open2.ended).resolves.toBe(true);
    expect(hub.size).toBe(0);

    // A commit while stopped reaches no listener; after a new start a new stream gets the next one.
    await write("while-stopped");
    hub.start();
    const again = await stream();
    await write("after-restart");
    await expect.poll(() => featuresOf(again.messages)).toEqual(["after-restart"]);
  });

  it("reads Last-Event-ID only when it is an event id", () => {
    expect(lastEventIdFrom("42")).toBe(42);
    expect(lastEventIdFrom(" 7 ")).toBe(7);
    expect(lastEventIdFrom(undefined)).toBeUndefined();
    expect(lastEventIdFrom("abc")).toBeUndefined();
    expect(lastEventIdFrom("-1")).toBeUndefined();
  });
});
