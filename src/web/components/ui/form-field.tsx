import type { ComponentProps, ReactNode } from 'react';
import { Input } from './input';

/** A label, its control and the control's error message, tied together for assistive technology. */
export function FormField({ id, label, error, children }: { id: string; label: string; error?: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {error && (
        <p id={`${id}-error`} className="text-sm text-destructive">
          {error}
        </p>
      )}
    </div>
  );
}

/** aria props for a control whose error FormField shows. */
export function invalidProps(id: string, error: string | undefined) {
  return error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {};
}

/** An Input in its FormField: one id for the label, the control and the error message. */
export function InputField({ id, label, error, ...input }: { id: string; label: string; error?: string | undefined } & ComponentProps<typeof Input>) {
  return (
    <FormField id={id} label={label} error={error}>
      <Input id={id} {...input} {...invalidProps(id, error)} />
    </FormField>
  );
}
