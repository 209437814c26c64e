// The provider GEOCODER_PROVIDER names, one per configuration.
import type { Config } from "../config.ts";
import { nominatimProvider } from "./nominatim.ts";
import { photonProvider } from "./photon.ts";
import { postgresPlacesProvider } from "./postgres-places.ts";
import type { GeocodingProvider } from "./types.ts";

const providers = new WeakMap<Config, GeocodingProvider>();

export function geocoderFor(config: Config): GeocodingProvider {
  let provider = providers.get(config);
  if (provider) return provider;
  const url = config.GEOCODER_URL ?? "";
  switch (config.GEOCODER_PROVIDER) {
    case "photon":
      provider = photonProvider(url, config.GEOCODER_TIMEOUT_MS);
      break;
    case "nominatim":
      provider = nominatimProvider(url, config.GEOCODER_TIMEOUT_MS);
      break;
    default:
      provider = postgresPlacesProvider;
  }
  providers.set(config, provider);
  return provider;
}
