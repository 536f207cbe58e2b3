import type { ComponentProps, HTMLAttributes, MouseEvent, ReactNode } from 'react';
import { Input } from './input';

type WrapperProps = Omit<HTMLAttributes<HTMLDivElement>, 'className' | 'children'>;

/**
 * A label, its control and the control's one error message, tied together for assistive
 * technology. `wrapper` props reach the element around them (e.g. useTouchedFields' handlers).
 */
export function FormField({
  id,
  label,
  error,
  wrapper,
  children,
}: {
  id: string;
  label: string;
  error?: string | undefined;
  wrapper?: WrapperProps;
  children: ReactNode;
}) {
  return (
    <div className="space-y-1.5" {...wrapper}>
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
export function InputField({
  id,
  label,
  error,
  wrapper,
  ...input
}: { id: string; label: string; error?: string | undefined; wrapper?: WrapperProps } & ComponentProps<typeof Input>) {
  return (
    <FormField id={id} label={label} error={error} wrapper={wrapper}>
      <Input id={id} {...input} {...invalidProps(id, error)} />
    </FormField>
  );
}

/**
 * For the submit button of a form whose fields speak when left: pressing it keeps the focus where
 * it is, so the message of the field being left cannot push the button away between press and
 * release, which would lose the click. Submitting checks every field anyway.
 */
export const keepFocusOnPress = { onMouseDown: (e: MouseEvent) => e.preventDefault() };
