import { type NatsConnection, connect, nuid } from "nats";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BusRequestError, type EventMessage, type Transport } from "./bus.js";
import { createNatsTransport } from "./nats-bus.js";

const servers = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const admin: NatsConnection | null = await connect({ servers, timeout: 1000, reconnect: false }).catch(() => null);
if (!admin) console.warn(`skipped: NATS not reachable at ${servers}`);

// The stream and every subject are unique to this file, so parallel test files never collide.
const stream = `test_${nuid.next()}`;
const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() };
const startBus = () => createNatsTransport({ servers, streamName: stream, streamSubjects: [`${stream}.>`], logger });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

  it("delivers notifications to wildcard subscribers", async () => {
    const received: Array<[unknown, string]> = [];
    const star = bus.subscribe(`note.${stream}.*`, (payload, subject) => void received.push([payload, subject]));
    const tail = bus.subscribe(`note.${stream}.>`, (payload, subject) => void received.push([payload, `>${subject}`]));
    bus.publish(`note.${stream}.production`, { revision: 7 });
    bus.publish(`note.${stream}.a.b`, null);
    await vi.waitFor(() => expect(received).toHaveLength(3));
    expect(received).toEqual(
      expect.arrayContaining([
        [{ revision: 7 }, `note.${stream}.production`],
        [{ revision: 7 }, `>note.${stream}.production`],
        [null, `>note.${stream}.a.b`],
      ]),
    );
    star.unsubscribe();
    tail.unsubscribe();
    expect(() => bus.publish(`note.${stream}.*`, 1)).toThrow(TypeError);
  });

  it("answers requests and reports handler errors, missing responders and timeouts", async () => {
    const subject = `rpc.${stream}`;
    const sub = bus.reply(`${subject}.*`, (payload, s) => {
      if (s.endsWith(".fail")) throw new Error("token store offline");
      if (s.endsWith(".hang")) return new Promise(() => {});
      return { echo: payload };
    });
    await expect(bus.request(`${subject}.ok`, { token: "t" })).resolves.toEqual({ echo: { token: "t" } });
    const failure = await bus.request(`${subject}.fail`, {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BusRequestError);
    expect(failure).toMatchObject({ code: "remote", message: "token store offline", remoteName: "Error" });
    await expect(bus.request(`${subject}.hang`, {}, { timeoutMs: 200 })).rejects.toMatchObject({ code: "timeout" });
    sub.unsubscribe();
    await expect(bus.request(`${subject}.ok`, {}, { timeoutMs: 1000 })).rejects.toMatchObject({ code: "no-responders" });
  });

  it("dedupes events by msgId and rejects subjects outside the stream", async () => {
    const first = await bus.publishEvent(`${stream}.dedupe`, { n: 1 }, { msgId: "dup-1" });
    const again = await bus.publishEvent(`${stream}.dedupe`, { n: 1 }, { msgId: "dup-1" });
    expect(first.duplicate).toBe(false);
    expect(again).toEqual({ seq: first.seq, duplicate: true });
    await expect(bus.publishEvent(`elsewhere.${stream}`, {}, { msgId: "x" })).rejects.toThrow();
    await expect(bus.publishEvent(`${stream}.dedupe`, {}, { msgId: "" })).rejects.toThrow(/msgId/);
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
      await vi.waitFor(() => expect(handled).toHaveLength(5));
      await sleep(300);
      expect(handled.map((m) => [m.msgId, (m.data as { id: string }).id, m.deliveryCount])).toEqual([
        ["r1", "r1", 1],
        ["r2", "r2", 1],
        ["r3", "r3", 1],
        ["r4", "r4", 1],
        ["r5", "r5", 1],
      ]);
      expect(handled.map((m) => m.seq)).toEqual([...handled.map((m) => m.seq)].sort((a, b) => a - b));
    } finally {
      await secondProcess.close();
    }
  });

  it("naks a failed event, redelivers it after the backoff and keeps later events behind it", async () => {
    const subject = `${stream}.retry`;
    const attempts: Array<{ id: string | undefined; count: number; at: number }> = [];
    let failuresLeft = 2;
    await bus.publishEvent(subject, 1, { msgId: "flaky" });
    await bus.publishEvent(subject, 2, { msgId: "next" });
    const consumer = await bus.consume(
      "retry",
      subject,
      (msg) => {
        attempts.push({ id: msg.msgId, count: msg.deliveryCount, at: Date.now() });
        if (msg.msgId === "flaky" && failuresLeft-- > 0) throw new Error("webhook down");
      },
      { backoffMs: [300, 600] },
    );
    await vi.waitFor(() => expect(attempts).toHaveLength(4), { timeout: 5000 });
    await consumer.stop();
    expect(attempts.map((a) => [a.id, a.count])).toEqual([
      ["flaky", 1],
      ["flaky", 2],
      ["flaky", 3],
      ["next", 1],
    ]);
    expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(250);
    expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(550);
  });

  it("terminates an event after maxDeliver attempts and hands it to onDeadLetter", async () => {
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
    await sleep(300);
    await consumer.stop();
    expect(attempts).toEqual(["poison#1", "poison#2", "fine#1"]);
    expect(deadLetters).toEqual([["poison", 2, "cannot handle"]]);
    const info = await (await admin!.jetstreamManager()).consumers.info(stream, "poison");
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it("runs up to `concurrency` handlers at once", async () => {
    const subject = `${stream}.parallel`;
    for (let i = 0; i < 6; i++) await bus.publishEvent(subject, i, { msgId: `p${i}` });
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    const consumer = await bus.consume(
      "parallel",
      subject,
      async (msg) => {
        peak = Math.max(peak, ++inFlight);
        await sleep(100);
        inFlight--;
        done.push(msg.data as number);
      },
      { concurrency: 3 },
    );
    await vi.waitFor(() => expect(done).toHaveLength(6));
    await consumer.stop();
    expect(peak).toBe(3);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("refuses to reuse a durable with another filter", async () => {
    const consumer = await bus.consume("filtered", `${stream}.one`, () => {});
    await consumer.stop();
    await expect(bus.consume("filtered", `${stream}.two`, () => {})).rejects.toThrow(/filters/);
  });

  it("logged no errors along the way", () => {
    expect(logger.error).not.toHaveBeenCalled();
  });
});
