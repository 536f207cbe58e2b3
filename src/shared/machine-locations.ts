/**
 * The cities of the cloud locations a node's machine may run in, as the owner reads them
 * (Hetzner Cloud's, docs.hetzner.cloud: GET /locations). A location not listed is shown by its code.
 */
const LOCATION_CITIES: Readonly<Record<string, string>> = {
  fsn1: 'Falkenstein, Germany',
  nbg1: 'Nuremberg, Germany',
  hel1: 'Helsinki, Finland',
  ash: 'Ashburn, Virginia, USA',
  hil: 'Hillsboro, Oregon, USA',
  sin: 'Singapore',
};

/** "Falkenstein, Germany (fsn1)": the city and the provider's code, which the operator's tools show. */
export function locationName(code: string): string {
  const city = Object.hasOwn(LOCATION_CITIES, code) ? LOCATION_CITIES[code] : undefined;
  return city ? `${city} (${code})` : code;
}
