import { afterAll } from 'vitest';
import { closeSharedPages } from './app';

// A spec file's pages end with it, though its server and browser serve the next file.
afterAll(closeSharedPages);
