import { Link } from 'react-router';
import { LegalPage } from '@/components/layout/legal-page';
import { paths } from '@/config/paths';
import { articleLd, breadcrumbLd, Seo } from '@/lib/seo';

const description =
  'Which cookies and browser storage NodeHarbor uses (essential, performance, functional, analytics), how long they last, and how to manage them.';

export default function CookiesPage() {
  return (
    <>
      <Seo
        title="Cookie Policy"
        description={description}
        path={paths.cookies}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Cookie Policy', description, path: paths.cookies }),
          breadcrumbLd([
            { name: 'Home', path: paths.home },
            { name: 'Cookie Policy', path: paths.cookies },
          ]),
        ]}
      />
      <LegalPage
        title="Cookie Policy"
        updated="1 November 2026"
        intro="Cookies and similar browser storage help the site work and remember your choices. This page explains which we use and why."
        sections={[
          {
            heading: 'Essential cookies',
            body: (
              <p>
                Needed for the site to work: they keep you signed in and protect your session. The site cannot work without them, so they cannot be switched
                off.
              </p>
            ),
          },
          {
            heading: 'Performance cookies',
            body: <p>Help us see how quickly pages load and where errors occur, so we can fix them. They do not identify you.</p>,
          },
          { heading: 'Functional cookies', body: <p>Remember choices you make, such as the light or dark theme.</p> },
          {
            heading: 'Analytics cookies',
            body: <p>Count visits and show which pages are used, in aggregate, so we can improve the site. We do not use them for advertising.</p>,
          },
          {
            heading: 'Third-party cookies',
            body: <p>Our payment provider may set its own cookies on its pages when you buy credit. Those are governed by its policy.</p>,
          },
          {
            heading: 'Duration',
            body: <p>Session cookies end when you close your browser. Others last until they expire, at most one year, or until you delete them.</p>,
          },
          {
            heading: 'Managing your preferences',
            body: (
              <p>
                You can block or delete cookies in your browser settings. Blocking essential cookies will stop sign-in from working. Questions?{' '}
                <Link to={paths.contact} className="text-primary underline">
                  Contact us
                </Link>
                .
              </p>
            ),
          },
        ]}
      />
    </>
  );
}
