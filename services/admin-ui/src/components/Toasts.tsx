import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";

interface Toast {
  id: number;
  text: string;
}

type Announce = (text: string) => void;

const ToastContext = createContext<Announce>(() => undefined);

/** How long a toast stays on screen; screen readers hear it once, when it appears. */
const toastMs = 5_000;

/**
 * Short confirmations after a change ("Flag checkout on in production"). The region is in the page
 * from the start and polite, so screen readers announce each toast without taking the focus.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(0);
  const announce = useCallback((text: string) => {
    const id = ++nextId.current;
    setToasts((shown) => [...shown.slice(-2), { id, text }]);
    setTimeout(() => setToasts((shown) => shown.filter((t) => t.id !== id)), toastMs);
  }, []);
  const value = useMemo(() => announce, [announce]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((toast) => (
          <div className="toast" key={toast.id}>
            {toast.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** Shows and announces a confirmation. */
export function useToast(): Announce {
  return useContext(ToastContext);
}
