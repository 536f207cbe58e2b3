/**
 * Restart, Stop and Start of a service's node (issue 36, item 1; migration 0047): the actions, their
 * limit, and the words of the buttons, dialogs, toasts, events and the database's refusals, once.
 * The SQL function public.service_power_action raises `powerMessages` word for word.
 */
export const POWER_ACTIONS = ['restart', 'stop', 'start'] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

/** Power actions per service within any hour, its owner's and admins' together. */
export const POWER_ACTIONS_PER_HOUR = 10;

export const powerMessages = {
  badAction: 'p_action must be restart, stop or start',
  deleting: 'Service is currently being deleted...',
  installing: 'The node is still being installed',
  failed: 'The installation failed: retry it first',
  suspended: 'This service is suspended: its node stays stopped until the service is renewed',
  expired: 'This service has expired: its node stays stopped until the service is extended',
  stoppedNoRestart: 'The node is stopped: start it instead',
  alreadyStopped: 'The node is already stopped',
  alreadyRunning: 'The node is already running',
  tooMany: (minutes: number) =>
    `At most ${POWER_ACTIONS_PER_HOUR} power actions an hour per service: try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`,
} as const;

type ActionTexts = {
  /** The button. */
  label: string;
  pending: string;
  /** The toast once the server took it. */
  done: string;
  doneText: (name: string) => string;
  /** A refusal that did not come from the server (the request was lost). */
  failed: string;
};

export const powerTexts: Record<PowerAction, ActionTexts> = {
  restart: {
    label: 'Restart',
    pending: 'Restarting...',
    done: 'Restart requested',
    doneText: (name) => `${name} stops and starts again in a moment.`,
    failed: 'Failed to restart the node',
  },
  stop: {
    label: 'Stop',
    pending: 'Stopping...',
    done: 'Stop requested',
    doneText: (name) => `${name} stops in a moment and stays stopped until it is started. Its paid period keeps running.`,
    failed: 'Failed to stop the node',
  },
  start: {
    label: 'Start',
    pending: 'Starting...',
    done: 'Start requested',
    doneText: (name) => `${name} starts in a moment.`,
    failed: 'Failed to start the node',
  },
};

/** The confirmations of the two actions that take a running node down (Start needs none). */
export const powerConfirm = {
  restart: {
    title: (name: string) => `Restart ${name}?`,
    description: 'The node stops and starts again at once. It is offline for a moment, usually under a minute.',
    confirm: 'Restart node',
  },
  stop: {
    title: (name: string) => `Stop ${name}?`,
    description:
      'The node stops and stays stopped until it is started again: it earns nothing while stopped. Your paid period keeps running, and the service renews as before.',
    confirm: 'Stop node',
  },
} as const;

/** Read beside the buttons when the power state could not be read. */
export const POWER_LOAD_FAILED = 'Failed to load the power actions.';

/** What a power event's detail carries: who asked (owner or admin), and for a failure, which action. */
export type PowerEventDetail = { by?: string; action?: string };

const BY = (d: PowerEventDetail) => (d.by === 'admin' ? 'by an admin' : 'by you');
const FAILED: Record<string, string> = { restart: 'restarted', stop: 'stopped', start: 'started' };

/** A power event as its owner reads it ("Stopped by you"), or undefined for an event that is not one. */
export function powerEventText(event: string, detail: PowerEventDetail | null | undefined): string | undefined {
  const d = detail ?? {};
  switch (event) {
    case 'power_restart':
      return `Restarted ${BY(d)}`;
    case 'power_stop':
      return `Stopped ${BY(d)}`;
    case 'power_start':
      return `Started ${BY(d)}`;
    case 'power_failed':
      return `The node could not be ${(d.action ? FAILED[d.action] : undefined) ?? 'powered'}`;
    case 'power_kept_stopped':
      return 'Kept stopped, as it was stopped on request: start it to run it again';
    default:
      return undefined;
  }
}
