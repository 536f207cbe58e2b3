/**
 * A cloud provider that rents NodeHarbor one server per node (the machine driver, issue 35). The
 * provider is the engine, as Swarm is for containers: it places, boots, powers and deletes
 * servers; NodeHarbor asks and watches. A second provider (DigitalOcean, Vultr) is one more module
 * implementing this, picked by MACHINE_PROVIDER; nothing else changes.
 */

/** What a new server is made of: the product's settings, our labels and the boot script. */
export type MachineSpec = {
  name: string;
  /** The provider's server type (Hetzner: "cx23"). */
  serverType: string;
  /** The provider's image name (Hetzner: "debian-12"). */
  image: string;
  location: string;
  /** The cloud-init user data: a boot script that holds no secret but a one-time token. */
  userData: string;
  labels: Readonly<Record<string, string>>;
  /** The operator's SSH keys and firewalls, by the provider's name or id. */
  sshKeys: readonly string[];
  firewalls: readonly string[];
};

/** A server as the provider reports it, in the provider's own words for its status. */
export type Machine = {
  id: string;
  name: string;
  /** Hetzner: initializing, starting, running, stopping, off, deleting, migrating, rebuilding, unknown. */
  status: string;
  location: string;
  ipv4: string | null;
  labels: Readonly<Record<string, string>>;
  created: Date;
};

/**
 * Why a provider call failed, sorted by what the caller does about it: wait until `retryAt` and
 * ask again (`rate_limited`), try the product's next location (`capacity`), treat as done when
 * deleting (`not_found`), or stop with the provider's message (everything else).
 */
export type ProviderErrorKind = 'rate_limited' | 'capacity' | 'not_found' | 'unauthorized' | 'invalid' | 'unavailable';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    /** The provider's own error code (Hetzner: "resource_unavailable"). */
    readonly code: string,
    /** When a rate-limited call may be made again. */
    readonly retryAt?: Date,
  ) {
    super(message);
  }
}

export interface MachineProvider {
  /** "hetzner": stored with each machine, shown to the operator. */
  readonly name: string;
  /** Creates the server and waits for the provider's create action to end; throws ProviderError. */
  create(spec: MachineSpec): Promise<Machine>;
  /** The server, or null when the provider has none with this id. */
  get(id: string): Promise<Machine | null>;
  /** Every server carrying all of these labels, across the provider's pages. */
  list(labels: Readonly<Record<string, string>>): Promise<Machine[]>;
  /** Deletes the server and waits for it to go; a server that is not there is done. */
  delete(id: string): Promise<void>;
  /** Powers the server on or off and waits for the action; a server already so is done. */
  powerOn(id: string): Promise<void>;
  powerOff(id: string): Promise<void>;
}
