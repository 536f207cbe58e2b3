import { FOUNDING_YEAR } from '@shared/constants';

declare const __SITE_URL__: string | undefined;

/** Canonical origin of the public site, fixed at build time (SITE_URL). */
export const SITE_URL = (typeof __SITE_URL__ === 'string' && __SITE_URL__) || 'https://nodeharbor.io';

export const site = {
  name: 'NodeHarbor',
  url: SITE_URL,
  email: 'support@nodeharbor.io',
  foundingYear: FOUNDING_YEAR,
  logo: `${SITE_URL}/favicon.svg`,
  partners: {
    gala: 'https://gala.com',
    galaGames: 'https://games.gala.com',
    playa3ull: 'https://playa3ullgames.com',
  },
} as const;
