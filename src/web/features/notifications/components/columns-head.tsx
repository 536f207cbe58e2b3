import type { Column } from './columns';

/** The header row of the matrix and of the services' switches: what the rows are, a column per channel, and an optional last one. */
export function ColumnsHead({ rows, columns, last }: { rows: string; columns: Column[]; last?: string }) {
  return (
    <thead>
      <tr className="text-muted-foreground">
        <th scope="col" className="sticky left-0 z-10 bg-card py-2 pr-3 text-left font-medium">
          {rows}
        </th>
        {columns.map((c) => (
          <th key={c.ref} scope="col" className="max-w-32 break-words px-2 py-2 text-center font-medium">
            {c.label}
          </th>
        ))}
        {last && (
          <th scope="col" className="px-2 py-2 text-center font-medium">
            {last}
          </th>
        )}
      </tr>
    </thead>
  );
}
