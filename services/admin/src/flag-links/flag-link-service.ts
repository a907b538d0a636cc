import { randomUUID } from "node:crypto";
import type { FlagLink, FlagLinkBody } from "@vexil/contracts";
import { NotFoundError, OperationDeniedError, ValidationError } from "@vexil/errors";
import normalizeUrl from "normalize-url";
import type { Actor } from "../access/actor.js";
import type { Transaction, UnitOfWork } from "../events/unit-of-work.js";
import type { FeatureReader } from "../features/strategy-usage.js";
import type { FlagLinkDocument, FlagLinkStore } from "./flag-link-store.js";

/** As many as Unleash allows on one flag. */
export const maxLinksPerFlag = 10;

const toLink = ({ _id, url, title }: FlagLinkDocument): FlagLink => ({ id: _id, url, title });

/**
 * The URL as Unleash stores it (`example.com` → `https://example.com`, lower-case host, sorted
 * query), refused unless it is http or https: the UI renders links as anchors, and a
 * `javascript:` URL there would run in the admin's session.
 */
export function normalizeLinkUrl(url: string): string {
  const invalid = (message: string) => new ValidationError(message, [{ path: "body.url", message }]);
  let normalized: string;
  try {
    normalized = normalizeUrl(url.trim(), { defaultProtocol: "https" });
  } catch {
    throw invalid(`Invalid URL: ${url}`);
  }
  if (!/^https?:\/\//i.test(normalized)) throw invalid(`Only http and https links are allowed: ${url}`);
  return normalized;
}

/** URLs on flags (Unleash 7+'s feature links): added, changed and removed each with its event. */
export class FlagLinkService {
  constructor(
    private readonly deps: {
      links: FlagLinkStore;
      features: FeatureReader;
      unitOfWork: UnitOfWork;
      clock: () => Date;
    },
  ) {}

  /** Flag name → its links, oldest first, for many flags in one read. */
  async linksOf(names: readonly string[]): Promise<Map<string, FlagLink[]>> {
    const byFlag = new Map<string, FlagLink[]>();
    for (const doc of await this.deps.links.linksOf(names)) byFlag.set(doc.feature, [...(byFlag.get(doc.feature) ?? []), toLink(doc)]);
    return byFlag;
  }

  async create(project: string, feature: string, body: FlagLinkBody, actor: Actor): Promise<FlagLink> {
    const url = normalizeLinkUrl(body.url);
    const title = body.title || null;
    return this.deps.unitOfWork.run(async (tx) => {
      await this.requireFlag(project, feature);
      if ((await this.deps.links.count(feature, tx.session)) >= maxLinksPerFlag)
        throw new OperationDeniedError(`Too many links (${maxLinksPerFlag}) exist for this feature`);
      const doc: FlagLinkDocument = { _id: randomUUID(), feature, url, title, createdAt: this.deps.clock() };
      await this.deps.links.insert(doc, tx.session);
      await tx.record({ type: "feature-link-added", actor, project, featureName: feature, data: { url, title } });
      return toLink(doc);
    });
  }

  async update(project: string, feature: string, id: string, body: FlagLinkBody, actor: Actor): Promise<FlagLink> {
    const url = normalizeLinkUrl(body.url);
    const title = body.title || null;
    return this.deps.unitOfWork.run(async (tx) => {
      const before = await this.requireLink(tx, project, feature, id);
      const after = { ...before, url, title };
      await this.deps.links.replace(after, tx.session);
      await tx.record({
        type: "feature-link-updated",
        actor,
        project,
        featureName: feature,
        data: { url, title },
        preData: { url: before.url, title: before.title },
      });
      return toLink(after);
    });
  }

  async remove(project: string, feature: string, id: string, actor: Actor): Promise<void> {
    await this.deps.unitOfWork.run(async (tx) => {
      const link = await this.requireLink(tx, project, feature, id);
      await this.deps.links.delete(id, tx.session);
      await tx.record({
        type: "feature-link-removed",
        actor,
        project,
        featureName: feature,
        preData: { url: link.url, title: link.title },
      });
    });
  }

  /** Inside a hard delete's transaction (a FeatureService removal step): the flags' links go with them. */
  async removeLinksOfDeleted(tx: Transaction, names: string[]): Promise<void> {
    for (const name of names) await this.deps.links.deleteOf(name, tx.session);
  }

  private async requireFlag(project: string, feature: string): Promise<void> {
    const flag = await this.deps.features.find(feature);
    if (!flag || flag.project !== project || flag.archived)
      throw new NotFoundError(`Could not find feature flag ${feature} in project ${project}`);
  }

  /** The link, when it is one of this flag's: a link id of another flag is not found here. */
  private async requireLink(tx: Transaction, project: string, feature: string, id: string): Promise<FlagLinkDocument> {
    await this.requireFlag(project, feature);
    const link = await this.deps.links.get(id, tx.session);
    if (!link || link.feature !== feature) throw new NotFoundError(`Could not find link with id ${id}`);
    return link;
  }
}
