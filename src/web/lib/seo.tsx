import { createContext, useContext, useEffect } from 'react';
import { site } from '@/config/site';

export type JsonLd = Record<string, unknown>;

export type SeoProps = {
  title: string;
  description: string;
  path: string;
  noindex?: boolean;
  type?: 'website' | 'article';
  jsonLd?: JsonLd[];
};

/** Given while prerendering: receives the head tags of the page being rendered. */
export type HeadCollector = (tags: string) => void;

export const HeadContext = createContext<HeadCollector | null>(null);

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// "</script>" inside JSON-LD would close the element early.
const jsonForScript = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

export function fullTitle(title: string): string {
  return title === site.name ? title : `${title} | ${site.name}`;
}

/** Every head tag of a page as HTML, each marked data-seo so the client can swap them on navigation. */
export function headTags(p: SeoProps): string {
  const url = `${site.url}${p.path === '/' ? '/' : p.path}`;
  const title = fullTitle(p.title);
  const image = `${site.url}/og-image.svg`;
  const meta = (attr: 'name' | 'property', key: string, content: string) => `<meta data-seo ${attr}="${key}" content="${escapeAttr(content)}">`;
  return [
    `<title data-seo>${escapeAttr(title)}</title>`,
    meta('name', 'description', p.description),
    `<link data-seo rel="canonical" href="${escapeAttr(url)}">`,
    meta('name', 'robots', p.noindex ? 'noindex, nofollow' : 'index, follow'),
    meta('property', 'og:type', p.type ?? 'website'),
    meta('property', 'og:site_name', site.name),
    meta('property', 'og:title', title),
    meta('property', 'og:description', p.description),
    meta('property', 'og:url', url),
    meta('property', 'og:image', image),
    meta('name', 'twitter:card', 'summary_large_image'),
    meta('name', 'twitter:title', title),
    meta('name', 'twitter:description', p.description),
    meta('name', 'twitter:image', image),
    // A page that names no structured data still says which site it belongs to.
    ...(p.jsonLd ?? [websiteLd()]).map(
      (d) => `<script data-seo type="application/ld+json">${jsonForScript({ '@context': 'https://schema.org', ...d })}</script>`,
    ),
  ].join('\n    ');
}

/** Sets the page's title, description, canonical URL, social tags and structured data. */
export function Seo(props: SeoProps) {
  const collect = useContext(HeadContext);
  const html = headTags(props);
  collect?.(html);
  const title = fullTitle(props.title);
  useEffect(() => {
    // The browser shows the first <title>: a page served from the app shell (200.html) has the shell's own, without data-seo.
    document.title = title;
    const current = [...document.head.querySelectorAll('[data-seo]')];
    if (current.map((e) => e.outerHTML).join('') === html.replace(/\n\s*/g, '')) return;
    for (const e of current) e.remove();
    document.head.insertAdjacentHTML('beforeend', html);
  }, [html, title]);
  return null;
}

// ---------------------------------------------------------------- structured data (schema.org)

export const organizationLd = (): JsonLd => ({
  '@type': 'Organization',
  name: site.name,
  url: site.url,
  logo: site.logo,
  foundingDate: String(site.foundingYear),
  email: site.email,
  contactPoint: { '@type': 'ContactPoint', contactType: 'customer support', email: site.email, url: `${site.url}/contact` },
});

export const websiteLd = (): JsonLd => ({ '@type': 'WebSite', name: site.name, url: site.url });

export const serviceLd = (s: { name: string; description: string; price: number; path: string }): JsonLd => ({
  '@type': 'Service',
  name: s.name,
  description: s.description,
  url: `${site.url}${s.path}`,
  provider: { '@type': 'Organization', name: site.name, url: site.url },
  offers: { '@type': 'Offer', price: s.price.toFixed(2), priceCurrency: 'USD', availability: 'https://schema.org/InStock' },
});

export const faqLd = (items: readonly { q: string; a: string }[]): JsonLd => ({
  '@type': 'FAQPage',
  mainEntity: items.map((i) => ({ '@type': 'Question', name: i.q, acceptedAnswer: { '@type': 'Answer', text: i.a } })),
});

export const articleLd = (a: { headline: string; description: string; path: string }): JsonLd => ({
  '@type': 'Article',
  headline: a.headline,
  description: a.description,
  url: `${site.url}${a.path}`,
  author: { '@type': 'Organization', name: site.name },
  publisher: { '@type': 'Organization', name: site.name, logo: { '@type': 'ImageObject', url: site.logo } },
});

export const breadcrumbLd = (items: readonly { name: string; path: string }[]): JsonLd => ({
  '@type': 'BreadcrumbList',
  itemListElement: items.map((i, n) => ({ '@type': 'ListItem', position: n + 1, name: i.name, item: `${site.url}${i.path}` })),
});
