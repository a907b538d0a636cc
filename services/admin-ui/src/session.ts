import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { adminApi, ApiError, ok } from "./api.js";
import { keys } from "./query-keys.js";

/** Who is signed in; `null` when nobody is (the API answered 401). */
export function useCurrentUser() {
  return useQuery({
    queryKey: keys.currentUser,
    queryFn: async () => {
      try {
        return await ok(adminApi.users.current());
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

// The sign-in answer says whether the password was the first-start default; remembered per user
// until the password is changed, so the banner survives reloads, and goes at once when it changes.
const defaultPasswordKey = (userId: number) => `vexil.default-password.${userId}`;
const defaultPasswordListeners = new Set<() => void>();

export function rememberDefaultPassword(userId: number, usesDefaultPassword: boolean): void {
  if (usesDefaultPassword) localStorage.setItem(defaultPasswordKey(userId), "1");
  else localStorage.removeItem(defaultPasswordKey(userId));
  for (const listener of defaultPasswordListeners) listener();
}

/** Whether this user signed in with the first-start password and has not changed it since. */
export function useDefaultPassword(userId: number | undefined): boolean {
  return useSyncExternalStore(
    (listener) => {
      defaultPasswordListeners.add(listener);
      return () => defaultPasswordListeners.delete(listener);
    },
    () => userId !== undefined && localStorage.getItem(defaultPasswordKey(userId)) === "1",
  );
}

const noticeKey = "vexil.sign-in-notice";

/** A message for the next sign-in screen (the session just ended on purpose). */
export function setSignInNotice(message: string): void {
  sessionStorage.setItem(noticeKey, message);
}

export function takeSignInNotice(): string | null {
  const notice = sessionStorage.getItem(noticeKey);
  sessionStorage.removeItem(noticeKey);
  return notice;
}
