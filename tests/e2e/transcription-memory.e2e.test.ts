// The memory a 25 MB transcription takes in the function's own process (npm start's Deno gateway,
// over HTTP; scripts/lib/transcription-memory.ts). The body is read into one reused buffer and decoded
// as it arrives, and the upload streams from the decoded bytes, so the audio is held once: about 1 to
// 1.2 times its size at the peak. The bound is 3 times; this holds the design to 2.
import { afterAll, beforeAll, expect, it } from "vitest";
import { measureTranscriptionMemory } from "../../scripts/lib/transcription-memory.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t?.close());

it("transcribes 25 MB with a peak under twice the audio", async () => {
  const figures = await measureTranscriptionMemory(t.url, { calls: 2 });
  console.log(`transcription memory: ${JSON.stringify(figures)}`);
  for (const call of figures.calls) {
    expect(call.status).toBe(200);
    expect(call.timesAudio).toBeLessThan(2);
  }
}, 180_000);
