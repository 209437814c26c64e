// The OpenAI stand-in in a process of its own, for the chat benchmark: it answers every completion at
// once with its default answer (OPENAI_STAND_IN_API_KEY is the key it takes), prints its URL, and
// serves until its stdin ends.
import process from "node:process";
import { startOpenAIStandIn } from "../lib/openai-stand-in.ts";

const standIn = await startOpenAIStandIn({ apiKey: process.env.OPENAI_STAND_IN_API_KEY });
console.log(standIn.url);
// The service's client keeps its connections open: the process ends without waiting for them.
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
