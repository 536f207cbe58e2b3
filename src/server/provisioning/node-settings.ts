/** How the worker runs and watches nodes, from the environment (README, Running real nodes). */
export type NodeSettings = {
  /** NODE_IMAGES: base_product_code → image, over the image on the product's row. */
  images: Readonly<Record<string, string>>;
  /** A node that has not run by then is a failed installation. */
  installTimeoutSeconds: number;
  /** How long a node's task must have run before its service is active. */
  settleSeconds: number;
  /** The node monitor samples every live node this often. */
  monitorIntervalSeconds: number;
  /** A node down (offline or restarting) longer than this mails its owner. */
  downAlertMinutes: number;
  /** At most this many node-down e-mails per owner per hour; incidents past it are recorded without one. */
  alertsPerHour: number;
};
