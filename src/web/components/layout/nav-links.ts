import { paths } from '@/config/paths';

export type NavGroup = { label: string; items: { label: string; to: string; description: string }[] };

/** The header's two product menus (spec §2). */
export const navGroups: NavGroup[] = [
  {
    label: 'Gala Hosting',
    items: [
      { label: 'Host Gala Node', to: paths.galaHostNode, description: 'Town Star node hosting from $10/month' },
      { label: 'Gala API Key', to: paths.galaApiKey, description: 'Get and secure your node API key' },
    ],
  },
  {
    label: 'Playa3ull Hosting',
    items: [
      { label: 'Host Master Node', to: paths.playa3ullHostNode, description: 'Master Node hosting at $3/month' },
      { label: 'Master Node License Key', to: paths.playa3ullLicenseKey, description: 'Find and secure your license key' },
    ],
  },
];

export const plainLinks = [
  { label: 'About', to: paths.about },
  { label: 'Contact', to: paths.contact },
];
