import type { ReactNode } from "react";

/**
 * A named thing that can be switched on and off and deleted (a signal endpoint, an action set):
 * its heading, switch, other actions and a delete button that asks first, then its details.
 */
export function SwitchableCard({
  name,
  switchLabel,
  enabled,
  onSwitch,
  switching = false,
  deleteQuestion,
  onDelete,
  actions,
  description,
  children,
}: {
  name: string;
  switchLabel: string;
  enabled: boolean;
  onSwitch: (enabled: boolean) => void;
  switching?: boolean;
  /** Asked before deleting: what goes with it. */
  deleteQuestion: string;
  onDelete: () => void;
  /** Buttons shown between the switch and the delete button. */
  actions?: ReactNode;
  description?: string | null;
  children: ReactNode;
}) {
  return (
    <div className="card">
      <div className="page-head">
        <h2>{name}</h2>
        <div className="actions">
          <input
            type="checkbox"
            role="switch"
            className="switch"
            aria-label={switchLabel}
            checked={enabled}
            disabled={switching}
            onChange={(e) => onSwitch(e.target.checked)}
          />
          {actions}
          <button type="button" className="danger" onClick={() => confirm(deleteQuestion) && onDelete()}>
            Delete {name}
          </button>
        </div>
      </div>
      {description && <p className="hint">{description}</p>}
      {children}
    </div>
  );
}
