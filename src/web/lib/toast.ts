/**
 * Toasts through sonner, loaded on first use: most visits to public pages never show one.
 * The first toast asks <ToastHost> to mount the Toaster and waits until it listens.
 */
type Kind = 'success' | 'error' | 'warning';

let mountToaster: (() => void) | undefined;
let markReady: () => void = () => undefined;
const ready = new Promise<void>((resolve) => (markReady = resolve));

/** Called by ToastHost: how to mount the Toaster. */
export function registerToastHost(mount: () => void): void {
  mountToaster = mount;
}

/** Called by the Toaster once it listens. */
export function toasterReady(): void {
  markReady();
}

function show(kind: Kind, title: string, description?: string): void {
  mountToaster?.();
  void Promise.all([import('sonner'), ready]).then(([{ toast }]) => toast[kind](title, { description }));
}

export const toast = {
  success: (title: string, description?: string) => show('success', title, description),
  error: (title: string, description?: string) => show('error', title, description),
  warning: (title: string, description?: string) => show('warning', title, description),
};
