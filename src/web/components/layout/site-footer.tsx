import { Link } from 'react-router';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { useAppConfig } from '@/lib/app-config';

const external = { target: '_blank', rel: 'noopener noreferrer' } as const;

export function SiteFooter() {
  const { data: config } = useAppConfig();
  return (
    <footer className="border-t border-border bg-muted">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-12 sm:grid-cols-2 lg:grid-cols-4">
        <div>
          <p className="font-semibold">NodeHarbor</p>
          <p className="mt-2 text-sm text-muted-foreground">Managed hosting for blockchain gaming nodes. Your key, our servers, monitored around the clock.</p>
        </div>
        <nav aria-label="Hosting">
          <p className="font-semibold">Hosting</p>
          <ul className="mt-2 space-y-1 text-sm">
            <li>
              <Link to={paths.galaHostNode} className="hover:underline">
                Host Gala Node
              </Link>
            </li>
            <li>
              <Link to={paths.galaApiKey} className="hover:underline">
                Gala API Key
              </Link>
            </li>
            <li>
              <Link to={paths.playa3ullHostNode} className="hover:underline">
                Host Master Node
              </Link>
            </li>
            <li>
              <Link to={paths.playa3ullLicenseKey} className="hover:underline">
                Master Node License Key
              </Link>
            </li>
          </ul>
        </nav>
        <nav aria-label="Company">
          <p className="font-semibold">Company</p>
          <ul className="mt-2 space-y-1 text-sm">
            <li>
              <Link to={paths.about} className="hover:underline">
                About
              </Link>
            </li>
            <li>
              <Link to={paths.contact} className="hover:underline">
                Contact
              </Link>
            </li>
            <li>
              {/* Our own page (the server draws it, outside this app's routes) unless STATUS_URL names another. */}
              {config?.statusUrl ? (
                <a href={config.statusUrl} {...external} className="hover:underline">
                  System Status
                </a>
              ) : (
                <a href="/status" className="hover:underline">
                  System Status
                </a>
              )}
            </li>
          </ul>
        </nav>
        <nav aria-label="Partners">
          <p className="font-semibold">Partners</p>
          <ul className="mt-2 space-y-1 text-sm">
            <li>
              <a href={site.partners.gala} {...external} className="hover:underline">
                Gala
              </a>
            </li>
            <li>
              <a href={site.partners.galaGames} {...external} className="hover:underline">
                Gala Games
              </a>
            </li>
            <li>
              <a href={site.partners.playa3ull} {...external} className="hover:underline">
                Playa3ull Games
              </a>
            </li>
          </ul>
        </nav>
      </div>
      <div className="border-t border-border">
        <div className="mx-auto flex max-w-6xl flex-col gap-3 px-4 py-6 text-sm text-muted-foreground sm:flex-row sm:items-center sm:justify-between">
          <p>© {new Date().getFullYear()} NodeHarbor. All rights reserved.</p>
          <nav aria-label="Legal">
            <ul className="flex gap-4">
              <li>
                <Link to={paths.terms} className="hover:underline">
                  Terms of Service
                </Link>
              </li>
              <li>
                <Link to={paths.privacy} className="hover:underline">
                  Privacy Policy
                </Link>
              </li>
              <li>
                <Link to={paths.cookies} className="hover:underline">
                  Cookie Policy
                </Link>
              </li>
            </ul>
          </nav>
        </div>
      </div>
    </footer>
  );
}
