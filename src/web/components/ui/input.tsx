import type { ComponentProps } from 'react';

export const fieldClass =
  'flex w-full rounded-md border border-border bg-background px-3 py-2 text-sm placeholder:text-muted-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring disabled:opacity-60 aria-[invalid=true]:border-destructive';

// No tailwind-merge here either (see Card): className adds (an icon's left padding, a width),
// and a textarea's height comes from `rows`.
const join = (base: string, extra: string | undefined) => (extra ? `${base} ${extra}` : base);

export function Input({ className, ...props }: ComponentProps<'input'>) {
  return <input className={join(`${fieldClass} h-10`, className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  return <textarea className={join(fieldClass, className)} {...props} />;
}

export function NativeSelect({ className, ...props }: ComponentProps<'select'>) {
  return <select className={join(`${fieldClass} h-10`, className)} {...props} />;
}
