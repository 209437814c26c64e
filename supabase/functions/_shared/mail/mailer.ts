// Outgoing mail: sign-in codes through the SMTP relay named by SMTP_URL (nodemailer, which runs
// under Deno's node: compatibility and under Node). Tests point SMTP_URL at a local smtp-server.
import nodemailer from "nodemailer";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

type Transport = ReturnType<typeof nodemailer.createTransport>;
const transports = new WeakMap<Config, Transport>();

function transportFor(config: Config): Transport {
  let transport = transports.get(config);
  if (transport) return transport;
  if (!config.SMTP_URL) throw new ApiError(503, "mail_not_configured", "The service cannot send mail: SMTP_URL is not set.");
  transport = nodemailer.createTransport(config.SMTP_URL, {
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  transports.set(config, transport);
  return transport;
}

/** Sends one mail; a relay that refuses or cannot be reached is a 503 (the message never holds the mail). */
export async function sendMail(config: Config, mail: Mail): Promise<void> {
  const transport = transportFor(config);
  try {
    await transport.sendMail({ from: config.MAIL_FROM ?? "Events MCP <no-reply@localhost>", to: mail.to, subject: mail.subject, text: mail.text });
  } catch (error) {
    console.error("[mail] sending failed:", error instanceof Error ? error.message : String(error));
    throw new ApiError(503, "mail_unavailable", "The sign-in mail could not be sent; try again in a moment.");
  }
}
