import {
  useId,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
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

/** The ids and attributes a control takes to be described by its field's hint and error. */
interface ControlProps {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string;
}

/** A labelled field: the control `render` draws, its hint, and the API's words under it. */
function Field({
  label,
  error,
  hint,
  labelBeside,
  render,
}: FieldProps & { labelBeside?: boolean; render: (control: ControlProps) => ReactNode }) {
  const id = useId();
  const control = render({ id, "aria-invalid": error ? true : undefined, "aria-describedby": `${id}-hint ${id}-error` });
  return (
    <div className="field">
      {labelBeside ? (
        <label className="check" htmlFor={id}>
          {control} {label}
        </label>
      ) : (
        <>
          <label htmlFor={id}>{label}</label>
          {control}
        </>
      )}
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

export function TextField({ label, error, hint, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  return <Field label={label} error={error} hint={hint} render={(control) => <input {...control} {...input} />} />;
}

export function SelectField({ label, error, hint, children, ...select }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      render={(control) => (
        <select {...control} {...select}>
          {children}
        </select>
      )}
    />
  );
}

export function TextAreaField({ label, error, hint, ...textarea }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <Field label={label} error={error} hint={hint} render={(control) => <textarea {...control} {...textarea} />} />;
}

/** A checkbox with its label beside it, and the API's words under it. */
export function CheckField({ label, error, hint, ...input }: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "type">) {
  return (
    <Field label={label} error={error} hint={hint} labelBeside render={(control) => <input type="checkbox" {...control} {...input} />} />
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

/** The error when it is about none of the fields shown (those show it next to themselves). */
export function errorBesides(error: unknown, fields: readonly string[]): unknown {
  return fields.some((field) => fieldError(error, field)) ? undefined : error;
}

interface ResourceFormProps {
  /** The form's heading (also its accessible name). */
  title: string;
  /** The heading is shown; otherwise only screen readers hear it. */
  showTitle?: boolean;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  /** The body fields the form's controls show errors for; any other error shows under the button. */
  fields: readonly string[];
  onSubmit: () => void;
  /** Lays the controls and the button out on one line. */
  inline?: boolean;
  children: ReactNode;
  extraActions?: ReactNode;
}

/** A create or edit form: its controls, one submit button, and the API's words next to what they are about. */
export function ResourceForm({
  title,
  showTitle = true,
  submitLabel,
  pending,
  error,
  fields,
  onSubmit,
  inline,
  children,
  extraActions,
}: ResourceFormProps) {
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={submit} className={inline ? "card row" : "card"} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className={showTitle ? undefined : "visually-hidden"}>
        {title}
      </h2>
      {children}
      <div className={inline ? "align-end actions" : "actions"}>
        <button type="submit" className="primary" disabled={pending}>
          {submitLabel}
        </button>
        {extraActions}
      </div>
      <ErrorNote error={errorBesides(error, fields)} />
    </form>
  );
}
