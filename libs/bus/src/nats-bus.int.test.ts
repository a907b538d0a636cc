import { type NatsConnection, connect, nuid } from "nats";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EventMessage, Transport } from "./bus.js";
import { createNatsTransport } from "./nats-bus.js";
import { describeTransportContract } from "./transport.contract.js";

const servers = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const admin: NatsConnection | null = await connect({ servers, timeout: 1000, reconnect: false }).catch(() => null);
if (!admin) console.warn(`skipped: NATS not reachable at ${servers}`);

// Streams and subjects are unique to this file's run, so parallel test files never collide.
const contractStreams: string[] = [];
if (admin) {
  describeTransportContract(
    "nats",
    async (logger) => {
      const events = `test_${nuid.next()}`;
      contractStreams.push(events);
      const transport = await createNatsTransport({ servers, streamName: events, streamSubjects: [`${events}.>`], logger });
      return { transport, events, notices: `note.${events}` };
    },
    async () => {
      const jsm = await admin.jetstreamManager();
      await Promise.all(contractStreams.map((name) => jsm.streams.delete(name)));
    },
  );
}

const stream = `test_${nuid.next()}`;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };
const startBus = () => createNatsTransport({ servers, streamName: stream, streamSubjects: [`${stream}.>`], logger });

/** What NATS alone shows: the stream it creates, a restart of the process, the server's view of a consumer. */
describe.skipIf(!admin)("nats bus", () => {
  let bus: Transport;
  beforeAll(async () => {
    bus = await startBus();
  });
  afterAll(async () => {
    await bus?.close();
    await admin!.jetstreamManager().then((jsm) => jsm.streams.delete(stream));
    await admin!.close();
  });

  it("creates the stream with file storage and a duplicate window", async () => {
    const info = await (await admin!.jetstreamManager()).streams.info(stream);
    expect(info.config).toMatchObject({ subjects: [`${stream}.>`], storage: "file", duplicate_window: 120_000_000_000 });
  });

  it("resumes a durable consumer after a process restart without loss or re-handling", async () => {
    const subject = `${stream}.resume`;
    const handled: EventMessage[] = [];
    const record = (msg: EventMessage) => void handled.push(msg);
    for (const id of ["r1", "r2", "r3"]) await bus.publishEvent(subject, { id }, { msgId: id });

    const firstProcess = await startBus();
    const first = await firstProcess.consume("resume", subject, record);
    await vi.waitFor(() => expect(handled).toHaveLength(3));
    await first.stop();
    await firstProcess.close();

    for (const id of ["r4", "r5"]) await bus.publishEvent(subject, { id }, { msgId: id });
    const secondProcess = await startBus();
    try {
      await secondProcess.consume("resume", subject, record);
      await bus.publishEvent(subject, { id: "marker" }, { msgId: "marker" });
      await vi.waitFor(() => expect(handled).toHaveLength(6));
      expect(handled.map((m) => [m.msgId, (m.data as { id: string }).id, m.deliveryCount])).toEqual([
        ["r1", "r1", 1],
        ["r2", "r2", 1],
        ["r3", "r3", 1],
        ["r4", "r4", 1],
        ["r5", "r5", 1],
        ["marker", "marker", 1],
      ]);
      expect(handled.map((m) => m.seq)).toEqual([...handled.map((m) => m.seq)].sort((a, b) => a - b));
    } finally {
      await secondProcess.close();
    }
  });

  it("leaves nothing pending on the server once an event is dead-lettered", async () => {
    const subject = `${stream}.poison`;
    const attempts: string[] = [];
    const deadLetters: Array<[string | undefined, number, string]> = [];
    await bus.publishEvent(subject, "poison", { msgId: "poison" });
    await bus.publishEvent(subject, "fine", { msgId: "fine" });
    const consumer = await bus.consume(
      "poison",
      subject,
      (msg) => {
        attempts.push(`${msg.data}#${msg.deliveryCount}`);
        if (msg.data === "poison") throw new Error("cannot handle");
      },
      {
        maxDeliver: 2,
        backoffMs: [50],
        onDeadLetter: (msg, err) => void deadLetters.push([msg.msgId, msg.deliveryCount, (err as Error).message]),
      },
    );
    await vi.waitFor(() => expect(attempts).toContain("fine#1"));
    await consumer.stop();
    expect(attempts).toEqual(["poison#1", "poison#2", "fine#1"]);
    expect(deadLetters).toEqual([["poison", 2, "cannot handle"]]);
    const info = await (await admin!.jetstreamManager()).consumers.info(stream, "poison");
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it("logged no errors along the way", () => {
    expect(logger.error).not.toHaveBeenCalled();
  });
});
