import type { FlagSwitch as Target } from "../flag-switch.js";

interface FlagSwitchProps {
  target: Omit<Target, "enabled">;
  enabled: boolean;
  /** A change is being saved: further clicks wait for it. */
  saving: boolean;
  onSwitch: (target: Target) => void;
}

/**
 * A flag's on/off switch in one environment. While saving it stays focusable (aria-disabled, not
 * disabled), so the keyboard focus stays on it after Space.
 */
export function FlagSwitch({ target, enabled, saving, onSwitch }: FlagSwitchProps) {
  return (
    <input
      type="checkbox"
      role="switch"
      className="switch"
      aria-label={`${target.flag} in ${target.environment}${target.protectedEnvironment ? " (through a change request)" : ""}`}
      checked={enabled}
      aria-disabled={saving || undefined}
      onChange={(e) => {
        if (!saving) onSwitch({ ...target, enabled: e.target.checked });
      }}
    />
  );
}
