import { defineConfig } from "vitest/config";
export default defineConfig({
  root: "/work/main",
  test: { include: [".probe-helper/**/*.test.ts"], globalSetup: ["tests/setup/global-setup.ts"], pool: "forks", testTimeout: 30_000, hookTimeout: 120_000 },
});
