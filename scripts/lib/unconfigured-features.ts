// What a gateway started with a given configuration cannot serve yet, and the settings that turn
// each feature on: npm start prints these, so a fresh start never claims more than it serves.
import type { Config } from "../../supabase/functions/_shared/config.ts";

interface Feature {
  name: string;
  configured: (config: Config) => boolean;
  /** What answers while it is off, and how to turn it on. */
  howTo: string;
}

const FEATURES: Feature[] = [
  {
    name: "AI assistant",
    configured: (config) => config.ASSISTANT_API_KEY !== undefined,
    howTo: "chat-with-assistant, transcribe-audio and rename-chat-for-event answer 503 provider_not_configured. " +
      "Set ASSISTANT_API_KEY, and for any OpenAI-compatible server other than OpenAI its ASSISTANT_BASE_URL " +
      "(e.g. http://127.0.0.1:11434/v1 for Ollama, with any key) and ASSISTANT_MODELS (its model names)",
  },
  {
    name: "Mail",
    configured: (config) => config.SMTP_URL !== undefined,
    howTo: "e-mail code sign-in (OAuth pages, /auth/v1) answers 503 mail_not_configured. Set SMTP_URL (smtp://user:pass@host:587) and MAIL_FROM",
  },
  {
    name: "EVM chains",
    configured: (config) => config.EVM_CHAINS.length > 0,
    howTo: "checkout, token gates, sponsorship and relays answer 400 chain_not_supported for every chain. " +
      'Set EVM_CHAINS=[{"chainId":8453,"rpcUrl":"https://...","confirmations":3}]',
  },
  {
    name: "Gasless relays",
    configured: (config) => config.RELAYER_PRIVATE_KEY !== undefined,
    howTo: "the venue-gasless routes answer 503 relayer_not_configured. Set RELAYER_PRIVATE_KEY (a wallet holding gas money only)",
  },
  {
    name: "Dynamic prices",
    configured: (config) => config.SERVICE_SIGNER_PRIVATE_KEY !== undefined,
    howTo: "dynamic-price checkouts answer 400 dynamic_pricing_unavailable. Set SERVICE_SIGNER_PRIVATE_KEY (the voucher signer)",
  },
  {
    name: "Sui",
    configured: (config) => config.SUI_NETWORKS.length > 0 && config.SUI_PRIVATE_KEY !== undefined,
    howTo: "publishing Sui collections answers 503 sui_not_configured. Set SUI_NETWORKS and SUI_PRIVATE_KEY",
  },
  {
    name: "Tickets",
    configured: (config) => config.TICKET_SIGNING_KEYS !== undefined,
    howTo: "tickets, manifests and QR scans answer 503 tickets_not_configured. Set TICKET_SIGNING_KEYS (an Ed25519 JWK)",
  },
  {
    name: "Bracelets",
    configured: (config) => config.BRACELET_SUN_KEYS !== null,
    howTo: "SUN scans answer 503 sun_not_configured. Set BRACELET_SUN_KEYS",
  },
  {
    name: "Jobs",
    configured: (config) => config.JOBS_SECRET !== undefined,
    howTo: "POST /functions/v1/jobs answers 503 jobs_not_configured. Set JOBS_SECRET (32+ characters)",
  },
  {
    name: "Gas verifier",
    configured: (config) => config.SPONSORSHIP_VERIFIER_SECRETS.length > 0,
    howTo: "POST /sponsorship/provider/verify answers 503 provider_verifier_not_configured. Set SPONSORSHIP_VERIFIER_SECRETS (32+ characters)",
  },
];

/** The banner's lines for the features `config` leaves off; none when everything is configured. */
export function unconfiguredFeatureLines(config: Config): string[] {
  const off = FEATURES.filter((feature) => !feature.configured(config));
  if (off.length === 0) return [];
  return [
    "",
    "  Not configured (set the variables below, in the environment of npm start, then start again):",
    ...off.map((feature) => `  ${feature.name.padEnd(14)}${feature.howTo}`),
  ];
}
