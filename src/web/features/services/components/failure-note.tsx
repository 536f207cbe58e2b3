import { installFailureText } from '@shared/install-failure';
import type { Service } from '../api/types';

/** Why a failed installation failed, in its owner's words: the engine's reason is the admins' (issue 36, item 7). */
export function FailureNote({ service }: { service: Service }) {
  return <p className="break-words rounded-md border border-destructive/40 p-2 text-sm">{installFailureText(service.failure_cause)}</p>;
}
