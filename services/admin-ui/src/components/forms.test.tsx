import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../api.js";
import { errorBesides, fieldError, ResourceForm, TextField } from "./forms.js";

const refused = new ApiError(400, {
  id: "e1",
  name: "ValidationError",
  message: "Request validation failed",
  details: [{ path: "body.name", message: "Names may hold letters, digits and - _ . ~ only" }],
});

function Form({ error, onSubmit = () => undefined }: { error: unknown; onSubmit?: () => void }) {
  return (
    <ResourceForm title="New flag" submitLabel="Create flag" pending={false} error={error} fields={["name"]} onSubmit={onSubmit}>
      <TextField label="Flag name" error={fieldError(error, "name")} />
      <TextField label="Description" error={fieldError(error, "description")} />
    </ResourceForm>
  );
}

describe("ResourceForm", () => {
  it("is a form named by its heading, submitted without a page load", () => {
    const onSubmit = vi.fn();
    render(<Form error={undefined} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByRole("button", { name: "Create flag" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("form", { name: "New flag" })).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows the API's words next to the field they are about, and nowhere else", () => {
    render(<Form error={refused} />);
    const name = screen.getByRole("textbox", { name: "Flag name" });
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getAllByRole("alert").map((a) => a.textContent)).toEqual(["Names may hold letters, digits and - _ . ~ only"]);
    expect(name.getAttribute("aria-describedby")).toContain(screen.getByRole("alert").id);
    expect(screen.getByRole("textbox", { name: "Description" }).getAttribute("aria-invalid")).toBeNull();
  });

  it("shows an error about no field under the button", () => {
    const conflict = new ApiError(409, { id: "e2", name: "NameExistsError", message: "A flag named checkout already exists" });
    render(<Form error={conflict} />);
    expect(screen.getByRole("alert").textContent).toBe("A flag named checkout already exists");
    expect(errorBesides(refused, ["name"])).toBeUndefined();
    expect(errorBesides(conflict, ["name"])).toBe(conflict);
  });
});
