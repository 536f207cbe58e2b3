import { LOG_LINES } from '@shared/node-health';
import { LOG_FOLLOW_MINUTES, LOG_FOLLOW_SECONDS, LOG_KEEP_LINES, LOG_SEARCH_MAX, LOG_TAIL_MAX } from '@shared/node-logs';
import { Download, RefreshCw, ScrollText, Search } from 'lucide-react';
import { Fragment, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { downloadNodeLogs } from '../api/download-node-logs';
import { readNodeLogs, useNodeLogs } from '../api/get-node-logs';
import { appendFollowed, followCursor, lineMatches, matchRanges } from '../log-lines';

/** New lines are told to a screen reader at most this often, however often they come. */
const ANNOUNCE_SECONDS = 30;

// Below 640 px the tools' icons make way, so that Follow, Refresh and Download fit one row of a phone.
const TOOL_ICON = 'hidden size-4 sm:block';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * A node's logs in a dialog: one component for the owner's service page and the admin's fleet.
 * It lives in its own `nodes` feature, composed in by the app routes (service page, admin page),
 * because the services and admin features may not import each other.
 */
export function NodeLogsDialog({ serviceId, name }: { serviceId: string; name: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Logs"
      wide
      // The dialog itself, with its title and description, rather than the search field: on a phone a focused field opens the keyboard over the lines.
      initialFocus="dialog"
      description={`The last ${LOG_LINES} lines of ${name}'s node. Its key is shown as ••••.`}
      trigger={
        <Button variant="outline" size="sm" aria-label={`Logs of ${name}`}>
          <ScrollText className="size-4" aria-hidden="true" /> Logs
        </Button>
      }
    >
      {/* Mounted while open only: closing ends following, its timers and its lines. */}
      {open && <LogsConsole serviceId={serviceId} name={name} />}
    </Dialog>
  );
}

type FollowEnd = { kind: 'time' } | { kind: 'error'; message: string };

function LogsConsole({ serviceId, name }: { serviceId: string; name: string }) {
  const id = useId();
  const logs = useNodeLogs(serviceId, true);
  // What the box holds: the last read (on opening, on Refresh), then what following brought.
  const [lines, setLines] = useState<string[] | undefined>(undefined);
  const [read, setRead] = useState<string[] | undefined>(undefined);
  if (logs.data !== undefined && logs.data !== read) {
    setRead(logs.data);
    setLines(logs.data);
  }
  const linesRef = useRef(lines);
  useLayoutEffect(() => {
    linesRef.current = lines;
  }, [lines]);

  const [query, setQuery] = useState('');
  const [following, setFollowing] = useState(false);
  const [followEnd, setFollowEnd] = useState<FollowEnd | null>(null);
  const [gap, setGap] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const unannounced = useRef(0);
  const announcedAt = useRef(0);
  const followSwitch = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!following) return;
    let cancelled = false;
    let next: ReturnType<typeof setTimeout> | undefined;
    // Bounded: a dialog left open does not ask the engine for ever.
    const stop = setTimeout(() => {
      setFollowing(false);
      setFollowEnd({ kind: 'time' });
    }, LOG_FOLLOW_MINUTES * 60_000);
    const poll = async () => {
      const before = linesRef.current;
      const shown = before ?? [];
      const since = followCursor(shown);
      try {
        const answer = await readNodeLogs(serviceId, since === undefined ? {} : { since: new Date(since).toISOString() });
        if (cancelled) return;
        // A Refresh answered meanwhile holds these lines already: the next read goes on from it.
        if (linesRef.current === before) {
          const { lines: merged, added } = appendFollowed(shown, answer.lines, since, LOG_KEEP_LINES);
          if (added > 0) {
            linesRef.current = merged;
            setLines(merged);
            unannounced.current += added;
          }
          if (answer.gap) setGap(true);
        }
        if (unannounced.current > 0 && Date.now() - announcedAt.current >= ANNOUNCE_SECONDS * 1000) {
          setAnnouncement(plural(unannounced.current, 'new line', 'new lines'));
          unannounced.current = 0;
          announcedAt.current = Date.now();
        }
        // One read at a time: the next is asked for once this one is in.
        next = setTimeout(() => void poll(), LOG_FOLLOW_SECONDS * 1000);
      } catch (e) {
        if (cancelled) return;
        setFollowing(false);
        setFollowEnd({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
      }
    };
    void poll();
    return () => {
      cancelled = true;
      clearTimeout(stop);
      clearTimeout(next);
    };
  }, [following, serviceId]);

  const follow = (on: boolean) => {
    setFollowEnd(null);
    setFollowing(on);
  };
  const followAgain = () => {
    follow(true);
    // The button goes away with the note it belongs to: focus goes to the switch it turned on.
    followSwitch.current?.focus();
  };

  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const download = async () => {
    setDownloading(true);
    setDownloadError(null);
    try {
      await downloadNodeLogs(serviceId, name);
    } catch (e) {
      setDownloadError(e instanceof Error ? e.message : String(e));
    } finally {
      setDownloading(false);
    }
  };

  const shown = useMemo(() => (lines && query ? lines.filter((l) => lineMatches(l, query)) : (lines ?? [])), [lines, query]);

  // Kept at the newest line while the reader is there; left alone once they scroll up to read.
  const box = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    if (box.current && atEnd.current) box.current.scrollTop = box.current.scrollHeight;
  }, [shown]);

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-48 flex-1">
          <label htmlFor={`${id}-search`} className="sr-only">
            Search the shown lines
          </label>
          <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
          <Input
            id={`${id}-search`}
            type="search"
            className="pl-9"
            placeholder="Search lines"
            maxLength={LOG_SEARCH_MAX}
            autoComplete="off"
            spellCheck={false}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <div className="flex items-center gap-2 px-1">
            <Switch
              id={`${id}-follow`}
              ref={followSwitch}
              checked={following}
              disabled={lines === undefined}
              aria-describedby={following ? `${id}-following` : undefined}
              onCheckedChange={follow}
            />
            <label htmlFor={`${id}-follow`} className="text-sm font-medium">
              Follow
            </label>
          </div>
          <Button variant="outline" size="sm" disabled={logs.isFetching} onClick={() => void logs.refetch()}>
            <RefreshCw className={TOOL_ICON} aria-hidden="true" /> Refresh
          </Button>
          <Button variant="outline" size="sm" disabled={downloading} onClick={() => void download()} aria-describedby={`${id}-download`}>
            <Download className={TOOL_ICON} aria-hidden="true" /> {downloading ? 'Downloading...' : 'Download'}
          </Button>
          <span id={`${id}-download`} hidden>
            {`The last ${LOG_TAIL_MAX.toLocaleString('en-US')} lines as a text file`}
          </span>
        </div>
      </div>

      {downloadError && (
        <p role="alert" className="text-sm text-destructive">
          {downloadError}
        </p>
      )}
      {logs.isError && (
        <p role="alert" className="text-sm text-destructive">
          {logs.error.message}
        </p>
      )}
      {lines === undefined ? (
        logs.isPending && <Spinner label="Loading logs..." />
      ) : lines.length === 0 ? (
        <p className="py-8 text-center text-sm text-muted-foreground">No log lines yet</p>
      ) : (
        <>
          {query && (
            <p role="status" className="text-sm text-muted-foreground">
              {shown.length === 0
                ? `No shown line matches "${query}"`
                : `${plural(shown.length, 'line', 'lines')} of ${lines.length.toLocaleString('en-US')} match`}
            </p>
          )}
          {shown.length > 0 && (
            // Focusable, so that a keyboard can scroll it; opened at its end, the newest lines, as a log is read.
            <pre
              ref={box}
              tabIndex={0}
              aria-label="Log lines"
              onScroll={(e) => {
                const el = e.currentTarget;
                atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
              }}
              className="max-h-96 overflow-auto rounded-md bg-muted p-3 font-mono text-xs leading-relaxed"
            >
              {shown.map((line, i) => (
                <Fragment key={i}>
                  {query ? highlight(line, query) : line}
                  {i < shown.length - 1 && '\n'}
                </Fragment>
              ))}
            </pre>
          )}
        </>
      )}

      {following && (
        <p id={`${id}-following`} className="text-xs text-muted-foreground">
          {`Following: new lines are read every ${LOG_FOLLOW_SECONDS} seconds, for up to ${LOG_FOLLOW_MINUTES} minutes.`}
        </p>
      )}
      {gap && (
        <p className="text-xs text-muted-foreground">
          {`Some lines came faster than they can be followed and are not shown. Download has the last ${LOG_TAIL_MAX.toLocaleString('en-US')}.`}
        </p>
      )}
      {followEnd && (
        <div className="flex flex-wrap items-center gap-2">
          {followEnd.kind === 'time' ? (
            <p role="status" className="text-sm">
              {`Following stopped after ${LOG_FOLLOW_MINUTES} minutes.`}
            </p>
          ) : (
            <p role="alert" className="text-sm text-destructive">
              {`Following stopped: ${followEnd.message}`}
            </p>
          )}
          <Button variant="outline" size="sm" onClick={followAgain}>
            Follow again
          </Button>
        </div>
      )}
      {/* New lines, told in moderation: a count, at most every ANNOUNCE_SECONDS, never the lines themselves. */}
      <p role="status" className="sr-only">
        {announcement}
      </p>
    </div>
  );
}

/** The line with each occurrence of the search marked. */
function highlight(line: string, query: string): ReactNode {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [start, end] of matchRanges(line, query)) {
    if (start > at) parts.push(line.slice(at, start));
    parts.push(
      <mark key={start} className="rounded-sm bg-primary text-primary-foreground">
        {line.slice(start, end)}
      </mark>,
    );
    at = end;
  }
  if (at < line.length) parts.push(line.slice(at));
  return parts;
}
