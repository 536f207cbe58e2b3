/** "1–50 of 123": which rows of how many this page shows. */
export function PageCount({ offset, shown, total }: { offset: number; shown: number; total: number }) {
  return (
    <p className="text-sm text-muted-foreground">
      {offset + 1}–{offset + shown} of {total}
    </p>
  );
}
