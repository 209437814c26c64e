// The outage figures: with the database stopped, how fast 50 clients calling in turn the routes that
// waited longest get their 503 (p50, p99, max), and how soon after the database is back a key the
// gateway has never seen is served. Targets: p99 under 1 s; first 200 within 2 s.
import { callUnderLoad, startOutageRig, timeUntilServed } from "../lib/database-outage.ts";

const CONNECTIONS = 50;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

export async function benchOutage(options: { seconds: number }) {
  const rig = await startOutageRig();
  try {
    rig.stopDatabase();
    const answers = await callUnderLoad(rig, { connections: CONNECTIONS, seconds: options.seconds });
    const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
    const other = answers.filter((a) => a.status !== 503 || a.code !== "database_unavailable").length;
    rig.startDatabase(); // returns once the server accepts connections
    const firstServedMs = await timeUntilServed(rig, rig.unseenKey, 60_000);
    const figures = {
      connections: CONNECTIONS,
      answers: answers.length,
      answersPerSecond: Math.round(answers.length / options.seconds),
      notDatabaseUnavailable: other,
      p50Ms: Number(percentile(ms, 0.5).toFixed(1)),
      p99Ms: Number(percentile(ms, 0.99).toFixed(1)),
      maxMs: Number(ms.at(-1)!.toFixed(1)),
      firstServedAfterRestartMs: firstServedMs === undefined ? null : Math.round(firstServedMs),
    };
    console.log(
      `database stopped, ${CONNECTIONS} clients: ${figures.answers} answers (${figures.answersPerSecond}/s), ` +
        `${other} other than 503 database_unavailable; p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, max ${figures.maxMs} ms\n` +
        `database started again: first 200 for a key never seen after ${figures.firstServedAfterRestartMs} ms`,
    );
    return figures;
  } finally {
    await rig.close();
  }
}
