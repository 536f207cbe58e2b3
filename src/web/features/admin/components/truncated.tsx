import { Tooltip } from '@/components/ui/tooltip';

/** A long text cut to `max` characters, whole on hover and on focus (and for assistive technology). */
export function Truncated({ text, max }: { text: string; max: number }) {
  if (text.length <= max) return <span className="break-all">{text}</span>;
  return (
    <Tooltip content={text}>
      <span className="whitespace-nowrap">{`${text.slice(0, max - 1)}…`}</span>
    </Tooltip>
  );
}
