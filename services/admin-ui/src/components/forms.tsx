import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from "react";
import { ApiError, errorMessage } from "../api.js";

/** The API's message for this field, when the error was about it. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.forField(field) : undefined;
}

interface FieldProps {
  label: string;
  /** An error shown under the control and announced with it. */
  error?: string;
  hint?: ReactNode;
}

export function TextField({ label, error, hint, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={`${id}-hint ${id}-error`} {...input} />
      {hint && (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

export function SelectField({ label, error, hint, children, ...select }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={`${id}-hint ${id}-error`} {...select}>
        {children}
      </select>
      {hint && (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <div className="field-error" id={`${id}-error`} role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

/** A failed action, in the API's words, shown next to the button that caused it. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error-note" role="alert">
      {errorMessage(error)}
    </p>
  );
}
