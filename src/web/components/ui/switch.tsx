import { Switch as S } from 'radix-ui';
import type { ComponentProps } from 'react';

// NOTE: the unchecked track is a grey of 3:1 against the card in both themes (WCAG 1.4.11): the
// muted background it had was all but invisible on the dark theme's cards.
export function Switch(props: ComponentProps<typeof S.Root>) {
  return (
    <S.Root
      className="relative h-6 w-11 shrink-0 rounded-full bg-muted-foreground/70 transition-colors disabled:opacity-60 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring data-[state=checked]:bg-primary"
      {...props}
    >
      <S.Thumb className="block size-5 translate-x-0.5 rounded-full bg-background shadow transition-transform data-[state=checked]:translate-x-5" />
    </S.Root>
  );
}
