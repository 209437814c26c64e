// A local SMTP server that keeps what it is sent: npm start's mailbox for sign-in codes (printed to
// the console), and the tests' mail catcher. Plain SMTP on loopback, no authentication, no TLS.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface MailSink {
  /** SMTP_URL for the gateway. */
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` (0: any free port); `onMail` sees each mail as it arrives. */
export async function startMailSink(options: { port?: number; onMail?: (mail: ReceivedMail) => void } = {}): Promise<MailSink> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const mail = { to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString("utf8") };
        mails.push(mail);
        options.onMail?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A mail's subject and text body, for the console (the gateway sends short plain-text mails). */
export function readableMail(mail: ReceivedMail): string {
  const [head = "", ...body] = mail.raw.split(/\r?\n\r?\n/);
  const subject = /^subject: (.*)$/im.exec(head)?.[1] ?? "";
  const text = body.join("\n\n").replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return `to ${mail.to.join(", ")}: ${subject}\n${text.trim()}`;
}
