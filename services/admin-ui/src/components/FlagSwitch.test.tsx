import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { switchedText, type FlagSwitch as Target } from "../flag-switch.js";
import { FlagSwitch } from "./FlagSwitch.js";

const target = { projectId: "default", flag: "checkout", environment: "production", protectedEnvironment: false };

/** A switch whose save finishes when the test says so. */
function Harness({ onSwitch }: { onSwitch: (t: Target) => void }) {
  const [enabled, setEnabled] = useState(false);
  const [saving, setSaving] = useState(false);
  return (
    <>
      <FlagSwitch
        target={target}
        enabled={enabled}
        saving={saving}
        onSwitch={(t) => {
          onSwitch(t);
          setSaving(true);
          setEnabled(t.enabled);
        }}
      />
      <button type="button" onClick={() => setSaving(false)}>
        saved
      </button>
    </>
  );
}

describe("FlagSwitch", () => {
  it("is named by flag and environment, and says when it goes through a change request", () => {
    render(<FlagSwitch target={{ ...target, protectedEnvironment: true }} enabled saving={false} onSwitch={() => undefined} />);
    const control = screen.getByRole("switch", { name: "checkout in production (through a change request)" });
    expect((control as HTMLInputElement).checked).toBe(true);
  });

  it("keeps the focus while saving and ignores clicks until the save is done", () => {
    const onSwitch = vi.fn();
    render(<Harness onSwitch={onSwitch} />);
    const control = screen.getByRole("switch") as HTMLInputElement;
    control.focus();
    fireEvent.click(control);
    expect(onSwitch).toHaveBeenLastCalledWith({ ...target, enabled: true });
    expect(control.getAttribute("aria-disabled")).toBe("true");
    expect(control.disabled).toBe(false);
    expect(document.activeElement).toBe(control);
    fireEvent.click(control);
    expect(onSwitch).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole("button", { name: "saved" }));
    control.focus();
    fireEvent.click(control);
    expect(onSwitch).toHaveBeenLastCalledWith({ ...target, enabled: false });
  });
});

describe("switchedText", () => {
  it("says the new state, or the change request that holds it", () => {
    expect(switchedText({ ...target, enabled: true }, {})).toBe("checkout is on in production");
    expect(switchedText({ ...target, enabled: false }, { changeRequestId: 4 })).toBe(
      "Turning checkout off in production added to change request #4",
    );
  });
});
