import { defineConfig } from "vitest/config";

// Preact through the automatic JSX runtime of Vite's own transformer (oxc): no
// framework plugin needed.
export default defineConfig({
  clearScreen: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  // The logo lives in the repository's icons/ folder, one level up.
  server: { port: 5173, strictPort: true, fs: { allow: [".."] } },
  envPrefix: ["VITE_", "TAURI_ENV_"],
  build: {
    target: "safari15",
    minify: !process.env.TAURI_ENV_DEBUG,
    sourcemap: !!process.env.TAURI_ENV_DEBUG,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
  },
});
