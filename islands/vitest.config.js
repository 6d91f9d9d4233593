// Unit tests run in happy-dom with React aliased to src/react.js (Preact core and hooks), as in the build.
import { defineConfig } from "vitest/config";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: { alias: { react: new URL("./src/react.js", import.meta.url).pathname, "react-dom": new URL("./src/react.js", import.meta.url).pathname } },
  test: { environment: "happy-dom", include: ["test/**/*.test.{js,jsx}"] },
});
