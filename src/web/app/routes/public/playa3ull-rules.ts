import type { FaqItem } from '@/components/layout/faq-list';

/** Where Playa3ull shows a customer's Master Node License Key: the Account page of its dApp. */
export const PLAYA3ULL_ACCOUNT_URL = 'https://app.playa3ull.games/account';

// Playa3ull's own rules (docs.playa3ull.games: Master Nodes, and the Master Node Software FAQ), in
// the same words on the host-node page and the license-key guide.

export const oneServicePerWallet: FaqItem = {
  q: 'I own several Master Node licenses. How many services do I need?',
  a: 'One for each wallet. While the Master Node Software is in beta, one running instance covers every license in the same wallet, however many you own there. So one Master Node service covers all the licenses in a wallet; licenses in different wallets need one service for each wallet.',
};

export const dailyUptime: FaqItem = {
  q: 'How long must a Master Node be online?',
  a: "At least 8 hours in each UTC day, from 00:00 to 23:59 UTC. A run across midnight counts separately for each day: online from 20:00 to 04:00 UTC gives each day 4 hours, not one day 8. A day short of 8 hours can forfeit that day's rewards. Your service page charts each UTC day's uptime against the 8 hours.",
};
