// Shared by the Node drivers: read the scenario, say "unsupported", tool-call ids.
import { readFileSync } from "node:fs";

export function readScenario() {
  return JSON.parse(readFileSync(process.argv[2], "utf8"));
}

// exit 3 with a reason: this client cannot express the scenario (a "not exercised" cell)
export function unsupported(why) {
  process.stdout.write(`unsupported: ${why}\n`);
  process.exit(3);
}

export function env(name, fallback) {
  const value = process.env[name];
  if (value === undefined && fallback === undefined) throw new Error(`${name} is not set`);
  return value ?? fallback;
}
