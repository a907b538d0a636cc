import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BusRequestError, type BusLogger, type EventMessage, type Transport } from "./bus.js";

export interface TransportUnderTest {
  transport: Transport;
  /** Subject root the transport's event stream takes: events go to `${events}.<anything>`. */
  events: string;
  /** Subject root outside the stream, for notices and requests. */
  notices: string;
}

/** Opens a transport logging to `logger`; every call gets subject roots no other call shares. */
export type OpenTransport = (logger: BusLogger) => Promise<TransportUnderTest>;

const recordingLogger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn(), debug: vi.fn() });

/**
 * The behaviour every bus transport must share, so the in-memory bus `npm start` runs and the NATS
 * one of a deployment fail, retry and order alike. Checks nothing happened by a barrier: a marker
 * published after, and waited for, since each subject delivers in order.
 */
export function describeTransportContract(name: string, open: OpenTransport, closeAll: () => Promise<void> = async () => {}): void {
  describe(`Transport contract: ${name}`, () => {
    let bus: Transport;
    let events: string;
    let notices: string;
    const logger = recordingLogger();
    let count = 0;
    /** A subject and durable name of its own for each test. */
    const fresh = () => `t${++count}`;

    beforeAll(async () => {
      ({ transport: bus, events, notices } = await open(logger));
    });
    afterAll(async () => {
      await bus?.close();
      await closeAll();
    });

    describe("notifications", () => {
      it("delivers to exact, * and > subscribers with the concrete subject, and not to shorter patterns", async () => {
        const root = `${notices}.${fresh()}`;
        const seen: string[] = [];
        const subs = [
          bus.subscribe(`${root}.updated.production`, (_, subject) => void seen.push(`exact:${subject}`)),
          bus.subscribe(`${root}.updated.*`, (_, subject) => void seen.push(`star:${subject}`)),
          bus.subscribe(`${root}.>`, (_, subject) => void seen.push(`gt:${subject}`)),
          bus.subscribe(`${root}.*`, (_, subject) => void seen.push(`short:${subject}`)),
        ];
        bus.publish(`${root}.updated.production`, { revision: 1 });
        bus.publish(`${root}.marker`, null);
        await vi.waitFor(() => expect(seen).toContain(`short:${root}.marker`));
        expect(seen.filter((s) => !s.endsWith(".marker")).sort()).toEqual([
          `exact:${root}.updated.production`,
          `gt:${root}.updated.production`,
          `star:${root}.updated.production`,
        ]);
        subs.forEach((sub) => sub.unsubscribe());
      });

      it("carries payloads as JSON: a copy, dates as strings, undefined fields dropped", async () => {
        const subject = `${notices}.${fresh()}`;
        const received: unknown[] = [];
        const sub = bus.subscribe(subject, (payload) => void received.push(payload));
        const payload = { at: new Date(0), nested: { list: [1] }, skip: undefined };
        bus.publish(subject, payload);
        payload.nested.list.push(2);
        await vi.waitFor(() => expect(received).toHaveLength(1));
        expect(received).toEqual([{ at: "1970-01-01T00:00:00.000Z", nested: { list: [1] } }]);
        sub.unsubscribe();
      });

      it("stops delivering after unsubscribe, and a failing handler neither stops others nor goes unlogged", async () => {
        const subject = `${notices}.${fresh()}`;
        const good: unknown[] = [];
        const gone: unknown[] = [];
        const failing = bus.subscribe(subject, () => {
          throw new Error("boom");
        });
        const kept = bus.subscribe(subject, (payload) => void good.push(payload));
        bus.subscribe(subject, (payload) => void gone.push(payload)).unsubscribe();
        bus.publish(subject, 1);
        bus.publish(subject, "marker");
        await vi.waitFor(() => expect(good).toEqual([1, "marker"]));
        expect(gone).toEqual([]);
        await vi.waitFor(() =>
          expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ subject }), "notification handler failed"),
        );
        failing.unsubscribe();
        kept.unsubscribe();
        logger.error.mockClear();
      });

      it("refuses subjects NATS would refuse or misroute", () => {
        expect(() => bus.publish(`${notices}.*`, 1)).toThrow(/wildcards are not allowed/);
        expect(() => bus.publish("", 1)).toThrow(TypeError);
        expect(() => bus.subscribe(`${notices}..b`, () => {})).toThrow(/empty token/);
        expect(() => bus.subscribe(`${notices}.>.b`, () => {})).toThrow(/must be last/);
        expect(() => bus.subscribe(`${notices}.b*`, () => {})).toThrow(/whole token/);
      });
    });

    describe("request and reply", () => {
      it("returns the handler's reply, for a wildcard responder too", async () => {
        const root = `${notices}.${fresh()}`;
        const sub = bus.reply(`${root}.*`, (payload, subject) => ({ valid: (payload as { token: string }).token === "good", subject }));
        await expect(bus.request(`${root}.check`, { token: "good" })).resolves.toEqual({ valid: true, subject: `${root}.check` });
        await expect(bus.request(`${root}.check`, { token: "bad" })).resolves.toEqual({ valid: false, subject: `${root}.check` });
        sub.unsubscribe();
      });

      it("rejects with the handler's error name and message", async () => {
        const subject = `${notices}.${fresh()}`;
        const sub = bus.reply(subject, () => {
          const err = new Error("token store offline");
          err.name = "NotReady";
          throw err;
        });
        const err = await bus.request(subject, {}).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BusRequestError);
        expect(err).toMatchObject({ code: "remote", message: "token store offline", remoteName: "NotReady" });
        sub.unsubscribe();
      });

      it("rejects without responders, on timeout, and once the responder unsubscribed", async () => {
        const root = `${notices}.${fresh()}`;
        await expect(bus.request(`${root}.nobody`, {}, { timeoutMs: 2000 })).rejects.toMatchObject({ code: "no-responders" });
        const hanging = bus.reply(`${root}.slow`, () => new Promise(() => {}));
        await expect(bus.request(`${root}.slow`, {}, { timeoutMs: 100 })).rejects.toMatchObject({ code: "timeout" });
        hanging.unsubscribe();
        bus.reply(`${root}.gone`, () => "ok").unsubscribe();
        await expect(bus.request(`${root}.gone`, {}, { timeoutMs: 2000 })).rejects.toMatchObject({ code: "no-responders" });
      });
    });

    describe("events", () => {
      it("dedupes by msgId and refuses a missing msgId or a subject outside the stream", async () => {
        const subject = `${events}.${fresh()}`;
        const first = await bus.publishEvent(subject, { n: 1 }, { msgId: `${subject}-1` });
        expect(first.duplicate).toBe(false);
        expect(await bus.publishEvent(subject, { n: 1 }, { msgId: `${subject}-1` })).toEqual({ seq: first.seq, duplicate: true });
        const second = await bus.publishEvent(subject, { n: 2 }, { msgId: `${subject}-2` });
        expect(second).toEqual({ seq: expect.any(Number), duplicate: false });
        expect(second.seq).toBeGreaterThan(first.seq);
        await expect(bus.publishEvent(subject, {}, { msgId: "" })).rejects.toThrow(/msgId/);
        await expect(bus.publishEvent(`${notices}.${fresh()}`, {}, { msgId: "outside" })).rejects.toThrow();
      });

      it("delivers the filter's events in order, once each, and resumes a durable where it stopped", async () => {
        const root = `${events}.${fresh()}`;
        const durable = fresh();
        const handled: EventMessage[] = [];
        await bus.publishEvent(`${root}.a`, { n: 1 }, { msgId: `${root}-1` });
        await bus.publishEvent(`${events}.${fresh()}`, { n: 0 }, { msgId: `${root}-0` });
        await bus.publishEvent(`${root}.b`, { n: 2 }, { msgId: `${root}-2` });
        const first = await bus.consume(durable, `${root}.>`, (msg) => void handled.push(msg));
        await vi.waitFor(() => expect(handled).toHaveLength(2));
        await first.stop();
        expect(handled.map((m) => [m.subject, m.data, m.msgId, m.deliveryCount])).toEqual([
          [`${root}.a`, { n: 1 }, `${root}-1`, 1],
          [`${root}.b`, { n: 2 }, `${root}-2`, 1],
        ]);
        expect(handled[1].seq).toBeGreaterThan(handled[0].seq);

        await bus.publishEvent(`${root}.c`, { n: 3 }, { msgId: `${root}-3` });
        await bus.publishEvent(`${root}.marker`, null, { msgId: `${root}-marker` });
        const second = await bus.consume(durable, `${root}.>`, (msg) => void handled.push(msg));
        await vi.waitFor(() => expect(handled.map((m) => m.msgId)).toContain(`${root}-marker`));
        await second.stop();
        expect(handled.map((m) => m.msgId)).toEqual([`${root}-1`, `${root}-2`, `${root}-3`, `${root}-marker`]);
      });

      it("gives each durable its own position", async () => {
        const root = `${events}.${fresh()}`;
        await bus.publishEvent(`${root}.a`, 1, { msgId: `${root}-1` });
        const a: unknown[] = [];
        const b: unknown[] = [];
        const consumers = [
          await bus.consume(fresh(), `${root}.>`, (m) => void a.push(m.data)),
          await bus.consume(fresh(), `${root}.a`, (m) => void b.push(m.data)),
        ];
        await vi.waitFor(() => expect([a, b]).toEqual([[1], [1]]));
        await Promise.all(consumers.map((c) => c.stop()));
      });

      it("redelivers a failed event after its backoff and holds later events behind it", async () => {
        const subject = `${events}.${fresh()}`;
        const attempts: Array<{ id: string | undefined; count: number; at: number }> = [];
        let failuresLeft = 2;
        await bus.publishEvent(subject, 1, { msgId: `${subject}-flaky` });
        await bus.publishEvent(subject, 2, { msgId: `${subject}-next` });
        const consumer = await bus.consume(
          fresh(),
          subject,
          (msg) => {
            attempts.push({ id: msg.msgId, count: msg.deliveryCount, at: Date.now() });
            if (msg.msgId === `${subject}-flaky` && failuresLeft-- > 0) throw new Error("webhook down");
          },
          { backoffMs: [300, 600] },
        );
        await vi.waitFor(() => expect(attempts).toHaveLength(4), { timeout: 10_000 });
        await consumer.stop();
        expect(attempts.map((a) => [a.id, a.count])).toEqual([
          [`${subject}-flaky`, 1],
          [`${subject}-flaky`, 2],
          [`${subject}-flaky`, 3],
          [`${subject}-next`, 1],
        ]);
        // Lower bounds only: a backoff is a minimum wait, however slow the machine.
        expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(250);
        expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(550);
      });

      it("takes a backoff function of the attempt number", async () => {
        const subject = `${events}.${fresh()}`;
        const attempts: number[] = [];
        await bus.publishEvent(subject, 1, { msgId: `${subject}-1` });
        const consumer = await bus.consume(
          fresh(),
          subject,
          (msg) => {
            attempts.push(msg.deliveryCount);
            if (msg.deliveryCount < 3) throw new Error("not yet");
          },
          { backoffMs: (attempt) => attempt * 50 },
        );
        await vi.waitFor(() => expect(attempts).toEqual([1, 2, 3]));
        await consumer.stop();
      });

      it("dead-letters an event after maxDeliver attempts and moves on", async () => {
        const subject = `${events}.${fresh()}`;
        const handled: string[] = [];
        const deadLetters: Array<[string | undefined, number, string]> = [];
        await bus.publishEvent(subject, "poison", { msgId: `${subject}-poison` });
        await bus.publishEvent(subject, "fine", { msgId: `${subject}-fine` });
        await bus.publishEvent(subject, "marker", { msgId: `${subject}-marker` });
        const consumer = await bus.consume(
          fresh(),
          subject,
          (msg) => {
            handled.push(`${msg.data}#${msg.deliveryCount}`);
            if (msg.data === "poison") throw new Error("cannot handle");
          },
          {
            maxDeliver: 3,
            backoffMs: [20],
            onDeadLetter: (msg, err) => void deadLetters.push([msg.msgId, msg.deliveryCount, (err as Error).message]),
          },
        );
        await vi.waitFor(() => expect(handled).toContain("marker#1"));
        await consumer.stop();
        expect(handled).toEqual(["poison#1", "poison#2", "poison#3", "fine#1", "marker#1"]);
        expect(deadLetters).toEqual([[`${subject}-poison`, 3, "cannot handle"]]);
      });

      it("redelivers an event whose dead-letter callback failed", async () => {
        const subject = `${events}.${fresh()}`;
        let deadLetterCalls = 0;
        const recorded: number[] = [];
        await bus.publishEvent(subject, 1, { msgId: `${subject}-1` });
        const consumer = await bus.consume(
          fresh(),
          subject,
          () => {
            throw new Error("always");
          },
          {
            maxDeliver: 1,
            backoffMs: [20],
            onDeadLetter: (msg) => {
              if (++deadLetterCalls === 1) throw new Error("delivery log offline");
              recorded.push(msg.deliveryCount);
            },
          },
        );
        await vi.waitFor(() => expect(recorded).toEqual([2]));
        await consumer.stop();
        expect(logger.error).toHaveBeenCalledWith(expect.anything(), "dead-letter callback failed; event will be redelivered");
        logger.error.mockClear();
      });

      it("runs up to `concurrency` handlers at once", async () => {
        const subject = `${events}.${fresh()}`;
        for (let i = 0; i < 6; i++) await bus.publishEvent(subject, i, { msgId: `${subject}-${i}` });
        let inFlight = 0;
        let peak = 0;
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        const done: number[] = [];
        const consumer = await bus.consume(
          fresh(),
          subject,
          async (msg) => {
            peak = Math.max(peak, ++inFlight);
            await gate;
            inFlight--;
            done.push(msg.data as number);
          },
          { concurrency: 3 },
        );
        // The first three are held until all three are in: a fourth would have to wait for a slot.
        await vi.waitFor(() => expect(inFlight).toBe(3));
        release();
        await vi.waitFor(() => expect(done).toHaveLength(6));
        await consumer.stop();
        expect(peak).toBe(3);
        expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5]);
      });

      it("stop waits for the handler in flight and keeps its ack", async () => {
        const subject = `${events}.${fresh()}`;
        const durable = fresh();
        await bus.publishEvent(subject, "held", { msgId: `${subject}-held` });
        let release!: () => void;
        let started = false;
        const consumer = await bus.consume(durable, subject, () => {
          started = true;
          return new Promise<void>((resolve) => (release = resolve));
        });
        await vi.waitFor(() => expect(started).toBe(true));
        let stopped = false;
        const stopping = consumer.stop().then(() => (stopped = true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(stopped).toBe(false);
        release();
        await stopping;

        await bus.publishEvent(subject, "marker", { msgId: `${subject}-marker` });
        const later: unknown[] = [];
        const again = await bus.consume(durable, subject, (msg) => void later.push(msg.data));
        await vi.waitFor(() => expect(later).toContain("marker"));
        await again.stop();
        expect(later).toEqual(["marker"]);
      });

      it("refuses to reuse a durable with another filter, and bad consume options", async () => {
        const durable = fresh();
        const consumer = await bus.consume(durable, `${events}.${fresh()}`, () => {});
        await consumer.stop();
        await expect(bus.consume(durable, `${events}.${fresh()}`, () => {})).rejects.toThrow(/filters/);
        const subject = `${events}.${fresh()}`;
        await expect(bus.consume(fresh(), subject, () => {}, { maxDeliver: 0 })).rejects.toThrow(RangeError);
        await expect(bus.consume(fresh(), subject, () => {}, { concurrency: 1.5 })).rejects.toThrow(RangeError);
        await expect(bus.consume(fresh(), subject, () => {}, { backoffMs: [-1] })).rejects.toThrow(RangeError);
        await expect(bus.consume("", subject, () => {})).rejects.toThrow(TypeError);
      });
    });

    it("answers ping while open and refuses it once closed", async () => {
      const other = await open(recordingLogger());
      await expect(other.transport.ping()).resolves.toBeUndefined();
      await other.transport.close();
      await expect(other.transport.ping()).rejects.toThrow(/closed/);
    });

    it("logged no error it was not asked to", () => {
      expect(logger.error).not.toHaveBeenCalled();
    });
  });
}
