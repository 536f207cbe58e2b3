import { KeyGuide } from '@/components/layout/key-guide';
import { PageHeader } from '@/components/layout/page-header';
import { paths } from '@/config/paths';
import { articleLd, breadcrumbLd, faqLd, Seo } from '@/lib/seo';

const crumbs = [
  { name: 'Home', path: paths.home },
  { name: 'Gala Hosting', path: paths.galaHostNode },
  { name: 'Gala API Key', path: paths.galaApiKey },
];

const description =
  'How to get your Gala API key and configure it securely for a hosted node: five steps, what to do and what to avoid, and answers to common questions.';

const steps = [
  { title: 'Sign in to your Gala account', text: 'Open the Gala website and sign in to the Gala Games account that owns your node license.' },
  {
    title: 'Open the Node Dashboard',
    text: 'Your node API key lives in the Node Dashboard of your Gala account (Gala account › Node Dashboard › API key).',
  },
  {
    title: 'Copy your API key',
    text: 'It is a string of 44 to 46 characters that ends with "=". It lets the node software see which node licenses your account owns and credit you for running them. It cannot move or touch the NFTs or crypto in your wallet.',
  },
  {
    title: 'Paste it straight into NodeHarbor',
    text: 'Paste the key into the API key field when you create your service. Gala recommends not sharing it, so do not store it in a note or a chat.',
  },
  { title: 'Create your service', text: 'Choose the Town Star plan and confirm. Installation starts at once and finishes within about 10 minutes.' },
];

const dos = [
  'Paste the key only into the NodeHarbor dashboard, over https',
  'Update your service at once when your key changes, so that your node keeps running',
  'Use a strong, unique password and sign out on shared computers',
];

const avoids = [
  'Sharing your key in chats, forums, screenshots or support messages',
  'Giving anyone your wallet seed phrase or private key: a node never needs them',
  'Running the same license on another node while we host it: it can take the pairing from your hosted node',
  'Ordering more Town Star services than your account has licenses: each license pairs with one node, and a node left without one is not credited',
];

const faq = [
  {
    q: 'Is my API key safe with NodeHarbor?',
    a: 'Keys are stored encrypted, used only to run your node, and masked in the dashboard. Our staff will never ask you for it.',
  },
  {
    q: 'What if my key is rejected?',
    a: 'Check that you copied all of it, with no spaces, and that it ends with "=". A Gala API key is 44 to 46 characters long.',
  },
  { q: 'Can I change the key later?', a: 'Yes. Open your service, choose Change key and paste the key from your Node Dashboard: the node restarts with it.' },
  {
    q: 'Can I also run my license on my own computer?',
    a: 'Not while we host it. Gala pairs a license with one running node. After about 10 minutes offline, Gala may release the pairing and pair the license with another of your nodes, so a second node running the same license can take it over. We e-mail you once your hosted node has been down for 5 minutes.',
  },
  { q: 'Does NodeHarbor need my wallet?', a: 'No. The API key is all a hosted node needs. Never share a seed phrase or a private key with anyone.' },
];

export default function GalaApiKeyPage() {
  return (
    <>
      <Seo
        title="Gala API Key"
        description={description}
        path={paths.galaApiKey}
        type="article"
        jsonLd={[
          articleLd({ headline: 'Gala API Key: get it and configure it securely', description, path: paths.galaApiKey }),
          faqLd(faq),
          breadcrumbLd(crumbs),
        ]}
      />
      <PageHeader
        title="Gala API Key"
        crumbs={crumbs}
        lead="Your API key is what lets us run your Gala node for you. Here is how to get it and keep it safe."
      />

      <KeyGuide steps={steps} dos={dos} avoids={avoids} faq={faq} hostPath={paths.galaHostNode} hostLabel="Host your Gala Node" />
    </>
  );
}
