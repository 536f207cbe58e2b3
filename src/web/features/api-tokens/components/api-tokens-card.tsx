import { MAX_API_TOKENS } from '@shared/api-tokens';
import { KeyRound } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { QueryState } from '@/components/ui/query-state';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useApiTokens, type ApiToken } from '../api/get-api-tokens';
import { useRevokeApiToken } from '../api/revoke-api-token';
import { CreateTokenDialog } from './create-token-dialog';

/** Where the API is documented; the server serves it, outside this app's routes. */
const API_DOCS = '/docs/api';

/** Settings › API tokens: the user's tokens, their last use, Create and Revoke. */
export function ApiTokensCard() {
  const tokens = useApiTokens();
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const f = useFormat();
  const live = (tokens.data ?? []).filter((t) => t.expires_at === null || f.isFuture(t.expires_at)).length;

  return (
    <Card role="region" aria-labelledby="api-tokens-heading">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id="api-tokens-heading" className="text-lg font-semibold">
            API tokens
          </h2>
          <p className="mt-1 text-sm text-muted-foreground">
            Tokens let your scripts call the NodeHarbor API as you, within the scopes you choose. Read the{' '}
            <a href={API_DOCS} className="font-medium text-foreground underline underline-offset-4">
              API documentation
            </a>
            .
          </p>
        </div>
        <CreateTokenDialog disabled={live >= MAX_API_TOKENS} />
      </div>
      <p className="mt-3 text-sm text-muted-foreground">
        Signing out everywhere or changing your password does not revoke your tokens: revoke a token here when you no longer need it. Deleting your account
        revokes them all.
      </p>
      <QueryState query={tokens} loading="Loading..." failed="Failed to load your API tokens." failedClassName="mt-4 text-sm">
        {(data) =>
          data.length === 0 ? (
            <p className="mt-4 text-sm">You have no API tokens.</p>
          ) : (
            <ul className="mt-4 space-y-2" aria-label="Your API tokens">
              {data.map((t) => (
                <TokenItem key={t.id} token={t} onRevoke={() => setRevoking(t)} />
              ))}
            </ul>
          )
        }
      </QueryState>
      <RevokeDialog token={revoking} onClose={() => setRevoking(null)} />
    </Card>
  );
}

function TokenItem({ token: t, onRevoke }: { token: ApiToken; onRevoke: () => void }) {
  const f = useFormat();
  const expired = t.expires_at !== null && !f.isFuture(t.expires_at);
  return (
    <li className="flex flex-wrap items-start justify-between gap-2 rounded-md border border-border p-3 text-sm">
      <span className="flex min-w-0 items-start gap-3">
        <KeyRound className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="min-w-0">
          <span className="flex flex-wrap items-center gap-2 font-medium">
            <span className="break-all">{t.name}</span>
            <code className="font-mono text-xs text-muted-foreground">{t.prefix}…</code>
            {expired && <Badge variant="destructive">Expired</Badge>}
          </span>
          <span className="mt-1 flex flex-wrap gap-1" aria-label="Scopes">
            {t.scopes.map((scope) => (
              <Badge key={scope} variant="secondary">
                {scope}
              </Badge>
            ))}
          </span>
          <span className="mt-1 block text-muted-foreground">
            Created {f.date(t.created_at)} ·{' '}
            {t.expires_at === null ? 'Never expires' : expired ? `Expired ${f.date(t.expires_at)}` : `Expires ${f.date(t.expires_at)}`}
          </span>
          <span className="block text-muted-foreground">
            {t.last_used_at ? `Last used ${f.dateTime(t.last_used_at)}${t.last_used_ip ? ` from ${t.last_used_ip}` : ''}` : 'Never used'}
          </span>
          {t.allowed_ips.length > 0 && <span className="block break-all text-muted-foreground">Only from {t.allowed_ips.join(', ')}</span>}
        </span>
      </span>
      <Button variant="outline" size="sm" onClick={onRevoke} aria-label={`Revoke ${t.name}`}>
        Revoke
      </Button>
    </li>
  );
}

function RevokeDialog({ token, onClose }: { token: ApiToken | null; onClose: () => void }) {
  const revoke = useRevokeApiToken();
  const confirm = async () => {
    if (!token) return;
    try {
      await revoke.mutateAsync(token.id);
      toast.success('Token revoked', `${token.name} no longer works.`);
      onClose();
    } catch (e) {
      toast.error('Could not revoke the token', errorText(e));
    }
  };
  return (
    <Dialog
      open={token !== null}
      onOpenChange={(open) => !open && onClose()}
      title={`Revoke ${token?.name ?? 'token'}?`}
      description="Scripts using it are refused from the next request. This cannot be undone."
    >
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="outline" onClick={onClose}>
          Cancel
        </Button>
        <Button variant="destructive" disabled={revoke.isPending} onClick={() => void confirm()}>
          {revoke.isPending ? 'Revoking...' : 'Revoke token'}
        </Button>
      </div>
    </Dialog>
  );
}
