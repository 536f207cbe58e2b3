/**
 * Every query's key, one factory per feature: a query's options and every invalidation or cache
 * write take their key from here, never from a literal, so a prefix invalidates exactly what it
 * names. Here, in src/web/lib, because a feature may invalidate another's data (a new service
 * changes the balance) and features import each other only through lib.
 */
export const adminKeys = {
  all: ['admin'] as const,
  fleet: () => [...adminKeys.all, 'fleet'] as const,
  fleetPage: (q: object) => [...adminKeys.fleet(), 'page', q] as const,
  fleetCounts: () => [...adminKeys.fleet(), 'counts'] as const,
  userStats: () => [...adminKeys.all, 'user-stats'] as const,
  userStatsPage: (search: string, limit: number, offset: number) => [...adminKeys.userStats(), search, limit, offset] as const,
  audit: () => [...adminKeys.all, 'audit'] as const,
  auditPage: (q: object) => [...adminKeys.audit(), q] as const,
  outbox: (q: object) => [...adminKeys.all, 'outbox', q] as const,
  mailBody: (id: number) => [...adminKeys.all, 'mail-body', id] as const,
  contactMessages: (q: object) => [...adminKeys.all, 'contact-messages', q] as const,
  contactSettings: () => [...adminKeys.all, 'contact-settings'] as const,
  statusPage: () => [...adminKeys.all, 'status-page'] as const,
  user: (userId: string) => [...adminKeys.all, 'user', userId] as const,
  userProfile: (userId: string) => [...adminKeys.user(userId), 'profile'] as const,
  userPage: (userId: string, of: 'purchases' | 'transactions' | 'events', limit: number, offset: number) =>
    [...adminKeys.user(userId), of, limit, offset] as const,
  isAdmin: (userId: string) => ['is-admin', userId] as const,
};

export const servicesKeys = {
  /** The signed-in user's services; also the prefix of each one's own queries. */
  list: () => ['services'] as const,
  detail: (serviceId: string) => [...servicesKeys.list(), serviceId] as const,
  of: (serviceId: string, what: 'restarts' | 'events' | 'uptime' | 'power' | 'usage-24h' | 'usage-30d') => [...servicesKeys.detail(serviceId), what] as const,
  unused: () => ['unused-services'] as const,
  unusedOf: (userId: string) => [...servicesKeys.unused(), userId] as const,
  nextPayment: (fingerprint: string) => ['next-payment', fingerprint] as const,
  products: () => ['products'] as const,
  productProperties: (productId: string) => [...servicesKeys.products(), productId, 'properties'] as const,
  compatibleProducts: (baseProductCode: string | null) => [...servicesKeys.products(), 'compatible', baseProductCode] as const,
};

export const nodesKeys = {
  logs: (serviceId: string) => ['node-logs', serviceId] as const,
};

export const billingKeys = {
  all: ['billing'] as const,
  balance: (userId: string) => [...billingKeys.all, 'balance', userId] as const,
  negativeBalance: (userId: string) => [...billingKeys.all, 'negative-balance', userId] as const,
  purchases: (userId: string) => [...billingKeys.all, 'purchases', userId] as const,
  transactions: (userId: string) => [...billingKeys.all, 'transactions', userId] as const,
  ledgerPage: (userId: string, q: object, limit: number, offset: number) => [...billingKeys.all, 'ledger', userId, q, limit, offset] as const,
  documents: (userId: string, purchaseIds: readonly string[]) => [...billingKeys.all, 'documents', userId, purchaseIds] as const,
  statements: (userId: string) => [...billingKeys.all, 'statements', userId] as const,
};

export const accountKeys = {
  profile: (userId: string) => ['profile', userId] as const,
};

/** Settings › Notifications: the signed-in user's channels, preferences and their delivery logs. */
export const notificationsKeys = {
  all: ['notifications'] as const,
  channels: () => [...notificationsKeys.all, 'channels'] as const,
  preferences: () => [...notificationsKeys.all, 'preferences'] as const,
  serviceSettings: () => [...notificationsKeys.all, 'service-settings'] as const,
  services: () => [...notificationsKeys.all, 'services'] as const,
  threshold: (userId: string) => [...notificationsKeys.all, 'threshold', userId] as const,
  attempts: (channelId: string) => [...notificationsKeys.all, 'attempts', channelId] as const,
};

/** Settings › API tokens: the signed-in user's tokens, without their secrets. */
export const apiTokenKeys = {
  list: () => ['api-tokens'] as const,
};

export const settingsKeys = {
  factors: () => ['mfa-factors'] as const,
  sessions: () => ['own-sessions'] as const,
  recoveryCodes: () => ['recovery-codes'] as const,
};
