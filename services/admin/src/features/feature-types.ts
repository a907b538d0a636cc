import { featureTypeLifetimes, featureTypeNames, type FeatureType, type FeatureTypeList } from "@vexil/contracts";

const typeTexts: Record<FeatureType, { name: string; purpose: string }> = {
  release: { name: "Release", purpose: "Ship new or unfinished work behind a switch." },
  experiment: { name: "Experiment", purpose: "Compare variants with A/B or multivariate tests." },
  operational: { name: "Operational", purpose: "Move between technical implementations with little risk." },
  "kill-switch": { name: "Kill switch", purpose: "Turn a capability off quickly when it misbehaves." },
  permission: { name: "Permission", purpose: "Grant access to a capability by user role or entitlement." },
  sunset: { name: "Sunset", purpose: "Plan and coordinate the removal of an existing capability." },
};

/** `GET /api/admin/feature-types`, as Unleash lists them: the lifetimes are those the health report uses. */
export function featureTypeList(): FeatureTypeList {
  return {
    version: 1,
    types: featureTypeNames.map((id) => {
      const lifetimeDays = featureTypeLifetimes[id];
      const { name, purpose } = typeTexts[id];
      const expected = lifetimeDays === null ? "permanent" : `about ${lifetimeDays} days`;
      return { id, name, description: `${purpose} Expected lifetime: ${expected}.`, lifetimeDays };
    }),
  };
}
