import { useRef, useState } from 'react';

/**
 * Which fields a person has been through, for forms whose messages wait for it: a field counts
 * once focus leaves it after they clicked, typed or pasted in it. A dialog's own first focus is
 * no touch, so choosing a plan does not make an untouched name field speak.
 */
export function useTouchedFields<F extends string>() {
  const [touched, setTouched] = useState<ReadonlySet<F>>(new Set());
  const engaged = useRef(new Set<F>());
  const engage = (field: F) => () => void engaged.current.add(field);
  return {
    isTouched: (field: F) => touched.has(field),
    /** Marks `fields` touched: a submit shows every message at once. */
    touchAll: (fields: readonly F[]) => setTouched((s) => new Set([...s, ...fields])),
    /** Handlers for the field's wrapper: focus and input events bubble up from its control. */
    track: (field: F) => ({
      onPointerDown: engage(field),
      onKeyDown: engage(field),
      onInput: engage(field),
      onBlur: () => {
        if (engaged.current.has(field)) setTouched((s) => (s.has(field) ? s : new Set(s).add(field)));
      },
    }),
  };
}
