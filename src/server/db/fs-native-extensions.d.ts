// fs-native-extensions ships no types; the one function we use (decision 026).
declare module 'fs-native-extensions' {
  /** An exclusive lock on the whole file, without waiting: false while another open file description holds one. */
  export function tryLock(fd: number): boolean;
}
