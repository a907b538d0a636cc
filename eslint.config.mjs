// Lint rules for the whole tree: ESLint's and typescript-eslint's recommended sets.
// Type-aware rules (no-floating-promises, no-misused-promises) were measured and left out: over the
// root tsconfig they cost four times the CPU of this set (36 s against 9 s on 2 cores), the per-package
// project service ran out of memory, and on this tree they found one test-only promise and two express
// handlers that already catch their errors.
import eslint from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/node_modules/", "**/dist/", "**/data/", "**/.turbo/", "**/coverage/"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Rest destructuring is how a field is left out of a copy; `_` marks a parameter kept for its position.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_", caughtErrors: "none" }],
      // A file past 500 lines holds more than one thing: split it along its seams (tests and fixtures too).
      "max-lines": ["error", { max: 500 }],
    },
  },
  {
    // Shared-cache keys are spelled in one module (contracts/src/cache-keys.ts), so two features never meet
    // on a key: a cache call outside the cache library takes its key from `cacheKeys`, never a string of its own.
    files: ["contracts/src/**/*.ts", "libs/*/src/**/*.ts", "services/*/src/**/*.ts"],
    ignores: ["libs/cache/**", "**/*.test.ts", "**/*.contract.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression:matches([callee.object.name=/(^c|C)ache$/], [callee.object.property.name=/(^c|C)ache$/])[callee.property.name=/^(get|set|del|getJson|setJson|incrementWindow)$/] > :matches(Literal, TemplateLiteral, BinaryExpression).arguments:first-child",
          message: "Spell cache keys in contracts/src/cache-keys.ts and use `cacheKeys` here.",
        },
      ],
    },
  },
  {
    // Tests read arbitrary JSON responses and log lines; `any` there is the honest type of a body under test.
    files: ["test/**", "**/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  { files: ["**/*.mjs"], languageOptions: { globals: globals.node } },
  // The admin UI: the rules of hooks and the React Compiler's checks (effects, refs, purity), on .ts and .tsx.
  { files: ["services/admin-ui/**/*.{ts,tsx}"], ...reactHooks.configs.flat.recommended },
);
