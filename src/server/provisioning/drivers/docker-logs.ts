/** The first byte of a frame's header: which stream its payload was written to. */
const STDOUT = 1;
const STDERR = 2;
const HEADER_BYTES = 8;

/**
 * The lines of a container's or service's log answer as the Engine API sends them without a TTY:
 * frames of an 8-byte header (stream, 3 zero bytes, payload length big-endian) and the payload.
 * Guarantees: every byte of every payload is in the result and nothing else (a final line without
 * its newline too); a frame may hold several lines and a line may span frames, each stream's
 * pieces are joined apart from the other's, so an interleaved stderr frame never splits a stdout
 * line; lines come in the order their last piece arrived; UTF-8 split across frames is decoded whole.
 * Bytes that are no frame header where one is due (a TTY's raw stream) are taken as plain text
 * from there on, as docker-modem's demuxStream does.
 */
export function logLines(body: Buffer): string[] {
  const lines: string[] = [];
  const pending = new Map<number, Buffer[]>();
  const take = (stream: number, payload: Buffer) => {
    let rest = payload;
    for (let nl = rest.indexOf(0x0a); nl >= 0; nl = rest.indexOf(0x0a)) {
      lines.push(Buffer.concat([...(pending.get(stream) ?? []), rest.subarray(0, nl)]).toString('utf8'));
      pending.delete(stream);
      rest = rest.subarray(nl + 1);
    }
    if (rest.length) pending.set(stream, [...(pending.get(stream) ?? []), rest]);
  };
  let at = 0;
  while (at < body.length) {
    const stream = body[at]!;
    if (body.length - at < HEADER_BYTES || (stream !== STDOUT && stream !== STDERR) || body.readUIntBE(at + 1, 3) !== 0) {
      // NOTE: not a frame (a TTY's raw stream is never framed): the rest as it is.
      take(0, body.subarray(at));
      break;
    }
    const end = at + HEADER_BYTES + body.readUInt32BE(at + 4);
    // A payload cut short (the engine stopped mid-frame) keeps what arrived.
    take(stream, body.subarray(at + HEADER_BYTES, Math.min(end, body.length)));
    at = end;
  }
  for (const pieces of pending.values()) lines.push(Buffer.concat(pieces).toString('utf8'));
  return lines;
}
