import { useEffect, useState } from "react";

type Theme = "light" | "dark";
const storageKey = "vexil.theme";

function initialTheme(): Theme {
  const saved = localStorage.getItem(storageKey);
  if (saved === "light" || saved === "dark") return saved;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const next: Theme = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      onClick={() => {
        localStorage.setItem(storageKey, next);
        setTheme(next);
      }}
    >
      {next === "dark" ? "Dark theme" : "Light theme"}
    </button>
  );
}
