import { useState } from "react";

/** A secret the API shows only once: visible, with a copy button, until it is dismissed. */
export function SecretOnce({ label, secret, onDismiss }: { label: string; secret: string; onDismiss: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | undefined>();
  return (
    <div className="card secret" role="status">
      <p>
        <strong>{label}</strong> It is shown only now: copy it and keep it somewhere safe.
      </p>
      <code className="secret-value" aria-label="Secret">
        {secret}
      </code>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() =>
            navigator.clipboard.writeText(secret).then(
              () => setCopied("yes"),
              () => setCopied("failed"),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
        {copied === "yes" && <span>Copied.</span>}
        {copied === "failed" && <span className="field-error">The browser refused to copy: select the text and copy it by hand.</span>}
      </div>
    </div>
  );
}
