/** Every route path of the app, in one place (spec §2). */
export const paths = {
  home: '/',
  about: '/about',
  contact: '/contact',
  terms: '/terms',
  privacy: '/privacy',
  cookies: '/cookies',
  login: '/login',
  register: '/register',
  resetPassword: '/reset-password',
  resetPasswordConfirm: '/reset-password-confirm',
  galaHostNode: '/gala-hosting/host-node',
  galaApiKey: '/gala-hosting/api-key',
  playa3ullHostNode: '/playa3ull-hosting/host-node',
  playa3ullLicenseKey: '/playa3ull-hosting/license-key',
  dashboard: '/dashboard',
  dashboardServices: '/dashboard/services',
  /** One service's page (the node alert e-mails link here too). */
  dashboardService: (serviceId: string) => `/dashboard/services/${serviceId}`,
  dashboardBilling: '/dashboard/billing',
  /** Billing with Add Funds filled in: a shortfall to cover (lib/top-up.ts reads it back). */
  dashboardBillingAddFunds: (amount: number) => `/dashboard/billing?amount=${amount.toFixed(2)}`,
  /** Billing's whole ledger; its filters and page ride in the query string. */
  dashboardBillingTransactions: '/dashboard/billing/transactions',
  dashboardSettings: '/dashboard/settings',
  /** A Settings tab by its own address, so a reload or a link keeps it. */
  dashboardSettingsTab: (tab: string) => `/dashboard/settings/${tab}`,
  dashboardAccount: '/dashboard/account',
  admin: '/admin',
  /** One user's page in the admin area (the audit log links its targets here). */
  adminUser: (userId: string) => `/admin/users/${userId}`,
} as const;

/** Routes a development host shows even to visitors without dev access (spec §2). */
export const devBlockExempt: readonly string[] = [paths.login, paths.resetPassword, paths.resetPasswordConfirm];

/** Routes with the app's own layout (sidebar and header) instead of the public site's header and footer. */
export function isAppPath(pathname: string): boolean {
  return [paths.dashboard, paths.admin].some((p) => pathname === p || pathname.startsWith(`${p}/`));
}
