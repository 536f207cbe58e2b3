import { LayoutGrid, List, Search, Server } from 'lucide-react';
import { useState } from 'react';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { QueryState } from '@/components/ui/query-state';
import { cn } from '@/lib/utils';
import { useProducts } from '../api/get-products';
import { useServices } from '../api/get-services';
import { CreateServiceDialog } from './create-service-dialog';
import { ServiceCard, type ServicesLayout } from './service-card';
import { StatusGuideDialog } from './status-guide-dialog';

const LAYOUT_STORAGE_KEY = 'nodeharbor-services-layout';

/** The layout last chosen in this browser; list when none was, or storage is blocked. */
function storedLayout(): ServicesLayout {
  try {
    return localStorage.getItem(LAYOUT_STORAGE_KEY) === 'grid' ? 'grid' : 'list';
  } catch {
    return 'list';
  }
}

function rememberLayout(layout: ServicesLayout): void {
  try {
    localStorage.setItem(LAYOUT_STORAGE_KEY, layout);
  } catch {
    // Storage blocked: the choice holds until the page is left.
  }
}

/** The Services page body: search, layout toggle, New Service, and the cards. */
export function ServicesView({ user, balance }: { user: { id: string; email: string }; balance: number | undefined }) {
  const services = useServices();
  const products = useProducts();
  const [query, setQuery] = useState('');
  const [layout, setLayout] = useState<ServicesLayout>(storedLayout);
  const chooseLayout = (l: ServicesLayout) => {
    setLayout(l);
    rememberLayout(l);
  };

  const all = services.data ?? [];
  const shown = all.filter((s) => s.name.toLowerCase().includes(query.trim().toLowerCase()));

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-48 flex-1">
          <Search className="absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
          <Input
            type="search"
            aria-label="Search services"
            placeholder="Search services..."
            className="pl-9"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div role="group" aria-label="Layout" className="flex rounded-md border border-border">
          {(['list', 'grid'] as const).map((l) => (
            <button
              key={l}
              type="button"
              aria-pressed={layout === l}
              aria-label={l === 'list' ? 'List view' : 'Grid view'}
              onClick={() => chooseLayout(l)}
              className={cn('p-2', layout === l && 'bg-muted text-primary')}
            >
              {l === 'list' ? <List className="size-4" aria-hidden="true" /> : <LayoutGrid className="size-4" aria-hidden="true" />}
            </button>
          ))}
        </div>
        <CreateServiceDialog user={user} balance={balance} existingNames={all.map((s) => s.name)} />
      </div>
      <StatusGuideDialog />

      <QueryState query={services} loading="Loading services..." failed="Failed to load services" failedClassName="py-8 text-center">
        {() =>
          all.length === 0 ? (
            <Card className="py-12 text-center">
              <Server className="mx-auto size-10 text-muted-foreground" aria-hidden="true" />
              <h2 className="mt-4 text-lg font-semibold">No services yet</h2>
              <p className="text-sm text-muted-foreground">Create your first service with the New Service button.</p>
            </Card>
          ) : shown.length === 0 ? (
            <Card className="py-12 text-center">
              <h2 className="text-lg font-semibold">No matching services</h2>
              <p className="text-sm text-muted-foreground">No service name contains “{query}”.</p>
            </Card>
          ) : (
            // grid-cols-1 is minmax(0, 1fr): a long key truncates instead of widening the page.
            <div className={cn('grid grid-cols-1 gap-4', layout === 'grid' && 'sm:grid-cols-2 xl:grid-cols-3')}>
              {shown.map((s) => (
                <ServiceCard key={s.id} service={s} product={products.data?.find((p) => p.id === s.product_id)} userEmail={user.email} layout={layout} />
              ))}
            </div>
          )
        }
      </QueryState>
    </div>
  );
}
