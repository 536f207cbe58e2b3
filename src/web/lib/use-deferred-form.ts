import { useCallback, useEffect, useRef, type FormEvent } from 'react';
import type { FieldValues, Path, PathValue, SubmitHandler, UseFormReturn } from 'react-hook-form';
import { formArrived } from './deferred-hydration';

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
const isTextOrSelect = (c: Element): c is Control =>
  (c instanceof HTMLInputElement && c.type !== 'checkbox' && c.type !== 'radio') || c instanceof HTMLTextAreaElement || c instanceof HTMLSelectElement;

/**
 * Writes what the fields show into the form's values, so the two never disagree. With `leftOnes`,
 * a filled field the visitor has already left is touched and checked, as it would have been had
 * the code been there when they typed.
 */
function adoptShownValues<T extends FieldValues>(form: UseFormReturn<T>, element: HTMLFormElement, leftOnes: boolean): void {
  const registered = form.getValues();
  for (const control of Array.from(element.elements)) {
    if (!isTextOrSelect(control) || !(control.name in registered)) continue;
    const name = control.name as Path<T>;
    const left = leftOnes && control.value !== '' && control !== document.activeElement;
    if (left || control.value !== form.getValues(name)) {
      form.setValue(name, control.value as PathValue<T, Path<T>>, { shouldDirty: true, shouldTouch: left, shouldValidate: left });
    }
  }
}

/**
 * The props of a react-hook-form <form> whose code may arrive after the visitor started (see
 * deferUntilInteraction). It validates and sends what the fields show: their values are read when
 * the code arrives and again on submit. A Send pressed before the code arrived is answered once it
 * has, and until then the browser's own submission does nothing (method="dialog" outside a dialog),
 * so the submit button can stay enabled from the first paint.
 */
export function useDeferredForm<T extends FieldValues>(form: UseFormReturn<T>, onValid: SubmitHandler<T>) {
  const element = useRef<HTMLFormElement | null>(null);
  const sendOnArrival = useRef(false);
  const ref = useCallback((el: HTMLFormElement | null) => {
    element.current = el;
    if (el && formArrived(el)) sendOnArrival.current = true;
  }, []);
  useEffect(() => {
    const el = element.current;
    if (!el) return;
    adoptShownValues(form, el, true);
    if (sendOnArrival.current) {
      sendOnArrival.current = false;
      el.requestSubmit();
    }
  }, [form]);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    adoptShownValues(form, e.currentTarget, false);
    return form.handleSubmit(onValid)(e);
  };
  return { ref, onSubmit, method: 'dialog' as const };
}
