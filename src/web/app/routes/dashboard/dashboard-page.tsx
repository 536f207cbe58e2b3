import { Navigate, Route, Routes, useLocation } from 'react-router';
import { paths } from '@/config/paths';
import { useSignedInUser } from '@/lib/signed-in-user';
import { Seo } from '@/lib/seo';
import { AppShell } from './app-shell';
import { AccountPage } from './account-page';
import { BillingPage } from './billing-page';
import { OverviewPage } from './overview-page';
import { ServicePage } from './service-page';
import { ServicesPage } from './services-page';
import { SettingsPage } from './settings-page';
import { TransactionsPage } from './transactions-page';

const SECTIONS = [
  { path: paths.dashboard, title: 'Dashboard' },
  { path: paths.dashboardServices, title: 'Services' },
  { path: paths.dashboardBilling, title: 'Billing' },
  { path: paths.dashboardBillingTransactions, title: 'Transactions' },
  { path: paths.dashboardSettings, title: 'Settings' },
  { path: paths.dashboardAccount, title: 'Account' },
] as const;

/** The dashboard and its nested sections (spec §2), client-only and in their own chunk. */
export default function DashboardPage() {
  const user = useSignedInUser();
  const { pathname } = useLocation();
  const current = pathname.replace(/\/$/, '');
  // A section's own pages (a service's page, a settings tab) keep its heading, as the sidebar keeps its item lit.
  const section =
    SECTIONS.find((s) => s.path === current) ?? SECTIONS.find((s) => s.path !== paths.dashboard && current.startsWith(`${s.path}/`)) ?? SECTIONS[0];
  // A service's page names the browser tab itself, after the service.
  const namesItself = current.startsWith(`${paths.dashboardServices}/`);
  return (
    <AppShell user={user} title={section.title}>
      {!namesItself && <Seo title={section.title} description="Your NodeHarbor dashboard." path={section.path} noindex />}
      <Routes>
        <Route index element={<OverviewPage user={user} />} />
        <Route path="services" element={<ServicesPage user={user} />} />
        <Route path="services/:serviceId" element={<ServicePage user={user} />} />
        <Route path="billing" element={<BillingPage user={user} />} />
        <Route path="billing/transactions" element={<TransactionsPage user={user} />} />
        <Route path="settings/:tab?" element={<SettingsPage user={user} />} />
        <Route path="account" element={<AccountPage user={user} />} />
        <Route path="*" element={<Navigate to={paths.dashboard} replace />} />
      </Routes>
    </AppShell>
  );
}
