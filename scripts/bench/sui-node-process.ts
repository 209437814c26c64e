// The stand-in Sui node in a process of its own, for the Sui benchmark: its work then does not share
// the measured service's thread. Funds SUI_FUND_ADDRESS with four coins, gives each of
// SUI_PASS_OWNERS (comma-separated) three passes of SUI_PASS_COLLECTION, prints its URL, and serves
// until stdin closes.
import process from "node:process";
import { startSuiNode } from "../lib/sui-node.ts";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const node = await startSuiNode({ packageId: env("SUI_PACKAGE_ID") });
for (let i = 0; i < 4; i++) node.fund(env("SUI_FUND_ADDRESS"), 10n ** 15n);
for (const owner of env("SUI_PASS_OWNERS").split(",")) {
  for (let number = 1n; number <= 3n; number++) node.givePass(owner, { collectionId: env("SUI_PASS_COLLECTION"), number });
}
console.log(node.url);
process.stdin.on("end", () => void node.close().then(() => process.exit(0)));
process.stdin.resume();
