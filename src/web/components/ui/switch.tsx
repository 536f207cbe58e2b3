import { Switch as S } from 'radix-ui';
import type { ComponentProps } from 'react';

export function Switch(props: ComponentProps<typeof S.Root>) {
  return (
    <S.Root
      className="relative h-6 w-11 shrink-0 rounded-full bg-muted transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring data-[state=checked]:bg-primary"
      {...props}
    >
      <S.Thumb className="block size-5 translate-x-0.5 rounded-full bg-background shadow transition-transform data-[state=checked]:translate-x-5" />
    </S.Root>
  );
}
