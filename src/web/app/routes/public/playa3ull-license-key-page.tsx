import { KeyGuide, type KeyGuideStep } from '@/components/layout/key-guide';
import { PageHeader } from '@/components/layout/page-header';
import { paths } from '@/config/paths';
import { articleLd, breadcrumbLd, faqLd, Seo } from '@/lib/seo';
import { dailyUptime, oneServicePerWallet, PLAYA3ULL_ACCOUNT_URL } from './playa3ull-rules';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Playa3ull Hosting', path: paths.playa3ullHostNode },
  { name: 'Master Node License Key', path: paths.playa3ullLicenseKey },
];

const description =
  'How to find your Playa3ull Master Node License Key on the PLAYA3ULL GAMES dApp and configure it securely for a hosted Master Node: five steps, what to do and what to avoid, and answers to common questions.';

/** The vendor's placeholder for the key, as the create-service form quotes it. */
const FORM = '############-####-####-####-############';

const steps: KeyGuideStep[] = [
  {
    title: 'Sign in to the PLAYA3ULL GAMES dApp',
    text: 'Open the PLAYA3ULL GAMES dApp and sign in with the account whose wallet holds your Master Node licenses.',
  },
  {
    title: 'Open your Account page',
    text: (
      <>
        Your license key is on your Account page,{' '}
        <a href={PLAYA3ULL_ACCOUNT_URL} target="_blank" rel="noopener noreferrer" className="text-primary underline">
          app.playa3ull.games/account
        </a>{' '}
        (Playa3ull dApp › Account › license key).
      </>
    ),
  },
  {
    title: 'Copy your license key',
    text: `It has the form ${FORM}: five groups of 12, 4, 4, 4 and 12 letters or digits, separated by hyphens, 40 characters in all.`,
  },
  {
    title: 'Paste it straight into NodeHarbor',
    text: `Paste the key into the Master Node License Key field when you create your service. The form rejects a key of any other form with the message "License key must have the form ${FORM}". Do not store the key in a note or a chat.`,
  },
  {
    title: 'Create your service',
    text: 'Choose the Master Node plan and confirm. One service covers every license in the same wallet. Installation starts at once and finishes within about 10 minutes.',
  },
];

const dos = [
  'Paste the key only into the NodeHarbor dashboard, over https',
  'Order one Master Node service for each wallet that holds licenses',
  'Use a strong, unique password and sign out on shared computers',
];

const avoids = [
  'Sharing your key in chats, forums, screenshots or support messages',
  'Giving anyone your wallet seed phrase or private key: the license key never needs them',
  'Ordering a second service for licenses in a wallet that one service already covers',
];

const faq = [
  oneServicePerWallet,
  dailyUptime,
  {
    q: 'Is my license key safe with NodeHarbor?',
    a: 'Keys are stored encrypted, used only to run your Master Node, and masked in the dashboard. Our staff will never ask you for it.',
  },
  {
    q: 'What if my key is rejected?',
    a: `Check that you copied all of it, with no spaces. A Master Node License Key has the form ${FORM}: five groups of 12, 4, 4, 4 and 12 letters or digits, separated by hyphens.`,
  },
  {
    q: 'Does NodeHarbor need my wallet?',
    a: "No. The license key is all a hosted Master Node needs; it never needs your wallet's seed phrase or private key. Never share them with anyone.",
  },
];

export default function Playa3ullLicenseKeyPage() {
  return (
    <>
      <Seo
        title="Master Node License Key"
        description={description}
        path={paths.playa3ullLicenseKey}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Master Node License Key: find it and configure it securely', description, path: paths.playa3ullLicenseKey }),
          faqLd(faq),
          breadcrumbLd(crumbs),
        ]}
      />
      <PageHeader
        title="Master Node License Key"
        crumbs={crumbs}
        lead="Your Master Node License Key is what lets us run your Playa3ull Master Node for you. Here is where to find it and how to keep it safe."
      />

      <KeyGuide steps={steps} dos={dos} avoids={avoids} faq={faq} hostPath={paths.playa3ullHostNode} hostLabel="Host your Master Node" />
    </>
  );
}
