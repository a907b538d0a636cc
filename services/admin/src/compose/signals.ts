import type { Consumer } from "@vexil/bus";
import { topics } from "@vexil/contracts";
import type { Logger } from "@vexil/logger";
import type { Engines } from "@vexil/runtime";
import type { AccessService } from "../access/access-service.js";
import { startActionRecovery } from "../actions/action-recovery.js";
import { ActionRunner, defaultActionLeaseMs, type FeatureEnvironmentSwitch } from "../actions/action-runner.js";
import { ActionService } from "../actions/action-service.js";
import { createActionSetEventStore, createActionSetStore } from "../actions/action-set-store.js";
import type { UnitOfWork } from "../events/unit-of-work.js";
import { ServiceAccountService, type AccountTokens } from "../service-accounts/service-account-service.js";
import { createServiceAccountStore } from "../service-accounts/service-account-store.js";
import { SignalEndpointService } from "../signals/signal-endpoint-service.js";
import { createSignalEndpointStore } from "../signals/signal-endpoint-store.js";
import { signalLimits, type SignalLimitSettings } from "../signals/signal-limits.js";
import { busSignalReader, serveSharedSignalEndpoints, shareSignalEndpoints } from "../signals/signal-sharing.js";

/** The durable consumer through which admin instances share the work of reacting to signals. */
export const actionsConsumerName = "admin-actions";

/**
 * Signal endpoints, service accounts and action sets, wired together: endpoints are shared with
 * signal-ingest, and received signals come back over the bus to the action runner.
 */
export async function createSignalsSlice({
  engines,
  unitOfWork,
  access,
  features,
  assertProject,
  accountTokens,
  settings,
  clock,
  logger,
}: {
  engines: Engines;
  unitOfWork: UnitOfWork;
  access: AccessService;
  features: FeatureEnvironmentSwitch;
  assertProject: (project: string) => Promise<unknown>;
  /** Where service accounts' tokens are kept (governance's, beside people's). */
  accountTokens: AccountTokens;
  settings: Partial<SignalLimitSettings>;
  clock: () => Date;
  logger: Logger;
}) {
  const { store, bus, cache } = engines;
  const limits = signalLimits(settings);
  const actionSets = await createActionSetStore(store);
  const actionSetEvents = await createActionSetEventStore(store);
  const signalEndpoints = new SignalEndpointService({
    endpoints: await createSignalEndpointStore(store),
    unitOfWork,
    signals: busSignalReader(bus),
    share: shareSignalEndpoints(cache, bus, logger),
    limits,
    clock,
  });
  const serviceAccounts = new ServiceAccountService({
    accounts: await createServiceAccountStore(store),
    tokens: accountTokens,
    unitOfWork,
    clock,
    isInUse: (id) => actionSets.usesActor(id),
  });
  const actions = new ActionService({
    actionSets,
    actionSetEvents,
    unitOfWork,
    clock,
    limits,
    assertProject,
    isServiceAccount: async (id) => (await serviceAccounts.get(id)) !== null,
    isSignalEndpoint: (id) => signalEndpoints.exists(id),
  });
  const runner = new ActionRunner({
    actionSets,
    actionSetEvents,
    features,
    access,
    clock,
    logger: logger.child({ module: "action-runner" }),
    actors: {
      async resolve(actorId) {
        const account = await serviceAccounts.get(actorId);
        if (!account) return null;
        await serviceAccounts.markSeen(actorId);
        return { actor: { name: account.username, userId: account._id }, principal: serviceAccounts.principalOf(account) };
      },
    },
  });

  let consumer: Consumer | undefined;
  let recovery: ReturnType<typeof startActionRecovery> | undefined;
  let subscriptions: Array<{ unsubscribe(): void }> = [];
  return {
    signalEndpoints,
    serviceAccounts,
    actions,
    actionSetEvents,
    runner,
    /** Shares the endpoints with signal-ingest and starts reacting to signals. */
    async start(): Promise<void> {
      await signalEndpoints.share();
      const reshare = () =>
        void signalEndpoints.share().catch((err: unknown) => logger.warn({ err }, "sharing the signal endpoints failed"));
      subscriptions = [
        serveSharedSignalEndpoints(cache, bus, () => signalEndpoints.shared()),
        // Announcements sent while NATS was away are lost, and a Redis that restarted lost the list.
        bus.onReconnect(reshare),
        cache.onReconnect(reshare),
      ];
      consumer = await bus.consume(actionsConsumerName, topics.signalsReceived, (msg) => runner.handle(msg.data));
      recovery = startActionRecovery(runner, { intervalMs: defaultActionLeaseMs / 2, logger: logger.child({ module: "action-recovery" }) });
    },
    async stop(): Promise<void> {
      for (const subscription of subscriptions) subscription.unsubscribe();
      await recovery?.stop();
      await consumer?.stop();
    },
  };
}
