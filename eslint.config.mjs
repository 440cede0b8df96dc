// ESLint: the usual correctness rules (ESLint, typescript-eslint, Next.js)
// plus the layer rules of docs/architecture.md, so a layer leak fails
// `npm test` instead of waiting for a reviewer to notice it.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// Each layer's forbidden imports. `no-restricted-imports` options do not
// merge across config blocks (a later block replaces the whole rule), so a
// file's full list is assembled here and set once per block.
const databaseClient = {
  patterns: [
    {
      // @/lib/db/client, ../../lib/db/client(.ts), the generated client, @prisma/client
      regex: "(^|/)lib/db/(client|generated)(/|\\.|$)|^@prisma/client(/|$)",
      message: "app/ calls lib/ functions; only lib/ opens the database (docs/architecture.md).",
    },
  ],
};
const appModules = {
  patterns: [
    {
      regex: "^(@/|(\\.\\./)+)app(/|$)",
      message: "components/ render what they are given: pass the action in as a prop instead of importing app/.",
    },
  ],
};
const nextModules = {
  patterns: [
    {
      regex: "^(next|next-auth)(/|$)",
      message: "lib/ is plain TypeScript: no Next.js or Auth.js (docs/architecture.md). Do it in app/ and pass values in.",
    },
  ],
};
const reactModules = {
  patterns: [
    {
      regex: "^(react|react-dom)(/|$)",
      message: "lib/ is plain TypeScript: no React (docs/architecture.md). Rendering belongs in components/.",
    },
  ],
};
const upperLayers = {
  patterns: [
    {
      regex: "^(@/|(\\.\\./)+)(app|components)(/|$)",
      message: "lib/ does not depend on app/ or components/.",
    },
  ],
};
const repositoryModules = {
  patterns: [
    {
      regex: "^(@/|(\\.\\./)+)(lib|app|components|scripts)(/|$)",
      message: "packages/ are published on their own: import other packages by name, never the app's files (docs/architecture.md).",
    },
  ],
};
function restrict(...rules) {
  return {
    "no-restricted-imports": ["error", { paths: rules.flatMap((r) => r.paths ?? []), patterns: rules.flatMap((r) => r.patterns ?? []) }],
  };
}

// The only lib/ files allowed to import Next.js or Auth.js: the Auth.js
// wiring (NextAuth() and its Credentials provider) and the session guards,
// which must call next/headers and next/navigation (redirect, forbidden).
// Listed file by file so that any other lib/ file importing them fails.
// If a guard module moves, move its name here.
const authWiringFiles = ["lib/auth/nextauth.ts", "lib/auth/guards.ts"];

export default defineConfig(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".next-*/",
      ".tmp/",
      "bench/tmp/",
      "lib/db/generated/",
      "packages/*/dist/",
      "clients/python/",
      "test-results/",
      "playwright-report/",
      "blob-report/",
      "data/",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  nextPlugin.configs["core-web-vitals"],
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    settings: { next: { rootDir: "." } },
    rules: {
      // TypeScript already reports undefined names in .ts/.tsx (with the
      // right DOM and Node types); the few .mjs scripts run in every
      // `npm test`, which catches the rest.
      "no-undef": "off",
      // The display, redaction and validation code exists to find control,
      // invisible and combining characters, so its regular expressions name
      // them one by one on purpose (NUL, C0, variation selectors, U+034F...).
      "no-control-regex": "off",
      "no-misleading-character-class": "off",
      // `_`-prefixed names are deliberately unused (destructuring a field
      // away, a required parameter position).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // CommonJS on purpose: preloaded with `node --require` (scripts/bench/cpu-profile.cjs).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: ["app/**"],
    rules: restrict(databaseClient),
  },
  {
    files: ["components/**"],
    rules: restrict(appModules, databaseClient),
  },
  {
    files: ["lib/**"],
    ignores: authWiringFiles,
    rules: restrict(nextModules, reactModules, upperLayers),
  },
  {
    files: authWiringFiles,
    rules: restrict(reactModules, upperLayers),
  },
  {
    files: ["packages/*/src/**"],
    rules: restrict(nextModules, reactModules, repositoryModules),
  },
);
