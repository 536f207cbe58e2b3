/**
 * What the web app's banner on every page and the server's start line say when the built-in test
 * payment provider was chosen on purpose (PAYMENTS_PROVIDER=test): its buyers approve their own
 * payments, so credit bought through it costs nothing.
 */
export const TEST_PAYMENTS_NOTICE = 'TEST PAYMENTS: credit is free';
