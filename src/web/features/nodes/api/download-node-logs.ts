import { LOG_TAIL_MAX, logsFileName } from '@shared/node-logs';
import { saveFile } from '@/lib/save-file';
import { readNodeLogs } from './get-node-logs';

const FALLBACK = 'The logs could not be downloaded. Please try again.';

/**
 * Saves the node's last LOG_TAIL_MAX lines as `<service name>-logs.txt`, read from the server
 * (redacted there) rather than copied from the dialog, which shows fewer. Throws an Error with the
 * function's message, or a fallback, when they do not arrive.
 */
export async function downloadNodeLogs(serviceId: string, serviceName: string): Promise<void> {
  const { lines } = await readNodeLogs(serviceId, { tail: LOG_TAIL_MAX }, FALLBACK);
  // A final newline, as a text file's last line has.
  const text = lines.length ? `${lines.join('\n')}\n` : '';
  saveFile(new Blob([text], { type: 'text/plain;charset=utf-8' }), logsFileName(serviceName));
}
