import { LOG_LINES } from '@shared/node-health';
import { RefreshCw, ScrollText } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { useNodeLogs } from '../api/get-node-logs';

/**
 * A node's logs in a dialog: one component for the owner's service page and the admin's fleet.
 * It lives in its own `nodes` feature, composed in by the app routes (service page, admin page),
 * because the services and admin features may not import each other.
 */
export function NodeLogsDialog({ serviceId, name }: { serviceId: string; name: string }) {
  const [open, setOpen] = useState(false);
  const logs = useNodeLogs(serviceId, open);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Logs"
      wide
      description={`The last ${LOG_LINES} lines of ${name}'s node. Its key is shown as ••••.`}
      trigger={
        <Button variant="outline" size="sm" aria-label={`Logs of ${name}`}>
          <ScrollText className="size-4" aria-hidden="true" /> Logs
        </Button>
      }
    >
      <div className="space-y-3">
        <div className="flex justify-end">
          <Button variant="outline" size="sm" disabled={logs.isFetching} onClick={() => void logs.refetch()}>
            <RefreshCw className="size-4" aria-hidden="true" /> Refresh
          </Button>
        </div>
        {logs.isPending ? (
          <Spinner label="Loading logs..." />
        ) : logs.isError ? (
          <p role="alert" className="text-sm text-destructive">
            {logs.error.message}
          </p>
        ) : logs.data.length === 0 ? (
          <p className="py-8 text-center text-sm text-muted-foreground">No log lines yet</p>
        ) : (
          // Focusable, so that a keyboard can scroll it; opened at its end, the newest lines, as a log is read.
          <pre
            ref={(el) => {
              if (el) el.scrollTop = el.scrollHeight;
            }}
            tabIndex={0}
            aria-label="Log lines"
            className="max-h-96 overflow-auto rounded-md bg-muted p-3 font-mono text-xs leading-relaxed"
          >
            {logs.data.join('\n')}
          </pre>
        )}
      </div>
    </Dialog>
  );
}
