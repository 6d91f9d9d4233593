// Unit tests run in happy-dom with React aliased to preact/compat, as in the build.
import { defineConfig } from "vitest/config";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: { alias: { react: "preact/compat", "react-dom": "preact/compat" } },
  test: { environment: "happy-dom", include: ["test/**/*.test.{js,jsx}"] },
});
