/**
 * A long text cut to `max` characters, whole while hovered or focused (and always for assistive
 * technology). The cell grows in place rather than showing a tooltip: a tooltip closes as soon as
 * its table's box scrolls, which focusing a cell off to the side of a narrow screen does.
 */
export function Truncated({ text, max }: { text: string; max: number }) {
  if (text.length <= max) return <span className="whitespace-nowrap">{text}</span>;
  return (
    <span tabIndex={0} title={text} className="group rounded-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring">
      <span aria-hidden="true" className="whitespace-nowrap group-hover:hidden group-focus:hidden">{`${text.slice(0, max - 1)}…`}</span>
      <span className="sr-only break-all group-hover:not-sr-only group-hover:block group-hover:min-w-64 group-focus:not-sr-only group-focus:block group-focus:min-w-64">
        {text}
      </span>
    </span>
  );
}
