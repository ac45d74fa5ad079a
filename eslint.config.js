import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/",
      "app/generated/",
      "app/types/",
      ".data/",
      "node_modules/",
      "coverage/",
      "public/build/",
      "extensions/wishlist-theme/assets/",
      "sdk/dist/",
      "examples/headless-storefront/dist/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "error",
    },
  },
  {
    // The guide's and the recipes' programs talk to the reader on the console.
    files: ["docs/**/*.ts"],
    rules: { "no-console": "off" },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
  },
);
