import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiError } from "./api.js";
import { App } from "./App.js";
import { ToastProvider } from "./components/Toasts.js";
import { keys } from "./query-keys.js";
import "./styles.css";

// Any 401 means the session ended (signed out elsewhere, expired, password changed): ask who we are again.
const onError = (error: unknown) => {
  if (error instanceof ApiError && error.status === 401) void queryClient.invalidateQueries({ queryKey: keys.currentUser });
};
const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 } },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        <App />
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);
