/**
 * Runs the script on one server and compares two servers' answers: statuses, error names, response
 * shapes (every field's presence and JSON type, so ids and timestamps need no normalizing) and
 * values where values matter (what the SDKs are served, normalized first).
 */
import type { ParityTarget } from "./servers.js";
import type { Step } from "./scenario.js";

export type DifferenceKind = "status" | "error-name" | "missing-in-vexil" | "extra-in-vexil" | "type" | "length" | "value";

export interface Difference {
  kind: DifferenceKind;
  /** The step label, or the SDK surface (`client features`, `frontend`, `unleash-client`). */
  where: string;
  /** JSON path, array positions written `[]` (or `[<name>]` for lists keyed by name). */
  path: string;
  unleash: unknown;
  vexil: unknown;
  /** Which case (context) showed it, when that is not in the path. */
  detail?: string;
}

export interface Answer {
  status: number;
  body: unknown;
}

export interface ScenarioRun {
  answers: Answer[];
  /** Values captured by steps (placeholder name → value). */
  captured: Map<string, unknown>;
}

const placeholder = /\{\{(\w+)\}\}/g;

function resolve(text: string, captured: Map<string, unknown>, quoted: boolean): string {
  const value = (name: string) => {
    if (!captured.has(name)) throw new Error(`placeholder {{${name}}} used before a step captured it`);
    return captured.get(name);
  };
  // In a JSON body a whole-string placeholder takes the captured value's own type (segment ids are numbers).
  const whole = quoted ? text.replace(/"\{\{(\w+)\}\}"/g, (_, name: string) => JSON.stringify(value(name))) : text;
  return whole.replace(placeholder, (_, name: string) => (quoted ? String(value(name)) : encodeURIComponent(String(value(name)))));
}

export async function runScenario(target: ParityTarget, steps: readonly Step[]): Promise<ScenarioRun> {
  const captured = new Map<string, unknown>();
  const answers: Answer[] = [];
  for (const step of steps) {
    const body = step.body === undefined ? undefined : JSON.parse(resolve(JSON.stringify(step.body), captured, true));
    const res = await target.call(resolve(step.path, captured, false), { method: step.method, body, token: step.token });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: compared as text.
    }
    answers.push({ status: res.status, body: parsed });
    if (res.ok && step.capture && parsed && typeof parsed === "object") {
      for (const [name, field] of Object.entries(step.capture)) captured.set(name, (parsed as Record<string, unknown>)[field]);
    }
  }
  return { answers, captured };
}

const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Every path in a JSON value with the set of types seen there; array elements share the path `[]`. */
function shapeOf(value: unknown, path = "$", into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const types = into.get(path) ?? new Set<string>();
  types.add(typeOf(value));
  into.set(path, types);
  if (Array.isArray(value)) for (const element of value) shapeOf(element, `${path}[]`, into);
  else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) shapeOf(child, `${path}.${key}`, into);
  }
  return into;
}

/**
 * Compares the two answers to one step: the status, then for errors the name, for successes the
 * shape. A path only one side has is reported once, not for each field below it.
 */
export function compareAnswers(where: string, unleash: Answer, vexil: Answer): Difference[] {
  if (unleash.status !== vexil.status) return [{ kind: "status", where, path: "$", unleash: unleash.status, vexil: vexil.status }];
  if (unleash.status >= 400) {
    const nameOf = (body: unknown) => (body && typeof body === "object" ? (body as { name?: unknown }).name : undefined);
    const [a, b] = [nameOf(unleash.body), nameOf(vexil.body)];
    return a === b ? [] : [{ kind: "error-name", where, path: "$.name", unleash: a, vexil: b }];
  }
  const [a, b] = [shapeOf(unleash.body), shapeOf(vexil.body)];
  const differences: Difference[] = [];
  const reported: string[] = [];
  const under = (path: string) => reported.some((p) => path.startsWith(`${p}.`) || path.startsWith(`${p}[]`));
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (under(path)) continue;
    const [inUnleash, inVexil] = [a.get(path), b.get(path)];
    if (!inVexil || !inUnleash) {
      reported.push(path);
      differences.push({
        kind: inVexil ? "extra-in-vexil" : "missing-in-vexil",
        where,
        path,
        unleash: inUnleash && [...inUnleash].join("|"),
        vexil: inVexil && [...inVexil].join("|"),
      });
    } else if ([...inUnleash].sort().join("|") !== [...inVexil].sort().join("|")) {
      // Fields below a value of another type (an object where the other has none) are part of this one difference.
      reported.push(path);
      differences.push({ kind: "type", where, path, unleash: [...inUnleash].sort().join("|"), vexil: [...inVexil].sort().join("|") });
    }
  }
  return differences;
}

/** Deep comparison of two normalized values; lists of objects with names are matched by name. */
export function compareValues(where: string, unleash: unknown, vexil: unknown, path = "$", detail?: string): Difference[] {
  const named = (list: unknown[]) =>
    list.every((e) => e && typeof e === "object" && typeof (e as { name?: unknown }).name === "string")
      ? new Map(list.map((e) => [(e as { name: string }).name, e]))
      : null;
  if (Array.isArray(unleash) && Array.isArray(vexil)) {
    const [a, b] = [named(unleash), named(vexil)];
    if (a && b && a.size === unleash.length && b.size === vexil.length) {
      // Order matters for variants (the SDKs bucket by list position), so it is compared too.
      const [inUnleash, inVexil] = [[...a.keys()].filter((n) => b.has(n)), [...b.keys()].filter((n) => a.has(n))];
      const differences: Difference[] =
        inUnleash.join(",") === inVexil.join(",")
          ? []
          : [{ kind: "value", where, path: `${path}[*].name`, unleash: inUnleash, vexil: inVexil, detail }];
      for (const name of new Set([...a.keys(), ...b.keys()])) {
        const [x, y] = [a.get(name), b.get(name)];
        if (x === undefined || y === undefined) {
          differences.push({
            kind: x === undefined ? "extra-in-vexil" : "missing-in-vexil",
            where,
            path: `${path}[${name}]`,
            unleash: x,
            vexil: y,
            detail,
          });
        } else differences.push(...compareValues(where, x, y, `${path}[${name}]`, detail));
      }
      return differences;
    }
    if (unleash.length !== vexil.length) return [{ kind: "length", where, path, unleash, vexil, detail }];
    return unleash.flatMap((element, i) => compareValues(where, element, vexil[i], `${path}[]`, detail));
  }
  if (unleash && vexil && typeof unleash === "object" && typeof vexil === "object" && !Array.isArray(unleash) && !Array.isArray(vexil)) {
    const differences: Difference[] = [];
    const [a, b] = [unleash as Record<string, unknown>, vexil as Record<string, unknown>];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(key in b))
        differences.push({ kind: "missing-in-vexil", where, path: `${path}.${key}`, unleash: a[key], vexil: undefined, detail });
      else if (!(key in a))
        differences.push({ kind: "extra-in-vexil", where, path: `${path}.${key}`, unleash: undefined, vexil: b[key], detail });
      else differences.push(...compareValues(where, a[key], b[key], `${path}.${key}`, detail));
    }
    return differences;
  }
  return JSON.stringify(unleash) === JSON.stringify(vexil) ? [] : [{ kind: "value", where, path, unleash, vexil, detail }];
}
